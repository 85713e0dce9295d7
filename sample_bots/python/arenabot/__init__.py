"""arenabot: the Python bot kit for Arena.

Write ``decide(view, legal_actions)``; the kit connects to the referee, loops over
its requests and answers with your choices. See ``docs/writing-a-bot.md``.
"""
