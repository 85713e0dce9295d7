"""Ready-made strategies: what a bot author would write in ``decide(view, legal_actions)``.

They read only the seat's view (a plain dict, the same shape in process and over the
wire), so the referee's in-process players and the sample bots run identical code.
:data:`KINDS` and :func:`make_strategy` are the one list of built-in players: the
referee's ``builtin`` seats, ``arena play`` and the tests all make theirs here.
"""

from __future__ import annotations

from .bandits_heuristic import BanditsHeuristic
from .base import Strategy, end_info, start_info
from .boss_heuristic import BossHeuristic
from .prohis_heuristic import ProhisHeuristic
from .random_choice import RandomStrategy
from .sobek_heuristic import SobekHeuristic

KINDS = ("random", "heuristic", "search")
SEARCH_ITERATIONS = 200
"""The built-in ``search`` player's fixed budget per decision: deterministic, and about a
fifth of a second a decision."""
HEURISTICS: dict[str, type[Strategy]] = {
    "prohis": ProhisHeuristic, "sobek": SobekHeuristic, "boss": BossHeuristic, "bandits": BanditsHeuristic,
}


def make_strategy(kind: str, game: str, seed: int = 0) -> Strategy:
    """A built-in player of ``kind`` (one of :data:`KINDS`) for ``game``; heuristics exist per game."""
    if kind == "random":
        return RandomStrategy(seed)
    if kind == "heuristic":
        try:
            return HEURISTICS[game](seed)
        except KeyError:
            raise ValueError(f"no heuristic strategy for game {game!r}") from None
    if kind == "search":
        from ..search import ISMCTS  # imports the engines: only for the players that simulate

        return ISMCTS(seed, iterations=SEARCH_ITERATIONS)
    raise ValueError(f"unknown strategy {kind!r}; known: {', '.join(KINDS)}")


__all__ = ["HEURISTICS", "KINDS", "SEARCH_ITERATIONS", "BanditsHeuristic", "BossHeuristic", "ProhisHeuristic",
           "RandomStrategy", "SobekHeuristic", "Strategy", "end_info", "make_strategy", "start_info"]
