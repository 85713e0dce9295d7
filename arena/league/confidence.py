"""How sure a leaderboard's ranks are: for every bot, P(rank 1), P(top k) and a 90% rank interval.

Each bot's skill is drawn :data:`SAMPLES` times from its rating's posterior N(mu, sigma^2), and
the bots are ranked by the drawn skills in every draw. A bot's draws come from a generator seeded
with its id alone (and a fixed seed), so the same ratings always give the same figures (a page
does not flicker between views) and a bot's draws do not change when another bot joins.

**Settled**: a bot's rank is settled when its 90% rank interval is its shown rank alone, i.e. in
more than 90% of the draws it takes exactly the rank the leaderboard shows. A wider interval,
or one that excludes the shown rank (the board orders by mu - 3 sigma, the draws by skill),
means that more games could still move it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

SAMPLES = 10_000  # P(...) within about +-0.005 (one standard error at p = 1/2)
SEED = 16  # fixed: the same ratings always draw the same skills
LEVEL = 0.90  # the rank interval: from the 5% to the 95% quantile of the drawn ranks
TOP_K = 3  # P(top k)'s k unless asked otherwise (at most the number of bots)


@dataclass(frozen=True)
class RankOdds:
    """The drawn ranks of a leaderboard's bots: ``cumulative[i, r]`` is how many of the
    ``samples`` draws put bot ``bots[i]`` at rank r + 1 or better."""

    bots: tuple[int, ...]
    cumulative: np.ndarray
    samples: int
    index: dict[int, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", {bot: i for i, bot in enumerate(self.bots)})

    def of(self, bot: int, top: int = TOP_K) -> dict[str, float | int]:
        """``p_first``, ``p_top`` (P(rank <= ``top``), ``top`` capped at the number of bots),
        ``top_k`` (that cap) and the rank interval ``rank_low``..``rank_high``."""
        row = self.cumulative[self.index[bot]]
        k = max(1, min(top, len(self.bots)))
        tail = (1 - LEVEL) / 2 * self.samples
        return {"p_first": round(float(row[0]) / self.samples, 4),
                "p_top": round(float(row[k - 1]) / self.samples, 4), "top_k": k,
                "rank_low": int(np.argmax(row >= tail)) + 1,
                "rank_high": int(np.argmax(row >= self.samples - tail)) + 1}


def rank_odds(ratings: Sequence[tuple[int, float, float]], samples: int = SAMPLES) -> RankOdds:
    """The drawn ranks of bots ``(bot id, mu, sigma)``: see :class:`RankOdds`."""
    n = len(ratings)
    if n == 0:
        return RankOdds((), np.zeros((0, 0), dtype=np.int64), samples)
    draws = np.empty((samples, n))
    for j, (bot, mu, sigma) in enumerate(ratings):
        draws[:, j] = mu + sigma * np.random.default_rng([SEED, bot]).standard_normal(samples)
    order = np.argsort(-draws, axis=1)  # order[s, r]: the column at rank r + 1 in draw s
    # counts[j, r]: draws that put column j at rank r + 1 (one bincount over the flat pairs)
    counts = np.bincount((order * n + np.arange(n)).ravel(), minlength=n * n).reshape(n, n)
    return RankOdds(tuple(bot for bot, _, _ in ratings), np.cumsum(counts, axis=1), samples)
