"""The wire to a bot: a gRPC server on the seat's Unix socket, its one stream, and the bot's output.

A gRPC seat (``referee/seats.py``) runs a :class:`SeatServer` on its socket for each launch
of its bot; the bot connects and the match runs over the one stream it opens, a
:class:`Connection` whose every read and write has a deadline. The transport applies the
largest message each side may send and the cap on a bot's output kept per match (their sizes
are in ``referee/limits.py``; :func:`drain_capped` caps a local process as it writes), one
connection and one stream per bot, and how often a bot may ping (``SERVER_OPTIONS``).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import math
import os
from pathlib import Path
from typing import Any, Final, cast

import grpc

from arena_protocol.proto import arena_pb2 as pb

from .limits import MAX_BOT_MESSAGE, MAX_REFEREE_MESSAGE

TAIL_BYTES = 4096  # of a bot's latest output, kept for the detail of a crash


class Garbage:
    """What the reader gets for bytes that are not a BotMessage."""

    def __init__(self, error: str) -> None:
        self.error = error


def _parse_bot_message(data: bytes) -> pb.BotMessage | Garbage:
    try:
        return pb.BotMessage.FromString(data)
    except Exception as exc:  # DecodeError, or anything the parser throws at garbage
        return Garbage(f"undecodable message ({len(data)} bytes): {exc}")


class Closed(enum.Enum):
    CLOSED = "closed"


CLOSED: Final = Closed.CLOSED  # what the reader gets once the stream ended

# The stream's server side: the bot's messages are read as BotMessage (or Garbage), the referee's written
StreamContext = grpc.aio.ServicerContext[pb.BotMessage | Garbage, pb.RefereeMessage]


class Connection:
    """One bot stream, read and written by the match itself.

    Reads happen only when the referee expects a message, so a bot that floods its stream
    is held back by gRPC's flow control instead of filling the referee's memory. Every read
    and write has a deadline, and a read or write cut short by its deadline ends the stream:
    the bot is then restarted before its next game.

    Deadlines are enforced by one loop timer per connection that is moved only when a
    deadline comes sooner than the one it is set for; when it fires early (the operation it
    was set for is long done) it re-arms itself for the current deadline. A decision's round
    trip is a few hundred microseconds against a limit of a second or more, so almost no
    decision creates or cancels a timer: doing so for every read and write, or using
    ``asyncio.timeout()``, costs about 20 µs a decision.
    """

    def __init__(self, context: StreamContext) -> None:
        self.context = context
        self.loop = asyncio.get_running_loop()
        self.finished = asyncio.Event()
        self.open = True
        self._waiter: asyncio.Task[Any] | None = None  # the task in a read or write, if any
        self._deadline = math.inf  # ... and the loop time it must be done by
        self._expired = False  # the watchdog cancelled the waiter
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = math.inf

    def _watch(self) -> None:
        self._timer, self._timer_at = None, math.inf
        if self._waiter is None:
            return
        if self.loop.time() >= self._deadline:
            self._expired = True
            self._waiter.cancel()
        else:
            self._timer, self._timer_at = self.loop.call_at(self._deadline, self._watch), self._deadline

    async def _within(self, operation: Any, deadline: float) -> Any:
        task = self._waiter = asyncio.current_task()
        assert task is not None
        self._deadline, self._expired = deadline, False
        if deadline < self._timer_at:
            if self._timer is not None:
                self._timer.cancel()
            self._timer, self._timer_at = self.loop.call_at(deadline, self._watch), deadline
        try:
            return await operation
        except asyncio.CancelledError:
            if self._expired and task.uncancel() == 0:
                self.open = False  # gRPC ends a stream whose read or write was cancelled
                raise TimeoutError from None
            raise
        finally:
            self._waiter = None

    async def write(self, msg: pb.RefereeMessage, deadline: float) -> None:
        """Writes one message (TimeoutError if the bot stops reading until ``deadline``)."""
        await self._within(self.context.write(msg), deadline)

    async def next(self, deadline: float) -> pb.BotMessage | Garbage | Closed:
        """The bot's next message, or ``CLOSED``; TimeoutError if none before ``deadline``."""
        if not self.open:
            return CLOSED
        try:
            msg = await self._within(self.context.read(), deadline)
        except TimeoutError:
            raise
        except Exception:  # the stream broke: the bot died or reset it
            msg = grpc.aio.EOF
        if msg is grpc.aio.EOF:
            self.open = False
            return CLOSED
        return cast("pb.BotMessage | Garbage", msg)  # what _parse_bot_message made of it

    def finish(self) -> None:
        """Lets the stream's handler return, which ends the stream."""
        self.open = False
        self.finished.set()
        if self._timer is not None:
            self._timer.cancel()
            self._timer, self._timer_at = None, math.inf


# Transport limits of a seat's socket. All seats' servers live in the referee process, on the
# match's core, so whatever HTTP/2 work one bot makes them do is taken from the seat that is
# thinking. A bot needs one connection and one stream. A second connection is refused, and
# once the bot's stream is open the socket file is removed, so new connections fail in the
# bot's own connect(). Streams beyond two at once are refused by the transport; the second
# one reaches SeatServer, which closes the connection. Pings may come once per interval while
# the referee sends nothing (keepalive enforcement): after ``max_ping_strikes`` more, the
# transport sends GOAWAY and closes the connection. Each of these ends the bot's game.
SERVER_OPTIONS = (
    ("grpc.max_receive_message_length", MAX_BOT_MESSAGE),
    ("grpc.max_send_message_length", MAX_REFEREE_MESSAGE),
    ("grpc.max_concurrent_streams", 2),
    ("grpc.max_allowed_incoming_connections", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 300_000),
    ("grpc.http2.max_ping_strikes", 2),
)


class SeatServer:
    """The gRPC server of one launch of a seat's bot, on the seat's Unix socket.

    It takes the first stream opened on it. Taking it also removes the socket file: from then
    on a new connection fails in the bot's own ``connect()`` and costs the referee nothing,
    while the open connection goes on. A second stream is refused (``ALREADY_EXISTS``) and
    closes the server at once: a bot that floods its connection with streams (or resets of
    them) is cut off after the first. Each launch gets a new server, and stopping one closes
    every connection it had, so a bot can only ever be handed a stream opened for it.
    """

    def __init__(self, socket_path: Path) -> None:
        self.socket_path = socket_path
        self.stream: asyncio.Future[Connection] = asyncio.get_running_loop().create_future()
        self.closing: asyncio.Future[None] | None = None  # closed because of a second stream
        # a second stream came while the first was open (not after the bot ended the first itself:
        # a reconnect is the first stream's disconnect, whenever the referee reads of it)
        self.crowded = False
        self.server = grpc.aio.server(options=SERVER_OPTIONS)
        handler = grpc.method_handlers_generic_handler("arena.v1.Referee", {
            "Play": grpc.stream_stream_rpc_method_handler(
                self._play,
                request_deserializer=_parse_bot_message,
                response_serializer=pb.RefereeMessage.SerializeToString,
            )
        })
        self.server.add_generic_rpc_handlers((handler,))
        self.server.add_insecure_port(f"unix://{socket_path}")  # raises RuntimeError if it cannot bind

    async def start(self) -> None:
        await self.server.start()
        os.chmod(self.socket_path, 0o666)  # a container's non-root user must be able to connect

    async def accept(self, timeout: float) -> Connection:
        """The bot's stream (TimeoutError if none is opened within ``timeout`` seconds)."""
        return await asyncio.wait_for(asyncio.shield(self.stream), timeout)

    async def _play(self, request_iterator: Any, context: StreamContext) -> None:
        if self.stream.done():
            self.crowded |= not self.stream.cancelled() and self.stream.result().open
            if self.closing is None:  # not from here: stopping the server cancels this handler
                self.closing = asyncio.ensure_future(self.server.stop(grace=None))
            await context.abort(grpc.StatusCode.ALREADY_EXISTS, "one stream per bot: closing the connection")
        conn = Connection(context)
        self.stream.set_result(conn)
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
        try:
            await conn.finished.wait()  # the stream stays open until the referee is done with it
        finally:
            conn.open = False  # done, or the bot cancelled the stream

    async def stop(self) -> None:
        """Ends the stream and closes every connection."""
        if not self.stream.done():
            self.stream.cancel()
        elif not self.stream.cancelled():
            self.stream.result().finish()
        await (self.closing or self.server.stop(grace=None))


async def drain_capped(stream: asyncio.StreamReader, sink: Any, cap: int, tail: bytearray) -> None:
    """Copies ``stream`` into ``sink`` up to ``cap`` bytes, then keeps reading and drops the
    rest, so a flooding bot neither blocks nor fills the disk. ``tail`` keeps the last
    :data:`TAIL_BYTES` read, past the cap too: what a crashed bot said last."""
    kept = 0
    while True:
        chunk = await stream.read(65536)
        if not chunk:
            break
        tail += chunk
        del tail[:-TAIL_BYTES]
        if kept < cap:
            part = chunk[: cap - kept]
            sink.write(part)
            sink.flush()
            kept += len(part)
            if kept >= cap:
                sink.write(b"\n[arena: output truncated here]\n")
                sink.flush()

