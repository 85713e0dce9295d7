"""Matches on many machines: Celery workers, a Redis broker, and the shared store.

The runner (``arena league run --executor celery``, ``arena ladder run --executor celery``)
hands each match to the broker as a task (:class:`CeleryExecutor`); an ``arena worker`` on
any host takes it, plays it in a referee process on its own Docker engine, on a core of its
own, and writes the result into the store once per (match, attempt) (a ``WorkerResult`` row,
with the records folder as a gzipped tar, :func:`play_task`). The runner stores the match from
that row exactly as it stores a local match, then deletes the row. No result backend, no
shared filesystem: the broker and the database are all the machines share.

Failures, and why nothing is lost or counted twice:

- Tasks are acknowledged late, one at a time per free slot: a worker that dies mid-match
  (its referee ends with it) leaves its task unacknowledged, and the broker hands it to
  another worker after the visibility timeout. Whichever attempt writes its result first
  is the one; a match already stored or already written is not played again.
- The database or the broker stops: the runner and the workers say so, wait, and go on when
  it answers again (:func:`retrying`). Results wait in the store for their runner; a runner
  that restarts stores those of matches it still needs, whatever attempt they were.
- A worker whose engine lacks a bot's image loads it from the store's archive
  (``arena/bots/archives.py``); when there is none, the runner archives it from its own engine
  and hands the match out again.
"""

from __future__ import annotations

import dataclasses
import fcntl
import io
import logging
import os
import re
import shutil
import socket
import sys
import tarfile
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from referee import MatchResult, RefereeFailed, cpu, launch
from referee.sockets import process_alive
from referee.spec import parse_spec
from referee.textlog import printable

from ..store import Bot, LiveMatch, Match, Store, WorkerResult, open_store
from .executor import Executor, Feed, LocalExecutor, MatchJob, Outcome
from .waiting import DB_DOWN, retrying, stderr, store_name

DEFAULT_BROKER = "redis://127.0.0.1:6379/0"
TASK = "arena.play_match"
PAYLOAD_VERSION = 1
QUIET = 30.0  # seconds without news of any match in flight before the runner asks where the workers are
POLL = 0.02  # seconds between the runner's looks for results: small against a match's seconds
MISSING_IMAGE = "missing image: "  # a WorkerResult.failure the runner answers by archiving the image
ATTEMPT = re.compile(r"attempt-[0-9]+-[0-9]+")  # how the runner names attempts (runner._attempt)
HOST = socket.gethostname()
WORKER_HOST = f"{HOST} (worker)"  # LiveMatch.host of a worker's rows: not the league runner's

log = logging.getLogger("arena.worker")
T = TypeVar("T")


def broker_url(url: str | None = None) -> str:
    return url or os.environ.get("ARENA_BROKER") or DEFAULT_BROKER


def shown_url(url: str) -> str:
    """A URL fit to print: its password hidden."""
    from kombu.utils.url import maybe_sanitize_url
    return maybe_sanitize_url(url)


# -- waiting out the broker ------------------------------------------------------------------------


def broker_errors() -> tuple[type[BaseException], ...]:
    from kombu.exceptions import OperationalError as KombuOperationalError
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError
    return (KombuOperationalError, RedisConnectionError, RedisTimeoutError, ConnectionError, TimeoutError)


# -- the Celery application ----------------------------------------------------------------------


def make_app(broker: str | None, queue: str, visibility_timeout: int = 3600) -> Any:
    """The Celery application of runners and workers: JSON tasks on ``queue``, acknowledged
    after they ran, one reserved per free slot, no result backend (results go to the store)."""
    from celery import Celery

    app = Celery("arena", broker=broker_url(broker), set_as_current=False)
    app.conf.update(
        task_serializer="json", accept_content=["json"],  # never pickle: a broker message is data
        task_ignore_result=True, task_store_errors_even_if_ignored=False,
        task_acks_late=True,  # a worker that dies mid-match leaves its task to another
        task_reject_on_worker_lost=True,
        task_acks_on_failure_or_timeout=True,
        # one match reserved beyond those playing: a consumer whose slots are all busy stops
        # reading the broker, and then never notices that the broker went away (Celery 5.7 with
        # kombu 5.7: it would not consume again after a restart)
        worker_prefetch_multiplier=2,
        task_default_queue=queue,
        task_create_missing_queues=True,
        broker_connection_retry=True, broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,  # a broker that stops is waited for, however long
        broker_channel_error_retry=True,
        broker_transport_options={
            "visibility_timeout": visibility_timeout,
            # how often a worker looks for matches of dead workers to hand out again: often
            # enough that one is played again soon after its visibility timeout
            "unacked_restore_interval": max(1, min(10, visibility_timeout // 10)),
            "unacked_restore_throttle": 1,
        },
        worker_cancel_long_running_tasks_on_connection_loss=False,  # a match plays on; its result goes to the store
        worker_enable_remote_control=False, worker_send_task_events=False,
        worker_hijack_root_logger=False, worker_redirect_stdouts=False,
        broker_pool_limit=None,
    )
    app.task(name=TASK, bind=False, acks_late=True)(play_task)
    return app


# -- the runner's side -------------------------------------------------------------------------


class CeleryExecutor:
    """Hands matches to ``arena worker``s through the broker; their results come back through
    the store. ``say`` prints what the operator must know (the broker or database is down);
    by default on standard error."""

    remote = True

    def __init__(self, store: Store, broker: str | None = None, queue: str = "arena",
                 say: Callable[[str], None] | None = None, quiet: float = QUIET) -> None:
        self.store, self.queue = store, queue
        self.broker = broker_url(broker)
        self.app = make_app(self.broker, queue)
        self.say = say or stderr
        self.images: dict[str, str] = {}  # a bot's image -> its registered image ID
        self.archived: set[str] = set()  # image IDs archived by this runner
        self.news = time.monotonic()  # when a match in flight last started or ended
        self.quiet = quiet
        # per match: seconds from hand-over to result seen, the referee's, and the worker's own
        # before and after it (for bench/workers.py)
        self.latency: list[tuple[float, float, float, float]] = []

    def close(self) -> None:
        self.app.close()

    def __enter__(self) -> CeleryExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- talking to the broker and the store, waiting while they are down ----------------------
    def _db(self, action: Callable[[], T]) -> T:
        return retrying(action, store_name(self.store), DB_DOWN, self.say)

    def _send(self, job: MatchJob) -> None:
        payload = self._payload(job)
        retrying(lambda: self.app.send_task(TASK, args=[payload], queue=self.queue,
                                            task_id=f"{job.spec.match_id}/{job.attempt}",
                                            retry=True, retry_policy={"max_retries": 1}),
                 f"the broker at {shown_url(self.broker)}", broker_errors(), self.say)

    def _payload(self, job: MatchJob) -> dict[str, Any]:
        missing = {b.image for b in job.spec.bots} - self.images.keys()
        if missing:
            def read() -> None:
                with self.store() as session:
                    for image, image_id in session.execute(select(Bot.image, Bot.image_digest)
                                                           .where(Bot.image.in_(missing))):
                        self.images[image] = image_id
            self._db(read)
        return {"v": PAYLOAD_VERSION, "league_id": job.league_id, "round": job.slot.round, "table": job.slot.key,
                "bots": list(job.slot.table), "attempt": job.attempt, "spec": job.spec.to_dict(),
                "images": [[b.image, self.images.get(b.image, "")] for b in job.spec.bots]}

    # -- playing -------------------------------------------------------------------------------------
    def play(self, jobs: Iterable[MatchJob | None], parallel: int,
             started: Callable[[MatchJob], None] | None = None) -> Iterator[tuple[MatchJob, Outcome]]:
        """Sends jobs to the broker, ``parallel`` in flight at once, pulling the next from ``jobs``
        whenever one ends (as :func:`~arena.league.executor.play`); yields (job, outcome) as
        each result arrives in the store. A result is deleted from the store once the caller
        has stored its match (when the generator is resumed)."""
        pending: dict[str, tuple[MatchJob, float]] = {}  # match id -> (job, when it was sent)
        cleared: set[int | None] = set()
        feed = Feed(jobs)
        while True:
            for job in feed.take(max(1, parallel) - len(pending)):
                if job.league_id not in cleared:
                    self._db(partial(self._clear_taken, job.league_id))
                    cleared.add(job.league_id)
                self._send(job)
                pending[job.spec.match_id] = (job, time.monotonic())
                if len(pending) == 1:
                    self.news = time.monotonic()
                if started:
                    started(job)
            if not pending:
                if not feed.open:
                    return
                continue  # the feed had nothing while nothing runs: it waited, ask again
            rows = self._db(lambda: self._results(list(pending)))
            if not rows:
                self._quiet(pending)
                time.sleep(POLL)
                continue
            self.news = time.monotonic()
            for row in rows:
                if row.match not in pending:
                    continue  # a second attempt's result: the first one was taken
                job, sent = pending[row.match]
                if row.failure.startswith(MISSING_IMAGE):
                    self._provide_image(row)
                    self._db(partial(self._forget, row.id))
                    self._send(job)
                    continue
                del pending[row.match]
                if ATTEMPT.fullmatch(row.attempt):  # a folder name under the runner's runs dir: never a path
                    job = dataclasses.replace(job, out_dir=job.out_dir.parent / row.attempt)
                    outcome = self._outcome(job, row)
                else:
                    outcome = RefereeFailed(f"worker {printable(row.worker)} wrote a result of attempt "
                                            f"{printable(row.attempt)!r}, which no runner names")
                if isinstance(outcome, MatchResult):
                    own = row.result.get("worker", {})
                    self.latency.append((time.monotonic() - sent, outcome.seconds, own.get("before", 0.0),
                                         own.get("after", 0.0)))
                yield job, outcome
                self._db(partial(self._forget, row.id))

    def _quiet(self, pending: dict[str, tuple[MatchJob, float]]) -> None:
        """When no match in flight has started or ended for a while, finds out why: matches
        still queued mean no worker listens (say so); matches neither queued, nor played, nor
        done were lost by the broker (one that restarted without its data): hand them out again
        (a match played twice still counts once)."""
        if time.monotonic() - self.news < self.quiet:
            return
        self.news = time.monotonic()
        slots = {(job.league_id, job.slot.round, job.slot.key): job for job, _ in pending.values()}

        def playing() -> set[tuple[int, int, str]]:
            with self.store() as session:
                rows = session.execute(select(LiveMatch.league_id, LiveMatch.round, LiveMatch.table)).all()
            return {(league_id, rnd, table) for league_id, rnd, table in rows} & slots.keys()

        played = self._db(playing)
        if played:
            return
        try:
            queued = self._queued()
        except broker_errors() as exc:
            self.say(f"the broker at {shown_url(self.broker)} does not answer ({exc}): the matches in flight wait "
                     "in it, or on a worker, for it to come back")
            return
        if queued == 0:
            self.say(f"{len(slots)} match(es) in flight are neither queued at the broker nor being played (did it "
                     "restart without its data?): handing them out again")
            for job in slots.values():
                self._send(job)
            return
        self.say(f"no worker has played a match of queue {printable(self.queue)} for {self.quiet:g} s: is an "
                 f"`arena worker --queue {printable(self.queue)}` running, with broker "
                 f"{shown_url(self.broker)} and {store_name(self.store)}?")

    def _queued(self) -> int | None:
        """How many messages wait in the queue (a Redis list of the queue's name); None when
        that cannot be told; the broker's error when it does not answer."""
        if not self.broker.startswith(("redis://", "rediss://", "unix://")):
            return None
        import redis

        try:
            with redis.Redis.from_url(self.broker, socket_timeout=5) as client:
                return int(client.llen(self.queue))
        except (redis.ConnectionError, redis.TimeoutError):
            raise
        except (redis.RedisError, ValueError):
            return None

    def _results(self, matches: list[str]) -> list[WorkerResult]:
        with self.store() as session:
            return list(session.scalars(select(WorkerResult).where(WorkerResult.match.in_(matches))
                                        .order_by(WorkerResult.id)))

    def _clear_taken(self, league_id: int | None) -> None:
        """Deletes the league's results whose match is stored (a runner killed between storing a
        match and deleting its result leaves one behind, as does a second attempt), and the
        failures an earlier run was told of: this run plays those matches again. Results of
        matches not stored stay: this run stores them (a killed runner's matches, played)."""
        with self.store() as session, session.begin():
            taken = select(WorkerResult.id).join(Match, (Match.league_id == WorkerResult.league_id)
                                                 & (Match.round == WorkerResult.round)
                                                 & (Match.table == WorkerResult.table))
            session.execute(delete(WorkerResult).where(
                WorkerResult.league_id == league_id,
                WorkerResult.id.in_(taken) | ((WorkerResult.failure != "")
                                              & ~WorkerResult.failure.startswith(MISSING_IMAGE))))

    def _forget(self, row_id: int) -> None:
        with self.store() as session, session.begin():
            session.execute(delete(WorkerResult).where(WorkerResult.id == row_id))

    def _outcome(self, job: MatchJob, row: WorkerResult) -> Outcome:
        if row.failure:
            return RefereeFailed(f"{row.failure} (on worker {printable(row.worker)})")
        unpack_records(row.records, job.out_dir)
        return MatchResult(job.spec, job.out_dir, row.result["data"],
                           datetime.fromisoformat(row.result["started_at"]), float(row.result["seconds"]))

    def _provide_image(self, row: WorkerResult) -> None:
        """A worker lacks an image the store has no archive of: archive it from this host's
        engine, or stop with what the operator must do."""
        from ..bots.archives import ArchiveError, archive_image

        image, _, image_id = row.failure[len(MISSING_IMAGE):].partition(" ")
        if image_id in self.archived:
            return  # archived already; the worker asked before it was there
        self.say(f"worker {printable(row.worker)} lacks the image {printable(image)}: archiving it in the store")
        try:
            archive_image(self.store, image, image_id)
        except ArchiveError as exc:
            raise RefereeFailed(f"a worker lacks the image {printable(image)} ({image_id}), and it cannot be "
                                f"archived from this host: {exc}") from None
        self.archived.add(image_id)


def pack_records(folder: Path) -> bytes:
    """The records folder of a match (game records, bot logs, result.json) as a gzipped tar."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as tar:
        for path in sorted(folder.iterdir()):
            if path.is_file() and not path.is_symlink():
                tar.add(path, arcname=path.name, recursive=False)
    return buffer.getvalue()


def unpack_records(data: bytes, folder: Path) -> None:
    """Writes the records of :func:`pack_records` into ``folder``: plain files only (the
    ``data`` filter refuses links, devices and paths out of the folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(folder, filter="data")


@contextmanager
def make_executor(kind: str, store: Store, broker: str | None = None, queue: str = "arena") -> Iterator[Executor]:
    """The executor ``kind`` names ("local" or "celery"), closed when done."""
    if kind == "local":
        yield LocalExecutor()
        return
    with CeleryExecutor(store, broker, queue) as executor:
        yield executor


# -- the worker's side -------------------------------------------------------------------------


@dataclasses.dataclass
class _Worker:
    """What the tasks of this worker process share."""

    db_url: str | None
    runs_dir: Path
    store: Store | None = None
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    def open(self) -> Store:
        with self.lock:
            if self.store is None:
                self.store = retrying(lambda: open_store(self.db_url), "the database", DB_DOWN, log.warning)
            return self.store


_worker: _Worker | None = None


def play_task(payload: dict[str, Any]) -> str:
    """The task: plays one match and writes its result into the store, once per (match,
    attempt). Returns what it did (for the worker's log)."""
    if _worker is None:
        raise RuntimeError("arena.play_match runs in `arena worker` only")
    t0 = time.perf_counter()
    if payload.get("v") != PAYLOAD_VERSION:
        raise ValueError(f"a task of payload version {payload.get('v')!r}; this worker reads {PAYLOAD_VERSION}")
    store = _worker.open()
    league_id, round_, table, attempt = (int(payload["league_id"]), int(payload["round"]), str(payload["table"]),
                                         str(payload["attempt"]))
    match_id = str(payload["spec"]["match_id"])
    try:
        return _play(store, _worker.runs_dir, payload, league_id, round_, table, attempt, t0)
    except Exception as exc:  # noqa: BLE001 - the runner waits for this match: tell it, then re-raise for the log
        failure = f"worker {HOST} could not play {match_id}: {type(exc).__name__}: {exc}"
        row = dict(league_id=league_id, round=round_, table=table, match=match_id, attempt=attempt,
                   worker=f"{HOST}:{os.getpid()}", failure=failure, result={}, records=b"")
        retrying(lambda: _write(store, row), store_name(store), DB_DOWN, log.warning)
        raise


def _play(store: Store, runs_dir: Path, payload: dict[str, Any], league_id: int, round_: int, table: str,
          attempt: str, t0: float) -> str:
    if not ATTEMPT.fullmatch(attempt):  # it names a folder here
        raise ValueError(f"an attempt named {printable(attempt)!r}")
    spec = parse_spec(payload["spec"])
    what = store_name(store)

    def db(action: Callable[[], T]) -> T:
        return retrying(action, what, DB_DOWN, log.warning)

    def done_already() -> bool:
        with store() as session:
            return (session.scalar(select(Match.id).where(Match.league_id == league_id, Match.round == round_,
                                                          Match.table == table)) is not None
                    or session.scalar(select(WorkerResult.id).where(WorkerResult.match == spec.match_id,
                                                                    WorkerResult.attempt == attempt)) is not None)

    if db(done_already):
        return f"{spec.match_id} {attempt}: stored or played already"
    failure = _images(store, payload["images"])
    mine = runs_dir / f"{HOST}-{os.getpid()}"
    folder = mine / spec.match_id / attempt
    result: MatchResult | None = None
    if not failure:
        bots = [int(b) for b in payload["bots"]]
        db(lambda: _live(store, league_id, round_, table, bots, str(folder)))
        with claim_core() as core:
            t1 = time.perf_counter()
            try:
                result = launch(spec, folder, cpu=core)
            except RefereeFailed as exc:
                failure = str(exc)
            t2 = time.perf_counter()
    row = dict(league_id=league_id, round=round_, table=table, match=spec.match_id, attempt=attempt,
               worker=f"{HOST}:{os.getpid()}", failure=failure, result={}, records=b"")
    if result is not None:
        row["records"] = pack_records(folder)
        # the worker's own seconds before and after the referee's: its share of the overhead
        row["result"] = {"data": result.data, "started_at": result.started_at.isoformat(), "seconds": result.seconds,
                         "worker": {"before": t1 - t0, "after": time.perf_counter() - t2}}
    written = db(lambda: _write(store, row))
    shutil.rmtree(mine / spec.match_id, ignore_errors=True)
    return f"{spec.match_id} {attempt}: " + ("written" if written else "written by another worker first") + \
        (f" ({failure})" if failure else "")


def _images(store: Store, images: list[list[str]]) -> str:
    """Makes sure this engine has each bot's image; "" when it does, else the failure."""
    from ..bots.archives import ArchiveError, ensure_image, has_archive

    for image, image_id in images:
        if not image_id:
            continue  # a bot the runner found no ID for: the referee says if the image is missing
        try:
            got = retrying(partial(ensure_image, store, image, image_id, _engine()), store_name(store), DB_DOWN,
                           log.warning)
        except ArchiveError as exc:
            if not retrying(partial(has_archive, store, image_id), store_name(store), DB_DOWN, log.warning):
                return f"{MISSING_IMAGE}{image} {image_id}"
            return f"the image {printable(image)} cannot be loaded on worker {HOST}: {exc}"
        if got == "loaded":
            log.info("loaded %s (%s) from the store's archive", printable(image), image_id)
    return ""


_engines = threading.local()


def _engine() -> Any:
    """This thread's client of the Docker engine, made once: a new one costs a connection and
    a ping, tens of milliseconds a match."""
    engine = getattr(_engines, "client", None)
    if engine is None:
        from referee.sandbox import docker_client
        engine = _engines.client = docker_client(timeout=600)  # loading an image takes a while
    return engine


def _live(store: Store, league_id: int, round_: int, table: str, bots: list[int], folder: str) -> None:
    """This worker plays the match now (for the web server's live pages); the row of an
    earlier attempt (a worker that died) is replaced."""
    with store() as session, session.begin():
        session.execute(delete(LiveMatch).where(LiveMatch.league_id == league_id, LiveMatch.round == round_,
                                                LiveMatch.table == table))
        session.add(LiveMatch(league_id=league_id, round=round_, table=table, bots=bots, record_dir=folder,
                              host=WORKER_HOST, pid=os.getpid()))


def _write(store: Store, row: dict[str, Any]) -> bool:
    """The result, once per (match, attempt), and the live row gone, in one transaction."""
    try:
        with store() as session, session.begin():
            session.add(WorkerResult(**row))
            session.execute(delete(LiveMatch).where(
                LiveMatch.league_id == row["league_id"], LiveMatch.round == row["round"],
                LiveMatch.table == row["table"], LiveMatch.host == WORKER_HOST, LiveMatch.pid == os.getpid()))
        return True
    except IntegrityError:
        return False


@contextmanager
def claim_core() -> Iterator[str | None]:
    """A core of this host for one match, for as long as it plays: the first allowed core no
    other match of any worker process here holds (a lock file per core), else one shared in
    turn. None when ``ARENA_CPU`` says where matches run."""
    if cpu.setting() != cpu.AUTO:
        yield None
        return
    allowed = cpu.allowed()
    locks = Path(tempfile.gettempdir()) / "arena-cores"
    locks.mkdir(exist_ok=True)
    for core in allowed:
        fd = os.open(locks / f"{core}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        try:
            yield str(core)
        finally:
            os.close(fd)  # closing releases the lock
        return
    yield str(allowed[threading.get_ident() % len(allowed)])


def run_worker(concurrency: int, broker: str | None, db_url: str | None, queue: str, runs_dir: Path,
               visibility_timeout: int, pid: int) -> None:
    """Runs a Celery worker until it is stopped: ``concurrency`` matches at a time, each in a
    referee process of its own (Celery's threads pool: the threads only wait on referees)."""
    global _worker
    # Celery's advice against root is for pickle, which this app never accepts; and a worker
    # must drive the Docker engine, which is root's power whoever runs it
    from celery.exceptions import SecurityWarning
    warnings.filterwarnings("ignore", category=SecurityWarning)
    # about a default that changes in Celery 6: this app sets it (matches play on; see make_app)
    warnings.filterwarnings("ignore", message="(?s).*worker_cancel_long_running_tasks_on_connection_loss")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    runs_dir = runs_dir.resolve()
    _clear_dead(runs_dir)
    _worker = _Worker(db_url, runs_dir)
    store = _worker.open()  # waits for the database, saying so
    app = make_app(broker, queue, visibility_timeout)
    log.info("arena worker %s:%d: %d match(es) at a time from queue %s of %s, store %s", HOST, pid, concurrency,
             printable(queue), shown_url(broker_url(broker)), store_name(store))
    worker = app.Worker(pool="threads", concurrency=concurrency, queues=[queue], hostname=f"arena-{pid}@{HOST}",
                        loglevel="INFO", without_mingle=True, without_gossip=True, without_heartbeat=True,
                        optimization="fair", quiet=True)
    worker.start()
    sys.exit(worker.exitcode or 0)


def _clear_dead(runs_dir: Path) -> None:
    """Removes the records folders of this host's worker processes that are gone (folders are
    named host-pid: workers of several hosts or containers may share a runs dir)."""
    if not runs_dir.is_dir():
        return
    for folder in runs_dir.iterdir():
        host, _, pid = folder.name.rpartition("-")
        if host == HOST and pid.isdigit() and not process_alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)

