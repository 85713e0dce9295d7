"""The simplest correct bot: always the first legal action, in any game."""

from arenabot import run

if __name__ == "__main__":
    run(lambda view, legal_actions: legal_actions[0], name="first-legal", version="1.0.0")
