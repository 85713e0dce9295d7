"""A fresh SQLite store per test, as tests/league's conftest gives its tests."""

from __future__ import annotations

import pytest

from arena.store import open_store


@pytest.fixture
def db_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path}/arena.db"


@pytest.fixture
def store(db_url):
    return open_store(db_url)
