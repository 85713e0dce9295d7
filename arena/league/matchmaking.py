"""Matchmaking for the ladder: which table of k bots to play next.

A ladder plays one table at a time (a duplicate cycle of k matches, see ``ladder.py``), and
the table it picks is the one whose games should teach the ratings most. Two things make a
table informative: its bots are uncertain (a high sigma: new entrants above all), and the
outcome is uncertain (TrueSkill's match quality: the draw probability of the table, high when
the bots are close). The score of a table is the product; the ladder plays the best of a
random sample of tables, each grown around an anchor bot drawn with weight sigma^2 (a new
entrant, while there is one), so that every bot keeps playing and no table of a large league
need be enumerated.

The sample matters: the single best table of all keeps replaying the closest bots, and
TrueSkill, which moves a rating only when its bot plays, learns the scale of the whole league
only from tables that mix it (``docs/leagues.md#matchmaking`` has the measurements, from
``simulate.py``).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from .ratings import ENV

SAMPLES = 48  # tables scored per pick
NEW_GAMES = 8  # a bot with fewer rated games than this is a new entrant: it anchors the next table
BETA2 = ENV.beta ** 2


@dataclass(frozen=True)
class Candidate:
    """An entrant the ladder may seat: its rating now."""

    bot_id: int
    mu: float
    sigma: float
    games: int


def pick_table(candidates: Sequence[Candidate], players: int, rng: random.Random,
               exclude: Collection[tuple[int, ...]] = (), *, samples: int = SAMPLES,
               new_games: int = NEW_GAMES) -> tuple[int, ...]:
    """The bot ids of the next table (sorted), from at least ``players`` candidates.

    ``exclude``: tables not to pick (those being played: their results are not in the
    ratings yet), unless every table sampled is one of them. ``samples`` and ``new_games``
    default to :data:`SAMPLES` and :data:`NEW_GAMES`."""
    if len(candidates) < players:
        raise ValueError(f"{len(candidates)} candidate(s) for a table of {players}")
    pool = sorted(candidates, key=lambda c: c.bot_id)
    new = [c for c in pool if c.games < new_games]
    anchor_weights = [c.sigma ** 2 for c in pool]
    closeness: dict[int, list[float]] = {}  # by anchor: cumulative weights of the others
    best: tuple[float, tuple[int, ...]] | None = None
    seen: set[tuple[int, ...]] = set()
    for _ in range(samples):
        anchor = rng.choice(new) if new else rng.choices(pool, weights=anchor_weights)[0]
        if anchor.bot_id not in closeness:
            closeness[anchor.bot_id] = _closeness(anchor, pool)
        table = _grow(anchor, pool, closeness[anchor.bot_id], players, rng)
        key = tuple(sorted(c.bot_id for c in table))
        if key in seen:
            continue
        seen.add(key)
        score = table_score(table) * (1e-9 if key in exclude else 1.0)
        if best is None or score > best[0]:
            best = (score, key)
    assert best is not None
    return best[1]


def quality(table: Sequence[Candidate]) -> float:
    """TrueSkill's match quality of a free-for-all table (``ENV.quality``, in closed form).

    The quality is the density of "every performance equal" relative to a table of equal,
    certain bots. With performance variances v_i = beta^2 + sigma_i^2 and precisions
    w_i = 1/v_i, that density's determinant is prod(v) sum(w) (the matrix determinant lemma)
    and its exponent the spread of the mus about their w-weighted mean."""
    v = [BETA2 + c.sigma ** 2 for c in table]
    w = [1 / x for x in v]
    total = sum(w)
    mean = sum(wi * c.mu for wi, c in zip(w, table, strict=True)) / total
    spread = sum(wi * (c.mu - mean) ** 2 for wi, c in zip(w, table, strict=True))
    return math.sqrt(len(table) * BETA2 ** (len(table) - 1) / (math.prod(v) * total)) * math.exp(-spread / 2)


def table_score(table: Sequence[Candidate]) -> float:
    """Expected information of a table: match quality x the mean variance of its bots."""
    return quality(table) * sum(c.sigma ** 2 for c in table) / len(table)


def _closeness(anchor: Candidate, pool: Sequence[Candidate]) -> list[float]:
    """Cumulative weights of the pool as the anchor's tablemates: a weight that falls with the
    distance in mu from the anchor, in units of the two bots' combined uncertainty (0 for the
    anchor itself)."""
    base = 2 * (2 * BETA2 + anchor.sigma ** 2)
    weights = [math.exp(-((c.mu - anchor.mu) ** 2) / (base + 2 * c.sigma ** 2)) + 1e-12 for c in pool]
    weights[next(i for i, c in enumerate(pool) if c is anchor)] = 0.0
    return list(itertools.accumulate(weights))


def _grow(anchor: Candidate, pool: Sequence[Candidate], cumulative: list[float], players: int,
          rng: random.Random) -> list[Candidate]:
    """The anchor and players-1 others drawn by closeness, without replacement."""
    table = [anchor]
    chosen = {anchor.bot_id}
    while len(table) < players:
        pick = rng.choices(pool, cum_weights=cumulative)[0]
        if pick.bot_id in chosen:  # drawn again: draw from the rest (one bot may hold most of the weight)
            rest = [(c, hi - lo) for c, lo, hi in zip(pool, [0.0, *cumulative], cumulative, strict=False)
                    if c.bot_id not in chosen]
            pick = rng.choices([c for c, _ in rest], weights=[w for _, w in rest])[0]
        chosen.add(pick.bot_id)
        table.append(pick)
    return table
