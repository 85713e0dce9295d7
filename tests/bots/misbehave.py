"""Bots that misbehave on purpose, for the referee's tests.

    python tests/bots/misbehave.py KIND [AFTER]

Each plays random legal actions for AFTER decisions (default 3), then:
  sleep       sleeps far past any time limit
  exit        exits with status 3 mid-game
  illegal     answers with an action that is not in the list
  garbage     sends bytes that are not a protocol message, inside a valid gRPC stream
  rawgarbage  writes garbage straight to the socket instead of speaking gRPC (never says hello)
  noconnect   never connects
  badversion  says hello with protocol version 99
  flood       answers each request with many replies
"""

from __future__ import annotations

import os
import random
import socket
import sys
import time

import grpc

from arenabot import run
from arenabot.proto import arena_pb2 as pb

KIND = sys.argv[1]
AFTER = int(sys.argv[2]) if len(sys.argv) > 2 else 3
ADDRESS = os.environ["ARENA_SOCKET"]
rng = random.Random(0)
count = 0


def decide(view, legal):
    global count
    count += 1
    if count <= AFTER:
        return rng.choice(legal)
    if KIND == "sleep":
        time.sleep(3600)
    if KIND == "exit":
        os._exit(3)
    if KIND == "illegal":
        return "flip:9"
    return rng.choice(legal)


def raw_stream(first_reply: bytes) -> None:
    """Speaks gRPC framing by hand: a valid hello, then ``first_reply`` for the first decision."""
    channel = grpc.insecure_channel(ADDRESS)
    play = channel.stream_stream("/arena.v1.Referee/Play", request_serializer=lambda b: b,
                                 response_deserializer=pb.RefereeMessage.FromString)
    hello = pb.BotMessage(hello=pb.Hello(name="bad", version="1", protocol_version=1)).SerializeToString()
    outbox: list[bytes] = [hello]

    def requests():
        while True:
            while not outbox:
                time.sleep(0.01)
            yield outbox.pop(0)

    for msg in play(requests()):
        if msg.WhichOneof("message") == "decision":
            outbox.append(first_reply)
    time.sleep(3600)


if KIND == "noconnect":
    time.sleep(3600)
elif KIND == "rawgarbage":
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(ADDRESS.removeprefix("unix://"))
        s.sendall(b"\xde\xad\xbe\xef garbage " * 1000)
        time.sleep(3600)
elif KIND == "garbage":
    raw_stream(b"\xff\xff\xff\xff garbage")
elif KIND == "badversion":
    channel = grpc.insecure_channel(ADDRESS)
    play = channel.stream_stream("/arena.v1.Referee/Play", request_serializer=pb.BotMessage.SerializeToString,
                                 response_deserializer=pb.RefereeMessage.FromString)
    for _ in play(iter([pb.BotMessage(hello=pb.Hello(name="old", version="1", protocol_version=99))])):
        pass
    time.sleep(3600)
else:
    run(decide, name=f"misbehave-{KIND}", version="0.1")
