"""The shape of a strategy."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import Any


class Strategy(ABC):
    """A bot's brain: told when a game starts, asked for decisions, told the result.

    ``seed`` makes a bot reproducible: the referee hands every seat a seed, so the
    same match replays the same games whether the bot runs in process or in a container.
    """

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def start_game(self, info: dict[str, Any]) -> None:
        """``info`` has ``game``, ``seat``, ``num_players``, ``settings`` and ``seed``."""
        if "seed" in info:
            self.rng.seed(info["seed"])

    @abstractmethod
    def decide(self, view: dict[str, Any], legal_actions: list[str]) -> str:
        """Returns one of ``legal_actions``."""

    def end_game(self, result: dict[str, Any]) -> None:
        """``result`` has ``scores`` and ``ranks``; nothing to do by default."""
