"""In-process players: strategies called directly, for tests, benchmarks and the demo.

They are the same strategies the sample bots run in their containers.
"""

from __future__ import annotations

from arenabot.strategies import Strategy, make_strategy

KINDS = ("random", "heuristic")


def make_player(kind: str, game: str, seed: int = 0) -> Strategy:
    """A player of ``kind`` (random or heuristic) for ``game``."""
    return make_strategy(kind, game, seed)
