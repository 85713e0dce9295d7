"""Throttles on guessing: failed sign-ins and failed API tokens, and a cap on the password
checks running at once.

A key (an account name, a browser that signed in before, a client address) may fail a few times
freely; after that each failure makes it wait, twice as long as the last time, up to a longest
wait; its failures are forgotten a while after the last one, or at once when it signs in. A key
that must wait is refused without checking anything: its guesses cost the server nothing.
Counts live in the server's memory (a restart forgets them) and are bounded in number.

A password check is argon2id with 64 MiB of memory: :class:`Gate` lets a few run at once; a
sign-in past them is held a second (:data:`HOLD`) and, still past them, answered 503, so that a
flood of sign-ins cannot take the server's memory, or its threads, from everything else.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool

T = TypeVar("T")

# seconds a sign-in that must wait, or finds the password checks all busy, is held before it is
# answered (or, for a wait that ends sooner, checked): a flood's client that sends its next
# request when the last is answered is slowed to one a second
HOLD, SPREAD = 1.0, 0.25


def held() -> float:
    """A hold of HOLD, give or take SPREAD of it: a flood's clients, refused together, come back apart."""
    return HOLD * random.uniform(1 - SPREAD, 1 + SPREAD)  # noqa: S311 - spread, not secrecy


@dataclass(frozen=True)
class Policy:
    free: int  # failures before the first wait
    first: float  # seconds: the wait after the first failure beyond ``free``; it doubles with each failure after
    longest: float  # seconds: no wait is longer
    forget: float = 3600.0  # seconds after a key's last failure, its failures are forgotten

    def wait(self, failures: int) -> float:
        if failures < self.free:
            return 0.0
        return min(self.longest, self.first * 2.0 ** min(failures - self.free, 64))


@dataclass(frozen=True)
class Throttles:
    """The policies of every key (``docs/api.md``, "Throttles")."""

    account: Policy = Policy(free=5, first=1.0, longest=300.0)  # a name, from browsers it has not signed in on
    device: Policy = Policy(free=5, first=1.0, longest=300.0)  # a browser that signed in to that name before
    address: Policy = Policy(free=20, first=1.0, longest=900.0)  # a client address, whatever the names
    token: Policy = Policy(free=20, first=1.0, longest=900.0)  # a client address's API tokens that are not valid
    # a client address's sign-ups, made or refused for the code or the name: a few an hour, then fewer
    signup: Policy = Policy(free=5, first=60.0, longest=3600.0, forget=86400.0)
    enabled: bool = True  # False only to measure a server without them (bench/signin.py)


@dataclass(slots=True)
class _Entry:
    failures: int = 0
    last: float = 0.0
    until: float = 0.0  # monotonic time before which the key waits


class Throttle:
    """Failures by key under one :class:`Policy`; thread-safe (token checks run in the thread pool)."""

    # keys kept (about 300 bytes each); the oldest are dropped first, so an attacker's many names cost
    # bounded memory (and to push out a key it guesses at, 50,000 password checks of its own)
    SIZE = 50_000

    def __init__(self, policy: Policy, enabled: bool = True, clock: Callable[[], float] = time.monotonic) -> None:
        self.policy, self.enabled, self.clock = policy, enabled, clock
        self.lock = threading.Lock()
        self.entries: OrderedDict[str, _Entry] = OrderedDict()

    def _entry(self, key: str, now: float) -> _Entry | None:
        entry = self.entries.get(key)
        if entry is not None and now - entry.last > self.policy.forget:
            del self.entries[key]
            return None
        return entry

    def wait(self, key: str) -> float:
        """Seconds ``key`` must still wait before its next try; 0: it may try now."""
        if not self.enabled:
            return 0.0
        with self.lock:
            now = self.clock()
            entry = self._entry(key, now)
            return max(0.0, entry.until - now) if entry is not None else 0.0

    def failed(self, key: str) -> float:
        """Counts a failure of ``key``; returns the wait it now has."""
        if not self.enabled:
            return 0.0
        with self.lock:
            now = self.clock()
            entry = self._entry(key, now) or _Entry()
            entry.failures += 1
            entry.last = now
            wait = self.policy.wait(entry.failures)
            entry.until = max(entry.until, now + wait)
            self.entries[key] = entry
            self.entries.move_to_end(key)
            while len(self.entries) > self.SIZE:
                self.entries.popitem(last=False)
            return wait

    def succeeded(self, key: str) -> None:
        with self.lock:
            self.entries.pop(key, None)


def longest_wait(checks: Iterable[tuple[Throttle, str]]) -> float:
    return max((throttle.wait(key) for throttle, key in checks), default=0.0)


def seconds(wait: float) -> int:
    """A wait as the whole seconds of a ``Retry-After`` header (never 0 for a real wait)."""
    return max(1, math.ceil(wait))


def in_words(wait: float) -> str:
    whole = seconds(wait)
    if whole < 120:
        return f"{whole} second{'s' if whole != 1 else ''}"
    return f"{math.ceil(whole / 60)} minutes"


class Gate:
    """At most ``limit`` password checks at once (0: no limit), each in a thread of the gate's own,
    run at a lower priority (nice 10) than the server's other threads: a check is argon2id's 4
    lanes for a tenth of a second, which would otherwise take the cores from every other request.
    Admission is a counter used from the event loop only; over the limit :meth:`enter` answers
    False at once: nothing queues."""

    NICE = 10

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.busy = 0
        self.peak = 0  # the most at once so far (the tests read it)
        self.executor = ThreadPoolExecutor(limit, "arena-password", initializer=_lower_priority,
                                           initargs=(self.NICE,)) if limit else None

    def enter(self) -> bool:
        if self.limit and self.busy >= self.limit:
            return False
        self.busy += 1
        self.peak = max(self.peak, self.busy)
        return True

    def leave(self) -> None:
        self.busy -= 1

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=False)

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in the gate's threads (in the server's thread pool if it has no limit)."""
        if self.executor is None:
            return await run_in_threadpool(function, *args)
        return await asyncio.get_running_loop().run_in_executor(self.executor, function, *args)


def _lower_priority(nice: int) -> None:
    with contextlib.suppress(OSError, AttributeError):  # a thread's own priority: Linux's setpriority by thread id
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)


class Guard:
    """One server's throttles and password-check gate."""

    def __init__(self, throttles: Throttles, concurrency: int) -> None:
        on = throttles.enabled
        self.account = Throttle(throttles.account, on)
        self.device = Throttle(throttles.device, on)
        self.address = Throttle(throttles.address, on)
        self.token = Throttle(throttles.token, on)
        self.signup = Throttle(throttles.signup, on)
        self.gate = Gate(concurrency)
