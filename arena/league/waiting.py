"""Waiting out a database or a broker that stops answering, saying so.

A league's runner and its workers hold results they cannot lose: a match played is worth
minutes of several machines. When the store or the broker goes away, they wait for it and
go on where they were, instead of dropping what they hold.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.exc import InterfaceError, OperationalError

from ..store import Store, StoreError

T = TypeVar("T")
WAIT = 2.0  # seconds between tries
DB_DOWN = (OperationalError, InterfaceError, StoreError)  # what a database that does not answer raises


def stderr(line: str) -> None:
    print(f"arena: {line}", file=sys.stderr, flush=True)


def retrying(action: Callable[[], T], what: str, errors: tuple[type[BaseException], ...],
             say: Callable[[str], None] = stderr, wait: float = WAIT) -> T:
    """``action()``, tried again every ``wait`` seconds while it raises one of ``errors``,
    saying so once as the waiting starts and once as ``what`` is back. Ctrl-C stops it."""
    down_since = None
    while True:
        try:
            result = action()
        except errors as exc:
            if down_since is None:
                down_since = time.monotonic()
                reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
                say(f"{what} does not answer ({reason[0] if reason else type(exc).__name__}); "
                    f"waiting for it, trying every {wait:g} s")
            time.sleep(wait)
            continue
        if down_since is not None:
            say(f"{what} answers again after {time.monotonic() - down_since:.0f} s; going on")
        return result


def store_name(store: Store) -> str:
    return f"the database at {store.engine.url.render_as_string(hide_password=True)}"


def with_store(store: Store, action: Callable[[], T], say: Callable[[str], None] = stderr) -> T:
    """``action()``, waiting while the store does not answer."""
    return retrying(action, store_name(store), DB_DOWN, say)
