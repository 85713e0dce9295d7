-- Plays a random legal action in any game, over the stdio protocol (JSON lines).
io.stdout:setvbuf("line")  -- stdout is a pipe: one line out per answer
for line in io.lines() do
  if line:find('^{"type": "game_start"') then
    local seed = line:match('"seed": (%d+)')
    math.randomseed(tonumber(seed:sub(-9)))  -- the last digits: a Lua integer holds them
  elseif line:find('^{"type": "decision"') then
    local actions = {}
    for action in line:match('"legal": "([^"]*)"'):gmatch("%S+") do actions[#actions + 1] = action end
    io.write(actions[math.random(#actions)], "\n")
  end
end
