"""A bot that takes known amounts of time, for the time control's tests.

    python3 clock.py FILE PLAN

PLAN says how long it sleeps at each of its decisions, game by game: ``300,250/400`` sleeps
300 ms at its first decision of game 0, 250 ms at its second, 400 ms at its first of game 1,
and answers every other decision at once. For each decision it appends to FILE, before it
sleeps, a JSON line of what the referee told it: ``{"game", "decision" (its own count in the
game, from 1), "time_left_ms", "bank_left_ms", "match_bank_left_ms"}``. It plays random legal
actions. Its count is kept by game index, so a fresh process of the bot (each rotation of a
duplicate match gets one) goes on with the plan.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from arenabot import run
from arenabot.strategies import RandomStrategy


class Clock(RandomStrategy):
    def __init__(self, path: str, plan: str) -> None:
        super().__init__()
        self.path = path
        self.plan = [[int(ms) for ms in game.split(",") if ms] for game in plan.split("/")]
        self.game, self.count = 0, 0

    def start_game(self, info: dict[str, Any]) -> None:
        super().start_game(info)
        self.game, self.count = info["game_index"], 0

    def decide(self, view: dict[str, Any], legal_actions: list[str]) -> str:
        self.count += 1
        with open(self.path, "a") as f:
            f.write(json.dumps({"game": self.game, "decision": self.count, "time_left_ms": self.time_left_ms,
                                "bank_left_ms": self.bank_left_ms,
                                "match_bank_left_ms": self.match_bank_left_ms}) + "\n")
        sleeps = self.plan[self.game] if self.game < len(self.plan) else []
        if self.count <= len(sleeps):
            time.sleep(sleeps[self.count - 1] / 1000)
        return super().decide(view, legal_actions)


if __name__ == "__main__":
    run(Clock(sys.argv[1], sys.argv[2]), name="clock", version="1")
