"""Where a match runs: by default the referee and all its bots share one CPU core.

A match is a chain of hand-offs, so only one of its processes has work at a time: on one core a
hand-off is a local context switch, not the wake-up of an idle core (tens of microseconds on
virtual machines), and parallel matches take no time from each other. Bots follow the referee
(local processes inherit its affinity, containers get it as their cpuset: :func:`cpuset`);
``--cpu none`` (or ``ARENA_CPU=none``) leaves the scheduler free. More: docs/sandbox.md ("One
match, one core").
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

AUTO, NONE = "auto", "none"


class CpuOptionError(ValueError):
    """A --cpu value that is neither auto, none, nor CPUs this process may use."""


PINNABLE = hasattr(os, "sched_setaffinity")  # Linux; elsewhere matches run unpinned


def allowed() -> list[int]:
    """The CPUs this process may run on, in order."""
    if not PINNABLE:
        return list(range(os.cpu_count() or 1))
    return sorted(os.sched_getaffinity(0))


def current() -> int:
    """The CPU this thread last ran on (field 39 of /proc/self/stat)."""
    stat = Path("/proc/thread-self/stat").read_text()
    return int(stat[stat.rindex(")") + 2:].split()[36])


def parse(value: str) -> set[int] | None:
    """``auto`` -> the one CPU this process is running on; ``none`` -> None (no pinning);
    ``3`` or ``0,2`` or ``0-3`` -> those CPUs, which must be among the allowed ones."""
    value = value.strip().lower()
    if value == NONE or (value == AUTO and not PINNABLE):
        return None
    cpus = allowed()
    if value == AUTO:
        here = current()
        return {here if here in cpus else cpus[0]}
    chosen: set[int] = set()
    try:
        for part in value.split(","):
            first, dash, last = part.partition("-")
            chosen.update(range(int(first), int(last if dash else first) + 1))
    except ValueError:
        raise CpuOptionError(f"--cpu takes auto, none or a list of CPUs such as 0 or 0,2; got {value!r}") from None
    outside = sorted(chosen - set(cpus))
    if not chosen or outside:
        raise CpuOptionError(f"CPU {', '.join(map(str, outside))} is not available here "
                             f"(this process may use {format_set(set(cpus))})")
    return chosen


def pin(cpus: set[int]) -> None:
    """Moves every thread of this process onto ``cpus``; threads and processes started
    afterwards inherit it. (``sched_setaffinity(0, …)`` alone moves only the caller.)"""
    for tid in os.listdir("/proc/self/task"):
        with contextlib.suppress(ProcessLookupError):  # a thread that has just ended
            os.sched_setaffinity(int(tid), cpus)


def setting() -> str:
    """The --cpu value from the environment: ``ARENA_CPU``, else auto."""
    return os.environ.get("ARENA_CPU", AUTO).strip().lower()


def place(value: str | None) -> set[int] | None:
    """Applies a --cpu value (default: :func:`setting`); returns the CPUs the match is
    pinned to, or None."""
    cpus = parse(value if value is not None else setting())
    if cpus is not None:
        if not PINNABLE:
            raise CpuOptionError("this system cannot pin processes to CPUs: use --cpu auto or none")
        pin(cpus)
    return cpus


def cpuset() -> str | None:
    """This process's CPUs as a Docker cpuset (``"1"``, ``"0,2"``), or None when it may
    run anywhere, so that bot containers run where their referee runs."""
    mine = set(allowed())
    total = os.cpu_count() or len(mine)
    return None if len(mine) >= total else format_set(mine)


def format_set(cpus: set[int]) -> str:
    return ",".join(map(str, sorted(cpus)))
