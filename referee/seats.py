"""Seats: how the referee reaches a bot, whatever runs it.

Every seat speaks plain data to the match loop (views are dicts, actions strings) and
reports trouble as a :class:`Failure` with one of the reasons below. Three kinds:

* :class:`BuiltinSeat`: an in-process strategy, no protocol (tests, benchmarks);
* :class:`ProcessSeat`: a local process, reached over gRPC on its own Unix socket;
* container seats (``referee/sandbox.py``) reuse :class:`GrpcSeat` with a container
  in place of the process.

A gRPC seat runs a gRPC server on its socket for each launch of its bot (the transport:
``referee/transport.py``). The bot connects, says Hello, and the match runs over that one
stream. Every read and write on it has a deadline, so a bot that is slow, silent or dead can
never stall the referee; one that fails in any way but an illegal action is restarted before
its next game, with a new server, so nothing of its earlier connection is left. A bot whose
hello is refused is not restarted.

A seat's bot is stopped (:meth:`Seat.stop`) to be started again, and the seat closed
(:meth:`Seat.close`) once, when the match is over.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena_protocol import PROTOCOL_VERSION, codec
from arena_protocol.proto import arena_pb2 as pb
from arenabot import debugtext
from arenabot.strategies import Strategy, end_info, start_info

from .limits import LOG_CAP
from .textlog import printable
from .transport import CLOSED, Connection, Garbage, SeatServer, drain_capped

# Failure reasons, as recorded in game records and results.
TIMEOUT = "timeout"  # no reply within the decision limit plus the bank
CRASH = "crash"  # the bot's process or container exited
DISCONNECT = "disconnect"  # the stream closed while the bot's process lives on
MALFORMED = "malformed"  # a message that is not valid protocol
ILLEGAL = "illegal"  # a well-formed action that is not among the legal ones
NO_HELLO = "no_hello"  # never connected and said hello within the startup limit
PROTOCOL_VERSION_MISMATCH = "protocol_version"
START_FAILED = "start_failed"  # the bot could not even be started
RESTART_LIMIT = "restart_limit"  # dead, and restarted too often already
TAIL_LINES, TAIL_LINE_CHARS = 5, 200  # of a crashed bot's last output, in its failure's detail
REASONS = (TIMEOUT, CRASH, DISCONNECT, MALFORMED, ILLEGAL, NO_HELLO, PROTOCOL_VERSION_MISMATCH,
           START_FAILED, RESTART_LIMIT)


def _ms(seconds: float) -> int:
    """Seconds as the wire's whole milliseconds (a uint32: increments may grow a bank past it)."""
    return min(int(seconds * 1000), 2**32 - 1)


@dataclass
class Failure(Exception):
    reason: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.reason}: {self.detail}" if self.detail else self.reason


@dataclass
class Decision:
    action: str
    elapsed: float  # seconds, from the moment the request was sent
    debug: str = ""  # the bot's debug text for it, as sent (referee/debug.py makes it safe to keep)


class Seat(ABC):
    """One bot, for a whole match."""

    def __init__(self, name: str, version: str) -> None:
        self.name, self.version = name, version
        self.restarts = 0
        self.launches = 0  # processes started so far: each a fresh bot that has seen nothing
        self.deals: set[str] = set()  # the deals the current process has been dealt
        self.cgroup: Any = None  # the current process's cgroup, when the fairness guard can watch it
        self.refused: Failure | None = None  # its hello was refused: out for the whole match
        self.language = ""  # what the bot is written in, when its image says (Arena's build labels it)
        self.peak_memory: int | None = None  # bytes, the most one launch of the bot held; None: not measured
        # whether every process's additions to the host's caches were taken back before the next one
        # (referee/isolation.py); None: not a container
        self.isolated: bool | None = None
        self.shutdown: dict[str, Any] | None = None  # how the bot ended after MatchEnd, when given time to

    def memory_seen(self, peak: int | None) -> None:
        """Keeps ``peak`` (bytes, one launch's peak memory) if it is the highest so far."""
        if peak is not None:
            self.peak_memory = max(peak, self.peak_memory or 0)

    @property
    @abstractmethod
    def alive(self) -> bool: ...

    @abstractmethod
    async def start(self, match: pb.MatchStart) -> None:
        """Brings the bot up and sends it the match start. Raises Failure."""

    async def revive(self, match: pb.MatchStart, max_restarts: int) -> None:
        """Restarts a dead bot before a game, up to ``max_restarts`` times a match. A bot whose
        hello was refused is not restarted: it would say the same again."""
        if self.refused is not None:
            raise self.refused
        if self.alive:
            return
        if self.restarts >= max_restarts:
            # a bot that died on its own between games is told as its crash first, whenever it
            # died (before game 0's start, say): the limit is for the games after
            raise await self.unseen_death() or Failure(RESTART_LIMIT, f"dead after {self.restarts} restart(s)")
        self.restarts += 1
        await self.stop()
        await self.start(match)

    async def unseen_death(self) -> Failure | None:
        """How the bot died, if it died outside a decision and no game has been told yet."""
        return None

    async def renew(self, match: pb.MatchStart) -> None:
        """Replaces a live bot with a fresh process (not a restart: nothing failed), so that
        no process of a bot is dealt the same deal twice. Raises Failure."""
        await self.stop()
        await self.start(match)

    def launched(self) -> None:
        """Called as each new process of the bot starts: it has seen no deal yet."""
        self.launches += 1
        self.deals = set()

    @abstractmethod
    async def game_start(self, msg: pb.GameStart) -> None: ...

    @abstractmethod
    async def decide(self, view: dict[str, Any], legal: list[str], decision_id: int,
                     timeout: float, bank_left: float, match_bank_left: float = 0.0) -> Decision:
        """Asks for one action. Raises Failure; never waits much past ``timeout`` seconds (the
        decision limit plus both banks left, ``bank_left`` of the game's, ``match_bank_left`` of
        the match's, which the bot is told)."""

    @abstractmethod
    async def game_end(self, msg: pb.GameEnd, events: list[dict[str, Any]]) -> None:
        """Tells the bot how the game ended; ``events`` are the game's events since the seat's
        last decision, as it may see them (a live bot gets them in the GameEnd)."""

    async def match_end(self, msg: pb.MatchEnd, grace: float = 0.0) -> None:  # noqa: B027 - optional
        """Tells the bot the match is over; with ``grace``, waits up to that many seconds for it
        to exit by itself and says how it ended in :attr:`shutdown`."""

    @abstractmethod
    async def stop(self) -> None:
        """Ends the bot and frees everything it held. Safe to call twice."""

    @abstractmethod
    async def close(self) -> None:
        """Ends the seat when the match is over: stops the bot, and frees what the seat keeps
        from one launch to the next (its socket, its log file). Safe to call twice."""


# -- in process -------------------------------------------------------------------------------
class BuiltinSeat(Seat):
    """A strategy called directly. It never fails; time is measured but not enforced.

    It is told exactly what the kit's client loop tells a strategy over the wire (the kit's
    ``start_info`` and ``end_info`` build both), but with no protobuf round trip: views and
    events are the engine's own dicts, which the codec maps to and from the wire unchanged.
    """

    def __init__(self, name: str, version: str, strategy: Callable[[], Strategy]) -> None:
        super().__init__(name, version)
        self.make_strategy = strategy
        self.strategy = strategy()

    @property
    def alive(self) -> bool:
        return True

    async def start(self, match: pb.MatchStart) -> None:
        self.match = match
        if self.launches:
            self.strategy = self.make_strategy()  # a fresh one, as for a process
        self.launched()

    async def game_start(self, msg: pb.GameStart) -> None:
        self.strategy.start_game(start_info(self.match, msg))

    async def decide(self, view: dict[str, Any], legal: list[str], decision_id: int,
                     timeout: float, bank_left: float, match_bank_left: float = 0.0) -> Decision:
        t0 = time.perf_counter()
        strategy = self.strategy
        strategy.time_left_ms, strategy.bank_left_ms = _ms(timeout), _ms(bank_left)
        strategy.match_bank_left_ms = _ms(match_bank_left)
        action = self.strategy.decide(view, legal)
        return Decision(action, time.perf_counter() - t0, debugtext.take())  # what it said with arenabot.debug()

    async def game_end(self, msg: pb.GameEnd, events: list[dict[str, Any]]) -> None:
        self.strategy.end_game(end_info(msg, events))

    async def stop(self) -> None:
        pass

    async def close(self) -> None:
        pass


# -- over gRPC ------------------------------------------------------------------------------------
class GrpcSeat(Seat):
    """A bot behind a Unix socket. Subclasses say how to launch and kill it."""

    def __init__(self, name: str, version: str, socket_dir: Path, log_path: Path) -> None:
        super().__init__(name, version)
        self.socket_dir = socket_dir
        self.socket_path = socket_dir / "seat.sock"
        self.log_path = log_path
        self.server: SeatServer | None = None
        self.conn: Connection | None = None
        self.hello: pb.Hello | None = None
        self.game = ""
        self.dead_reason: Failure | None = None

    @property
    def address(self) -> str:
        return f"unix://{self.socket_path}"

    @property
    def alive(self) -> bool:
        return self.conn is not None and self.conn.open and self.dead_reason is None

    @abstractmethod
    async def launch(self) -> None:
        """Starts the bot, telling it ``self.address``."""

    @abstractmethod
    async def exit_status(self, wait: float) -> str | None:
        """How the bot ended ("exit code 3", "killed by SIGKILL"), waiting up to ``wait``
        seconds for it to end; None if it is still running."""

    @abstractmethod
    async def kill(self) -> None: ...

    async def unseen_death(self) -> Failure | None:
        # every failure told ends the stream through _mark_dead: a stream closed otherwise is the bot's doing
        if self.dead_reason is not None or self.conn is None or self.conn.open:
            return None
        return await self._mark_dead(await self._lost("ended between games"))

    async def output_tail(self) -> bytes:
        """The end of what the bot has written on its stdout and stderr (``TAIL_BYTES`` or so)."""
        return b""

    def timeout_note(self) -> str:
        """What a timeout's detail adds, when the seat knows why its bot may be slow."""
        return ""

    async def start(self, match: pb.MatchStart) -> None:
        self.game = match.game
        hello = await self.connect(match.time_control.startup_ms)
        if hello.games and match.game not in hello.games:
            raise await self._refuse(Failure(
                PROTOCOL_VERSION_MISMATCH, f"bot plays {', '.join(hello.games)}, not {match.game}"))
        await self._send(pb.RefereeMessage(match_start=match), 5.0)

    async def connect(self, startup_ms: int) -> pb.Hello:
        """Starts the bot and waits for its hello (checking the protocol version). On failure
        the bot is left dead: restarted before its next game, unless its hello was refused."""
        await self.stop()  # a new server for each launch: whatever an earlier one had is closed
        self.dead_reason, self.hello = None, None
        self.socket_dir.mkdir(parents=True, exist_ok=True)
        self.server = SeatServer(self.socket_path)
        await self.server.start()
        try:
            await self.launch()
        except Failure:
            raise
        except Exception as exc:
            raise Failure(START_FAILED, str(exc)) from exc
        self.launched()
        try:
            hello = await self._hello(startup_ms)
        except Failure as failure:
            raise await self._mark_dead(failure) from None
        if hello.protocol_version != PROTOCOL_VERSION:
            raise await self._refuse(Failure(
                PROTOCOL_VERSION_MISMATCH,
                f"bot speaks protocol {hello.protocol_version}, referee speaks {PROTOCOL_VERSION}"))
        self.hello = hello
        return hello

    async def _hello(self, startup_ms: int) -> pb.Hello:
        assert self.server is not None
        deadline = asyncio.get_running_loop().time() + startup_ms / 1000
        try:
            self.conn = await self.server.accept(startup_ms / 1000)
            first = await self.conn.next(deadline)
        except TimeoutError:
            status = await self.exit_status(0)
            if status:
                raise await self._crash(f"exited before saying hello ({status})") from None
            raise Failure(NO_HELLO, f"no hello within {startup_ms} ms") from None
        if first is CLOSED:
            raise await self._lost("closed the stream before saying hello")
        if isinstance(first, Garbage):
            raise Failure(MALFORMED, f"instead of a hello: {first.error}")
        if first.WhichOneof("message") != "hello":
            raise Failure(MALFORMED, f"the first message must be a hello, got {first.WhichOneof('message')}")
        return first.hello

    async def _refuse(self, failure: Failure) -> Failure:
        """The bot's hello is refused: it is stopped, and sits out every game of the match."""
        self.refused = failure
        await self.stop()
        return failure

    async def _lost(self, what: str) -> Failure:
        if self.server is not None and self.server.crowded:
            return Failure(MALFORMED, f"{what}: the bot opened a second stream, and its connection was closed")
        status = await self.exit_status(0.5)
        if status:
            return await self._crash(f"{what}: {status}")
        return Failure(DISCONNECT, what)

    async def _crash(self, what: str) -> Failure:
        """A crash, its detail ending in the last lines the bot wrote (its dying words, often)."""
        lines = [line.strip() for line in (await self.output_tail()).decode("utf-8", "replace").splitlines()]
        last = [printable(line, TAIL_LINE_CHARS) for line in lines if line][-TAIL_LINES:]
        return Failure(CRASH, what + (f"; its last output: {' | '.join(last)}" if last else ""))

    async def _send(self, msg: pb.RefereeMessage, timeout: float) -> None:
        conn = self.conn
        if conn is None or not conn.open:
            raise await self._mark_dead(await self._lost("the stream is closed"))
        try:
            await conn.write(msg, conn.loop.time() + timeout)
        except TimeoutError:
            raise await self._mark_dead(Failure(TIMEOUT, "the bot does not read its stream")) from None
        except Exception as exc:
            conn.open = False
            raise await self._mark_dead(await self._lost(f"write failed ({type(exc).__name__})")) from None

    async def _mark_dead(self, failure: Failure) -> Failure:
        """Ends the bot's stream after ``failure``: the bot is restarted before its next game."""
        self.dead_reason = failure
        if self.conn is not None:
            self.conn.finish()
        return failure

    async def game_start(self, msg: pb.GameStart) -> None:
        try:
            await self._send(pb.RefereeMessage(game_start=msg), 5.0)
        except Failure as failure:
            raise await self._mark_dead(failure) from None

    async def decide(self, view: dict[str, Any], legal: list[str], decision_id: int,
                     timeout: float, bank_left: float, match_bank_left: float = 0.0) -> Decision:
        game = self.game
        view_kwargs, events = codec.view_kwargs(view)
        request = pb.RefereeMessage(decision={  # as a dict: built in place, where a message is copied
            "decision_id": decision_id, "view": view_kwargs, "events": events,
            "legal_actions": [codec.encode_action(game, a) for a in legal],
            "time_left_ms": _ms(timeout), "bank_left_ms": _ms(bank_left), "match_bank_left_ms": _ms(match_bank_left),
        })
        conn = self.conn
        if conn is None or not conn.open:
            raise await self._mark_dead(await self._lost("the stream is closed"))
        t0 = time.perf_counter()  # think time is charged from the moment the request is sent
        deadline = conn.loop.time() + timeout  # one deadline for the whole exchange
        try:
            await conn.write(request, deadline)
            msg = await conn.next(deadline)
            if msg is CLOSED:
                raise await self._lost("the stream closed mid-decision")
            if isinstance(msg, Garbage):
                raise Failure(MALFORMED, msg.error)
            if msg.WhichOneof("message") != "reply":
                raise Failure(MALFORMED, f"expected a reply, got {msg.WhichOneof('message')}")
            reply = msg.reply
            # Only the pending decision can be answered: a timeout ends the stream, so no late
            # reply to an earlier one can arrive, and 0 is an unset id.
            if reply.decision_id != decision_id:
                raise Failure(MALFORMED, f"a reply to decision {reply.decision_id} while decision "
                                         f"{decision_id} is pending")
        except TimeoutError:
            raise await self._mark_dead(
                Failure(TIMEOUT, f"no reply within {timeout * 1000:.0f} ms{self.timeout_note()}")) from None
        except Failure as failure:
            raise await self._mark_dead(failure) from None
        except Exception as exc:  # the write failed: the stream broke under us
            conn.open = False
            raise await self._mark_dead(await self._lost(f"write failed ({type(exc).__name__})")) from None
        elapsed = time.perf_counter() - t0
        try:
            return Decision(codec.decode_action(game, reply.action), elapsed, reply.debug)
        except codec.MalformedMessage as exc:
            raise await self._mark_dead(Failure(MALFORMED, str(exc))) from None

    def memory_now(self) -> int | None:
        """The current launch's peak memory so far, in bytes, while it runs; None when not
        measured. Read at each game's end (a bot may exit by itself once the match is over)
        and before the bot is killed."""
        return None

    async def game_end(self, msg: pb.GameEnd, events: list[dict[str, Any]]) -> None:
        self.memory_seen(self.memory_now())
        if self.alive:
            msg.events.extend(codec.encode_events(self.game, events))
            with contextlib.suppress(Failure):
                await self._send(pb.RefereeMessage(game_end=msg), 2.0)

    async def match_end(self, msg: pb.MatchEnd, grace: float = 0.0) -> None:
        if not self.alive:
            return
        try:
            await self._send(pb.RefereeMessage(match_end=msg), 2.0)
        except Failure:
            return
        if self.conn is not None:
            self.conn.finish()  # the stream ends after MatchEnd: a bot that reads to its end may stop there
        if grace > 0:
            t0 = time.perf_counter()
            status = await self.exit_status(grace)
            self.shutdown = {"status": status or "still running", "ms": round((time.perf_counter() - t0) * 1000)}

    async def stop(self) -> None:
        self.conn = None
        await self.kill()
        if self.server is not None:
            await self.server.stop()  # ends the stream and closes the connection
            self.server = None

    async def close(self) -> None:
        """Stops the bot and its server, and removes the socket."""
        await self.stop()
        with contextlib.suppress(OSError):
            self.socket_path.unlink()



class ProcessSeat(GrpcSeat):
    """A bot run as a local process with ``ARENA_SOCKET`` in its environment.

    For development: the process runs with the referee's own rights. Its stdout and
    stderr go to the seat's log file, capped in size.
    """

    def __init__(self, name: str, version: str, command: tuple[str, ...], socket_dir: Path,
                 log_path: Path) -> None:
        super().__init__(name, version, socket_dir, log_path)
        self.command = command
        self.proc: asyncio.subprocess.Process | None = None
        self.drain: asyncio.Task[None] | None = None
        self.log_file: Any = None
        self.tail = bytearray()  # the end of its output (see drain_capped)

    async def launch(self) -> None:
        env = {**os.environ, "ARENA_SOCKET": self.address}
        if self.log_file is None:
            self.log_file = open(self.log_path, "ab")  # noqa: SIM115 - closed in kill()
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *self.command, env=env, stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,  # its own process group: killed whole, daemons included
            )
        except OSError as exc:
            raise Failure(START_FAILED, f"cannot run {' '.join(self.command)}: {exc.strerror}") from None
        assert self.proc.stdout is not None
        self.tail = bytearray()
        self.drain = asyncio.ensure_future(drain_capped(self.proc.stdout, self.log_file, LOG_CAP, self.tail))

    def memory_now(self) -> int | None:
        return None if self.proc is None else group_peak_memory(self.proc.pid)

    async def exit_status(self, wait: float) -> str | None:
        if self.proc is None:
            return "not started"
        if self.proc.returncode is None and wait > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.proc.wait(), wait)
        code = self.proc.returncode
        if code is None:
            return None
        return f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"

    async def output_tail(self) -> bytes:
        if self.drain is not None:  # a moment to read what the bot wrote before it ended
            await asyncio.wait({self.drain}, timeout=0.2)
        return bytes(self.tail)

    async def kill(self) -> None:
        self.memory_seen(self.memory_now())
        proc, self.proc = self.proc, None
        if proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), 5)
        if self.drain is not None:
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(self.drain, 2)
            self.drain = None

    async def close(self) -> None:
        await super().close()
        if self.log_file is not None:
            self.log_file.close()
            self.log_file = None


def group_peak_memory(group: int) -> int | None:
    """The peak resident memory (``VmHWM``) of every live process of the process group ``group``,
    summed, in bytes: what a local bot and the processes it started have held at most (each at its
    own moment, so it may be more than they held at once); None when no process of it is left."""
    total, found = 0, False
    # not Path.glob: a process that ends while its folder is listed makes that raise ESRCH
    for pid in [name for name in os.listdir("/proc") if name.isdigit()]:
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
            if int(text[text.rindex(")") + 2:].split()[2]) != group:  # fields: state, ppid, pgrp
                continue
            status = Path(f"/proc/{pid}/status").read_text()
        except (OSError, ValueError):  # gone meanwhile
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                total, found = total + int(line.split()[1]) * 1024, True
    return total if found else None
