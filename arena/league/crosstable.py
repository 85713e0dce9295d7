"""A league's crosstable: every pair of entrants' head to head, over the games they played together.

For a pair (a, b) and each game both sat in: who finished ahead (a lower rank; equal ranks are
level), and the rank difference rank(b) - rank(a) (positive when a finished ahead). The pair's
figures are the count of games, a's and b's games ahead, the level ones, the mean difference and
how sure it is, two ways:

- a **95% interval** of the mean difference: mean +- 1.96 standard errors (the normal
  approximation; the games of a duplicate cycle deal the same cards, so it is, if anything,
  narrower than it should be: read it with the sign test);
- a **sign test**: the exact two-sided binomial p-value of a's games ahead among the games
  that were not level, under "neither is better" (p = 1/2).

**Only public games** (``arena/access.py``: a game is public once its table's whole duplicate
cycle is stored, ``cycles.py``). A crosstable is shown to everyone; a game of an open cycle
tells its result, which narrows a deal still to be played. So unlike the leaderboard's totals
(and the bot page's head to head), a game counts here only once the public may see it.

Kept in memory per store and league, and rebuilt only when the league's standings change
(:attr:`~arena.league.standings.Standings.version`: every match stored, every rebuild).
"""

from __future__ import annotations

import math
import threading
import weakref
from dataclasses import dataclass
from itertools import combinations

from ..store import Store
from .standings import standings
from .stats import league_games

Z95 = 1.959964  # the normal quantile of a two-sided 95% interval


@dataclass(frozen=True, slots=True)
class Pair:
    """Bots ``a`` and ``b`` (``a`` ranks higher on the leaderboard) over their public games together."""

    a: int
    b: int
    games: int
    a_ahead: int  # games a finished ahead of b
    b_ahead: int
    level: int  # games they finished level
    mean_rank_difference: float  # mean of rank(b) - rank(a): positive when a finished ahead on average
    low: float | None  # the 95% interval of that mean (None under 2 games)
    high: float | None
    p_value: float  # the sign test's (two-sided; 1.0 when every game was level)


@dataclass(frozen=True)
class Crosstable:
    """The league's entrants in leaderboard order, and every pair that played a public game together."""

    league: str
    bots: tuple[dict, ...]  # leaderboard rows' bot_id, bot, version, author, rank (shared: never change them)
    pairs: tuple[Pair, ...]  # by the leaderboard rank of a, then of b
    games: int  # public games counted
    hidden_games: int  # stored games not public yet, left out
    version: str  # the standings' version it was made from


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact binomial p-value of ``wins`` among ``wins + losses`` at p = 1/2."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(1.0, 2 * tail / 2**n)  # int / int: exact, then rounded once, for any n


def _pair(a: int, b: int, t: list[int]) -> Pair:
    games, a_ahead, b_ahead, total, squares = t
    mean = total / games
    low = high = None
    if games >= 2:
        variance = max(0.0, (squares - games * mean * mean) / (games - 1))
        half = Z95 * math.sqrt(variance / games)
        low, high = round(mean - half, 3), round(mean + half, 3)
    return Pair(a, b, games, a_ahead, b_ahead, games - a_ahead - b_ahead, round(mean, 3), low, high,
                round(sign_test(a_ahead, b_ahead), 4))


def crosstable(store: Store, name: str) -> Crosstable:
    """League ``name``'s crosstable (see the module); raises LeagueError for an unknown league."""
    now = standings(store, name)
    cached = _cache.get(store, {}).get(name)
    if cached is not None and cached.version == now.version:
        return cached
    with _lock:
        cached = _cache.get(store, {}).get(name)
        if cached is not None and cached.version == now.version:
            return cached
        fresh = _build(store, name)
        _cache.setdefault(store, {})[name] = fresh
        return fresh


_cache: weakref.WeakKeyDictionary[Store, dict[str, Crosstable]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _build(store: Store, name: str) -> Crosstable:
    now = standings(store, name)
    played = league_games(store, now.league_id)
    order = {row["bot_id"]: row["rank"] for row in now.rows}
    tally: dict[tuple[int, int], list[int]] = {}  # (a, b) -> [games, a ahead, b ahead, sum, sum of squares]
    public = hidden = 0
    for game in played.games:
        if game.match_id in played.hidden:  # not public yet: its result narrows a deal still to be played
            hidden += 1
            continue
        public += 1
        seats = sorted(range(len(game.seats)), key=lambda s: order.get(game.seats[s], 1 << 30))
        for i, j in combinations(seats, 2):
            a, b = game.seats[i], game.seats[j]
            if a == b or a not in order or b not in order:
                continue
            t = tally.get((a, b))
            if t is None:
                t = tally[(a, b)] = [0, 0, 0, 0, 0]
            diff = game.ranks[j] - game.ranks[i]
            t[0] += 1
            t[1] += diff > 0
            t[2] += diff < 0
            t[3] += diff
            t[4] += diff * diff
    pairs = sorted((_pair(a, b, t) for (a, b), t in tally.items()), key=lambda p: (order[p.a], order[p.b]))
    bots = tuple({k: row[k] for k in ("bot_id", "bot", "version", "author", "rank")} for row in now.rows)
    return Crosstable(now.name, bots, tuple(pairs), public, hidden, now.version)
