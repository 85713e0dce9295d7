"""Duplicate-cycle secrecy: whether the games of a table's duplicate cycle may be shown yet.

The k matches of a table's duplicate cycle (rounds c·k to c·k + k − 1 at one table, k players
a table: ``schedule.py``; a ladder plays the same cycles, ``ladder.py``) deal the same cards in
k seat rotations. Until all k are stored, any game of the cycle shows cards that a match still
to be played will deal: another rotation, or the same match again (a match whose referee failed,
or whose run was stopped, is played again from its first game with the same deals). So a game
is public only once its **whole cycle is stored**, whether or not one of the cycle's matches is
running at that moment. A league stopped half way keeps its open cycles hidden until a later run
completes them; a cycle that is never completed (a ladder's with a bot retired mid-cycle, a round
robin run to a number of rounds that is not a multiple of k) stays hidden.

Hidden means: to everyone but each seat's owner, for that seat (what the referee sent it), the
game's views, events, actions, think times, length and result (docs/leagues.md, "Who sees what
before a cycle is stored"; who sees what is ``arena/access.py``'s to say). The web server
(``arena/web/games.py``; the bot pages through ``stats.py``), ``arena watch``
(``arena/watch.py``), ``arena bundle`` (``arena/bundle.py``) and ``arena show`` ask here whether
a cycle is all stored, then ask ``arena/access.py`` what that lets whom see.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from ..store import Match


@dataclass(frozen=True)
class Cycle:
    """A table's duplicate cycle, and which of its rounds are stored."""

    table: str  # the entrants' bot ids, sorted: "3,5,9" (``Match.table``)
    number: int
    players: int
    stored: frozenset[int]  # its rounds stored

    @property
    def rounds(self) -> range:
        return range(self.number * self.players, (self.number + 1) * self.players)

    @property
    def complete(self) -> bool:
        return all(r in self.stored for r in self.rounds)

    @property
    def missing(self) -> list[int]:
        return [r for r in self.rounds if r not in self.stored]

    def describe(self) -> str:
        """E.g. "cycle 0 of table 1,2,3 (rounds 0 to 2): 1 of its 3 matches stored"."""
        return (f"cycle {self.number} of table {self.table} (rounds {self.rounds.start} to {self.rounds.stop - 1}): "
                f"{len(self.stored)} of its {self.players} matches stored")


def players_of(table: str) -> int:
    """k, from a table's key: a table seats every one of its k entrants."""
    return table.count(",") + 1


def cycle_number(round_: int, table: str) -> int:
    return round_ // players_of(table)


def cycle_of(session: Any, league_id: int, round_: int, table: str) -> Cycle:
    """The cycle of the match at (``round_``, ``table``) of league ``league_id``, as stored now:
    one query on the matches' (league, round, table) index."""
    k = players_of(table)
    number = round_ // k
    stored = session.scalars(select(Match.round).where(
        Match.league_id == league_id, Match.table == table, Match.round >= number * k, Match.round < (number + 1) * k))
    return Cycle(table, number, k, frozenset(stored))


def complete_cycles(slots: Iterable[tuple[int, str]]) -> set[tuple[str, int]]:
    """(table, cycle number) of every complete cycle among the stored matches ``slots``
    ((round, table) each, each slot once: the store's unique (league, round, table))."""
    count = Counter((table, round_ // players_of(table)) for round_, table in slots)
    return {key for key, n in count.items() if n >= players_of(key[0])}
