"""The seat that is thinking has its core.

Every process of a match shares one core (``referee/cpu.py``), so a bot computing while another
seat is asked would take that seat's time. The :class:`Guard` reads each bot container's CPU
time from its cgroup every tick of a game's decisions; a bot that uses more than a sliver off
its turns is *caught* (``caught``, ``off_turn_ms`` in the result), and from then on its container
is frozen whenever it is not being asked. Idle bots are not all frozen because a freeze and a
thaw cost about 40% more per round trip. The bound on what a bot can still take, and where it
does not hold: docs/sandbox.md ("The seat that is thinking has its core").
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import cpu
from .limits import BUDGET_S, TAIL_S, WINDOW_SHARE

CGROUP_ROOT = Path("/sys/fs/cgroup")
ENABLED = True  # bench/fairness.py turns the guard off to measure what it prevents
TICK_S = 0.01  # how often, during a game's decisions, the bots' CPU time is read
# A bot is caught by the rules of referee/limits.py: WINDOW_SHARE of a tick's wall time
# (a spinner: caught within a tick), or BUDGET_S + TAIL_S per turn it had (a trickle).
CARRY_S = 0.005  # on more than one core, a bot's CPU time may reach its cgroup's count up to a scheduler tick late


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
    def of_docker_id(cls, container_id: str, root: Path = CGROUP_ROOT, parent: str = "docker") -> Cgroup:
        """A Docker container's cgroup where Docker's cgroup drivers put it (cgroupfs, v1 or
        v2, under ``parent``: the engine's own, or the container's ``cgroup_parent``; systemd,
        v2): found without asking the engine for the container's pid."""
        v1 = (root / "cpuacct" / parent / container_id, root / "freezer" / parent / container_id)
        if v1[0].is_dir() and v1[1].is_dir():
            return cls(v1[0] / "cpuacct.usage", v1[1] / "freezer.state", v2=False)
        for group in (root / parent / container_id, root / "system.slice" / f"docker-{container_id}.scope"):
            if (group / "cgroup.freeze").exists():
                return cls(group / "cpu.stat", group / "cgroup.freeze", v2=True)
        raise CgroupError(0, f"no cgroup of container {container_id[:12]} where Docker puts them")

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
    mark: float = 0.0  # the container's CPU time at the last count
    turn_time: float = 0.0  # wall seconds of its own turns since the last count
    turn_start: float = 0.0  # when its current turn began (while it is asked)
    carry: float = 0.0  # credit for its own turns that the last count did not use (more than one core)
    pending: float = 0.0  # CPU seconds counted as its last replies arrived, not its turns' (Guard._settle)
    off_turn: float = 0.0  # CPU seconds used, over the match, while another seat was asked
    turns: int = 0  # decisions it was asked for, over the match
    caught: str = ""  # why it is frozen whenever it is not asked; "" while it is not
    frozen: bool = False
    watched: bool = False  # the guard could read and freeze one of its processes


class Guard:
    """Keeps bots that are not being asked from computing on the thinking seat's core.

    The match calls :meth:`begin_game` once its bots are up, :meth:`asking` right
    before sending a seat its request, :meth:`answered` as soon as the reply is in (or
    the decision failed), and :meth:`end_game` before the game's end is sent. Between
    games every bot runs freely: nobody is thinking then.

    The hooks on a decision's path only note the time: a thread of its own, the cheapest way
    measured, reads the containers' CPU time every :data:`TICK_S` and takes off what each may
    have used on its own turns (their wall time, times the cores it may use). On one core (the
    default) it is also read as each reply arrives, so a turn's credit covers only what came
    before the reply. The figures: docs/sandbox.md ("The seat that is thinking has its core").
    """

    def __init__(self, seats: list[Any]) -> None:
        self.seats = seats if ENABLED else []  # anything with a ``cgroup`` (None: not watched)
        self.watches = [Watch() for _ in seats]
        self.asked: int | None = None
        self.cores = len(cpu.allowed())  # a bot's CPU time on its own turn is at most this x its wall time
        self._lock = threading.Lock()  # the thread never freezes a seat that is being asked
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._tick_at = 0.0

    # -- the match's hooks ---------------------------------------------------------------------
    def begin_game(self) -> None:
        for b, seat in enumerate(self.seats):  # (none when the guard is off)
            watch, cgroup = self.watches[b], getattr(seat, "cgroup", None)
            if cgroup is not watch.cgroup:  # a new process (a restart or a fresh one)
                watch.cgroup, watch.frozen = cgroup, False
            if watch.cgroup is not None:
                watch.watched = True
                with contextlib.suppress(OSError):  # between games is nobody's turn: not counted
                    watch.mark = watch.cgroup.cpu_s()
                watch.turn_time = watch.carry = watch.pending = 0.0
                if watch.caught:
                    self._freeze(b)
        self.asked = None
        self._tick_at = time.perf_counter()
        if any(w.cgroup is not None for w in self.watches):
            self._stop.clear()
            self._thread = threading.Thread(target=self._watch, name="arena-guard", daemon=True)
            self._thread.start()

    def asking(self, b: int) -> None:
        watch = self.watches[b]
        with self._lock:
            if watch.frozen:
                self._call(b, watch.cgroup.thaw)  # type: ignore[union-attr]
                watch.frozen = False
            watch.turns += 1
            watch.turn_start = time.perf_counter()
            self.asked = b

    def answered(self, b: int) -> None:
        watch = self.watches[b]
        with self._lock:
            self.asked = None
            watch.turn_time += time.perf_counter() - watch.turn_start
            if watch.cgroup is not None and self.cores == 1:
                self._settle(watch)
            if watch.caught:
                self._freeze(b)

    def _settle(self, watch: Watch) -> None:
        """Counts a bot's CPU time as its reply arrives, so that what it uses from then on is
        never its own turn's: the idle part of a turn pays for nothing after it. On one core the
        count is exact then (the bot is not running while the referee is); with more, a running
        bot's time reaches its count late, and the tick's count with its carry does it."""
        try:
            cpu_now = watch.cgroup.cpu_s()  # type: ignore[union-attr]
        except OSError:
            return
        watch.pending += max(0.0, cpu_now - watch.mark - watch.turn_time * self.cores)
        watch.mark, watch.turn_time = cpu_now, 0.0

    def end_game(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
            self._check(time.perf_counter())  # the game's last stretch
        for b, watch in enumerate(self.watches):
            if watch.frozen:
                self._call(b, watch.cgroup.thaw)  # type: ignore[union-attr]
                watch.frozen = False
        self.asked = None

    def report(self) -> list[dict[str, Any]]:
        """Per bot: whether it was watched, CPU milliseconds used while others were asked, and
        why it was caught ("" if it was not)."""
        return [{"watched": w.watched, "off_turn_ms": round(w.off_turn * 1000, 3), "caught": w.caught}
                for w in self.watches]

    # -- inside -----------------------------------------------------------------------------------
    def _watch(self) -> None:
        """The guard's thread, for one game's decisions."""
        while not self._stop.wait(TICK_S):
            with self._lock:
                self._check(time.perf_counter())

    def _check(self, now: float) -> None:
        """Counts every watched bot's CPU time since the last count that its own turns do not
        account for, and catches those that used too much."""
        elapsed, self._tick_at = now - self._tick_at, now
        for b, watch in enumerate(self.watches):
            if watch.cgroup is None:
                continue
            if b == self.asked:  # its turn so far is its own
                watch.turn_time += now - watch.turn_start
                watch.turn_start = now
            try:
                cpu_now = watch.cgroup.cpu_s()
            except OSError:  # the container is gone: its seat will find out
                continue
            # CPU time reaches the cgroup's count late (at the next scheduler tick, when the bot
            # runs on another core): what its turns leave unused is credited to the next count
            credit = watch.turn_time * self.cores + watch.carry
            used = max(0.0, cpu_now - watch.mark - credit) + watch.pending
            late = min(CARRY_S, max(0.0, credit - (cpu_now - watch.mark)))
            watch.carry = late if self.cores > 1 else 0.0  # on one core nothing is counted late
            watch.mark, watch.turn_time, watch.pending = cpu_now, 0.0, 0.0
            watch.off_turn += used
            if watch.caught:
                continue
            if used > WINDOW_SHARE * elapsed:
                self._catch(b, f"{used * 1000:.1f} ms of CPU in {elapsed * 1000:.1f} ms while other seats "
                               "were asked")
            elif watch.off_turn > BUDGET_S + TAIL_S * watch.turns:
                self._catch(b, f"{watch.off_turn * 1000:.0f} ms of CPU in all while other seats were asked")

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
