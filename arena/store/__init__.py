"""Opening the store: SQLite by default (WAL mode), any SQLAlchemy URL by ``--db`` or ``ARENA_DB``.

Opening also brings the schema up to date with Alembic, so a store made by an older
Arena is migrated in place and a new one is created from the migrations.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import Any, cast

from sqlalchemy import Connection, CursorResult, Delete, Engine, Update, create_engine, event, inspect
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from .models import (
    ApiToken,
    AuditEntry,
    Base,
    Bot,
    BotHealth,
    Entry,
    Game,
    ImageArchive,
    ImageChunk,
    Invite,
    League,
    LeagueLease,
    LiveMatch,
    Match,
    Notification,
    NotificationFeed,
    RankMark,
    Rating,
    RatingHistory,
    Scrimmage,
    ScrimmageGame,
    Submission,
    Team,
    TeamMember,
    User,
    Webhook,
    WebhookDelivery,
    WebSession,
    WorkerResult,
)

DEFAULT_URL = "sqlite:///runs/arena.db"
MIGRATIONS = Path(__file__).parent / "migrations"


class StoreError(Exception):
    """The store cannot be used; the message says why and which URL."""


class StoreTooNew(StoreError):
    """The store was written by a newer Arena: its schema is at a migration this one does not
    know. Nothing was changed; waiting does not help (:mod:`arena.league.waiting` does not)."""


def store_url(url: str | None = None) -> str:
    return url or os.environ.get("ARENA_DB") or DEFAULT_URL


class Store:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.session = sessionmaker(engine, expire_on_commit=False)

    def __call__(self) -> Session:
        return self.session()


def rows_changed(session: Session, statement: Update | Delete) -> int:
    """How many rows an UPDATE or DELETE matched: the session returns a CursorResult for it, which
    SQLAlchemy's overloads of ``execute`` type as a plain Result (without ``rowcount``)."""
    return cast("CursorResult[Any]", session.execute(statement)).rowcount


def open_store(url: str | None = None, create: bool = True) -> Store:
    """The store at ``url`` (see :func:`store_url`), its schema brought up to date.

    With ``create``, a database without Arena's tables (for SQLite: a file that does not exist
    yet, and its folders) becomes a new store. Without, that raises :class:`StoreError`, and
    nothing is created: for commands that only read.
    """
    url = store_url(url)
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError(f"{url!r} is not a database URL (e.g. sqlite:///arena.db, "
                         "postgresql+psycopg://user@host/db)") from None
    shown = parsed.render_as_string(hide_password=True)
    sqlite = parsed.get_backend_name() == "sqlite"
    options: dict = {}
    if sqlite:
        if parsed.database and parsed.database != ":memory:":
            path = Path(parsed.database)
            if create:
                path.parent.mkdir(parents=True, exist_ok=True)
            elif not path.is_file():  # connecting would create it
                raise StoreError(f"no store at {shown}: {path} does not exist{MAKE_ONE}")
        options["connect_args"] = {"timeout": 30}
    else:
        options["pool_pre_ping"] = True
        options["connect_args"] = {"connect_timeout": 10}
    try:
        engine = create_engine(url, **options)
    except (NoSuchModuleError, ModuleNotFoundError) as exc:
        raise StoreError(f"no driver for {shown}: {exc}") from None
    try:
        # before the SQLite pragmas, which would write to any file: a database that holds no
        # store, or a newer Arena's, is left exactly as it is
        versions = _check_store(engine, shown, exists=not create)
        if sqlite:
            event.listen(engine, "connect", _sqlite_pragmas)
        if versions != _heads():  # else the schema is the newest already: no need to load Alembic
            with engine.connect() as connection:
                _upgrade(connection)
    except OperationalError as exc:
        reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
        raise StoreError(f"cannot reach the database at {shown}: {reason}") from None
    except SQLAlchemyError as exc:
        raise StoreError(f"the database at {shown} cannot be used: {exc}") from None
    return Store(engine)


MAKE_ONE = "; `arena league create`, `arena bot submit` or `arena demo` makes one"


def _check_store(engine: Engine, shown: str, exists: bool) -> set[str]:
    """The migrations the store's schema is at (none: no store yet). Refuses, reading only, a
    database that holds no store (Alembic's table is the sign of one) when the store must
    ``exist``, and a store whose schema names a migration this Arena does not know: a newer
    Arena wrote it, and migrating it, or running on it, could only break it."""
    with engine.connect() as connection:
        found = inspect(connection).has_table("alembic_version")
        versions = [row[0] for row in connection.exec_driver_sql("SELECT version_num FROM alembic_version")] \
            if found else []
    engine.dispose()  # that connection had no SQLite pragmas: keep it out of the pool
    if exists and not found:
        raise StoreError(f"no store at {shown}: the database holds no Arena tables{MAKE_ONE}")
    unknown = sorted(set(versions) - _migrations().keys())
    if unknown:
        raise StoreTooNew(f"this store was written by a newer Arena (migration {', '.join(unknown)}); "
                          f"upgrade Arena to use {shown} (nothing was changed)")
    return set(versions)


@functools.cache
def _migrations() -> dict[str, str | None]:
    """This Arena's migrations: each revision id and the one it follows, from the files'
    ``revision = …`` and ``down_revision = …`` lines (importing Alembic to read them costs the
    CLI half a second, and a store is opened by every command)."""
    found: dict[str, str | None] = {}
    for path in (MIGRATIONS / "versions").glob("*.py"):
        text = path.read_text()
        revision, down = _REVISION.search(text), _DOWN_REVISION.search(text)
        if revision:
            found[revision.group(1)] = down.group(1) if down else None
    return found


def _heads() -> set[str]:
    """The newest migrations (one, unless two branches were never merged)."""
    migrations = _migrations()
    return set(migrations) - set(migrations.values())


_REVISION = re.compile(r"^revision = ['\"]([^'\"]+)['\"]", re.MULTILINE)
_DOWN_REVISION = re.compile(r"^down_revision = ['\"]([^'\"]+)['\"]", re.MULTILINE)


def _upgrade(connection: Connection) -> None:
    """Brings the schema to the newest migration, in one transaction."""
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        # SQLite cannot alter a column: migrations copy the table and drop the old one, which
        # fails while other tables refer to it with foreign keys enforced (Alembic's "batch"
        # advice). The pragma only takes effect outside a transaction: before and after this one.
        connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
    from alembic import command  # here: importing it costs the CLI half a second, and most runs need no migration
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")
    if sqlite:
        broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
        if broken:
            connection.rollback()
            raise StoreError(f"migrating the database would break {len(broken)} reference(s), e.g. {broken[0]}")
    connection.commit()
    if sqlite:
        connection.exec_driver_sql("PRAGMA foreign_keys=ON")


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers never block the writer
    cursor.execute("PRAGMA synchronous=NORMAL")  # durable at each checkpoint; safe with WAL
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


__all__ = ["ApiToken", "AuditEntry", "Base", "Bot", "BotHealth", "Entry", "Game", "ImageArchive", "ImageChunk",
           "Invite", "League", "LeagueLease", "LiveMatch", "Match", "Notification", "NotificationFeed", "RankMark",
           "Rating", "RatingHistory", "Scrimmage", "ScrimmageGame", "Store", "StoreError", "StoreTooNew", "Submission",
           "Team", "TeamMember", "User", "WebSession", "Webhook", "WebhookDelivery", "WorkerResult", "open_store",
           "store_url"]
