"""Matchmaking for the ladder: which table of k bots to play next.

A ladder plays one table at a time (a duplicate cycle of k matches, see ``ladder.py``), and
the table it picks is the one whose games should teach the ratings most. Two things make a
table informative: its bots are uncertain (a high sigma: new entrants above all), and the
outcome is uncertain (TrueSkill's match quality: the draw probability of the table, high when
the bots are close). The score of a table is the product; the ladder plays the best of a
random sample of tables, each grown around an anchor bot drawn with weight sigma^2, so that
every bot keeps playing and no table of a large league need be enumerated.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from .ratings import ENV

SAMPLES = 48  # tables scored per pick
NEW_GAMES = 8  # a bot with fewer rated games than this is a new entrant: it anchors the next table


@dataclass(frozen=True)
class Candidate:
    """An entrant the ladder may seat: its rating now."""

    bot_id: int
    mu: float
    sigma: float
    games: int


def pick_table(candidates: Sequence[Candidate], players: int, rng: random.Random,
               exclude: Collection[tuple[int, ...]] = ()) -> tuple[int, ...]:
    """The bot ids of the next table (sorted), from at least ``players`` candidates.

    ``exclude``: tables not to pick (those being played: their results are not in the
    ratings yet), unless every table sampled is one of them."""
    if len(candidates) < players:
        raise ValueError(f"{len(candidates)} candidate(s) for a table of {players}")
    pool = sorted(candidates, key=lambda c: c.bot_id)
    new = [c for c in pool if c.games < NEW_GAMES]
    best: tuple[float, tuple[int, ...]] | None = None
    seen: set[tuple[int, ...]] = set()
    for _ in range(SAMPLES):
        anchor = rng.choice(new) if new else rng.choices(pool, weights=[c.sigma ** 2 for c in pool])[0]
        table = _grow(anchor, pool, players, rng)
        key = tuple(sorted(c.bot_id for c in table))
        if key in seen:
            continue
        seen.add(key)
        score = table_score(table) * (1e-9 if key in exclude else 1.0)
        if best is None or score > best[0]:
            best = (score, key)
    assert best is not None
    return best[1]


def table_score(table: Sequence[Candidate]) -> float:
    """Expected information of a table: match quality x the mean variance of its bots."""
    quality = ENV.quality([(ENV.create_rating(c.mu, c.sigma),) for c in table])
    return quality * sum(c.sigma ** 2 for c in table) / len(table)


def _grow(anchor: Candidate, pool: Sequence[Candidate], players: int, rng: random.Random) -> list[Candidate]:
    """The anchor and players-1 others, each drawn with a weight that falls with its distance
    in mu from the anchor (in units of the two bots' combined uncertainty)."""
    table = [anchor]
    rest = [c for c in pool if c.bot_id != anchor.bot_id]
    while len(table) < players:
        weights = [math.exp(-((c.mu - anchor.mu) ** 2) / (2 * (2 * ENV.beta ** 2 + c.sigma ** 2 + anchor.sigma ** 2)))
                   + 1e-12 for c in rest]
        pick = rng.choices(rest, weights=weights)[0]
        table.append(pick)
        rest.remove(pick)
    return table
