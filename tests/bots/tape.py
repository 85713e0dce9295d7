"""A bot that writes down everything its strategy is told, for the same-data test.

    python3 tape.py FILE

Its strategy (:class:`Tape`) plays random legal actions, seeded as every strategy is, and
appends each call it gets, with the data passed, to FILE, pickled so that every type is
kept: ``("start_game", info)``, ``("decide", view, legal_actions)``, ``("end_game", result)``.
tests/referee/test_same_data.py runs the same class inside the referee and compares.
"""

from __future__ import annotations

import pickle
import sys
from typing import Any

from arenabot import run
from arenabot.strategies import RandomStrategy


class Tape(RandomStrategy):
    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def _write(self, *entry: Any) -> None:
        with open(self.path, "ab") as f:
            pickle.dump(entry, f)

    def start_game(self, info: dict[str, Any]) -> None:
        super().start_game(info)
        self._write("start_game", info)

    def decide(self, view: dict[str, Any], legal_actions: list[str]) -> str:
        self._write("decide", view, legal_actions)
        return super().decide(view, legal_actions)

    def end_game(self, result: dict[str, Any]) -> None:
        self._write("end_game", result)


def read_tape(path: str) -> list[tuple]:
    entries = []
    with open(path, "rb") as f:
        while True:
            try:
                entries.append(pickle.load(f))
            except EOFError:
                return entries


if __name__ == "__main__":
    run(Tape(sys.argv[1]), name="tape", version="1")
