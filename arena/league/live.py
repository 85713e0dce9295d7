"""Matches being played: a ``LiveMatch`` row per match whose referee runs, for the web server.

The league runner writes the row as a match's referee starts and deletes it with the stored
match (in the same transaction), when the referee fails, and when the run ends however it
ends. A run killed with ``kill -9`` leaves its rows behind: the next run of that league
clears those of this host whose process is gone, and readers ignore them meanwhile
(:func:`running`). A row of another host is trusted: its process cannot be checked from here.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable

from sqlalchemy import delete, select

from ..store import LiveMatch, Store

HOST = socket.gethostname()


def alive(row: LiveMatch) -> bool:
    """Whether the process that wrote ``row`` may still be playing it."""
    if row.host != HOST:
        return True
    try:
        os.kill(row.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def running(rows: Iterable[LiveMatch]) -> list[LiveMatch]:
    """The rows of matches still being played (stale rows of dead processes left out)."""
    return [row for row in rows if alive(row)]


def clear_stale(store: Store, league_id: int) -> int:
    """Deletes the league's rows left by runs of this host that are gone; how many."""
    with store() as session, session.begin():
        stale = [row.id for row in session.scalars(select(LiveMatch).where(
            LiveMatch.league_id == league_id, LiveMatch.host == HOST)) if not alive(row)]
        if stale:
            session.execute(delete(LiveMatch).where(LiveMatch.id.in_(stale)))
    return len(stale)


def started(store: Store, league_id: int, round_: int, table: str, bots: list[int], record_dir: str) -> None:
    """This process plays the match at (round, table) now; a row another run left for that
    slot is replaced."""
    with store() as session, session.begin():
        session.execute(delete(LiveMatch).where(LiveMatch.league_id == league_id, LiveMatch.round == round_,
                                                LiveMatch.table == table))
        session.add(LiveMatch(league_id=league_id, round=round_, table=table, bots=bots, record_dir=record_dir,
                              host=HOST, pid=os.getpid()))


def mine(league_id: int, round_: int | None = None, table: str | None = None):
    """The DELETE of this process's rows of a league (of one slot, with round and table)."""
    query = delete(LiveMatch).where(LiveMatch.league_id == league_id, LiveMatch.host == HOST,
                                    LiveMatch.pid == os.getpid())
    if round_ is not None:
        query = query.where(LiveMatch.round == round_, LiveMatch.table == table)
    return query


def slot(league_id: int, round_: int, table: str):
    """The DELETE of the rows of one slot, whoever wrote them (a worker on another host too):
    once its match is stored, it is not being played."""
    return delete(LiveMatch).where(LiveMatch.league_id == league_id, LiveMatch.round == round_,
                                   LiveMatch.table == table)


def ended(store: Store, league_id: int, round_: int | None = None, table: str | None = None) -> None:
    """This process plays no more the match at (round, table), or none of the league's."""
    with store() as session, session.begin():
        session.execute(mine(league_id, round_, table))
