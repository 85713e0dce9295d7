"""Executors play a league's matches: the local one here, Celery workers in ``workers.py``.

The local executor: J matches at a time, each in its own referee process.

Threads only wait on the referee processes (:func:`referee.launch`); results come back to
the caller's thread (the only one that writes to the store) as each match ends. A referee
dies with the process that launched it, so killing a league run does not leave matches
playing. Each of the J slots has a CPU core of its own (in turn, when J is more than the
cores), and its referee pins itself and its bots there (``referee/cpu.py``).

Jobs are pulled from their iterable only when a slot is free (:func:`play`), so a ladder
can choose each match from what the matches before it taught; a round robin passes a list.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from referee import MatchResult, RefereeFailed, cpu, launch
from referee.spec import MatchSpec

from .schedule import Slot


@dataclass(frozen=True)
class MatchJob:
    slot: Slot
    spec: MatchSpec
    out_dir: Path  # a fresh folder per attempt; its name is the attempt's
    league_id: int | None = None

    @property
    def attempt(self) -> str:
        return self.out_dir.name


Outcome = MatchResult | RefereeFailed


class Executor(Protocol):
    """What plays a league's matches: :class:`LocalExecutor` on this machine, or
    :class:`~arena.league.workers.CeleryExecutor` on workers."""

    remote: bool
    """Its matches are played elsewhere, whose workers write their ``LiveMatch`` rows."""

    def play(self, jobs: Iterable[MatchJob | None], parallel: int,
             started: Callable[[MatchJob], None] | None = None) -> Iterator[tuple[MatchJob, Outcome]]:
        """As :func:`play`: ``parallel`` matches in flight, ``started(job)`` as each is handed over."""
        ...


class LocalExecutor:
    """Referee processes on this machine, each on a core of its own (:func:`play`)."""

    remote = False

    def play(self, jobs: Iterable[MatchJob | None], parallel: int,
             started: Callable[[MatchJob], None] | None = None) -> Iterator[tuple[MatchJob, Outcome]]:
        return play(jobs, parallel, started)


class Feed:
    """The jobs a runner hands an executor, pulled only while it has room: a round robin's
    list, or a ladder's generator that may give None (nothing to start now)."""

    def __init__(self, jobs: Iterable[MatchJob | None]) -> None:
        self.jobs, self.open = iter(jobs), True

    def take(self, room: int) -> Iterator[MatchJob]:
        """Up to ``room`` next jobs, while the feed has one to start now."""
        while self.open and room > 0:
            try:
                job = next(self.jobs)
            except StopIteration:
                self.open = False
                return
            if job is None:
                return
            room -= 1
            yield job


def slot_cores(parallel: int) -> queue.Queue[str | None]:
    """One --cpu value per parallel slot: the allowed cores in turn, unless ARENA_CPU says
    otherwise (then every referee reads it from the environment)."""
    cores: queue.Queue[str | None] = queue.Queue()
    allowed = cpu.allowed()
    for i in range(max(1, parallel)):
        cores.put(str(allowed[i % len(allowed)]) if cpu.setting() == cpu.AUTO else None)
    return cores


def play(jobs: Iterable[MatchJob | None], parallel: int,
         started: Callable[[MatchJob], None] | None = None) -> Iterator[tuple[MatchJob, MatchResult | RefereeFailed]]:
    """Plays the jobs, ``parallel`` at a time, pulling the next from ``jobs`` whenever a slot is
    free; yields (job, its result, or the :class:`RefereeFailed` of a referee that failed) as
    each ends.

    ``jobs`` may give None: nothing to start now, ask again when the next match ends (a feed
    with nothing to start while nothing runs waits by itself before it answers). It is pulled,
    and ``started(job)`` called as a job's referee is launched, in the caller's thread.

    A caller that stops early (an error, Ctrl-C, or it stops iterating) starts no more
    referees and does not wait for those running: they end with this process (see
    :mod:`referee.launch`), or finish unrecorded in a process that goes on.
    """
    events: queue.Queue[tuple[MatchJob, MatchResult | BaseException | None]] = queue.Queue()
    cores = slot_cores(parallel)

    def run(job: MatchJob) -> None:  # on a free slot's core, while it runs
        core = cores.get()
        try:
            events.put((job, None))
            events.put((job, launch(job.spec, job.out_dir, cpu=core)))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            events.put((job, exc))
        finally:
            cores.put(core)

    feed, running = Feed(jobs), 0
    while True:
        for job in feed.take(max(1, parallel) - running):
            # daemon: a run that stops does not wait for its referees (they die with the process)
            threading.Thread(target=run, args=(job,), name="referee", daemon=True).start()
            running += 1
        if not running:
            if not feed.open:
                return
            continue  # the feed had nothing while nothing runs: it waited, ask again
        job, outcome = events.get()
        if outcome is None:
            if started:
                started(job)
            continue
        running -= 1
        if isinstance(outcome, MatchResult | RefereeFailed):
            yield job, outcome
        else:
            raise outcome
