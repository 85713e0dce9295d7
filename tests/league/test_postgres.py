"""The store on a real PostgreSQL server (scripts/postgres-up.sh, run by `make test`):
the same league gives the same stored games and ratings as on SQLite, and a store made by an
older Arena is upgraded in place."""

from __future__ import annotations

import os

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from click.testing import CliRunner
from sqlalchemy import create_engine, inspect, text

from arena.cli import main as arena
from arena.league.runner import run_league
from arena.league.standings import leaderboard
from arena.store import StoreError, open_store
from arena.store.models import Base

from .helpers import check_0001_store_upgraded, create_0001_store, league_of_samples, stored_games

PG_URL = os.environ.get("ARENA_TEST_PG_URL", "postgresql+psycopg://arena:arena@127.0.0.1:5432/arena_test")


@pytest.fixture
def pg_url() -> str:
    """The test database, emptied."""
    engine = create_engine(PG_URL)
    try:
        with engine.begin() as connection:
            connection.execute(text("DROP SCHEMA public CASCADE"))
            connection.execute(text("CREATE SCHEMA public"))
    except Exception as exc:
        pytest.fail(f"these tests need PostgreSQL at {PG_URL}: run scripts/postgres-up.sh as root ({exc})")
    finally:
        engine.dispose()
    return PG_URL


@pytest.fixture
def pg_store(pg_url):
    return open_store(pg_url)


def test_a_league_on_postgresql_equals_the_same_league_on_sqlite(pg_store, tmp_path, docker_client,
                                                                  reference_league):
    league_of_samples(pg_store, docker_client, deals=1)
    summary = run_league(pg_store, "l", rounds=1, jobs=2, runs_dir=tmp_path / "pg")
    assert summary.games_run == 12
    assert (stored_games(pg_store), leaderboard(pg_store, "l")) == reference_league  # played on SQLite


def test_a_0001_store_is_upgraded_without_losing_data(pg_url):
    create_0001_store(pg_url)
    store = open_store(pg_url)
    check_0001_store_upgraded(store)
    with store.engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert diff == []


def test_a_wrong_password_is_named(pg_store):
    url = PG_URL.replace("arena:arena@", "arena:wrong@")
    with pytest.raises(StoreError, match="cannot reach the database at postgresql"):
        open_store(url)


def test_a_command_that_only_reads_creates_no_tables_in_an_empty_database(pg_url):
    result = CliRunner().invoke(arena, ["leaderboard", "x", "--db", pg_url])
    assert result.exit_code == 1, result.output
    assert "no store at postgresql+psycopg://arena:***@127.0.0.1:5432/arena_test: the database holds no Arena " \
           "tables" in result.output
    engine = create_engine(pg_url)
    try:
        with engine.connect() as connection:
            assert inspect(connection).get_table_names() == []
    finally:
        engine.dispose()
    open_store(pg_url)  # a command that may create one does
    assert CliRunner().invoke(arena, ["league", "list", "--db", pg_url]).exit_code == 0
