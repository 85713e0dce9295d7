"""TrueSkill ratings, free-for-all, recomputed from the stored games in a fixed order.

Ratings are never updated in the order results happen to arrive (parallel matches
finish in any order): they are computed from the stored games in the league's rating
order, so ``arena ratings rebuild`` reproduces them exactly. A round robin's order is
(round, table, game); a ladder's is the order its matches were stored (see ``ladder.py``),
so its runner may add each match's games to the ratings it has instead of starting over.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable

import trueskill

from .schedule import DEFAULT_SCHEDULE, FailurePolicy

# Defaults of the trueskill package (mu 25, sigma 25/3, beta sigma/2, tau sigma/100, draw
# probability 0.10). Its float backend is ~10x faster than mpmath and agrees with it to ~1e-6;
# on the lopsided updates where floats overflow, :func:`_rate_game` falls back to mpmath.
ENV = trueskill.TrueSkill()
_PRECISE = trueskill.TrueSkill(backend="mpmath")


@dataclasses.dataclass
class RatedGame:
    game_id: int
    seats: list[int]  # bot ids by seat
    ranks: list[int]  # 1 is best, ties share a rank
    failures: list[str]


@dataclasses.dataclass
class BotRating:
    mu: float
    sigma: float
    games: int = 0

    @property
    def exposure(self) -> float:
        return self.mu - 3 * self.sigma


def rate(games: Iterable[RatedGame], failures: FailurePolicy = DEFAULT_SCHEDULE.failures,
         history: list[tuple[int, int, int, float, float]] | None = None,
         start: dict[int, BotRating] | None = None, first_seq: int = 0) -> dict[int, BotRating]:
    """Ratings by bot id after ``games`` (already in rating order).

    ``start``: the ratings before these games (default: every bot at the prior), so that
    ``rate(b, start=rate(a))`` equals ``rate(a + b)``; ``start`` itself is not changed.
    ``history``, if given, receives (seq, game id, bot id, mu, sigma) after each rated game,
    seq counting from ``first_seq``.
    """
    ratings = {bot: (r.mu, r.sigma) for bot, r in (start or {}).items()}
    counts = {bot: r.games for bot, r in (start or {}).items()}
    prior = (ENV.mu, ENV.sigma)
    for seq, game in enumerate(games, first_seq):
        if failures == "exclude" and any(game.failures):
            continue
        new = _rate_game([ratings.get(bot, prior) for bot in game.seats], game.ranks)
        for bot, rating in zip(game.seats, new, strict=True):
            ratings[bot] = rating
            counts[bot] = counts.get(bot, 0) + 1
            if history is not None:
                history.append((seq, game.game_id, bot, *rating))
    return {bot: BotRating(mu, sigma, counts.get(bot, 0)) for bot, (mu, sigma) in ratings.items()}


def _rate_game(before: list[tuple[float, float]], ranks: list[int]) -> list[tuple[float, float]]:
    """One game's update: (mu, sigma) by seat. Equal ranks are draws; trueskill wants 0-based
    ranks, lower is better."""
    ranks0 = [r - 1 for r in ranks]
    try:
        new = ENV.rate([(ENV.create_rating(mu, sigma),) for mu, sigma in before], ranks=ranks0)
        out = [(float(r.mu), float(r.sigma)) for (r,) in new]
        if all(math.isfinite(x) for pair in out for x in pair):
            return out
    except (FloatingPointError, ValueError, ZeroDivisionError, OverflowError):
        pass
    new = _PRECISE.rate([(_PRECISE.create_rating(mu, sigma),) for mu, sigma in before], ranks=ranks0)
    return [(float(r.mu), float(r.sigma)) for (r,) in new]
