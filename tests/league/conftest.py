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
