"""TrueSkill ratings, free-for-all, recomputed from the stored games in a fixed order.

Ratings are never updated in the order results happen to arrive (parallel matches
finish in any order): they are always recomputed from all stored games, ordered by
(round, table, game), so ``arena ratings rebuild`` reproduces them exactly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import trueskill

# Defaults of the trueskill package (mu 25, sigma 25/3, beta sigma/2, tau sigma/100,
# draw probability 0.10). The mpmath backend: lopsided updates overflow the default.
ENV = trueskill.TrueSkill(backend="mpmath")


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


def rate(games: Iterable[RatedGame], failures: str = "last",
         history: list[tuple[int, int, int, float, float]] | None = None) -> dict[int, BotRating]:
    """Ratings by bot id after ``games`` (already in rating order).

    ``history``, if given, receives (seq, game id, bot id, mu, sigma) after each rated game.
    """
    ratings: dict[int, trueskill.Rating] = {}
    counts: dict[int, int] = {}
    for seq, game in enumerate(games):
        if failures == "exclude" and any(game.failures):
            continue
        groups = [(ratings.setdefault(bot, ENV.create_rating()),) for bot in game.seats]
        # equal ranks are draws; trueskill wants 0-based ranks, lower is better
        new = ENV.rate(groups, ranks=[r - 1 for r in game.ranks])
        for bot, (rating,) in zip(game.seats, new, strict=True):
            ratings[bot] = rating
            counts[bot] = counts.get(bot, 0) + 1
            if history is not None:
                history.append((seq, game.game_id, bot, float(rating.mu), float(rating.sigma)))
    return {bot: BotRating(float(r.mu), float(r.sigma), counts.get(bot, 0)) for bot, r in ratings.items()}
