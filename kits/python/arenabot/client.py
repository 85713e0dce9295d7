"""The loop every Python bot runs: connect, say hello, answer decision requests.

    from arenabot import run

    def decide(view, legal_actions):
        return legal_actions[0]

    run(decide, name="first-legal", version="1.0.0")

``view`` is a plain dict (see docs/protocol.md and docs/games/), ``legal_actions`` a
list of strings such as ``"take:2"``; return one of them. For state across decisions
and games, pass a :class:`~arenabot.strategies.Strategy` instead of a function.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

import grpc

from arena_protocol import PROTOCOL_VERSION, codec
from arena_protocol.proto import arena_pb2 as pb
from arena_protocol.proto import arena_pb2_grpc

from .strategies.base import Strategy, end_info, start_info

Decide = Callable[[dict[str, Any], list[str]], str]


class _FunctionStrategy(Strategy):
    def __init__(self, decide: Decide) -> None:
        super().__init__()
        self._decide = decide

    def decide(self, view: dict[str, Any], legal_actions: list[str]) -> str:
        return self._decide(view, legal_actions)


def run(bot: Strategy | Decide, name: str, version: str = "0", games: Sequence[str] = (),
        address: str | None = None) -> None:
    """Plays a whole match as the seat at ``address`` (default: ``$ARENA_SOCKET``), then returns."""
    strategy = bot if isinstance(bot, Strategy) else _FunctionStrategy(bot)
    address = address or os.environ.get("ARENA_SOCKET")
    if not address:
        sys.exit("ARENA_SOCKET is not set: the referee passes the socket address in it")
    # No cycle collection pauses mid-game: reference counting frees a bot's short-lived
    # dicts; cycles are collected after each game, and start-up objects are frozen.
    gc.collect()
    gc.freeze()
    gc.disable()
    try:  # uvloop makes each turn of the event loop cheaper; the kit works without it
        import uvloop

        loop_factory = uvloop.new_event_loop
    except ImportError:
        loop_factory = None
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        runner.run(_play(strategy, name, version, tuple(games), address))


async def _play(strategy: Strategy, name: str, version: str, games: tuple[str, ...], address: str) -> None:
    options = [("grpc.max_receive_message_length", 16 * 1024 * 1024)]
    async with grpc.aio.insecure_channel(address, options=options) as channel:
        call = arena_pb2_grpc.RefereeStub(channel).Play()
        await call.write(pb.BotMessage(hello=pb.Hello(
            name=name, version=version, protocol_version=PROTOCOL_VERSION, games=games)))
        match = pb.MatchStart()
        while True:
            msg = await call.read()
            if msg is grpc.aio.EOF:
                return
            kind = msg.WhichOneof("message")
            if kind == "decision":
                request = msg.decision
                view = codec.decode_view(request.view, request.events)
                legal = [a.text for a in request.legal_actions]
                choice = strategy.decide(view, legal)
                try:
                    action = request.legal_actions[legal.index(choice)]
                except ValueError:  # not a legal action: send it anyway, the referee judges
                    print(f"arenabot: {choice!r} is not among the legal actions", file=sys.stderr)
                    action = pb.Action(text=str(choice))
                reply = pb.Reply(decision_id=request.decision_id, action=action)
                await call.write(pb.BotMessage(reply=reply))
            elif kind == "game_start":
                strategy.start_game(start_info(match, msg.game_start))
            elif kind == "match_start":
                match = msg.match_start
            elif kind == "game_end":
                gc.collect()
                gc.freeze()
                end = msg.game_end
                strategy.end_game(end_info(end, codec.decode_events(end.events)))
            elif kind == "match_end":
                await call.done_writing()
                return
