"""A bot that abuses HTTP/2 on its own seat's socket while it plays, for the referee's tests.

    python tests/bots/h2flood.py ATTACK [CPU]

It speaks raw HTTP/2 (the ``h2`` package) and ignores every limit the referee announces:
on the one connection that carries its game it plays legally (the first legal action
each time) and, between its replies, sends without pause:

  rst      new streams, each reset at once (the HTTP/2 "rapid reset" attack)
  streams  new streams that stay open, past the announced MAX_CONCURRENT_STREAMS
  ping     PING frames
  conns    new connections (each a handshake and a HEADERS+RST pair), one after another
  quiet    nothing: the same bot, as busy, without the attack, to compare with

When the referee closes its connection it connects again and goes on attacking; it never
says hello again, so its seat has failed. With CPU, it runs on that CPU only (the tests put
it beside the match, so that they measure what the referee pays, not the attacker's own
CPU). It writes to stderr how many frames (or connections) it sent, how many of its extra
connections the socket took, and how often it tried to connect again: at the end of each
game, each time the referee closes its connection, and every half second.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import struct
import sys
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions

from arena_protocol.proto import arena_pb2 as pb

ATTACK = sys.argv[1]
if len(sys.argv) > 2:
    os.sched_setaffinity(0, {int(sys.argv[2])})
PATH = os.environ["ARENA_SOCKET"].removeprefix("unix://")
HEADERS = [(":method", "POST"), (":scheme", "http"), (":path", "/arena.v1.Referee/Play"),
           (":authority", "localhost"), ("content-type", "application/grpc"), ("te", "trailers")]
BATCH = 50  # attack frames per pass of the loop
counts = {"sent": 0, "taken": 0, "reconnects": 0}
told = time.monotonic()


def report(now: bool = False) -> None:
    """What the attack has done so far, every half second (or ``now``)."""
    global told
    if now or time.monotonic() - told > 0.5:
        told = time.monotonic()
        print(f"h2flood {ATTACK}: {counts['sent']} sent, {counts['taken']} extra connection(s) taken, "
              f"{counts['reconnects']} reconnect(s) tried", file=sys.stderr, flush=True)


class Reckless(h2.connection.H2Connection):
    """Opens streams whatever the peer's SETTINGS_MAX_CONCURRENT_STREAMS says."""

    @property
    def open_outbound_streams(self) -> int:
        return 0


def connect() -> tuple[socket.socket, Reckless]:
    """A connection with the HTTP/2 preface sent (OSError if the socket refuses it)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(PATH)
        conn = Reckless(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        conn.initiate_connection()
        sock.sendall(conn.data_to_send())
    except OSError:
        sock.close()
        raise
    return sock, conn


def grpc_frame(msg: pb.BotMessage) -> bytes:
    data = msg.SerializeToString()
    return struct.pack(">BI", 0, len(data)) + data


def attack(conn: Reckless) -> None:
    for _ in range(BATCH):
        if ATTACK in ("rst", "streams"):
            sid = conn.get_next_available_stream_id()
            conn.send_headers(sid, HEADERS)
            if ATTACK == "rst":
                conn.reset_stream(sid)
        elif ATTACK == "ping":
            conn.ping(os.urandom(8))


def extra_connection() -> bool:
    """One short-lived connection; whether the socket took it."""
    try:
        sock, conn = connect()
    except OSError:
        return False
    with sock, contextlib.suppress(OSError):  # the referee may close it at once
        conn.send_headers(conn.get_next_available_stream_id(), HEADERS)
        conn.reset_stream(1)
        sock.sendall(conn.data_to_send())
    return True


def play(hello: bool) -> None:
    """Plays (with a hello first, if ``hello``) and attacks on one new connection until the
    referee closes it; OSError if the socket refuses the connection."""
    sock, conn = connect()
    game = conn.get_next_available_stream_id()
    if hello:
        conn.send_headers(game, HEADERS)
        conn.send_data(game, grpc_frame(pb.BotMessage(hello=pb.Hello(name="h2flood", version="1",
                                                                      protocol_version=1))))
    buffer = b""
    with sock, contextlib.suppress(OSError, h2.exceptions.ProtocolError):
        while True:
            sock.sendall(conn.data_to_send())
            report()
            if ATTACK == "conns":
                counts["taken"] += extra_connection()
                counts["sent"] += 1
            elif ATTACK != "quiet":
                attack(conn)
                counts["sent"] += BATCH
            if select.select([sock], [], [], 0)[0]:
                data = sock.recv(65536)
                if not data:
                    return
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.DataReceived):
                        conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                        if event.stream_id == game:
                            buffer += event.data
            while len(buffer) >= 5:
                (size,) = struct.unpack(">I", buffer[1:5])
                if len(buffer) < 5 + size:
                    break
                msg = pb.RefereeMessage.FromString(buffer[5:5 + size])
                buffer = buffer[5 + size:]
                if msg.WhichOneof("message") == "decision":
                    reply = pb.Reply(decision_id=msg.decision.decision_id, action=msg.decision.legal_actions[0])
                    conn.send_data(game, grpc_frame(pb.BotMessage(reply=reply)))
                elif msg.WhichOneof("message") == "game_end":
                    report(now=True)


hello = True
while True:
    try:
        play(hello)
        report(now=True)  # the referee closed the connection
    except OSError:  # the socket refused a new connection
        counts["reconnects"] += 1
        time.sleep(0.001)
    hello = False
    report()
