"""The local executor: J matches at a time, each in its own referee process.

Threads only wait on the referee processes (:func:`referee.launch`); results come back to
the caller's thread (the only one that writes to the store) as each match ends. A referee
dies with the process that launched it, so killing a league run does not leave matches
playing. Each of the J slots has a CPU core of its own (in turn, when J is more than the
cores), and its referee pins itself and its bots there (``referee/cpu.py``).
"""

from __future__ import annotations

import queue
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
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


def run_jobs(jobs: list[MatchJob], parallel: int) -> Iterator[tuple[MatchJob, MatchResult]]:
    """Runs every job, ``parallel`` at a time; yields (job, result) as each ends.

    A referee that fails does not stop the others: once all have ended, the first
    failure is raised (its match is not stored, so the next run plays it again).
    """
    failures: list[RefereeFailed] = []
    with ThreadPoolExecutor(max_workers=max(1, parallel), thread_name_prefix="referee") as pool:
        cores = slot_cores(parallel)

        def play(job: MatchJob) -> MatchResult:  # on a free slot's core, while it runs
            core = cores.get()
            try:
                return launch(job.spec, job.out_dir, cpu=core)
            finally:
                cores.put(core)

        futures = {pool.submit(play, job): job for job in jobs}
        for future in as_completed(futures):
            try:
                yield futures[future], future.result()
            except RefereeFailed as exc:
                failures.append(exc)
    if failures:
        raise failures[0]
