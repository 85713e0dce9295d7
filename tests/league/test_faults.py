"""Faults that must cost one match at most and leave nothing behind, on real referees and
containers: a result that cannot be read, two runners of one league, a full disk."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, delete, func, inspect, select, text, update
from sqlalchemy.engine import make_url

from arena.bots.registry import register_bot
from arena.cli import main as arena
from arena.league import create_league, lease, waiting
from arena.league.lease import LeagueBusy
from arena.league.live import HOST
from arena.league.schedule import ScheduleOptions
from arena.store import League, LeagueLease, Match, open_store

from ..disks import SmallDisk
from ..docker_fixtures import ROOT
from .helpers import SAMPLE_FOLDERS, league_of_samples, stored_games

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


# -- one runner per league ---------------------------------------------------------------------------


def attempts(runs: Path) -> list[Path]:
    """Every referee run of league l under ``runs``: each makes an attempt folder of its own."""
    return sorted(runs.glob("l/*/attempt-*"))


def wait_until(check, seconds: float = 60.0):
    deadline = time.monotonic() + seconds
    while not (found := check()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)
    return found


def test_a_second_league_run_is_refused_naming_the_first(db_url, tmp_path, reference_league, docker_client):
    """Two `arena league run` of one league on one store: the second is refused at once, naming the
    first's host and process (with --executor celery too, before it sends anything); the first
    plays each match once (4 referee runs, not 8) and stores what an uninterrupted run stores."""
    store = open_store(db_url)
    league_of_samples(store, docker_client, deals=1)
    runs = tmp_path / "runs"
    run = ["league", "run", "l", "--jobs", "1", "--db", db_url, "--runs-dir", str(runs), "--quiet"]
    first = subprocess.Popen([sys.executable, "-m", "arena.cli", *run], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: attempts(runs))  # its first referee plays
        for extra in ([], ["--executor", "celery", "--broker", "redis://127.0.0.1:1/0"]):
            second = arena_command(*run, *extra, timeout=60)
            assert second.returncode == 1, second.stdout + second.stderr
            assert (f"league l is being run by `arena league run` on this host, process {first.pid} (since "
                    in second.stderr), second.stderr
            assert "one runner per league; wait for it to end, or stop it" in second.stderr
        out, err = first.communicate(timeout=300)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0, err
    assert out.startswith("4 match(es), 12 game(s)"), out
    assert len(attempts(runs)) == 4, attempts(runs)
    assert stored_games(store) == reference_league[0]
    with store() as session:
        assert session.scalar(select(func.count()).select_from(LeagueLease)) == 0  # given back


@pytest.fixture(params=["sqlite", "postgresql"])
def any_store(request, tmp_path):
    """A new store on SQLite, then on a PostgreSQL server of the test's own."""
    if request.param == "sqlite":
        return open_store(f"sqlite:///{tmp_path}/arena.db")
    return open_store(request.getfixturevalue("private_postgres").url)


def plant_lease(store, league_id: int, host: str, pid: int, age: float, command: str = "league run") -> None:
    """A lease row as another runner would have left it, last renewed ``age`` seconds ago by the
    database's clock."""
    with store() as session, session.begin():
        now = session.scalar(select(func.now()))
        then = now - timedelta(seconds=age)
        session.add(LeagueLease(league_id=league_id, token="planted", host=host, pid=pid, command=command,
                                started_at=then, renewed_at=then))


def _last_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_a_lease_refuses_a_second_runner_and_a_stale_one_is_taken_over(any_store, monkeypatch):
    store = any_store
    league_id = create_league(store, "x", "prohis", 3, {}, ScheduleOptions()).id
    held = lease.acquire(store, league_id, "x", "league run")
    with pytest.raises(LeagueBusy, match=f"league x is being run by `arena league run` on this host, process "
                                         f"{os.getpid()} \\(since .* UTC, renewed 0 s ago\\): one runner per league"):
        lease.acquire(store, league_id, "x", "ladder run")
    assert lease.holder(store, league_id).pid == os.getpid()
    held.release()
    assert lease.holder(store, league_id) is None
    lease.acquire(store, league_id, "x", "league run").release()

    said: list[str] = []
    gone = _last_pid()
    plant_lease(store, league_id, HOST, gone, age=1)  # kill -9: its process is gone, its lease fresh
    lease.acquire(store, league_id, "x", "league run", say=said.append).release()
    plant_lease(store, league_id, "elsewhere", 4242, age=lease.EXPIRES + 240, command="ladder run")
    lease.acquire(store, league_id, "x", "league run", say=said.append).release()
    assert said == [f"taking over the lease of league x from `arena league run` on this host, process {gone}: its "
                    "process is gone",
                    "taking over the lease of league x from `arena ladder run` on host elsewhere, process 4242: it "
                    f"was not renewed for {lease.EXPIRES + 240:.0f} s"]
    plant_lease(store, league_id, "elsewhere", 4242, age=5)  # another host's, renewed: it runs
    with pytest.raises(LeagueBusy, match="is being run by `arena league run` on host elsewhere, process 4242"):
        lease.acquire(store, league_id, "x", "league run")
    with store() as session, session.begin():
        session.execute(delete(LeagueLease))

    # renewed while held; lost when another runner took it over (this one could not renew in time)
    monkeypatch.setattr(lease, "RENEW", 0.1)
    held = lease.acquire(store, league_id, "x", "league run")
    first = lease.holder(store, league_id).seconds_since_renewal
    time.sleep(1.5)  # SQLite's clock counts whole seconds
    assert lease.holder(store, league_id).seconds_since_renewal <= max(first, 1.0)
    with store() as session, session.begin():
        session.execute(update(LeagueLease).values(token="thief", host="thief", pid=7))
    wait_until(lambda: held.lost, 5)
    assert held.lost == "`arena league run` on host thief, process 7"
    with pytest.raises(LeagueBusy, match="x lost its lease to `arena league run` on host thief, process 7: this run "
                                         "starts no new match"):
        held.check()
    held.release()
    assert lease.holder(store, league_id).host == "thief"  # not this runner's to give back


RACE = """
import os, sys, time
from pathlib import Path
from arena.league import lease
from arena.store import open_store
store, meeting = open_store(sys.argv[1]), Path(sys.argv[2])
(meeting / f"ready-{os.getpid()}").touch()
while not (meeting / "go").exists():  # all at once
    time.sleep(0.001)
try:
    held = lease.acquire(store, 1, "x", "league run")
except lease.LeagueBusy:
    print("refused")
    (meeting / f"done-{os.getpid()}").touch()
else:
    print("plays")
    while len(list(meeting.glob("done-*"))) < int(sys.argv[3]) - 1:  # running while the others look
        time.sleep(0.01)
    held.release()
"""


def test_of_runners_that_start_at_once_one_plays(any_store, tmp_path):
    """Four processes take the lease at the same moment: one plays, three are refused."""
    create_league(any_store, "x", "prohis", 3, {}, ScheduleOptions())
    url = any_store.engine.url.render_as_string(hide_password=False)
    meeting = tmp_path / "meeting"
    meeting.mkdir()
    procs = [subprocess.Popen([sys.executable, "-c", RACE, url, str(meeting), "4"], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(4)]
    try:
        wait_until(lambda: len(list(meeting.glob("ready-*"))) == 4, 120)
        (meeting / "go").touch()
        outcomes = [proc.communicate(timeout=60) for proc in procs]
    finally:
        for proc in procs:
            proc.kill()
    assert sorted(out.strip() for out, _ in outcomes) == ["plays", "refused", "refused", "refused"], outcomes


def test_a_ladder_run_takes_the_lease_too(store, tmp_path):
    from arena.league.ladder import run_ladder

    create_league(store, "lad", "prohis", 3, {}, ScheduleOptions(format="ladder"))
    for i in range(3):
        register_bot(store, name=f"b{i}", version="1", image="img", image_digest="sha256:0", language="python",
                     author="a", games=[], league="lad")
    with lease.acquire(store, 1, "lad", "league run"), \
            pytest.raises(LeagueBusy, match="league lad is being run by `arena league run` on this host"):
        run_ladder(store, "lad", jobs=1, runs_dir=tmp_path)


def test_a_run_that_lost_its_lease_starts_no_new_match(store, tmp_path, docker_client, monkeypatch):
    """Another runner took the lease over while this one could not renew it (here: taken by
    hand as the first match starts): the match in flight is played and stored, no other starts,
    and the run ends saying to whom it lost the lease. The next run is refused while that runner's
    lease is renewed, and plays the rest once it is stale."""
    from arena.league.runner import run_league

    league_of_samples(store, docker_client, deals=1)
    monkeypatch.setattr(lease, "RENEW", 0.1)

    def steal(job) -> None:
        with store() as session, session.begin():
            session.execute(update(LeagueLease).values(token="thief", host="elsewhere", pid=7))

    with pytest.raises(LeagueBusy, match="l lost its lease to `arena league run` on host elsewhere, process 7"):
        run_league(store, "l", rounds=1, jobs=1, runs_dir=tmp_path / "runs", match_started=steal)
    assert len(stored_tables(store)) == 1 and len(attempts(tmp_path / "runs")) == 1
    with pytest.raises(LeagueBusy, match="is being run by `arena league run` on host elsewhere, process 7"):
        run_league(store, "l", rounds=1, jobs=1, runs_dir=tmp_path / "runs")
    with store() as session, session.begin():  # that runner's host is lost: its lease is not renewed
        session.execute(update(LeagueLease).values(renewed_at=session.scalar(select(func.now()))
                                                   - timedelta(seconds=lease.EXPIRES + 1)))
    summary = run_league(store, "l", rounds=1, jobs=2, runs_dir=tmp_path / "runs")
    assert (summary.matches_run, summary.matches_skipped) == (3, 1)


# -- a full disk ------------------------------------------------------------------------------------


def fill_when(disk: SmallDisk, check) -> threading.Thread:
    """Fills ``disk`` as soon as ``check()`` holds (a thread of its own)."""
    def watch() -> None:
        wait_until(check, 240)
        disk.fill()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def second_match_playing(runs: Path) -> bool:
    """The run's second referee is playing: its first game record is there."""
    found = attempts(runs)
    return len(found) >= 2 and (found[1] / "game-000.jsonl").exists() if found else False


@pytest.mark.parametrize("full", ["store", "records"])
def test_a_full_disk_is_named_waited_for_a_while_and_stops_the_run_losing_nothing(
        full, tmp_path, small_disk, reference_league, docker_client, monkeypatch):
    """The disk of the SQLite store, or of the records folder, fills up while the second of four
    matches is played: the run says which disk is full, waits (DISK_WAIT, 4 s here) in case space
    is freed, then stops with one sentence, no traceback; the first match stays stored and the
    store intact. Once space is freed, the next run plays the rest: the league as an uninterrupted
    one."""
    monkeypatch.setattr(waiting, "DISK_WAIT", 4.0)
    disk = small_disk(tmp_path / "disk")
    db = (disk.path if full == "store" else tmp_path) / "arena.db"
    runs = (disk.path if full == "records" else tmp_path) / "runs"
    url = f"sqlite:///{db}"
    store = open_store(url)
    league_of_samples(store, docker_client, deals=1)
    filler = fill_when(disk, lambda: second_match_playing(runs))
    command = ["league", "run", "l", "--jobs", "1", "--db", url, "--runs-dir", str(runs), "--quiet"]
    t0 = time.monotonic()
    stopped = CliRunner().invoke(arena, command)
    seconds = time.monotonic() - t0
    filler.join(5)
    assert stopped.exit_code == 1, stopped.output
    assert stopped.exception is None or isinstance(stopped.exception, SystemExit), stopped.exception
    assert "Traceback" not in stopped.output
    if full == "store":
        holding = f"the store {db}"
        assert f"arena: no space left on the disk holding {holding}; trying again every 2 s for up to 4 s: free " \
               "some space there to go on" in stopped.output, stopped.output
    else:
        holding = str(attempts(runs)[1])  # the second match's records, which its referee could not write
        assert f"arena: no space left on the disk holding {holding}; no match starts until it has 16 MiB free, " \
               "for up to 4 s" in stopped.output, stopped.output
    assert f"Error: no space left on the disk holding {holding} (waited 4 s): the run stopped. What was stored is " \
           "kept, and the next run plays the rest; free some space there and run again" in stopped.output
    assert seconds < 60, seconds
    assert len(attempts(runs)) == 2  # no match started after the disk was full
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert stored_tables(store) == ["1,2,3"]
    disk.free()
    again = CliRunner().invoke(arena, command)
    assert again.exit_code == 0, again.output
    assert stored_games(store) == reference_league[0]


def test_a_full_disk_under_postgresql_is_named_and_waited_for_a_while(private_postgres, small_disk, monkeypatch):
    """The store's tables on a PostgreSQL tablespace whose disk fills up: its disk_full error is
    said as such, waited for DISK_WAIT (3 s here), then DiskFull; once space is freed, it goes on."""
    from arena.league.waiting import DiskFull, with_store

    disk = small_disk(private_postgres.root / "tablespace", size_mb=8, owner="postgres")
    engine = create_engine(private_postgres.url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f"CREATE TABLESPACE small LOCATION '{disk.path}'"))
        connection.execute(text("ALTER ROLE arena SET default_tablespace = small"))  # for the store's connections
    engine.dispose()
    store = open_store(private_postgres.url)  # its tables, empty, in the small tablespace
    disk.fill()
    monkeypatch.setattr(waiting, "DISK_WAIT", 3.0)
    said: list[str] = []
    shown = store.engine.url.render_as_string(hide_password=True)

    def create() -> None:
        create_league(store, "x", "prohis", 3, {}, ScheduleOptions())

    with pytest.raises(DiskFull) as info:
        with_store(store, create, say=said.append)
    assert str(info.value).startswith(f"no space left on the disk holding the database at {shown} (on its server) "
                                      "(waited 3 s): the run stopped. What was stored is kept")
    assert said == [f"no space left on the disk holding the database at {shown} (on its server); trying again every "
                    "2 s for up to 3 s: free some space there to go on"]
    disk.free()
    with_store(store, create, say=said.append)
    with store() as session:
        assert session.scalars(select(League.name)).all() == ["x"]


# -- a store of a newer Arena ------------------------------------------------------------------------


def test_a_postgresql_store_of_a_newer_arena_is_refused_and_left_as_it_is(private_postgres):
    """As on SQLite (tests/league/test_store.py, every command): refused in one sentence, and not
    a row or a table changes."""
    url = private_postgres.url
    store = open_store(url)
    create_league(store, "x", "prohis", 3, {}, ScheduleOptions())
    store.engine.dispose()
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '0099'"))

    def contents() -> tuple:
        with engine.connect() as connection:
            tables = sorted(inspect(connection).get_table_names())
            return tables, [connection.execute(text(f'SELECT * FROM "{t}" ORDER BY 1')).all() for t in tables]

    before = contents()
    shown = make_url(url).render_as_string(hide_password=True)
    for args in (["league", "list"], ["league", "create", "y", "--game", "prohis", "--players", "3"],
                 ["league", "run", "x"], ["worker", "--broker", "redis://127.0.0.1:1/0"]):
        result = CliRunner().invoke(arena, [*args, "--db", url])
        assert result.exit_code == 1, (args, result.output, result.exception)
        assert (f"this store was written by a newer Arena (migration 0099); upgrade Arena to use {shown} (nothing "
                "was changed)") in result.output, (args, result.output)
    assert contents() == before
    engine.dispose()


def test_a_ladder_whose_records_disk_fills_up_stops_and_completes_its_cycle_next_time(
        tmp_path, small_disk, docker_client, sample_images, monkeypatch):
    """A ladder's records disk fills up in its second match: that match is not stored, none
    starts after it, the ladder stops after DISK_WAIT naming the disk; the next run, with space
    again, completes the cycle."""
    from arena.league.ladder import run_ladder
    from arena.league.waiting import DiskFull

    monkeypatch.setattr(waiting, "DISK_WAIT", 3.0)
    store = open_store(f"sqlite:///{tmp_path}/arena.db")
    league_of_samples(store, docker_client, name="l", deals=1, folders=SAMPLE_FOLDERS[:3], format="ladder")
    disk = small_disk(tmp_path / "disk")
    runs = disk.path / "runs"
    filler = fill_when(disk, lambda: second_match_playing(runs))
    with pytest.raises(DiskFull, match=f"no space left on the disk holding {runs}/l/.* \\(waited 3 s\\): the run "
                                       "stopped"):
        run_ladder(store, "l", jobs=1, runs_dir=runs, until=9)
    filler.join(5)
    assert len(stored_tables(store)) == 1 and len(attempts(runs)) == 2
    disk.free()
    status = run_ladder(store, "l", jobs=1, runs_dir=runs, until=9)
    assert (status.matches_run, status.games, status.cycles, status.open_cycles) == (2, 9, 1, 0)
