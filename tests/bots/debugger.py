"""Bots that send debug text with their decisions, for the tests of ``Reply.debug``.

    python tests/bots/debugger.py KIND [TAG]

Each plays the first legal action, and with it:
  kit     (the Python kit, ``debug(text)``) "TAG seat S decision N: ACTION", naming its
          seat and the decision's number in the game, so that a test finds each text where it
          belongs and nowhere else; every third decision adds control codes (ESC, CR, BEL, DEL,
          a C1 CSI, a bidi override, a lone surrogate) and every fifth 3000 bytes of text
  flood   (the kit) 5000 bytes of text at every decision: the game's allowance runs out
  huge    (a raw client) 10 MB of debug text in its first reply: more than the wire takes
  old     (a raw client built as a bot of before debug texts: it never sets the field)
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

import grpc

from arena_protocol.proto import arena_pb2 as pb
from arena_protocol.proto import arena_pb2_grpc
from arenabot import Strategy, debug, run

KIND = sys.argv[1]
TAG = sys.argv[2] + " " if len(sys.argv) > 2 else ""
EVIL = "\x1b[2J\rforged\x07\x7f\x9b2J\u202eevil<i>html</i>\ud800"


class Debugger(Strategy):
    def start_game(self, info: dict[str, Any]) -> None:
        super().start_game(info)
        self.seat, self.number = info["seat"], 0

    def decide(self, view: dict[str, Any], legal_actions: list[str]) -> str:
        self.number += 1
        action = legal_actions[0]
        if KIND == "flood":
            debug("y" * 5000)
            return action
        debug(f"{TAG}seat {self.seat} decision {self.number}: {action}", "ok", sep="\t")
        if self.number % 3 == 0:
            debug(EVIL)
        if self.number % 5 == 0:
            debug("z" * 3000)
        return action


async def raw(huge: bool) -> None:
    async with grpc.aio.insecure_channel(os.environ["ARENA_SOCKET"]) as channel:
        call = arena_pb2_grpc.RefereeStub(channel).Play()
        await call.write(pb.BotMessage(hello=pb.Hello(name=KIND, version="1", protocol_version=1)))
        first = True
        while True:
            msg = await call.read()
            if msg is grpc.aio.EOF or msg.WhichOneof("message") == "match_end":
                return
            if msg.WhichOneof("message") == "decision":
                d = msg.decision
                reply = pb.Reply(decision_id=d.decision_id, action=d.legal_actions[0])
                if huge and first:
                    reply.debug = "x" * (10 * 1024 * 1024)
                first = False
                await call.write(pb.BotMessage(reply=reply))


if __name__ == "__main__":
    if KIND in ("kit", "flood"):
        run(Debugger(), name=f"debugger-{KIND}", version="1")
    else:
        asyncio.run(raw(KIND == "huge"))
