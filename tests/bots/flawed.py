"""Bots with one flaw each, for the tests of `arena bot check` (tests/sandbox/test_check.py).

    python3 flawed.py FLAW NAME

Each says hello as NAME, version "1", plays random legal actions, exits at MatchEnd, and:
  none         nothing more: a correct bot
  named        says hello as NAME-other instead
  fourplayers  crashes (exit status 3) in a game of four players
  slow         burns CPU_MS of CPU time on each of its first three decisions of a game: within the
               time control alone on its core, over it with half of it
  memory       allocates 600 MiB at its first decision, over the container's limit of 512 MiB
  linger       does not exit at MatchEnd
"""

from __future__ import annotations

import os
import sys
import time

from arenabot import Strategy, run

FLAW, NAME = sys.argv[1], sys.argv[2]
CPU_MS = 100


class Flawed(Strategy):
    def start_game(self, info) -> None:
        super().start_game(info)
        self.players, self.decisions = info["num_players"], 0

    def decide(self, view, legal_actions):
        self.decisions += 1
        if FLAW == "fourplayers" and self.players == 4:
            os._exit(3)
        if FLAW == "slow" and self.decisions <= 3:
            start = time.process_time()
            while time.process_time() - start < CPU_MS / 1000:
                pass
        if FLAW == "memory":
            self.ballast = b"\1" * (600 << 20)  # written, so every page is held
        return self.rng.choice(legal_actions)


if __name__ == "__main__":
    run(Flawed(), name=f"{NAME}-other" if FLAW == "named" else NAME, version="1")
    if FLAW == "linger":
        time.sleep(3600)
