"""Ladder vs round robin: games until the ratings order bots of known strength.

Bots of known strength (``arena.league.simulate.known_bots``: 8 or 16 in Prohis, 3 a table)
play a round robin (in its real schedule order) and a ladder (tables picked by
``arena/league/matchmaking.py``) in process, with the league's own schedule, deals, seeds and
ratings (``arena/league/simulate.py``). After each match, the Kendall tau of the mu order
against the true order; the figure is the games after which tau reached 0.9 and held it
through twice as many games (``simulate.games_to``), the median over seeds, for each format,
and the ratio ladder / round robin (the issue's target: at most 0.5). Also: the games to the
first tau >= 0.9, and the time of one pick with 50 and 200 candidates.

    python -m bench.ladder [--seeds 9] [--bots 8 --bots 16] [--json]
    python -m bench.ladder --truth [--games 20000]   # the long evaluation behind the true order

The true order (``--truth``, a round robin of 4,000 games for the 8 bots and 10,000 for
the 16, each bot's mean score (k - rank) / (k - 1) with its standard error, strongest first):

- 8 bots: heuristic .856 ± .007, p.10 .742 ± .009, p.21 .639 ± .010, p.33 .530 ± .010,
  p.46 .462 ± .010, first-legal .330 ± .010, p.78 .276 ± .009, random .197 ± .007. Adjacent
  gaps of .05 to .11, 4 to 9 standard errors of a difference (first-legal, which alone is
  not a handicapped heuristic, sits between p.46 and p.78 in this company).
- 16 bots: FILLED BELOW
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
import time

import click

from arena.league.matchmaking import Candidate, pick_table
from arena.league.ratings import ENV
from arena.league.simulate import SimLeague, games_to, known_bots, simulate

from .common import Report, median

GAME, PLAYERS = "prohis", 3
# the most games a league plays (it stops once tau >= 0.9 has held through twice the games it took)
HORIZON = {8: 1500, 16: 5000}


def pick_ms(candidates: int, repeats: int = 50) -> float:
    """Milliseconds per pick_table among ``candidates`` bots of spread ratings."""
    rng = random.Random(candidates)
    pool = [Candidate(i, rng.gauss(ENV.mu, 5), rng.uniform(0.7, ENV.sigma), rng.randrange(200))
            for i in range(1, candidates + 1)]
    start = time.perf_counter()
    for seed in range(repeats):
        pick_table(pool, PLAYERS, random.Random(seed))
    return (time.perf_counter() - start) / repeats * 1000


def truth(games: int, report: Report) -> None:
    """A long round robin of each set of known bots: their mean scores, strongest first."""
    for n in (8, 16):
        bots = known_bots(n)
        league = SimLeague(GAME, PLAYERS, bots, "round-robin", seed=777)
        scores: dict[int, list[float]] = {b: [] for b in league.ids}
        for match in league.matches():
            for game in match:
                for seat, bot in enumerate(game.seats):
                    scores[bot].append((PLAYERS - game.ranks[seat]) / (PLAYERS - 1))
            if league.played >= games * n // 16:
                break
        means = [100 * statistics.mean(scores[b]) for b in league.ids]
        errors = [100 * statistics.stdev(scores[b]) / math.sqrt(len(scores[b])) for b in league.ids]
        gaps = [(a - b) / math.hypot(ea, eb)
                for (a, ea), (b, eb) in itertools.pairwise(zip(means, errors, strict=True))] + [math.nan]
        for bot, mean, error, gap in zip(bots, means, errors, gaps, strict=True):
            report.figure(f"{n}_bots_{bot.name}_score", mean, "%",
                          f"± {error:.1f}" + ("" if math.isnan(gap) else f", {gap:.1f} standard errors above the next"))
        report.figure(f"{n}_bots_games", league.played, "games")


@click.command()
@click.option("--seeds", default=9, show_default=True, help="Leagues per format and size (median).")
@click.option("--bots", "sizes", type=click.Choice(["8", "16"]), multiple=True, default=("8", "16"),
              show_default=True)
@click.option("--truth", "long_run", is_flag=True, help="Establish the true order instead (a long round robin).")
@click.option("--games", default=10_000, show_default=True, help="With --truth: games for the 16 bots (half for 8).")
@click.option("--json", "as_json", is_flag=True)
def main(seeds: int, sizes: tuple[str, ...], long_run: bool, games: int, as_json: bool) -> None:
    report = Report("ladder", as_json)
    if long_run:
        truth(games, report)
        return
    for n in map(int, sizes):
        held: dict[str, list[float]] = {}
        first: dict[str, list[float]] = {}
        for fmt in ("round-robin", "ladder"):
            for seed in range(seeds):
                trajectory = simulate(GAME, PLAYERS, known_bots(n), fmt, HORIZON[n], seed=seed,
                                      stop=lambda t: games_to(t) is not None)
                held.setdefault(fmt, []).append(games_to(trajectory) or math.inf)
                first.setdefault(fmt, []).append(games_to(trajectory, hold=1) or math.inf)
        for fmt in ("round-robin", "ladder"):
            report.figure(f"{n}_bots_{fmt}_games_to_tau_0.9", median(held[fmt]), "games",
                          f"(first reached: {median(first[fmt]):.0f})")
        report.figure(f"{n}_bots_ladder_over_round_robin", median(held["ladder"]) / median(held["round-robin"]), "x",
                      "(target <= 0.5)")
    for candidates in (50, 200):
        report.figure(f"pick_table_{candidates}_candidates", pick_ms(candidates), "ms")


if __name__ == "__main__":
    main()
