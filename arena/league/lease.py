"""One runner per league at a time: a lease in the store (``league_leases``).

``arena league run`` and ``arena ladder run`` (and a run started from the web server) take
their league's lease before they play anything, renew it every :data:`RENEW` seconds while they
run, and give it back when they end. Two runners of one league would play every match twice
(the store keeps one result of each, but the work is doubled), so a second runner, on this host
or another, is refused with the first one's host and process.

A lease is **stale**, and the next runner takes it over saying so, when

- its runner was of this host and its process is gone (kill -9, a crash, a reboot),
- it was not renewed for :data:`EXPIRES` seconds (a runner of another host, whose process cannot
  be checked from here, that was lost with its host or its network), or
- it is this very process's, and no run of it holds it any more (a run that stopped because the
  store's disk was full, and could not give it back: the server runs leagues in threads).

Times are the database's clock, read and written in the same statements, so hosts need not
agree on the time. Taking a lease is a single insert that the table's key lets only one runner
win, and taking over a stale one deletes exactly the row that was judged stale: of two runners
that start at once, one plays and one is refused. A runner that finds at a renewal that its lease
is gone (it could not reach the store for longer than :data:`EXPIRES`, and another runner took
over) starts no new match; :meth:`Lease.check` says so.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from referee.textlog import printable

from ..store import LeagueLease, Store, rows_changed
from . import LeagueError
from .live import HOST
from .waiting import DB_DOWN, DiskFull, stderr, with_store

RENEW = 10.0  # seconds between a runner's renewals of its lease
EXPIRES = 60.0  # seconds without a renewal after which a lease is stale (the only sign, for another host's)


class LeagueBusy(LeagueError):
    """The league is being run by another runner (the message names its host and process)."""


@dataclass(frozen=True)
class Holder:
    """Who holds a league's lease, as the store says."""

    host: str
    pid: int
    command: str
    started_at: datetime
    seconds_since_renewal: float
    left_here: bool = False  # a lease of this process that it no longer holds (a run that could not give it back)

    def words(self) -> str:
        where = "this host" if self.host == HOST else f"host {printable(self.host)}"
        return f"`arena {printable(self.command)}` on {where}, process {self.pid}"

    def since(self) -> str:
        started = self.started_at if self.started_at.tzinfo is None else self.started_at.astimezone(UTC)
        return f"{started:%Y-%m-%d %H:%M:%S} UTC"


def _process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # another user's process
        return False
    return False


_HELD: set[str] = set()  # the tokens of the leases this process holds now


def _holder(row: LeagueLease, now: datetime) -> Holder:
    mine = row.host == HOST and row.pid == os.getpid()
    return Holder(row.host, row.pid, row.command, row.started_at, _seconds(now, row.renewed_at),
                  left_here=mine and row.token not in _HELD)


def _now(session: Session) -> datetime:
    """The database's clock (a lease's times are all the database's)."""
    return session.execute(select(func.now())).scalar_one()


def _seconds(now: datetime, then: datetime) -> float:
    """``now - then`` in seconds, both from the database (SQLite gives naive UTC times)."""
    if (now.tzinfo is None) != (then.tzinfo is None):
        now, then = now.replace(tzinfo=None), then.replace(tzinfo=None)
    return (now - then).total_seconds()


def stale_because(holder: Holder, expires: float = EXPIRES) -> str:
    """Why a lease is stale, in words; "" when it is not."""
    if holder.host == HOST and _process_gone(holder.pid):
        return "its process is gone"
    if holder.left_here:
        return "its run ended without giving it back"
    if holder.seconds_since_renewal > expires:
        return f"it was not renewed for {holder.seconds_since_renewal:.0f} s"
    return ""


def holder(store: Store, league_id: int) -> Holder | None:
    """Who runs the league now: the holder of a lease that is not stale; None if nobody."""
    with store() as session:
        row = session.get(LeagueLease, league_id)
        if row is None:
            return None
        found = _holder(row, _now(session))
    return None if stale_because(found) else found


class Lease:
    """A league's lease, held by this runner until :meth:`release`; renewed by a thread of its own.
    A run that could not give it back (the store's disk was full) leaves it stale: its process is
    gone, or it is this process and no run of it holds it any more."""

    def __init__(self, store: Store, league_id: int, league: str, token: str) -> None:
        self.store, self.league_id, self.league, self.token = store, league_id, league, token
        self.lost: str = ""  # who holds it now, in words, once this runner found it gone
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._renew_until_released, name=f"lease-{league}", daemon=True)
        self._thread.start()

    def _renew_until_released(self) -> None:
        while not self._stop.wait(RENEW):
            try:
                self.renew()
            except DB_DOWN:
                continue  # the runner's own work says the store is down; it is renewed when it is back

    def renew(self) -> bool:
        """Renews the lease; False (and :attr:`lost` says to whom) if another runner took it over."""
        with self.store() as session, session.begin():
            renewed = rows_changed(session, update(LeagueLease).where(
                LeagueLease.league_id == self.league_id, LeagueLease.token == self.token)
                .values(renewed_at=func.now()))
            if renewed:
                return True
            row = session.get(LeagueLease, self.league_id)
            now = _now(session)
            self.lost = _holder(row, now).words() if row is not None else "nobody (it was deleted)"
        self._stop.set()
        return False

    def check(self) -> None:
        """Raises :class:`LeagueBusy` if this runner lost its lease: it must start no new match."""
        if self.lost:
            raise LeagueBusy(f"{printable(self.league)} lost its lease to {self.lost}: this run starts no new match "
                             "(what it stored is kept)")

    def release(self, wait: bool = True) -> None:
        """Gives the lease back (if this runner still holds it). ``wait``: while the store does
        not answer; without, one try (a run that stops because the store cannot be written:
        the lease is stale once this process is gone, or runs again)."""
        self._stop.set()
        _HELD.discard(self.token)

        def give_back() -> None:
            with self.store() as session, session.begin():
                session.execute(delete(LeagueLease).where(LeagueLease.league_id == self.league_id,
                                                          LeagueLease.token == self.token))

        if wait:
            with_store(self.store, give_back)
        else:
            with contextlib.suppress(*DB_DOWN):
                give_back()

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, traceback: object) -> None:
        self.release(wait=not isinstance(exc, DiskFull | KeyboardInterrupt))


def acquire(store: Store, league_id: int, league: str, command: str,
            say: Callable[[str], None] | None = stderr) -> Lease:
    """Takes the lease of league ``league_id`` for this process (``command``: "league run" or
    "ladder run"), taking over a stale one (``say`` tells it); :class:`LeagueBusy` if another
    runner holds it. Waits while the store does not answer."""
    token = secrets.token_hex(16)
    _HELD.add(token)  # before its row exists: no other thread of this process takes it for one left behind
    try:
        return with_store(store, lambda: _acquire(store, league_id, league, command, say, token))
    except BaseException:
        _HELD.discard(token)
        raise


def _acquire(store: Store, league_id: int, league: str, command: str, say: Callable[[str], None] | None,
             token: str) -> Lease:
    while True:
        taken_over = ""
        try:
            with store() as session, session.begin():
                row = session.get(LeagueLease, league_id)
                if row is not None:
                    found = _holder(row, _now(session))
                    why = stale_because(found)
                    if not why:
                        raise LeagueBusy(
                            f"league {printable(league)} is being run by {found.words()} (since {found.since()}, "
                            f"renewed {max(0.0, found.seconds_since_renewal):.0f} s ago): one runner per league; "
                            "wait for it to end, or stop it")
                    gone = rows_changed(session, delete(LeagueLease).where(LeagueLease.league_id == league_id,
                                                                           LeagueLease.token == row.token))
                    if not gone:
                        continue  # another runner took it over first: look again
                    taken_over = f"taking over the lease of league {printable(league)} from {found.words()}: {why}"
                session.add(LeagueLease(league_id=league_id, token=token, host=HOST, pid=os.getpid(),
                                        command=command, started_at=func.now(), renewed_at=func.now()))
        except IntegrityError:
            continue  # another runner inserted its lease first: look again (it is refused, or stale)
        if taken_over and say is not None:
            say(taken_over)
        return Lease(store, league_id, league, token)
