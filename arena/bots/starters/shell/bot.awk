# Plays a uniformly random legal action, in any game: the stdio protocol in awk, no JSON parser.
# Each line on stdin is one message; a decision's second key, "legal", lists its actions.
# Debian's awk (mawk) reads ahead unless it runs as `awk -W interactive`: see the Dockerfile.
/^\{"type": "game_start"/ {
    seed = $0
    sub(/.*"seed": /, "", seed)
    srand(substr(seed, 1, 9) + 0)  # the game's seed, its first 9 digits: awk's numbers are doubles
}
# Your strategy goes here: the view is on the same line (docs/protocol.md, "The stdio protocol").
/^\{"type": "decision"/ {
    legal = $0
    sub(/^\{"type": "decision", "legal": "/, "", legal)
    sub(/".*/, "", legal)
    n = split(legal, actions, " ")
    print actions[int(rand() * n) + 1]
    fflush()  # one line per decision, sent at once
}
