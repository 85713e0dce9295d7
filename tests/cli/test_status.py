"""`arena league status NAME [--json]`: done and left against the last run's target, the rate
from the stored matches' times, the ETA, failures by reason and by bot, the matches being
played; for round robins and ladders, on a real store, with real runs."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from arena.cli import main as arena
from arena.league import live
from arena.league.ladder import run_ladder
from arena.league.runner import run_league
from arena.league.schedule import schedule
from arena.league.status import WINDOW, league_status, remember_run
from arena.store import Game, League, LiveMatch, Match
from referee.records import RecordWriter

from .helpers import ProcessBots, league_of

EVIL = "\x1b[2J\x1b[Hevil\r\nforged\u202e"
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
TOP = {"league", "game", "players", "format", "games_per_match", "now", "last_run", "target", "rounds", "cycles",
       "matches", "games", "rate", "eta", "failures", "running"}
RUNNING = {"match", "round", "cycle", "table", "bots", "host", "pid", "since", "seconds", "games", "games_done",
           "game", "decisions", "record_dir"}


def status_cli(db_url: str, *args: str) -> str:
    result = CliRunner().invoke(arena, ["league", "status", *args, "--db", db_url])
    assert result.exit_code == 0, result.output
    return result.output


def add_match(store, league_id: int, round_: int, table: tuple[int, ...], start: datetime, seconds: float,
              failures: list[list[str]] | None = None) -> None:
    """A stored match of 3 games at (round, table), played from ``start`` for ``seconds``."""
    failures = failures or [["", "", ""]] * 3
    with store() as session, session.begin():
        match = Match(league_id=league_id, round=round_, table=",".join(map(str, table)), bots=list(table),
                      record_dir="x", restarts=[0, 0, 0], started_at=start,
                      finished_at=start + timedelta(seconds=seconds))
        session.add(match)
        session.flush()
        session.add_all(Game(match_id=match.id, index=i, seed=str(i), deal=f"c0d{i}", seats=list(table),
                             scores=[1, 2, 3], ranks=[3, 2, 1], failures=failures[i], record_path="x")
                        for i in range(3))


def test_a_round_robin_mid_run(store, db_url, tmp_path):
    """Four bots, 3 a table: 4 tables a round. Round 0 is stored, round 1 has one match stored
    and one being played (its first game over): the numbers, the rate over the recent window
    only, the ETA, failures grouped and every name escaped."""
    ids = league_of(store, "rr", ["a", EVIL, "c", "d"])
    with store() as session:
        league_id = session.scalar(select(League.id).where(League.name == "rr"))
    remember_run(store, league_id, {"rounds": 2})
    tables = [s.table for s in schedule(ids, 3, 1)]
    t0 = NOW - timedelta(hours=1)
    # an old match, long before the window: not in the rate
    add_match(store, league_id, 0, tables[0], t0 - timedelta(seconds=2 * WINDOW), 500)
    # two at a time, 60 s each, then one: 4 matches, 12 games from t0 to t0 + 180 s
    add_match(store, league_id, 0, tables[1], t0, 60, [["timeout", "", ""], ["", "", ""], ["", "crash", "timeout"]])
    add_match(store, league_id, 0, tables[2], t0, 60)
    add_match(store, league_id, 0, tables[3], t0 + timedelta(seconds=60), 60, [[""] * 3, ["", "", EVIL], [""] * 3])
    add_match(store, league_id, 1, tables[0], t0 + timedelta(seconds=120), 60)
    folder = tmp_path / "live"
    folder.mkdir()
    for index, over in ((0, True), (1, False)):
        record = RecordWriter(folder / f"game-{index:03d}.jsonl")
        record.header(game_index=index, game="prohis", num_players=3, seed=1, deal=f"c0d{index}", settings={},
                      seats=[])
        record.decision(0, "done", 1.0)
        if over:
            record.result([1, 2, 3], [3, 2, 1], ["", "", ""])
        record.close()
    with store() as session, session.begin():
        session.add(LiveMatch(league_id=league_id, round=1, table=",".join(map(str, tables[1])), bots=list(tables[1]),
                              record_dir=str(folder), host=live.HOST, pid=os.getpid(),
                              started_at=NOW - timedelta(seconds=30)))

    data = league_status(store, "rr", now=NOW)
    assert set(data) == TOP
    assert data["target"] == {"rounds": 2, "from": "last_run"} and data["last_run"]["rounds"] == 2
    assert data["rounds"] == {"target": 2, "complete": 1, "left": 1}
    assert data["matches"] == {"stored": 5, "running": 1, "left": 3, "target": 8}
    assert data["games"] == {"stored": 15, "in_running": 1, "left": 3 * 3 - 1}
    rate = data["rate"]
    assert (rate["matches"], rate["games"]) == (4, 12) and rate["games_per_second"] == pytest.approx(12 / 180)
    assert data["eta"]["seconds"] == pytest.approx(8 / (12 / 180))
    assert data["eta"]["at"] == (NOW + timedelta(seconds=120)).isoformat(timespec="seconds")
    failures = data["failures"]
    assert (failures["seats"], failures["games"]) == (4, 3)
    assert failures["by_reason"] == {"timeout": 2, "crash": 1, EVIL: 1}
    by_bot = {b["bot"]: b for b in failures["by_bot"]}
    assert by_bot["a@1"]["by_reason"] == {"timeout": 1} and by_bot["a@1"]["games"] == 12
    assert sum(b["failures"] for b in failures["by_bot"]) == 4
    (running,) = data["running"]
    assert set(running) == RUNNING
    assert running["match"] == f"rr/1/{','.join(map(str, tables[1]))}"
    assert (running["games_done"], running["game"], running["decisions"], running["seconds"]) == (1, 1, 1, 30.0)
    labels = dict(zip(ids, ["a@1", f"{EVIL}@1", "c@1", "d@1"], strict=True))
    assert running["bots"] == [labels[b] for b in tables[1]]

    as_json = json.loads(status_cli(db_url, "rr", "--json"))
    assert set(as_json) == TOP and as_json["matches"] == data["matches"] and as_json["failures"] == failures
    text = status_cli(db_url, "rr")
    assert "\\x1b[2J" in text and "\x1b" not in text and "\u202e" not in text
    for line in text.splitlines():
        assert line.isprintable() and not line.startswith("forged"), repr(line)
    assert running["match"] in text and "rounds: 1 of 2 complete" in text and "3 left of 8" in text

    # status --rounds replaces the remembered target; with none remembered there is none
    assert league_status(store, "rr", rounds=1, now=NOW)["matches"]["left"] == 0
    with store() as session, session.begin():
        league = session.get(League, league_id)
        league.schedule = {k: v for k, v in league.schedule.items() if k != "last_run"}
    data = league_status(store, "rr", now=NOW)
    assert data["target"] is None and data["games"]["left"] is None and data["eta"]["seconds"] is None
    assert "no target" in data["eta"]["why"] and "ETA: unknown (no target" in status_cli(db_url, "rr")


def test_real_runs_remember_their_target(store, db_url, tmp_path):
    """A round robin run with --rounds, then a ladder with --until, played by referee processes:
    each run's target is remembered, and status measures done, left and the rate from it."""
    league_of(store, "rr", ["a", "b", "c"])
    run_league(store, "rr", rounds=1, jobs=1, runs_dir=tmp_path / "runs", executor=ProcessBots())
    data = json.loads(status_cli(db_url, "rr", "--json"))
    assert data["target"] == {"rounds": 1, "from": "last_run"}
    assert data["matches"] == {"stored": 1, "running": 0, "left": 0, "target": 1}
    assert data["games"] == {"stored": 3, "in_running": 0, "left": 0} and data["eta"]["seconds"] == 0
    assert data["rate"]["games_per_second"] > 0 and data["running"] == [] and data["failures"]["seats"] == 0
    assert data["cycles"] == {"complete": 0, "open": 1}  # a cycle is 3 rounds
    # asked for more: what is left, and how long at the measured rate
    more = league_status(store, "rr", rounds=3)
    assert more["games"]["left"] == 6 and more["eta"]["seconds"] == pytest.approx(6 / data["rate"]["games_per_second"])

    league_of(store, "top", ["a2", "b2", "c2", "d2"], format="ladder")
    status = run_ladder(store, "top", jobs=2, runs_dir=tmp_path / "runs", until=3, executor=ProcessBots())
    data = json.loads(status_cli(db_url, "top", "--json"))
    assert data["format"] == "ladder" and data["target"] == {"until": 3, "from": "last_run"}
    assert data["rounds"] is None and data["matches"]["left"] is None  # a ladder has no schedule to count
    assert data["games"]["stored"] == status.games == 9 and data["games"]["left"] == 0  # one whole cycle
    assert data["cycles"] == {"complete": 1, "open": 0} and data["eta"]["seconds"] == 0
    text = status_cli(db_url, "top")
    assert "target: 3 games" in text and "being played: nothing" in text


def test_a_ladder_without_end_and_with_a_deadline(store, db_url):
    league_of(store, "top", ["a", "b", "c"], format="ladder")
    with store() as session:
        league_id = session.scalar(select(League.id).where(League.name == "top"))
    remember_run(store, league_id, {})
    data = league_status(store, "top", now=NOW)
    assert data["target"] is None and data["eta"]["seconds"] is None and "until it is stopped" in data["eta"]["why"]
    deadline = (NOW + timedelta(minutes=10)).isoformat(timespec="seconds")
    remember_run(store, league_id, {"deadline": deadline})
    data = league_status(store, "top", now=NOW)
    assert data["target"] == {"deadline": deadline, "from": "last_run"}
    assert data["eta"]["seconds"] == 600 and data["eta"]["at"] == deadline
    remember_run(store, league_id, {"deadline": (datetime.now(UTC) + timedelta(hours=2)).isoformat()})
    assert re.search(r"ETA: (2h 00m|1h 59m), at ", status_cli(db_url, "top"))


def test_an_unknown_league_is_an_error(store, db_url):
    result = CliRunner().invoke(arena, ["league", "status", "nope", "--db", db_url])
    assert result.exit_code == 1 and "unknown league" in result.output


def test_a_store_that_does_not_exist_is_not_created(tmp_path):
    url = f"sqlite:///{tmp_path}/none.db"
    result = CliRunner().invoke(arena, ["league", "status", "x", "--db", url])
    assert result.exit_code != 0 and not Path(tmp_path / "none.db").exists()
