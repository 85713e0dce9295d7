"""The audit log: who changed what, when, and from where (the ``audit_log`` table).

Three kinds of entries, so that no change goes unrecorded without anyone having to remember:

- ``http``: every state-changing request to the server (POST, PUT, PATCH, DELETE) by a signed-in
  account, whatever its outcome, and the successful ones of nobody signed in (a sign-in, a
  sign-up): the web server's middleware writes it (``arena/web/audit.py``) for every route,
  those of other modules too, with the method, the route's template (``/api/v1/bots/{bot_id}/retire``,
  never the raw path), its ids and the status. Refusals of nobody signed in are not recorded:
  they change nothing, and anyone could fill the log with them.
- ``cli``: each command of the command line that wrote to the store, as the operator, with the
  tables it wrote (``arena/cli/options.py``'s ``with_store``).
- A domain action's own readable entry (``bot.disqualify``, ``user.disable``, ``league.create``,
  ``submission.create``, ...), written by the function that does it, in its transaction, with
  :func:`record`.

Never a secret: no request body, query string, header or cookie is read; a detail's keys that
name a secret (password, token, code, secret, csrf, key) are replaced, and so is any value that
looks like an API token. Retention: :func:`prune` drops entries older than ``days`` and keeps at
most ``max_rows`` (the server calls it at most once an hour; defaults in ``WebSettings``).
"""

from __future__ import annotations

import getpass
import logging
import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from .store import AuditEntry, Store, User, rows_changed

OPERATOR = "operator"  # the actor of the command line (who holds the store)
NOBODY = "-"
SECRET_KEY = re.compile(r"pass|token|secret|code|csrf|key|cookie|session", re.IGNORECASE)
SECRET_VALUE = re.compile(r"arena_[A-Za-z0-9_-]{16,}")  # an API token (accounts.TOKEN_PREFIX)
REDACTED = "[redacted]"
TEXT_CHARS = 500  # of any one text in an entry's detail
ACTIONS_CHARS, TARGET_CHARS = 64, 256


@dataclass(frozen=True)
class Context:
    """Where the changes being made come from: set per request by the web server, per command by
    the command line; :func:`record` reads it."""

    via: str  # "web", "api" or "cli"
    address: str  # the client's address; for the command line, user@host
    actor: str | None = None  # for the command line: the operator


_context: ContextVar[Context | None] = ContextVar("arena_audit_context", default=None)


@contextmanager
def acting(context: Context) -> Iterator[None]:
    """Changes made in this block (and the threads it runs work in) come from ``context``."""
    reset = _context.set(context)
    try:
        yield
    finally:
        _context.reset(reset)


def operator_context() -> Context:
    """The command line's: the operator, as the system user on this host."""
    try:
        user = getpass.getuser()
    except Exception:  # no user name (a container's uid): still the operator
        user = "?"
    return Context(via="cli", address=f"{user}@{socket.gethostname()}"[:128], actor=OPERATOR)


SYSTEM = Context(via="system", address="", actor="system")  # work of no request or command: a server's thread


def current() -> Context:
    return _context.get() or SYSTEM


# the statements that change a table, and which: what a command of the command line wrote
_WRITE = re.compile(r'^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?(\w+)', re.IGNORECASE)


@contextmanager
def command(store: Store, path: str) -> Iterator[None]:
    """Runs a command of the command line (``path``: "user disable") as the operator, and leaves
    one ``cli`` entry naming the tables it wrote, if it wrote any (its own statements only: not
    those of the server's requests or threads, which have their own context)."""
    from sqlalchemy import event

    context = operator_context()
    written: set[str] = set()

    def seen(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if _context.get() is context and (found := _WRITE.match(statement)) and found[1] != AuditEntry.__tablename__:
            written.add(found[1].lower())

    event.listen(store.engine, "before_cursor_execute", seen)
    try:
        with acting(context):
            yield
    finally:
        event.remove(store.engine, "before_cursor_execute", seen)
        if written:
            try:
                with acting(context), store() as session, session.begin():
                    record(session, None, "cli", route=path, detail={"tables": sorted(written)})
            except SQLAlchemyError as exc:  # the store failed under the command: its own error says so
                logging.getLogger(__name__).warning("could not write the audit entry of `arena %s`: %s", path, exc)


def clean(value: Any, depth: int = 0) -> Any:
    """``value`` fit for the log: secrets' keys and token-like texts replaced, texts capped."""
    if isinstance(value, dict):
        return {str(k)[:64]: REDACTED if SECRET_KEY.search(str(k)) else clean(v, depth + 1)
                for k, v in list(value.items())[:50]}
    if isinstance(value, list | tuple):
        return [clean(v, depth + 1) for v in list(value)[:50]]
    if isinstance(value, str):
        return SECRET_VALUE.sub(REDACTED, value[:TEXT_CHARS])
    if value is None or isinstance(value, bool | int | float):
        return value
    return clean(str(value))


def record(session: Session, actor_id: int | None, action: str, target: str = "",
           detail: dict[str, Any] | None = None, *, method: str = "", route: str = "",
           status: int | None = None) -> AuditEntry:
    """Adds an entry to the log in ``session``'s transaction (it is written if that commits):
    ``actor_id`` did ``action`` (``"bot.disqualify"``) to ``target`` (``"bot 12 (name@1)"``), with
    ``detail`` (no secrets: see :func:`clean`). ``actor_id`` None is the operator on the command
    line, or nobody signed in; where the request or command comes from is the current context's."""
    context = current()
    if actor_id is not None:
        actor = session.scalar(select(User.name).where(User.id == actor_id)) or f"#{actor_id}"
    else:
        actor = context.actor or NOBODY
    entry = AuditEntry(actor_id=actor_id, actor=actor[:128], via=context.via, address=context.address[:128],
                       action=action[:ACTIONS_CHARS], method=method[:8], route=clean(route)[:256],
                       target=clean(target)[:TARGET_CHARS], status=status, detail=clean(detail or {}))
    session.add(entry)
    return entry


def prune(store: Store, days: int, max_rows: int) -> int:
    """Drops entries older than ``days`` days, then all but the newest ``max_rows``; returns how many."""
    dropped = 0
    with store() as session, session.begin():
        cutoff = datetime.now(UTC) - timedelta(days=days)
        dropped += rows_changed(session, delete(AuditEntry).where(AuditEntry.at < cutoff))
        newest = session.scalar(select(func.max(AuditEntry.id)))
        if newest is not None and newest > max_rows:
            dropped += rows_changed(session, delete(AuditEntry).where(AuditEntry.id <= newest - max_rows))
    return dropped


def entries(store: Store, user: str | None = None, action: str | None = None, since: datetime | None = None,
            before: int | None = None, limit: int = 50) -> list[AuditEntry]:
    """The newest entries first: of account ``user`` (a name; ``operator`` for the command line's),
    whose action is or starts with ``action`` (``bot`` matches ``bot.disqualify``), since
    ``since``, with ids below ``before`` (the next page), at most ``limit``."""
    query = select(AuditEntry).order_by(AuditEntry.id.desc()).limit(limit)
    if user is not None:
        query = query.where(AuditEntry.actor == user)
    if action:
        query = query.where((AuditEntry.action == action) | AuditEntry.action.startswith(action.rstrip(".") + ".",
                                                                                         autoescape=True))
    if since is not None:
        query = query.where(AuditEntry.at >= since)
    if before is not None:
        query = query.where(AuditEntry.id < before)
    with store() as session:
        return list(session.scalars(query))
