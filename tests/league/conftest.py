"""League tests: a fresh SQLite store per test, and the Docker fixtures."""

from __future__ import annotations

import pytest

from arena.store import open_store

from ..docker_fixtures import (  # noqa: F401 - fixtures
    ROOT,
    adversary_images,
    docker_client,
    misbehaving_images,
    sample_images,
    test_bot_images,
)


@pytest.fixture
def db_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path}/arena.db"


@pytest.fixture
def store(db_url):
    return open_store(db_url)


@pytest.fixture(scope="session")
def reference_league(tmp_path_factory, docker_client, sample_images):  # noqa: F811 - fixtures
    """The league of :func:`~tests.league.helpers.league_of_samples` with one deal (4 matches of
    3 games), played once a session by the local executor: (its stored games, its leaderboard),
    what every other way of playing it must store (after a kill, on PostgreSQL, on workers)."""
    from arena.league.runner import run_league
    from arena.league.standings import leaderboard

    from .helpers import league_of_samples, stored_games

    tmp = tmp_path_factory.mktemp("reference")
    store = open_store(f"sqlite:///{tmp}/reference.db")
    league_of_samples(store, docker_client, deals=1)
    run_league(store, "l", rounds=1, jobs=2, runs_dir=tmp / "runs")
    return stored_games(store), leaderboard(store, "l")
