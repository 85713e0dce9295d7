"""Bots that misbehave on purpose, for the referee's tests.

    python tests/bots/misbehave.py KIND [AFTER] [ONCE]

Each plays random legal actions for AFTER decisions (default 3), then:
  sleep       sleeps far past any time limit
  exit        exits with status 3 mid-game
  quit        says hello, then writes its last words and exits with status 3 once the match starts,
              before its first game (AFTER unused)
  illegal     answers with an action that is not in the list
  garbage     sends bytes that are not a protocol message, inside a valid gRPC stream
  zeroid      answers with decision_id 0 (an unset id)
  previd      answers with the id of the decision before the pending one
  disconnect  cancels its stream, and lives on
  reconnect   cancels its stream, connects again and says hello again, and plays on
  flood       answers each request with three replies
  rawgarbage  writes garbage straight to the socket instead of speaking gRPC (never says hello)
  noconnect   never connects
  badversion  says hello with protocol version 99
  badgames    says hello with a games list that holds only sobek
  evilname    says hello with a name and version full of terminal control codes, then plays
  evilgames   says hello with a games list that holds only such a name
With ONCE (a file path) it misbehaves once only: the first process creates that file and
misbehaves at one decision, then plays well; a restarted bot that finds the file plays well.
"""

from __future__ import annotations

import os
import queue
import random
import socket
import sys
import time
from collections.abc import Callable

import grpc

from arena_protocol.proto import arena_pb2 as pb
from arenabot import run

KIND = sys.argv[1]
AFTER = int(sys.argv[2]) if len(sys.argv) > 2 else 3
ONCE = sys.argv[3] if len(sys.argv) > 3 else ""
ADDRESS = os.environ["ARENA_SOCKET"]
# ESC sequences (clear the screen, home the cursor, colours), CR/LF that forge a table row,
# BEL, DEL, C1 controls (CSI, NEL), a bidi override, and length.
EVIL_NAME = ("\x1b[2J\x1b[H\x1b[31mevil\r\nforged-row  1.0  99  99  1.00\x07\x7f\x9b2J\x85\u202e"
             + "x" * 5000)
EVIL_VERSION = "1.0\x1b]0;pwned\x07\n\x00"
rng = random.Random(0)
count = 0
spent = False  # misbehaved once already, with ONCE
if ONCE:
    try:
        open(ONCE, "x").close()
    except FileExistsError:
        KIND, spent = "well", True  # a restarted bot


def turn() -> str:
    """Counts a decision and says how to answer it: "well", or as KIND says."""
    global count, spent
    count += 1
    if count <= AFTER or spent:
        return "well"
    spent = bool(ONCE)
    return KIND


def decide(view, legal):
    how = turn()
    if how == "sleep":
        time.sleep(3600)
    if how == "exit":
        os._exit(3)
    if how == "illegal":
        return "flip:9"
    return rng.choice(legal)


def message(**fields) -> bytes:
    return pb.BotMessage(**fields).SerializeToString()


def reply(decision_id: int, action: pb.Action) -> bytes:
    return message(reply=pb.Reply(decision_id=decision_id, action=action))


HELLO = message(hello=pb.Hello(name=f"misbehave-{KIND}", version="1", protocol_version=1))


def by_hand(answer: Callable[[pb.DecisionRequest], list[bytes] | None], hello: bytes = HELLO) -> None:
    """Speaks the protocol with gRPC but builds every message by hand: ``hello``, then for each
    decision request the messages ``answer`` gives (None: cancel the stream and return)."""
    channel = grpc.insecure_channel(ADDRESS)
    play = channel.stream_stream("/arena.v1.Referee/Play", request_serializer=lambda b: b,
                                 response_deserializer=pb.RefereeMessage.FromString)
    outbox: queue.Queue[bytes] = queue.Queue()
    outbox.put(hello)
    call = play(iter(outbox.get, None))
    for msg in call:
        if msg.WhichOneof("message") == "decision":
            messages = answer(msg.decision)
            if messages is None:
                call.cancel()
                return
            for data in messages:
                outbox.put(data)


def misbehaving(request: pb.DecisionRequest) -> list[bytes] | None:
    """The answer to one decision request, by hand."""
    how = turn()
    legal = rng.choice(request.legal_actions)
    if how in ("disconnect", "reconnect"):
        return None
    if how == "garbage":
        return [b"\xff\xff\xff\xff garbage"]
    if how == "zeroid":
        return [reply(0, legal)]
    if how == "previd":
        return [reply(request.decision_id - 1, legal)]
    if how == "flood":
        return [reply(request.decision_id, legal)] * 3
    return [reply(request.decision_id, legal)]


if KIND == "noconnect":
    time.sleep(3600)
elif KIND == "quit":
    channel = grpc.insecure_channel(ADDRESS)
    call = channel.stream_stream("/arena.v1.Referee/Play", request_serializer=lambda b: b,
                                 response_deserializer=pb.RefereeMessage.FromString)(iter([HELLO]))
    next(call)  # the match start
    print("quitting before the first game", file=sys.stderr, flush=True)
    os._exit(3)
elif KIND == "rawgarbage":
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(ADDRESS.removeprefix("unix://"))
        s.sendall(b"\xde\xad\xbe\xef garbage " * 1000)
        time.sleep(3600)
elif KIND in ("garbage", "zeroid", "previd", "flood", "disconnect", "reconnect"):
    by_hand(misbehaving)
    if KIND == "reconnect":
        spent = True  # plays well from here on
        try:
            by_hand(misbehaving)
        except grpc.RpcError as exc:  # the referee does not take a second stream
            print(f"reconnect refused: {exc.code()}", file=sys.stderr, flush=True)
    time.sleep(3600)
elif KIND == "badversion":
    by_hand(misbehaving, hello=message(hello=pb.Hello(name="old", version="1", protocol_version=99)))
    time.sleep(3600)
elif KIND == "badgames":
    run(decide, name="sobek-only", version="1", games=["sobek"])
    time.sleep(3600)
elif KIND == "evilname":
    run(decide, name=EVIL_NAME, version=EVIL_VERSION)
elif KIND == "evilgames":
    run(decide, name="evil-games", version="1", games=[EVIL_NAME])
    time.sleep(3600)
else:
    run(decide, name=f"misbehave-{KIND}", version="0.1")
