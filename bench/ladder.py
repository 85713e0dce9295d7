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
    python -m bench.ladder --truth [--games 40000]   # the long evaluation behind the true order

The true order (``--truth --games 40000``: a round robin of 20,000 games for the 8 bots and
40,000 for the 16; each bot's mean score (k - rank) / (k - 1) in %, with its standard error),
strongest first; every bot is above the next by at least 4.7 standard errors of the difference:

- 8 bots: heuristic 85.8 ± 0.3, p.10 73.7 ± 0.4, p.21 64.1 ± 0.4, p.33 54.0 ± 0.4, p.46 45.4 ±
  0.4, first-legal 33.9 ± 0.4, p.78 27.3 ± 0.4, random 18.9 ± 0.3 (adjacent gaps 11.5 to 24
  standard errors; first-legal, alone not a handicapped heuristic, sits between p.46 and p.78
  in this company).
- 16 bots: heuristic 80.6, p.04 76.0, p.08 71.9, p.12 67.6, p.17 64.0, p.22 59.3, p.27 56.2,
  p.32 51.8, p.37 48.0, p.43 44.5, p.49 41.0, p.56 37.1, p.64 33.3, p.73 29.7, p.84 25.5,
  random 20.0 (each ± 0.3 to 0.5; adjacent gaps 4.7 to 10.7 standard errors).

The p were spaced so that the bots are about equally far apart in strength (a quadratic fit
of score against p from a first long run); first-legal is left out of the 16, where it would
sit within a standard error or two of a handicapped heuristic.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
import time

import click

from arena.league.matchmaking import NEW_GAMES, Candidate, pick_table
from arena.league.ratings import ENV
from arena.league.simulate import SimLeague, games_to, known_bots, simulate

from .common import Report, median

GAME, PLAYERS = "prohis", 3
# the most games a league plays (it stops once tau >= 0.9 has held through twice the games it took)
HORIZON = {8: 1500, 16: 5000}


def pick_ms(candidates: int, repeats: int = 50) -> float:
    """Milliseconds per pick_table among ``candidates`` bots of spread ratings, none of them new
    (a new entrant would anchor every table sampled, which is quicker)."""
    rng = random.Random(candidates)
    pool = [Candidate(i, rng.gauss(ENV.mu, 5), rng.uniform(0.7, ENV.sigma), rng.randrange(NEW_GAMES, 500))
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
                for seat, bot_id in enumerate(game.seats):
                    scores[bot_id].append((PLAYERS - game.ranks[seat]) / (PLAYERS - 1))
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
            report.note(f"{n} bots, {fmt}, by seed: held from {_games(held[fmt])}; first reached {_games(first[fmt])}")
        report.figure(f"{n}_bots_ladder_over_round_robin_first_reached",
                      median(first["ladder"]) / median(first["round-robin"]), "x")
        report.figure(f"{n}_bots_ladder_over_round_robin", median(held["ladder"]) / median(held["round-robin"]), "x",
                      "(target <= 0.5)")
    for candidates in (50, 200):
        report.figure(f"pick_table_{candidates}_candidates", pick_ms(candidates), "ms")


def _games(values: list[float]) -> str:
    return " ".join("never" if math.isinf(v) else str(int(v)) for v in values)


if __name__ == "__main__":
    main()
