"""Matches on many machines: Celery workers, a Redis broker, and the shared store.

The runner (``arena league run --executor celery``, ``arena ladder run --executor celery``)
hands each match to the broker as a task; an ``arena worker`` on any host takes it, plays it
in a referee process on its own Docker engine, and writes the result into the store once per
(match, attempt) (``WorkerResult``); the runner stores the match from it as the local
executor's matches are stored. Tasks are acknowledged late: a worker that dies mid-match
leaves its task to be handed to another after the visibility timeout, and the match is
counted once whichever attempt ends first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..store import Store
from .executor import Executor, LocalExecutor, MatchJob, Outcome

DEFAULT_BROKER = "redis://127.0.0.1:6379/0"


class CeleryExecutor:
    """Hands matches to ``arena worker``s through the broker; their results come back through
    the store."""

    remote = True

    def __init__(self, store: Store, broker: str | None = None, queue: str = "arena") -> None:
        raise NotImplementedError

    def play(self, jobs: Iterable[MatchJob | None], parallel: int,
             started: Callable[[MatchJob], None] | None = None) -> Iterator[tuple[MatchJob, Outcome]]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


@contextmanager
def make_executor(kind: str, store: Store, broker: str | None = None, queue: str = "arena") -> Iterator[Executor]:
    """The executor ``kind`` names ("local" or "celery"), closed when done."""
    if kind == "local":
        yield LocalExecutor()
        return
    executor = CeleryExecutor(store, broker, queue)
    try:
        yield executor
    finally:
        executor.close()


def run_worker(concurrency: int, broker: str | None, db_url: str | None, queue: str, runs_dir: Path,
               visibility_timeout: int, pid: int) -> None:
    """Runs a Celery worker until it is stopped: ``concurrency`` matches at a time."""
    raise NotImplementedError
