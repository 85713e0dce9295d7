"""The shape of a strategy, and what it is told.

:func:`start_info` and :func:`end_info` build what a strategy's ``start_game`` and
``end_game`` receive, from the protocol's messages. The kit's client loop and the
referee's in-process seat both call them, so a strategy is told the same things
whether it runs in a container or inside the referee.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena_protocol.proto import arena_pb2 as pb


class Strategy(ABC):
    """A bot's brain: told when a game starts, asked for decisions, told the result.

    ``seed`` makes a bot reproducible: the referee hands every seat a seed, so the
    same match replays the same games whether the bot runs in process or in a container.
    """

    time_left_ms: int | None = None
    """Set before each :meth:`decide`: how long this decision may take (the referee's decision
    time plus what is left of the game's bank and of the match bank), from the moment the referee
    sent it; None when no clock applies (in process). A strategy that thinks by the clock stops
    well inside it."""
    bank_left_ms: int | None = None
    """Set before each :meth:`decide`: what is left of the game's time bank."""
    match_bank_left_ms: int | None = None
    """Set before each :meth:`decide`: what is left of the bot's time bank for the whole match
    (0 when the match has none)."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def start_game(self, info: dict[str, Any]) -> None:
        """``info`` (see :func:`start_info`) has ``game``, ``game_index``, ``seat``,
        ``num_players``, ``players``, ``seed`` and ``settings``. Reseeds ``self.rng``."""
        if "seed" in info:
            self.rng.seed(info["seed"])

    @abstractmethod
    def decide(self, view: dict[str, Any], legal_actions: list[str]) -> str:
        """Returns one of ``legal_actions``."""

    def end_game(self, result: dict[str, Any]) -> None:
        """``result`` (see :func:`end_info`) has ``scores``, ``ranks``, ``failures`` and
        ``events``; nothing to do by default."""


def start_info(match: pb.MatchStart, start: pb.GameStart) -> dict[str, Any]:
    """What :meth:`Strategy.start_game` gets: the game's name, the index of the game in the
    match, the strategy's seat, the number of players, their names by seat, the seat's seed,
    and the match's settings (every setting of the game, as strings, as on the wire)."""
    return {"game": match.game, "game_index": start.game_index, "seat": start.seat,
            "num_players": start.num_players, "players": [p.name for p in start.players],
            "seed": start.seed, "settings": dict(match.settings)}


def end_info(end: pb.GameEnd, events: list[dict[str, Any]]) -> dict[str, Any]:
    """What :meth:`Strategy.end_game` gets: by seat, the scores, the ranks and the failures
    (a reason, or "" for none); and ``events``, the game's events since the seat's last
    decision (plain dicts, as in a view)."""
    return {"scores": [r.score for r in end.results], "ranks": [r.rank for r in end.results],
            "failures": [r.failure for r in end.results], "events": events}
