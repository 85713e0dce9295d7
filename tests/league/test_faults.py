"""Faults that must cost one match at most and leave nothing behind, on real referees and
containers: a result that cannot be read, two runners of one league, a full disk."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import select

from arena.store import Match, open_store

from ..docker_fixtures import ROOT
from .helpers import league_of_samples, stored_games

HOOKS = Path(__file__).parent / "fault_hooks"  # a sitecustomize that plants faults in referee processes


def arena_command(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=timeout)


def stored_tables(store) -> list[str]:
    with store() as session:
        return sorted(session.scalars(select(Match.table)))


def test_a_result_that_cannot_be_read_fails_its_match_only(db_url, tmp_path, reference_league, docker_client):
    """One referee's result.json is cut in half before the runner reads it: that match fails,
    with a sentence naming it and why, and is not stored; the three others are played and stored.
    The next run plays it again, and the league ends as an uninterrupted one."""
    store = open_store(db_url)
    league_of_samples(store, docker_client, deals=1)
    run = ["league", "run", "l", "--jobs", "2", "--db", db_url, "--runs-dir", str(tmp_path / "runs"), "--quiet"]
    cut = arena_command(*run, env={"PYTHONPATH": str(HOOKS), "ARENA_TEST_CUT_RESULT": "l-r0-1-2-4"})
    assert cut.returncode == 1, cut.stdout + cut.stderr
    assert "Traceback" not in cut.stderr, cut.stderr
    assert "the referee of l-r0-1-2-4 wrote a result.json that cannot be read" in cut.stderr, cut.stderr
    assert "1 of 4 match(es) failed (none is stored: the next run plays it again)" in cut.stderr, cut.stderr
    assert stored_tables(store) == ["1,2,3", "1,3,4", "2,3,4"]
    again = arena_command(*run)
    assert again.returncode == 0, again.stderr
    assert "1 match(es), 3 game(s)" in again.stdout and "3 match(es) were already played" in again.stdout
    assert stored_games(store) == reference_league[0]
