"""The local executor: J matches at a time, each in its own referee process.

Threads only wait on the referee processes; results come back to the caller's thread
(the only one that writes to the store) as each match ends. A referee is told its
parent's pid and dies with it, so killing a league run does not leave matches playing.
Each of the J slots has a CPU core of its own (in turn, when J is more than the cores),
and its referee pins itself and its bots there (``referee/cpu.py``).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from referee import cpu

from .schedule import Slot


@dataclass
class MatchJob:
    slot: Slot
    spec: dict[str, Any]
    out_dir: Path
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    seconds: float = 0.0  # the referee process's wall time


class RefereeFailed(RuntimeError):
    def __init__(self, job: MatchJob, message: str) -> None:
        super().__init__(message)
        self.job = job


def slot_cores(parallel: int) -> queue.Queue[str | None]:
    """One --cpu value per parallel slot: the allowed cores in turn, unless ARENA_CPU says
    otherwise (then every referee reads it from the environment)."""
    cores: queue.Queue[str | None] = queue.Queue()
    allowed = cpu.allowed()
    for i in range(max(1, parallel)):
        cores.put(str(allowed[i % len(allowed)]) if cpu.setting() == cpu.AUTO else None)
    return cores


def run_referee(job: MatchJob, core: str | None = None) -> dict[str, Any]:
    """Plays one job in a referee process, pinned to ``core`` when one is given."""
    job.out_dir.mkdir(parents=True, exist_ok=True)
    spec_path = job.out_dir / "spec.json"
    spec_path.write_text(json.dumps(job.spec, indent=1))
    job.started_at = datetime.now(UTC)
    env = {**os.environ, "ARENA_PARENT_PID": str(os.getpid())}
    t0 = time.perf_counter()
    command = [sys.executable, "-m", "referee", str(spec_path), "--out", str(job.out_dir)]
    proc = subprocess.run(command + (["--cpu", core] if core is not None else []),
                          env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    job.seconds = time.perf_counter() - t0
    result_path = job.out_dir / "result.json"
    if proc.returncode != 0 or not result_path.exists():
        tail = "\n".join(proc.stderr.strip().splitlines()[-10:])
        raise RefereeFailed(job, f"the referee of {job.spec['match_id']} failed (exit {proc.returncode}): {tail}")
    return json.loads(result_path.read_text())


def run_jobs(jobs: list[MatchJob], parallel: int) -> Iterator[tuple[MatchJob, dict[str, Any]]]:
    """Runs every job, ``parallel`` at a time; yields (job, result) as each ends.

    A referee that fails does not stop the others: once all have ended, the first
    failure is raised (its match is not stored, so the next run plays it again).
    """
    failures: list[RefereeFailed] = []
    with ThreadPoolExecutor(max_workers=max(1, parallel), thread_name_prefix="referee") as pool:
        cores = slot_cores(parallel)

        def play(job: MatchJob) -> dict[str, Any]:  # on a free slot's core, while it runs
            core = cores.get()
            try:
                return run_referee(job, core)
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
