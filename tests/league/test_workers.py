"""Leagues on Celery workers (``arena worker``, ``--executor celery``): real Redis, real worker
processes, real referees and containers, SQLite and a real PostgreSQL that is stopped mid-league.

- Two workers play a league into exactly the games, scores and ratings the local executor plays.
- A worker killed with -9 mid-match: its match is played again by the other and stored once.
- The broker, then the database, stop mid-league: runner and worker say so, wait, and finish
  with nothing lost or doubled.
"""

from __future__ import annotations

import contextlib
import io
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import docker.errors
import pytest
from sqlalchemy import select

from arena.bots.archives import archive_image, delete_archive
from arena.bots.registry import register_bot
from arena.league import create_league
from arena.league.entries import join_league
from arena.league.ladder import run_ladder
from arena.league.runner import run_league
from arena.league.schedule import ScheduleOptions, schedule
from arena.league.standings import leaderboard, rebuild_ratings
from arena.league.workers import HOST, WORKER_HOST, CeleryExecutor
from arena.store import LiveMatch, Match, WorkerResult, open_store
from referee import RefereeFailed

from ..docker_fixtures import TEST_IMAGES
from .helpers import SECRET, league_of_samples, stored_games

ROUNDS = 1  # 4 bots, 3 per table: 4 matches of 3 games


def matches(store) -> list[tuple[int, str, str]]:
    with store() as session:
        return sorted(session.execute(select(Match.round, Match.table, Match.attempt)).all())


class Worker:
    """An ``arena worker`` process, its log in a file."""

    def __init__(self, tmp_path: Path, name: str, broker: str, db: str, queue: str, *extra: str) -> None:
        self.log = tmp_path / f"{name}.log"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "worker", "--concurrency", "1", "--broker", broker, "--db", db,
             "--queue", queue, "--runs-dir", str(tmp_path / name), *extra],
            stdout=self.log.open("w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.wait_for("ready")

    def text(self) -> str:
        return self.log.read_text()

    def wait_for(self, words: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while words not in self.text():
            assert self.proc.poll() is None, f"the worker ended:\n{self.text()}"
            assert time.monotonic() < deadline, f"no {words!r} from the worker:\n{self.text()}"
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def workers():
    started: list[Worker] = []

    def start(*args, **kwargs) -> Worker:
        worker = Worker(*args, **kwargs)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


def runner(db: str, broker: str, queue: str, runs_dir: Path, jobs: int = 4) -> subprocess.Popen:
    """``arena league run l --executor celery`` in a process of its own."""
    return subprocess.Popen([sys.executable, "-m", "arena.cli", "league", "run", "l", "--rounds", str(ROUNDS),
                             "--executor", "celery", "--broker", broker, "--queue", queue, "--jobs", str(jobs),
                             "--db", db, "--runs-dir", str(runs_dir)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)


@pytest.mark.serial  # it bounds Celery's overhead per match
def test_two_workers_store_the_games_scores_and_ratings_of_the_local_executor(
        reference_league, tmp_path, docker_client, redis_url, workers):
    db, queue = f"sqlite:///{tmp_path}/celery.db", f"test-{uuid.uuid4().hex}"
    store = open_store(db)
    league_of_samples(store, docker_client, deals=1)
    for name in ("a", "b"):
        workers(tmp_path, name, redis_url, db, queue)
    executor = CeleryExecutor(store, redis_url, queue)
    try:
        summary = run_league(store, "l", rounds=ROUNDS, jobs=2, runs_dir=tmp_path / "runs", executor=executor)
        played = (stored_games(store), leaderboard(store, "l"))
        # a ladder of the same bots on the same workers: one duplicate cycle, its ratings as they
        # were written as each match was stored, equal to the ratings rebuilt from its games
        create_league(store, "lad", "prohis", 3, {}, ScheduleOptions(deals=1, format="ladder"), secret=SECRET)
        for bot in ("random@1.0.0", "first-legal@1.0.0", "prohis-heuristic@1.0.0"):
            join_league(store, "lad", bot)
        status = run_ladder(store, "lad", jobs=2, runs_dir=tmp_path / "runs", until=9, executor=executor)
        assert (status.matches_run, status.games_run, status.cycles) == (3, 9, 1)
        incremental = leaderboard(store, "lad")
        rebuild_ratings(store, "lad")
        assert leaderboard(store, "lad") == incremental
    finally:
        executor.close()
    assert summary.games_run == 12 and summary.failures == 0
    assert played == reference_league
    with store() as session:
        assert session.scalars(select(WorkerResult)).all() == []  # each taken once stored
        assert session.scalars(select(LiveMatch)).all() == []
        records = [Path(p) for p in session.scalars(select(Match.record_dir).where(Match.league_id == 1))]
    # the records came back from the workers, into the runner's runs dir, and the workers kept none
    assert all((p / "game-000.jsonl").is_file() and p.is_relative_to(tmp_path / "runs") for p in records)
    assert not any(p.is_file() for name in ("a", "b") for p in (tmp_path / name).rglob("*"))
    # both played (one match at a time each)
    assert [name for name in ("a", "b") if ": written" in (tmp_path / f"{name}.log").read_text()] == ["a", "b"]
    # Celery's overhead per match: from hand-over to the result in the store, past the referee's time
    overhead = sorted(total - referee for total, referee, _, _ in executor.latency[:2])
    assert overhead[len(overhead) // 2] < 0.5, executor.latency


def test_a_worker_killed_mid_match_has_its_match_played_again_and_stored_once(
        tmp_path, docker_client, redis_url, workers):
    db, queue = f"sqlite:///{tmp_path}/kill.db", f"test-{uuid.uuid4().hex}"
    store = open_store(db)
    league_of_samples(store, docker_client, deals=1)
    a = workers(tmp_path, "a", redis_url, db, queue, "--visibility-timeout", "5")
    b = workers(tmp_path, "b", redis_url, db, queue, "--visibility-timeout", "5")
    run = runner(db, redis_url, queue, tmp_path / "runs")
    try:
        deadline = time.monotonic() + 60
        while True:  # A's first match, playing
            with store() as session:
                row = session.scalar(select(LiveMatch).where(LiveMatch.pid == a.proc.pid))
            if row is not None:
                break
            assert time.monotonic() < deadline, a.text()
            time.sleep(0.05)
        time.sleep(1)  # well into the match: its containers run
        a.proc.kill()
        a.proc.wait()
        out, err = run.communicate(timeout=180)
    finally:
        run.kill()
    assert run.returncode == 0, err
    stored = matches(store)
    assert [(r, t) for r, t, _ in stored] == sorted((s.round, s.key) for s in schedule([1, 2, 3, 4], 3, ROUNDS))
    assert (row.round, row.table) in {(r, t) for r, t, _ in stored}
    killed_attempt = Path(row.record_dir).name
    assert (row.round, row.table, killed_attempt) in stored  # the same attempt, played by B
    assert f"{killed_attempt}: written" in b.text()
    assert "4 match(es), 12 game(s)" in out
    with store() as session:
        assert session.scalars(select(WorkerResult)).all() == []
        assert session.scalars(select(LiveMatch).where(LiveMatch.host == WORKER_HOST)).all() == []
    # the killed worker's referee ended with it, and took its bots' containers along
    match_id = f"l-r{row.round}-{row.table.replace(',', '-')}"
    left = docker_client.containers.list(all=True, filters={"label": f"arena.match={match_id}"})
    assert left == []


def has_result(store, match: str) -> bool:
    with store() as session:
        return session.scalar(select(WorkerResult.id).where(WorkerResult.match == match)) is not None


def wait_until(condition, what: str, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.1)


def test_the_broker_then_the_database_stop_mid_league_and_nothing_is_lost_or_doubled(
        reference_league, tmp_path, docker_client, private_redis, private_postgres, workers):
    store = open_store(private_postgres.url)
    league_of_samples(store, docker_client, deals=1)
    worker = workers(tmp_path, "w", private_redis.url, private_postgres.url, "arena")
    err = tmp_path / "runner.err"
    # one match in flight: the runner needs the broker again between matches
    run = subprocess.Popen([sys.executable, "-m", "arena.cli", "league", "run", "l", "--rounds", str(ROUNDS),
                            "--executor", "celery", "--broker", private_redis.url, "--jobs", "1",
                            "--db", private_postgres.url, "--runs-dir", str(tmp_path / "runs")],
                           stdout=subprocess.PIPE, stderr=err.open("w"), stdin=subprocess.DEVNULL, text=True)
    try:
        stored = lambda: len(matches(store))  # noqa: E731

        def playing_the_second() -> bool:  # taken from the broker: the runner needs it again after
            with store() as session:
                return stored() >= 1 and session.scalar(select(LiveMatch.id).where(LiveMatch.round >= 0)
                                                        .where(LiveMatch.table.not_in(
                                                            select(Match.table)))) is not None

        wait_until(playing_the_second, "the second match")
        private_redis.stop()  # gracefully: it saves its queue, as a broker that restarts does
        wait_until(lambda: "does not answer" in err.read_text(), "the runner to miss the broker")
        wait_until(lambda: "Connection to broker lost" in worker.text() or "Cannot connect to redis" in worker.text(),
                   "the worker to miss the broker")
        private_redis.start()
        wait_until(lambda: stored() >= 2, "a match once the broker is back")
        private_postgres.stop()
        wait_until(lambda: err.read_text().count("does not answer") >= 2, "the runner to miss the database")
        # the worker finds out at the latest as it writes its match's result, which waits for the database
        wait_until(lambda: "does not answer" in worker.text(), "the worker to miss the database")
        private_postgres.start()
        out, _ = run.communicate(timeout=180)
    finally:
        run.kill()
    said = err.read_text()
    assert run.returncode == 0, said
    broker, database = f"the broker at {private_redis.url}", "the database at postgresql+psycopg://arena:***@"
    assert f"{broker} does not answer" in said and f"{broker} answers again" in said, said
    assert f"{database}" in said and said.count("answers again") >= 2, said
    assert "4 match(es), 12 game(s)" in out
    assert "the database at postgresql+psycopg://arena:***@" in worker.text()
    assert "does not answer" in worker.text() and "answers again" in worker.text()
    # every match once, the very games and ratings of the local executor
    assert (stored_games(store), leaderboard(store, "l")) == reference_league
    with store() as session:
        assert session.scalars(select(WorkerResult)).all() == []


def test_a_worker_loads_a_bot_image_it_lacks_from_the_store_and_a_missing_one_is_named(
        tmp_path, docker_client, redis_url, workers, sample_images):
    """One engine here plays both hosts: the image is archived, then removed, as on a worker
    host that never had it."""
    tag = f"{TEST_IMAGES}/lacking:{uuid.uuid4().hex[:8]}"
    base = docker_client.images.get(sample_images["random"])
    image_id = docker_client.images.build(  # the random bot under an image ID of its own
        fileobj=io.BytesIO(f"FROM {base.id}\nLABEL arena.test.lacking={tag}\n".encode()), tag=tag, rm=True)[0].id
    db, queue = f"sqlite:///{tmp_path}/images.db", f"test-{uuid.uuid4().hex}"
    store = open_store(db)
    league_of_samples(store, docker_client, deals=1, folders=("first_legal", "prohis_heuristic"))
    register_bot(store, name="lacking", version="1", image=tag, image_digest=image_id, language="python",
                 author="test", games=[], league="l")
    worker = workers(tmp_path, "w", redis_url, db, queue)
    try:
        assert archive_image(store, tag, image_id)
        docker_client.images.remove(tag)
        with CeleryExecutor(store, redis_url, queue) as executor:
            summary = run_league(store, "l", rounds=1, jobs=1, runs_dir=tmp_path / "runs", executor=executor)
        assert (summary.games_run, summary.failures) == (3, 0)
        assert docker_client.images.get(tag).id == image_id  # loaded, with the registered ID
        assert f"loaded {tag} ({image_id}) from the store's archive" in (tmp_path / "w.log").read_text()

        # neither the worker nor this host has it, nor the store: the run says which image and where
        delete_archive(store, image_id)
        docker_client.images.remove(tag)
        said: list[str] = []
        with CeleryExecutor(store, redis_url, queue, say=said.append) as executor, \
                pytest.raises(RefereeFailed, match=f"a worker lacks the image {tag} \\({image_id}\\), and it cannot "
                                                   "be archived from this host"):
            run_league(store, "l", rounds=2, jobs=1, runs_dir=tmp_path / "runs", executor=executor)
        assert said == [f"worker {HOST}:{worker.proc.pid} lacks the image {tag}: archiving it in the store"]
        assert len(matches(store)) == 1

        # a task the worker cannot play at all becomes a failure the runner reads, not a silence
        with CeleryExecutor(store, redis_url, queue) as executor:
            executor.app.send_task("arena.play_match", queue=queue, args=[{
                "v": 1, "league_id": 1, "round": 5, "table": "1,2,3", "bots": [1, 2, 3], "attempt": "attempt-1-1",
                "spec": {"match_id": "l-r5-1-2-3", "game": "no-such-game"}, "images": []}])
        wait_until(lambda: has_result(store, "l-r5-1-2-3"), "the failure of a task that cannot be played")
        with store() as session:
            failure = session.scalar(select(WorkerResult.failure).where(WorkerResult.match == "l-r5-1-2-3"))
        assert failure.startswith(f"worker {HOST} could not play l-r5-1-2-3: SpecError"), failure
    finally:
        with contextlib.suppress(docker.errors.ImageNotFound):
            docker_client.images.remove(tag)


def test_a_runner_says_when_no_worker_plays_and_hands_out_again_what_the_broker_lost(
        tmp_path, docker_client, private_redis, workers):
    db = f"sqlite:///{tmp_path}/alone.db"
    store = open_store(db)
    league_of_samples(store, docker_client, deals=1, folders=("random", "first_legal", "prohis_heuristic"))
    said: list[str] = []
    outcome: dict = {}

    def run() -> None:
        with CeleryExecutor(store, private_redis.url, "arena", say=said.append, quiet=1) as executor:
            outcome["summary"] = run_league(store, "l", rounds=1, jobs=1, runs_dir=tmp_path / "runs",
                                            executor=executor)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    wait_until(lambda: said, "the runner to miss the workers", 30)
    assert said[0] == (f"no worker has played a match of queue arena for 1 s: is an `arena worker --queue arena` "
                       f"running, with broker {private_redis.url} and the database at {db}?")
    subprocess.run(["redis-cli", "-p", str(private_redis.port), "flushall"], check=True, capture_output=True)
    wait_until(lambda: len(said) > 1, "the runner to find the match lost", 30)
    assert said[1] == ("1 match(es) in flight are neither queued at the broker nor being played (did it restart "
                       "without its data?): handing them out again")
    workers(tmp_path, "w", private_redis.url, db, "arena")
    thread.join(120)
    assert outcome["summary"].games_run == 3 and len(matches(store)) == 1
