"""``round-robin``: every table of k entrants plays one match a round, so every k rounds is a
duplicate cycle of every table (``schedule.py``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from math import comb
from typing import Any

from ..schedule import Slot, schedule
from .base import Field, Played


class RoundRobin:
    def draw(self, field: Field, ratings_of: Callable[[str], Mapping[int, float]]) -> dict[str, Any]:
        return {}

    def slots(self, field: Field, rounds: int, played: Played) -> list[Slot]:
        return schedule(field.playing_ids, field.players, rounds)

    def planned_matches(self, field: Field, rounds: int) -> int | None:
        return rounds * comb(len(field.playing), field.players)

    def board(self, field: Field, played: Played) -> dict[str, Any] | None:
        return None  # the leaderboard and the crosstable are a round robin's standings

    def text(self, board: dict[str, Any], labels: Mapping[int, str]) -> list[str]:
        return []
