"""The seat that is thinking has its core.

Every process of a match runs on one core (``referee/cpu.py``), so a bot that computes
while another seat is thinking takes that seat's time: its think time grows, its bank
drains, it may time out. The :class:`Guard` stops that.

It reads each bot container's CPU time from its cgroup (about a microsecond a read) when
a seat is asked, when it answers, and every few milliseconds in between. A bot that uses
more than a sliver of CPU while another seat thinks is *caught*: from then on, for the
rest of the match, its container is frozen (the cgroup freezer) whenever it is not being
asked, and thawed just before a request is sent to it, so it only ever computes on its
own clock or between games. Being caught costs the bot nothing else; it is recorded in
the match result (``off_turn``).

Why not freeze every idle bot all the time? A freeze or a thaw of a container with a
Python bot's dozen threads costs about 90 µs of the referee's time, twice per hand-off:
about 40% more per round trip. Bots that sit idle while others think, which is all of
them but the hostile ones, never pay that.

What a bot can still take from another seat is bounded: the sliver (a reply's tail, a
cycle collection) before it is caught; see :data:`WINDOW_SHARE`, :data:`BUDGET_S` and :data:`TAIL_S`.
Local-process seats run with the referee's own rights and are not watched (development
only); in-process seats are Arena's own code.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CGROUP_ROOT = Path("/sys/fs/cgroup")
ENABLED = True  # bench/fairness.py turns the guard off to measure what it prevents
TICK_S = 0.005  # how often, while a seat thinks, the others' CPU time is read
# A bot is caught when, while not asked, it uses more than WINDOW_SHARE of a tick's wall
# time (a spinner: caught within a tick), or more in all over the match than
# BUDGET_S + TAIL_S per turn it had (a trickle). A well-behaved bot's only off-turn CPU is
# the tail of each reply, measured at about 20 µs a turn for a Python bot.
WINDOW_SHARE = 0.2
BUDGET_S = 0.02
TAIL_S = 0.0002


class CgroupError(OSError):
    """A container's cgroup cannot be found, read or frozen here."""


class Cgroup:
    """One container's CPU time and freezer, through its cgroup files (v1 or v2).

    The files stay open: a read or a write is then one system call, with no path lookup.
    """

    def __init__(self, cpu_file: Path, freeze_file: Path, v2: bool) -> None:
        self.v2 = v2
        self._frozen, self._thawed = (b"1", b"0") if v2 else (b"FROZEN", b"THAWED")
        try:
            self._cpu = os.open(cpu_file, os.O_RDONLY)
        except OSError as exc:
            raise CgroupError(exc.errno, f"cannot read {cpu_file}: {exc.strerror}") from None
        try:
            self._freezer = os.open(freeze_file, os.O_WRONLY)
        except OSError as exc:
            os.close(self._cpu)
            raise CgroupError(exc.errno, f"cannot write {freeze_file}: {exc.strerror}") from None
        self.closed = False

    @classmethod
    def of_pid(cls, pid: int, root: Path = CGROUP_ROOT) -> Cgroup:
        """The cgroup of process ``pid`` (a container's init): cgroup v1 (cpuacct and
        freezer controllers, as Docker's cgroupfs driver sets them up), else v2."""
        try:
            lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
        except OSError as exc:
            raise CgroupError(exc.errno, f"process {pid} is gone: {exc.strerror}") from None
        paths: dict[str, str] = {}
        for line in lines:
            _, controllers, path = line.split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                paths[controller] = path.lstrip("/")
        if "cpuacct" in paths and "freezer" in paths:
            return cls(root / "cpuacct" / paths["cpuacct"] / "cpuacct.usage",
                       root / "freezer" / paths["freezer"] / "freezer.state", v2=False)
        if "" in paths and (root / "cgroup.controllers").exists():
            group = root / paths[""]
            return cls(group / "cpu.stat", group / "cgroup.freeze", v2=True)
        raise CgroupError(0, f"no cpuacct and freezer cgroups for process {pid} under {root}")

    def cpu_s(self) -> float:
        """CPU time used by every process of the container so far, in seconds."""
        data = os.pread(self._cpu, 4096, 0)
        if not self.v2:
            return int(data) / 1e9
        for line in data.split(b"\n"):  # "usage_usec N" is the first line
            if line.startswith(b"usage_usec "):
                return int(line.split()[1]) / 1e6
        raise CgroupError(0, "cpu.stat has no usage_usec")

    def freeze(self) -> None:
        """Stops every process of the container as soon as it next runs; does not wait."""
        os.pwrite(self._freezer, self._frozen, 0)

    def thaw(self) -> None:
        """Lets the container run again; done when this returns."""
        os.pwrite(self._freezer, self._thawed, 0)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            os.close(self._cpu)
            os.close(self._freezer)


@dataclass
class Watch:
    """What the guard knows of one bot (by bot index; it outlives the bot's processes)."""

    cgroup: Cgroup | None = None
    mark: float = 0.0  # the container's CPU time when its off-turn time was last counted
    off_turn: float = 0.0  # CPU seconds used, over the match, while another seat was asked
    turns: int = 0  # decisions it was asked for, over the match
    caught: str = ""  # why it is frozen whenever it is not asked; "" while it is not
    frozen: bool = False


class Guard:
    """Keeps bots that are not being asked from computing on the thinking seat's core.

    The match calls :meth:`begin_game` once its bots are up, :meth:`asking` right
    before sending a seat its request, :meth:`answered` as soon as the reply is in (or
    the decision failed), and :meth:`end_game` before the game's end is sent. Between
    games every bot runs freely: nobody is thinking then.
    """

    def __init__(self, seats: list[Any]) -> None:
        self.seats = seats if ENABLED else []  # anything with a ``cgroup`` (None: not watched)
        self.watches = [Watch() for _ in seats]
        self.asked: int | None = None
        self.loop_time = 0.0  # wall seconds spent inside decision loops, over the match
        self._timer: asyncio.TimerHandle | None = None
        self._tick_at = 0.0
        self._game_start = 0.0

    # -- the match's hooks ---------------------------------------------------------------------
    def begin_game(self) -> None:
        for b, seat in enumerate(self.seats):  # (none when the guard is off)
            watch, cgroup = self.watches[b], getattr(seat, "cgroup", None)
            if cgroup is not watch.cgroup:  # a new process (a restart or a fresh one)
                watch.cgroup, watch.frozen = cgroup, False
            if watch.cgroup is not None:
                with contextlib.suppress(OSError):  # between games is nobody's turn: not counted
                    watch.mark = watch.cgroup.cpu_s()
                if watch.caught:
                    self._freeze(b)
        self.asked = None
        self._game_start = self._tick_at = time.perf_counter()
        if any(w.cgroup is not None for w in self.watches):
            self._timer = asyncio.get_running_loop().call_later(TICK_S, self._tick)

    def asking(self, b: int) -> None:
        watch = self.watches[b]
        if watch.cgroup is not None:
            self._count(b)
            if watch.frozen:
                self._call(b, watch.cgroup.thaw)
                watch.frozen = False
        watch.turns += 1
        self.asked = b

    def answered(self, b: int) -> None:
        self.asked = None
        watch = self.watches[b]
        if watch.cgroup is not None:
            with contextlib.suppress(OSError):
                watch.mark = watch.cgroup.cpu_s()  # its own turn is not off-turn time
            if watch.caught:
                self._freeze(b)

    def end_game(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.loop_time += time.perf_counter() - self._game_start
        for b, watch in enumerate(self.watches):
            if watch.cgroup is not None:
                self._count(b)
                if watch.frozen:
                    self._call(b, watch.cgroup.thaw)
                    watch.frozen = False
        self.asked = None

    def report(self) -> list[dict[str, Any]]:
        """Per bot: CPU milliseconds used while others were asked, and why it was caught."""
        return [{"off_turn_ms": round(w.off_turn * 1000, 3), "caught": w.caught} for w in self.watches]

    # -- inside -----------------------------------------------------------------------------------
    def _tick(self) -> None:
        now = time.perf_counter()
        elapsed, self._tick_at = now - self._tick_at, now
        for b, watch in enumerate(self.watches):
            if watch.cgroup is None or watch.frozen or b == self.asked:
                continue
            used = self._count(b)
            if watch.caught:
                continue
            if used > WINDOW_SHARE * elapsed:
                self._catch(b, f"{used * 1000:.1f} ms of CPU in {elapsed * 1000:.1f} ms while another seat "
                               "was asked")
            elif watch.off_turn > BUDGET_S + TAIL_S * watch.turns:
                self._catch(b, f"{watch.off_turn * 1000:.0f} ms of CPU in all while other seats were asked")
        self._timer = asyncio.get_running_loop().call_later(TICK_S, self._tick)

    def _count(self, b: int) -> float:
        """Adds the bot's CPU time since its mark to its off-turn time; returns the increase."""
        watch = self.watches[b]
        assert watch.cgroup is not None
        try:
            now = watch.cgroup.cpu_s()
        except OSError:  # the container is gone: its seat will find out
            return 0.0
        used, watch.mark = max(0.0, now - watch.mark), now
        watch.off_turn += used
        return used

    def _catch(self, b: int, why: str) -> None:
        self.watches[b].caught = why
        self._freeze(b)

    def _freeze(self, b: int) -> None:
        watch = self.watches[b]
        if watch.cgroup is not None and not watch.frozen and b != self.asked:
            watch.frozen = self._call(b, watch.cgroup.freeze)

    def _call(self, b: int, action: Any) -> bool:
        try:
            action()
            return True
        except OSError:  # the container has just ended
            return False
