"""The local executor: J matches at a time, each in its own referee process.

Threads only wait on the referee processes (:func:`referee.launch`); results come back to
the caller's thread (the only one that writes to the store) as each match ends. A referee
dies with the process that launched it, so killing a league run does not leave matches
playing. Each of the J slots has a CPU core of its own (in turn, when J is more than the
cores), and its referee pins itself and its bots there (``referee/cpu.py``).
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from referee import MatchResult, RefereeFailed, cpu, launch
from referee.spec import MatchSpec

from .schedule import Slot


@dataclass(frozen=True)
class MatchJob:
    slot: Slot
    spec: MatchSpec
    out_dir: Path


def slot_cores(parallel: int) -> queue.Queue[str | None]:
    """One --cpu value per parallel slot: the allowed cores in turn, unless ARENA_CPU says
    otherwise (then every referee reads it from the environment)."""
    cores: queue.Queue[str | None] = queue.Queue()
    allowed = cpu.allowed()
    for i in range(max(1, parallel)):
        cores.put(str(allowed[i % len(allowed)]) if cpu.setting() == cpu.AUTO else None)
    return cores


def run_jobs(jobs: list[MatchJob], parallel: int,
             started: Callable[[MatchJob], None] | None = None,
             ended: Callable[[MatchJob], None] | None = None) -> Iterator[tuple[MatchJob, MatchResult]]:
    """Runs every job, ``parallel`` at a time; yields (job, result) as each ends.

    ``started(job)`` is called as a job's referee is launched, and ``ended(job)`` when its
    referee fails, both in the caller's thread (as the results are yielded there).

    A referee that fails does not stop the others: once all have ended, the first
    failure is raised (its match is not stored, so the next run plays it again).
    """
    failures: list[RefereeFailed] = []
    # what the slots report, in order: (job, None) as its referee starts, then (job, outcome)
    events: queue.Queue[tuple[MatchJob, MatchResult | BaseException | None]] = queue.Queue()
    with ThreadPoolExecutor(max_workers=max(1, parallel), thread_name_prefix="referee") as pool:
        cores = slot_cores(parallel)

        def play(job: MatchJob) -> None:  # on a free slot's core, while it runs
            core = cores.get()
            try:
                events.put((job, None))
                events.put((job, launch(job.spec, job.out_dir, cpu=core)))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                events.put((job, exc))
            finally:
                cores.put(core)

        for job in jobs:
            pool.submit(play, job)
        left = len(jobs)
        try:
            while left:
                job, outcome = events.get()
                if outcome is None:
                    if started:
                        started(job)
                    continue
                left -= 1
                if isinstance(outcome, MatchResult):
                    yield job, outcome
                    continue
                if ended:
                    ended(job)
                if not isinstance(outcome, RefereeFailed):
                    raise outcome
                failures.append(outcome)
        except BaseException:  # an error, or the caller stopped: start no more referees
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    if failures:
        raise failures[0]
