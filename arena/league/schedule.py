"""The schedule of a league: round robin over every table of k entrants, in duplicate cycles.

Each table plays one match per round, of G = k × deals games. Rounds come in *cycles* of k
(k = players per table): in round r, game i of table T's match plays deal i of (T, cycle
r // k) in seat rotation (i + r) mod k. Hence:

- every match puts every entrant in every seat ``deals`` times;
- over a cycle, each of the table's G deals is played once in each of the k rotations, so
  every entrant plays every hand from every seat and the luck of the deal cancels;
- the games of a match all have distinct deals, so a bot's container (one per bot per
  match) never sees a deal twice (ACPC's duplicate rule).

Deals and bot seeds come from the league's secret (see :mod:`referee.spec`): a match's deals
from ``derive_secret(league secret, "deals", table, cycle)``, shared by the k matches of the
cycle, and its bots' seeds from ``derive_secret(league secret, "bots", round, table)``. The
schedule is the same on every run: a match is identified by (round, table).
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any, Literal, get_args

from referee import limits
from referee.spec import TimeControl, derive_secret

# what a league may be told: the CLI's choices and the API's schema are built from these
FailurePolicy = Literal["last", "exclude"]
FAILURE_POLICIES: tuple[FailurePolicy, ...] = get_args(FailurePolicy)
Format = Literal["round-robin", "ladder", "swiss", "gauntlet", "knockout", "double-elimination"]
FORMATS: tuple[Format, ...] = get_args(Format)
LEAGUE_FORMATS: tuple[Format, ...] = tuple(f for f in FORMATS if f != "ladder")  # `arena league run` plays these


@dataclasses.dataclass(frozen=True)
class ScheduleOptions:
    """A league's options. Its defaults are every league's: the CLI's and the web's are built from
    :data:`DEFAULT_SCHEDULE`, the limits on a bot from referee/limits.py."""

    deals: int = 1  # games per match = deals x players; each deal is played in all rotations over a cycle
    decision_ms: int = limits.DECISION_MS
    bank_ms: int = limits.BANK_MS
    increment_ms: int = limits.INCREMENT_MS
    """Fischer increment: added to a seat's game bank after each decision it answers in time."""
    match_bank_ms: int = limits.MATCH_BANK_MS
    """A bank per bot for the whole match, spent once its game bank is (0: none)."""
    startup_ms: int = limits.LEAGUE_STARTUP_MS
    max_restarts: int = limits.MAX_RESTARTS
    failures: FailurePolicy = "last"
    """How a game with a failed seat counts in the ratings: ``last`` (the failed seat
    ranks last, as the referee ranked it, and the game is rated like any other) or
    ``exclude`` (games in which any seat failed are not rated at all)."""
    format: Format = "round-robin"
    """``ladder`` (``arena ladder run``: without end, each table picked by matchmaking.py), or
    one that ``arena league run`` plays: round-robin, swiss, gauntlet, knockout,
    double-elimination (``formats/``)."""
    challenger: str = ""
    """A gauntlet's challenger: the bot name whose versions each play the field (the others)."""
    seeds_from: str = ""
    """A bracket's seeding: the league whose ratings order the seeds ("" : this league's own)."""

    def __post_init__(self) -> None:
        if self.deals < 1:
            raise ValueError(f"deals must be at least 1, got {self.deals}")
        for name in ("decision_ms", "startup_ms"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("bank_ms", "increment_ms", "match_bank_ms"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative, got {getattr(self, name)}")
        if self.failures not in FAILURE_POLICIES:
            raise ValueError(f"failures must be one of {', '.join(FAILURE_POLICIES)}, got {self.failures!r}")
        if self.format not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {self.format!r}")
        if self.format == "gauntlet" and not self.challenger:
            raise ValueError("a gauntlet needs its challenger: the bot name whose versions play the field "
                             "(--challenger BOT)")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScheduleOptions:
        # leagues made before migration 0002 also hold a "seed": their deals now come from the league's secret
        return cls(**{k: v for k, v in data.items() if k in {f.name for f in dataclasses.fields(cls)}})

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def time_control(self) -> TimeControl:
        """The clock of the league's matches (every runner's: local, workers, the ladder, compare)."""
        return TimeControl(startup_ms=self.startup_ms, decision_ms=self.decision_ms, bank_ms=self.bank_ms,
                           increment_ms=self.increment_ms, match_bank_ms=self.match_bank_ms)


DEFAULT_SCHEDULE = ScheduleOptions()


@dataclasses.dataclass(frozen=True)
class Slot:
    """One match of the schedule."""

    round: int
    table: tuple[int, ...]  # bot ids, sorted

    @property
    def key(self) -> str:
        return ",".join(map(str, self.table))

    @property
    def cycle(self) -> int:
        """The table's duplicate cycle: k consecutive rounds that play the same deals."""
        return self.round // len(self.table)

    def plan(self, deals: int) -> list[tuple[str, int]]:
        """(deal label, rotation) of each game: distinct deals, every rotation ``deals`` times."""
        k = len(self.table)
        return [(f"c{self.cycle}d{i}", (i + self.round) % k) for i in range(k * deals)]

    def secrets(self, league_secret: str) -> tuple[str, str]:
        """The match's deal secret (one per table and cycle) and bot secret (one per match)."""
        return (derive_secret(league_secret, "deals", self.key, self.cycle),
                derive_secret(league_secret, "bots", self.round, self.key))


def schedule(bot_ids: list[int], players: int, rounds: int) -> list[Slot]:
    """Every match of rounds 0..rounds-1, in a fixed order."""
    tables = list(itertools.combinations(sorted(bot_ids), players))
    return [Slot(r, table) for r in range(rounds) for table in tables]


def games_per_match(players: int, options: ScheduleOptions) -> int:
    return players * options.deals
