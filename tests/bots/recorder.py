"""A bot that records every game it is dealt, for the duplicate-deal tests.

    python3 recorder.py

For each game it prints ``DEALT <process> <game index> <seat>`` to stderr, where
<process> is drawn once per process: the tests map game indices to deals (result.json)
and check that no process was dealt one deal twice. It plays random legal actions.
"""

from __future__ import annotations

import os
import sys

from arenabot import run
from arenabot.strategies import RandomStrategy

PROCESS = os.urandom(8).hex()


class Recorder(RandomStrategy):
    def start_game(self, info):
        super().start_game(info)
        print(f"DEALT {PROCESS} {info['game_index']} {info['seat']}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    run(Recorder(), name="recorder", version="1")
