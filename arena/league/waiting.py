"""Waiting out a database or a broker that stops answering, saying so.

A league's runner and its workers hold results they cannot lose: a match played is worth
minutes of several machines. When the store or the broker goes away, they wait for it and
go on where they were, instead of dropping what they hold.

Two things are not waited out for ever. A store written by a newer Arena
(:class:`~arena.store.StoreTooNew`) is refused at once: waiting cannot change it. A full disk
(the database's, or a records folder's: :func:`no_space`) is said as such and waited for
:data:`DISK_WAIT` seconds, in case space is freed, then :class:`DiskFull` is raised: every
transaction either committed whole or not at all, so what is stored stays, and a run stopped
this way plays the rest when it runs again.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from sqlalchemy.exc import InterfaceError, OperationalError

from ..store import Store, StoreError, StoreTooNew

T = TypeVar("T")
WAIT = 2.0  # seconds between tries
DB_DOWN = (OperationalError, InterfaceError, StoreError)  # what a database that does not answer raises
DISK_WAIT = 60.0  # seconds a full disk is waited for (space may be freed) before the run stops
DISK_ROOM = 16 * 2**20  # bytes free that let a match start on a records disk that was full: its records and logs
NOT_WAITED = (StoreTooNew,)  # errors among those waited out that waiting cannot help
SQLITE_FULL = 13  # sqlite3's error code for "database or disk is full"
POSTGRES_DISK_FULL = "53100"  # PostgreSQL's SQLSTATE disk_full
NO_SPACE_ERRNOS = (errno.ENOSPC, errno.EDQUOT)


class DiskFull(Exception):
    """No space left on a disk Arena writes to (the store's, a records folder's), waited for in
    vain; the message names the disk and says what to do."""


def no_space(exc: BaseException) -> bool:
    """Whether ``exc`` says a disk is full: an OSError ENOSPC (or a quota, EDQUOT), SQLite's
    SQLITE_FULL, PostgreSQL's disk_full, through SQLAlchemy's wrapper or not."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:  # the wrapped error, and what it was raised from
        seen.add(id(cause))
        if isinstance(cause, OSError) and cause.errno in NO_SPACE_ERRNOS:
            return True
        if getattr(cause, "sqlite_errorcode", None) == SQLITE_FULL:
            return True
        if getattr(cause, "sqlstate", None) == POSTGRES_DISK_FULL:
            return True
        cause = getattr(cause, "orig", None) or cause.__cause__
    return False


def stderr(line: str) -> None:
    print(f"arena: {line}", file=sys.stderr, flush=True)


def retrying(action: Callable[[], T], what: str, errors: tuple[type[BaseException], ...],
             say: Callable[[str], None] = stderr, wait: float = WAIT, disk: str | None = None) -> T:
    """``action()``, tried again every ``wait`` seconds while it raises one of ``errors``,
    saying so once as the waiting starts and once as ``what`` is back. Ctrl-C stops it.

    A store of a newer Arena is not waited for. A full disk is said as such (``disk``: where
    the disk is, e.g. the store's file) and waited for :data:`DISK_WAIT` seconds at most, then
    :class:`DiskFull` is raised."""
    down_since = full_since = None
    while True:
        try:
            result = action()
        except errors as exc:
            if isinstance(exc, NOT_WAITED):
                raise
            if no_space(exc):
                holding = disk or what
                if full_since is None:
                    full_since = time.monotonic()
                    say(f"no space left on the disk holding {holding}; trying again every {wait:g} s for up to "
                        f"{DISK_WAIT:g} s: free some space there to go on")
                elif time.monotonic() - full_since >= DISK_WAIT:
                    raise DiskFull(stopped(holding)) from None
                time.sleep(wait)
                continue
            full_since = None
            if down_since is None:
                down_since = time.monotonic()
                reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
                say(f"{what} does not answer ({reason[0] if reason else type(exc).__name__}); "
                    f"waiting for it, trying every {wait:g} s")
            time.sleep(wait)
            continue
        if full_since is not None:
            say(f"there is space on the disk holding {disk or what} again after {time.monotonic() - full_since:.0f} s; "
                "going on")
        elif down_since is not None:
            say(f"{what} answers again after {time.monotonic() - down_since:.0f} s; going on")
        return result


def stopped(holding: str) -> str:
    """Why a run stopped on a full disk, and what to do."""
    return (f"no space left on the disk holding {holding} (waited {DISK_WAIT:g} s): the run stopped. What was "
            "stored is kept, and the next run plays the rest; free some space there and run again")


def wait_for_room(folder: Path, say: Callable[[str], None] = stderr, wait: float = WAIT) -> bool:
    """Waits, :data:`DISK_WAIT` seconds at most, until the disk holding ``folder`` (where a
    referee found no space) has :data:`DISK_ROOM` bytes free, saying so; whether it has."""
    def free() -> int:
        try:
            st = os.statvfs(folder if folder.exists() else folder.parent)
        except OSError:
            return 0
        return st.f_bavail * st.f_frsize

    if free() >= DISK_ROOM:
        return True
    say(f"no space left on the disk holding {folder}; no match starts until it has {DISK_ROOM // 2**20} MiB free, "
        f"for up to {DISK_WAIT:g} s: free some space there to go on")
    deadline = time.monotonic() + DISK_WAIT
    while time.monotonic() < deadline:
        time.sleep(wait)
        if free() >= DISK_ROOM:
            say(f"there is space on the disk holding {folder} again; going on")
            return True
    return False


def finally_with_store(store: Store, action: Callable[[], object]) -> None:
    """``action()`` in a ``finally`` block: waiting while the store does not answer if the block
    ends well; one try, its errors dropped, if an error ends it (what that error says comes first;
    what ``action`` tidies is tidied by the next run)."""
    if sys.exc_info()[1] is None:
        with_store(store, action)
        return
    with contextlib.suppress(*DB_DOWN):
        action()


def store_name(store: Store) -> str:
    return f"the database at {store.engine.url.render_as_string(hide_password=True)}"


def store_disk(store: Store) -> str:
    """Where the store's disk is, in words: its file, for SQLite; else its server's."""
    url = store.engine.url
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        return f"the store {Path(url.database).resolve()}"
    return f"{store_name(store)} (on its server)"


def with_store(store: Store, action: Callable[[], T], say: Callable[[str], None] = stderr) -> T:
    """``action()``, waiting while the store does not answer (a full disk: a while only)."""
    return retrying(action, store_name(store), DB_DOWN, say, disk=store_disk(store))
