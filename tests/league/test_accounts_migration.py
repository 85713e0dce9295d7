"""Migration 0007a on a store with accounts (SQLite, and a PostgreSQL server of the test's own):
every account gets its folded name, unique; a store whose names differ only by case is refused
with their names and left as it was."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, select, text
from sqlalchemy.exc import IntegrityError

from arena.store import MIGRATIONS, StoreError, User, open_store


def store_at_0006(url: str, names: list[str]) -> None:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            config = Config()
            config.set_main_option("script_location", str(MIGRATIONS))
            config.attributes["connection"] = connection
            command.upgrade(config, "0006")
            for name in names:
                connection.execute(text("INSERT INTO users (name, is_admin, created_at) VALUES (:n, false, :t)"),
                                   {"n": name, "t": datetime.now(UTC)})
            connection.commit()
    finally:
        engine.dispose()


def check_upgrade(url: str) -> None:
    store_at_0006(url, ["Alice", "bob.Smith"])
    store = open_store(url)
    try:
        with store() as session:
            assert sorted(tuple(row) for row in session.execute(select(User.name, User.name_folded))) == [
                ("Alice", "alice"), ("bob.Smith", "bob.smith")]
        with pytest.raises(IntegrityError), store() as session, session.begin():  # the database's own rule
            session.add(User(name="ALICE"))
    finally:
        store.engine.dispose()


def check_clash_refused(url: str) -> None:
    store_at_0006(url, ["Alice", "alice", "bob"])
    with pytest.raises(StoreError, match="names differ only by case: alice; rename or remove"):
        open_store(url)
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            assert connection.execute(text("SELECT version_num FROM alembic_version")).scalar() == "0006"
    finally:
        engine.dispose()


def test_names_are_folded_on_sqlite(tmp_path):
    check_upgrade(f"sqlite:///{tmp_path}/a.db")


def test_names_that_clash_are_refused_on_sqlite(tmp_path):
    check_clash_refused(f"sqlite:///{tmp_path}/a.db")


def test_names_are_folded_on_postgresql(private_postgres):
    check_upgrade(private_postgres.url)


def test_names_that_clash_are_refused_on_postgresql(private_postgres):
    check_clash_refused(private_postgres.url)
