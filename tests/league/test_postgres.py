"""The store on a real PostgreSQL server (scripts/postgres-up.sh, run by `make test`):
the same league gives the same stored games and ratings as on SQLite."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import create_engine, text

from arena.league import leaderboard, run_league
from arena.store import StoreError, open_store

from .helpers import league_of_samples, stored_games

PG_URL = os.environ.get("ARENA_TEST_PG_URL", "postgresql+psycopg://arena:arena@127.0.0.1:5432/arena_test")


@pytest.fixture
def pg_store():
    engine = create_engine(PG_URL)
    try:
        with engine.begin() as connection:  # a clean database for each test
            connection.execute(text("DROP SCHEMA public CASCADE"))
            connection.execute(text("CREATE SCHEMA public"))
    except Exception as exc:
        pytest.fail(f"these tests need PostgreSQL at {PG_URL}: run scripts/postgres-up.sh as root ({exc})")
    finally:
        engine.dispose()
    return open_store(PG_URL)


def test_a_league_on_postgresql_equals_the_same_league_on_sqlite(pg_store, tmp_path, docker_client,
                                                                  sample_images):
    lite = open_store(f"sqlite:///{tmp_path}/lite.db")
    for store, runs in ((pg_store, "pg"), (lite, "lite")):
        league_of_samples(store, docker_client)
        summary = run_league(store, "l", rounds=1, jobs=2, runs_dir=tmp_path / runs)
        assert summary.games_run == 24
    assert stored_games(pg_store) == stored_games(lite)
    assert leaderboard(pg_store, "l") == leaderboard(lite, "l")


def test_a_wrong_password_is_named(pg_store):
    url = PG_URL.replace("arena:arena@", "arena:wrong@")
    with pytest.raises(StoreError, match="cannot reach the database at postgresql"):
        open_store(url)
