"""The cheapest correct bot: it answers every request with its first legal action,
without decoding the view, so that a round trip measures the referee and the transport.
``--kit`` runs the same choice through the Python bot kit (which decodes every view);
``--debug`` sends 1 KiB of debug text with every reply (what the referee's debug handling costs)."""

from __future__ import annotations

import os
import sys

import grpc

from arena_protocol.proto import arena_pb2 as pb
from arena_protocol.proto import arena_pb2_grpc
from arenabot import run

# 1 KiB of debug text, as a bot that says a lot would: lines of words and numbers, all kept
DEBUG_TEXT = ("decision: take:2 because the market holds 2 legals; p(win) = 0.4375, hand = 7 cards\n" * 13)[:1024]


async def raw(debug: str = "") -> None:
    async with grpc.aio.insecure_channel(os.environ["ARENA_SOCKET"]) as channel:
        call = arena_pb2_grpc.RefereeStub(channel).Play()
        await call.write(pb.BotMessage(hello=pb.Hello(name="first-legal", version="1", protocol_version=1)))
        while True:
            msg = await call.read()
            if msg is grpc.aio.EOF or msg.WhichOneof("message") == "match_end":
                return
            if msg.WhichOneof("message") == "decision":
                d = msg.decision
                await call.write(pb.BotMessage(reply=pb.Reply(decision_id=d.decision_id,
                                                              action=d.legal_actions[0], debug=debug)))


if __name__ == "__main__":
    if "--kit" in sys.argv:
        run(lambda view, legal: legal[0], name="first-legal-kit", version="1")
    else:
        import uvloop

        uvloop.run(raw(DEBUG_TEXT if "--debug" in sys.argv else ""))
