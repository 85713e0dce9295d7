"""The baseline every platform ships: a uniformly random legal action."""

from __future__ import annotations

from typing import Any

from .base import Strategy


class RandomStrategy(Strategy):
    def decide(self, view: dict[str, Any], legal_actions: list[str]) -> str:
        return self.rng.choice(legal_actions)
