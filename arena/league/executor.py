"""The local executor: J matches at a time, each in its own referee process.

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

    feed, running, fed = iter(jobs), 0, True
    while True:
        while fed and running < max(1, parallel):
            job = next(feed, StopIteration)
            if job is StopIteration:
                fed = False
            elif job is None:
                break
            else:
                # daemon: a run that stops does not wait for its referees (they die with the process)
                threading.Thread(target=run, args=(job,), name="referee", daemon=True).start()
                running += 1
        if not running:
            if not fed:
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


def run_jobs(jobs: list[MatchJob], parallel: int,
             started: Callable[[MatchJob], None] | None = None,
             ended: Callable[[MatchJob], None] | None = None) -> Iterator[tuple[MatchJob, MatchResult]]:
    """Runs every job, ``parallel`` at a time, in order; yields (job, result) as each ends.

    ``started(job)`` is called as a job's referee is launched, and ``ended(job)`` when its
    referee fails, both in the caller's thread (as the results are yielded there).

    A referee that fails does not stop the others: once all have ended, the first
    failure is raised (its match is not stored, so the next run plays it again).
    """
    failures: list[RefereeFailed] = []
    for job, outcome in play(jobs, parallel, started):
        if isinstance(outcome, RefereeFailed):
            if ended:
                ended(job)
            failures.append(outcome)
            continue
        yield job, outcome
    if failures:
        raise failures[0]
