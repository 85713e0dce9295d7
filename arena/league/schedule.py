"""The schedule of a league: round robin over every table of k entrants.

Each table plays one match per round. A match covers every seat rotation, and its
deals are duplicated: the same seed is replayed in each of the k rotations, so every
entrant plays every hand from every seat and the luck of the deal cancels out.
Everything is derived from the league's seed, so the schedule is the same on every run:
a match is identified by (round, table) and its seed never changes.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import hashlib


def derive_seed(*parts: Any) -> int:  # placeholder until the league derives from its secret
    return int.from_bytes(hashlib.sha256(":".join(map(str, parts)).encode()).digest()[:4], "big") & 0x7FFF_FFFF

FAILURE_POLICIES = ("last", "exclude")


@dataclasses.dataclass(frozen=True)
class ScheduleOptions:
    deals: int = 1  # distinct deals per match; each is played in all k rotations
    seed: int = 0
    decision_ms: int = 1000
    bank_ms: int = 10_000
    startup_ms: int = 15_000
    max_restarts: int = 2
    failures: str = "last"
    """How a game with a failed seat counts in the ratings: ``last`` (the failed seat
    ranks last, as the referee ranked it, and the game is rated like any other) or
    ``exclude`` (games in which any seat failed are not rated at all)."""

    def __post_init__(self) -> None:
        if self.deals < 1:
            raise ValueError(f"deals must be at least 1, got {self.deals}")
        if self.failures not in FAILURE_POLICIES:
            raise ValueError(f"failures must be one of {', '.join(FAILURE_POLICIES)}, got {self.failures!r}")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScheduleOptions:
        return cls(**{k: v for k, v in data.items() if k in {f.name for f in dataclasses.fields(cls)}})

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Slot:
    """One match of the schedule."""

    round: int
    table: tuple[int, ...]  # bot ids, sorted
    seed: int
    order: int  # position in the schedule: the order in which results are rated

    @property
    def key(self) -> str:
        return ",".join(map(str, self.table))


def schedule(bot_ids: list[int], players: int, rounds: int, options: ScheduleOptions) -> list[Slot]:
    """Every match of rounds 0..rounds-1, in a fixed order."""
    tables = list(itertools.combinations(sorted(bot_ids), players))
    slots = []
    for r in range(rounds):
        for table in tables:
            key = ",".join(map(str, table))
            slots.append(Slot(r, table, derive_seed(options.seed, "match", r, key), len(slots)))
    return slots


def games_per_match(players: int, options: ScheduleOptions) -> int:
    return players * options.deals
