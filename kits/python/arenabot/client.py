"""The loop every Python bot runs: connect, say hello, answer decision requests.

    from arenabot import run

    def decide(view, legal_actions):
        return legal_actions[0]

    run(decide, name="first-legal", version="1.0.0")

``view`` is a plain dict (see docs/protocol.md and docs/games/), ``legal_actions`` a
list of strings such as ``"take:2"``; return one of them. :func:`arenabot.debug` keeps a
note with the decision (shown to the bot's owner beside it in the replay). For state across decisions
and games, pass a :class:`~arenabot.strategies.Strategy` instead of a function.

The loop itself is :func:`serve`, which drives a :class:`Player` with the referee's messages
as they come: :func:`run` plays a strategy with it, and the stdio adapter
(:mod:`arenabot.stdio`) a program that speaks JSON lines.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import grpc

from arena_protocol import PROTOCOL_VERSION, codec
from arena_protocol.proto import arena_pb2 as pb
from arena_protocol.proto import arena_pb2_grpc

from . import debugtext
from .strategies.base import Strategy, end_info, start_info

Decide = Callable[[dict[str, Any], list[str]], str]


class Player(ABC):
    """What :func:`serve` drives: told every message of the referee, asked every decision.

    The methods are plain calls, not coroutines: nothing else happens on the stream while a
    player works, and a call costs less than an await."""

    def match_start(self, msg: pb.MatchStart) -> None:  # noqa: B027 - optional
        pass

    def game_start(self, msg: pb.GameStart) -> None:  # noqa: B027 - optional
        pass

    @abstractmethod
    def decide(self, request: pb.DecisionRequest) -> pb.Action:
        """The answer to ``request``: one of its ``legal_actions``, or any other action for the
        referee to judge. What it says with :func:`arenabot.debug` goes with it."""

    def game_end(self, msg: pb.GameEnd) -> None:  # noqa: B027 - optional
        pass

    def match_end(self, msg: pb.MatchEnd) -> None:  # noqa: B027 - optional
        pass


class _StrategyPlayer(Player):
    """A strategy, told what docs/writing-a-bot.md says: views as plain dicts, actions as text."""

    def __init__(self, strategy: Strategy) -> None:
        self.strategy = strategy
        self.match = pb.MatchStart()

    def match_start(self, msg: pb.MatchStart) -> None:
        self.match = msg

    def game_start(self, msg: pb.GameStart) -> None:
        self.strategy.start_game(start_info(self.match, msg))

    def decide(self, request: pb.DecisionRequest) -> pb.Action:
        legal = [a.text for a in request.legal_actions]
        strategy = self.strategy
        strategy.time_left_ms, strategy.bank_left_ms = request.time_left_ms, request.bank_left_ms
        strategy.match_bank_left_ms = request.match_bank_left_ms
        choice = self.strategy.decide(codec.decode_view(request.view, request.events), legal)
        try:
            return request.legal_actions[legal.index(choice)]
        except ValueError:  # not a legal action: send it anyway, the referee judges
            print(f"arenabot: {choice!r} is not among the legal actions", file=sys.stderr)
            return pb.Action(text=str(choice))

    def game_end(self, msg: pb.GameEnd) -> None:
        self.strategy.end_game(end_info(msg, codec.decode_events(msg.events)))


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
    serve(_StrategyPlayer(strategy), name, version, games, address)


def serve(player: Player, name: str, version: str = "0", games: Sequence[str] = (),
          address: str | None = None) -> None:
    """Says hello as ``name`` ``version`` (playing ``games``, empty: any) to the referee at
    ``address`` (default: ``$ARENA_SOCKET``), and drives ``player`` until the match ends."""
    address = address or os.environ.get("ARENA_SOCKET")
    if not address:
        sys.exit("ARENA_SOCKET is not set: the referee passes the socket address in it")
    hello = pb.Hello(name=name, version=version, protocol_version=PROTOCOL_VERSION, games=games)
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
        runner.run(_play(player, hello, address))


async def _play(player: Player, hello: pb.Hello, address: str) -> None:
    options = [("grpc.max_receive_message_length", 16 * 1024 * 1024)]
    async with grpc.aio.insecure_channel(address, options=options) as channel:
        call = arena_pb2_grpc.RefereeStub(channel).Play()
        await call.write(pb.BotMessage(hello=hello))
        while True:
            msg = await call.read()
            if msg is grpc.aio.EOF:
                return
            kind = msg.WhichOneof("message")
            if kind == "decision":
                request = msg.decision
                reply = pb.Reply(decision_id=request.decision_id, action=player.decide(request))
                said = debugtext.take()  # what the player said with arenabot.debug() meanwhile
                if said:
                    reply.debug = said
                await call.write(pb.BotMessage(reply=reply))
            elif kind == "game_start":
                player.game_start(msg.game_start)
            elif kind == "match_start":
                player.match_start(msg.match_start)
            elif kind == "game_end":
                gc.collect()
                gc.freeze()
                player.game_end(msg.game_end)
            elif kind == "match_end":
                player.match_end(msg.match_end)
                await call.done_writing()
                return
