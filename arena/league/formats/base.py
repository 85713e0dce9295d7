"""What every format shares: the stored results it decides from, a cycle's order, the protocol.

A format reads what a league stored as :class:`Played` and says which slots it plays
(:class:`LeagueFormat`); a format that pairs by results orders a cycle's bots with
:func:`cycle_order`. The formats themselves are this package's other modules (``__init__.py``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy import select

from ...store import Game, Match, Store
from ..schedule import ScheduleOptions, Slot


@dataclass(frozen=True)
class GameResult:
    """One stored game, as a format reads it."""

    seats: tuple[int, ...]  # bot ids by seat
    ranks: tuple[int, ...]  # 1 is best; a failed seat last
    scores: tuple[int, ...]


@dataclass(frozen=True)
class Played:
    """What a league has stored: the games of each stored match, by (round, table key)."""

    matches: Mapping[tuple[int, str], Sequence[GameResult]] = field(default_factory=dict)

    def stored(self, slot: Slot) -> bool:
        return (slot.round, slot.key) in self.matches

    def cycle_complete(self, table: tuple[int, ...], cycle: int) -> bool:
        k = len(table)
        key = ",".join(map(str, table))
        return all((r, key) in self.matches for r in range(cycle * k, cycle * k + k))

    def cycle_games(self, table: tuple[int, ...], cycle: int) -> list[GameResult]:
        """Every stored game of a table's cycle, in round order."""
        k = len(table)
        key = ",".join(map(str, table))
        return [g for r in range(cycle * k, cycle * k + k) for g in self.matches.get((r, key), ())]


@dataclass(frozen=True, order=True)
class CycleScore:
    """A bot's result over one cycle of its table; sorts best first (see :func:`cycle_order`)."""

    mean_rank: float  # over the cycle's games: lower is better
    minus_score: float  # minus the mean score: higher scores sort first
    bot_id: int


def cycle_order(games: Sequence[GameResult]) -> list[CycleScore]:
    """The bots of a cycle's games, best first: by mean rank, then mean score, then bot id (the
    last only makes the order total; a format with seeds breaks a tie by seed, see
    :func:`ties`). Every bot of the table plays every game of its cycle."""
    ranks: dict[int, list[int]] = {}
    scores: dict[int, list[int]] = {}
    for game in games:
        for bot, rank, score in zip(game.seats, game.ranks, game.scores, strict=True):
            ranks.setdefault(bot, []).append(rank)
            scores.setdefault(bot, []).append(score)
    return sorted(CycleScore(sum(r) / len(r), -sum(scores[b]) / len(scores[b]), b) for b, r in ranks.items())


def ties(order: Sequence[CycleScore]) -> list[list[int]]:
    """The bot ids of :func:`cycle_order`'s result grouped by equal (mean rank, mean score)."""
    return [[c.bot_id for c in group] for _, group in itertools.groupby(order, lambda c: (c.mean_rank, c.minus_score))]


@dataclass(frozen=True)
class Field:
    """Who a format pairs, and what it may draw on."""

    entrants: tuple[int, ...]  # every bot ever entered (retired ones too), by id
    playing: frozenset[int]  # those that play new matches: not retired, not disqualified
    names: Mapping[int, str]  # each entrant's bot name (without its version), by id
    players: int  # per table
    options: ScheduleOptions
    secret: str  # the league's: a draw that must be unpredictable and the same on every run
    draw: Mapping[str, Any] = field(default_factory=dict)  # what the format drew before its first match

    @property
    def playing_ids(self) -> list[int]:
        return sorted(self.playing)


class LeagueFormat(Protocol):
    """What the runner (``../runner.py``), ``arena league status`` and the standings pages ask a
    format (see the package's doc)."""

    def draw(self, field: Field, ratings_of: Callable[[str], Mapping[int, float]]) -> dict[str, Any]:
        """What is fixed before the league's first match and never after (a bracket's seeding):
        the runner keeps it in the league's schedule JSON under ``"draw"`` and it comes back as
        ``field.draw``. ``ratings_of(league)`` is a league's conservative ratings (mu - 3 sigma)
        by bot id ("" : this league's). JSON-able."""
        ...

    def slots(self, field: Field, rounds: int, played: Played) -> list[Slot]:
        """Every slot the format plays up to ``rounds`` (its own unit: a round robin's rounds, a
        Swiss' rounds; a bracket ignores it and plays to its end) that the stored results decide
        now, stored or not, in the order to play them."""
        ...

    def planned_matches(self, field: Field, rounds: int) -> int | None:
        """How many matches a run to ``rounds`` plays in all, if known before it plays (progress,
        ``arena league status``); None if the results decide it."""
        ...

    def board(self, field: Field, played: Played) -> dict[str, Any] | None:
        """The format's own standings (a Swiss' points and tie-breaks, a bracket, a gauntlet's
        challengers against the field), JSON-able, bots by id; None if the leaderboard is all
        there is. ``played`` holds complete cycles only: a game of an open cycle is secret
        (``../cycles.py``), and so is anything computed from it."""
        ...

    def text(self, board: dict[str, Any], labels: Mapping[int, str]) -> list[str]:
        """:meth:`board`'s result as lines for a terminal (``arena league standings``), each bot
        by its label (name@version; the CLI escapes every line)."""
        ...


def played_from_rows(rows: Sequence[tuple[int, str, Sequence[int], Sequence[int], Sequence[int]]]) -> Played:
    """A :class:`Played` from (round, table key, seats, ranks, scores) rows, one per game."""
    matches: dict[tuple[int, str], list[GameResult]] = {}
    for round_, key, seats, ranks, scores in rows:
        matches.setdefault((round_, key), []).append(GameResult(tuple(seats), tuple(ranks), tuple(scores)))
    return Played(matches)


def read_played(store: Store, league_id: int) -> Played:
    """What league ``league_id`` has stored, as its format reads it."""
    with store() as session:
        rows = session.execute(select(Match.round, Match.table, Game.seats, Game.ranks, Game.scores)
                               .join(Game, Game.match_id == Match.id).where(Match.league_id == league_id)
                               .order_by(Match.round, Match.table, Game.index)).all()
    return played_from_rows([tuple(row) for row in rows])


def complete_cycles(played: Played, players: int) -> Played:
    """Only the matches of ``played`` whose table's cycle is all stored (what may be shown)."""
    keep = {(r, key) for r, key in played.matches
            if played.cycle_complete(tuple(int(b) for b in key.split(",")), r // players)}
    return Played({slot: games for slot, games in played.matches.items() if slot in keep})
