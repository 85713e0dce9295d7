"""A bot that plays a uniformly random legal action, in any game.

To play better, pass your own arenabot.Strategy (its decide(view, legal_actions)) to run():
docs/writing-a-bot.md.
"""

from arenabot import run
from arenabot.strategies import RandomStrategy

if __name__ == "__main__":
    run(RandomStrategy(), name="{{name}}", version="{{version}}")
