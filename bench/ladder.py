"""Ladder vs round robin: games until the ratings order bots of known strength.

Bots of known strength (``arena.league.simulate.known_bots``: 8 or 16 in Prohis, 3 a table)
play a round robin (in its real schedule order) and a ladder (tables picked by
``arena/league/matchmaking.py``) in process, with the league's own schedule, deals, seeds and
ratings (``arena/league/simulate.py``). After each match, the Kendall tau of the mu order
against the true order; the figure is the games after which tau reached 0.9 and held it
through twice as many games (``simulate.games_to``), the median over seeds, for each format,
and the ratio ladder / round robin (the issue's target: at most 0.5). Also: the games to the
first tau >= 0.9, and the time of one pick with 50 and 200 candidates.

Two more measures (issue 33): **the newcomer** (a ladder of the 16 settles, then a bot between
two of them in strength joins: the games until its 90% rank interval first lies within its true
rank ± 1, for the ladder going on and for a round robin playing only the tables the newcomer
adds; ``newcomer_games_ratio``, the median of the per-case ratios, target <= 1/3) and **the
uneven field** (``simulate.uneven_bots``: the ordering measure, ``uneven_games_ratio``, target
<= 0.6). Each ladder policy of :data:`POLICIES` is measured in the same run, so that a change
of matchmaking is measured before and after on the same leagues. The figures and what they
show: ``docs/leagues.md#a-newcomer-and-an-uneven-field``.

    python -m bench.ladder [--seeds 9] [--bots 8 --bots 16] [--measure order|newcomer|uneven ...]
                           [--newcomer-seeds 3] [--json]
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
from collections.abc import Callable
from typing import Any

import click

from arena.league.matchmaking import NEW_GAMES, Candidate, pick_table
from arena.league.ratings import ENV
from arena.league.schedule import Format
from arena.league.simulate import (
    Placing,
    SimBot,
    SimLeague,
    games_to,
    known_bots,
    place,
    placed,
    settle,
    simulate,
    uneven_bots,
)

from .common import Report, median

GAME, PLAYERS = "prohis", 3
# the most games a league plays (it stops once tau >= 0.9 has held through twice the games it took)
HORIZON = {8: 1500, 16: 5000}
# the newcomer: a settled ladder of the 16 (this many games), then a heuristic handicapped by p
# joins, between two of them in strength: its true rank among the 17 (1 the best) by p
SETTLE_GAMES = 1200
NEWCOMERS = {2: .02, 5: .145, 8: .295, 11: .46, 14: .685}
NEWCOMER_HORIZON = 600  # games after it joins; "never" is counted as this many (a lower bound)
# the ladder's matchmaking policies measured side by side, by name (keyword arguments of pick_table: to
# measure a change before and after in one run)
POLICIES: dict[str, dict[str, Any]] = {"ladder": {}}


def newcomer(seeds: int, report: Report) -> None:
    """Games after a newcomer joins a settled ladder of 16 until its 90% rank interval first lies
    within its true rank ± 1 (and ± 2), and until its sigma is 1.0 or less: each ladder policy,
    and a round robin that plays only the tables it adds; median over seeds x newcomers."""
    runs = _runs()
    criteria: dict[str, Callable[[list[Placing], int], float]] = {
        "rank_within_1": lambda t, rank: placed(t, rank, 1, hold=1) or math.inf,
        "rank_within_2": lambda t, rank: placed(t, rank, 2, hold=1) or math.inf,
        "sigma_1": lambda t, rank: next((p.games for p in t if p.sigma <= 1.0), math.inf)}
    games = {(run, c): [] for run in runs for c in criteria}  # type: dict[tuple[str, str], list[float]]
    for seed in range(seeds):
        settled = settle(GAME, PLAYERS, known_bots(16), SETTLE_GAMES, seed=seed)
        for rank, p in NEWCOMERS.items():
            for run, (fmt, pick) in runs.items():
                trajectory = place(settled, SimBot(f"newcomer-p{round(1000 * p)}", p), fmt, NEWCOMER_HORIZON, **pick)
                for c, measure in criteria.items():
                    games[run, c].append(min(measure(trajectory, rank), NEWCOMER_HORIZON))
    for c in criteria:
        for run in runs:
            values = games[run, c]
            never = sum(v >= NEWCOMER_HORIZON for v in values)
            report.figure(f"newcomer_{run}_games_to_{c}", median(values), "games",
                          f"(never within {NEWCOMER_HORIZON}: {never} of {len(values)})")
            report.note(f"newcomer, {run}, to {c}, by seed then rank {list(NEWCOMERS)}: {_games(values)}")
        for run in POLICIES:
            ratios = [a / b for a, b in zip(games[run, c], games["round-robin", c], strict=True)]
            q1, mid, q3 = statistics.quantiles(ratios, n=4, method="inclusive")
            suffix = "" if c == "rank_within_1" else f"_{c}"
            prefix = "" if run == "ladder" else f"{run}_"
            report.figure(f"{prefix}newcomer_games_ratio{suffix}", mid, "x",
                          f"(median of {len(ratios)} per-case ratios, quartiles {q1:.2f} to {q3:.2f}; "
                          f"ratio of medians {median(games[run, c]) / median(games['round-robin', c]):.2f};"
                          + (" target <= 1/3)" if c == "rank_within_1" else ")"))


def uneven(seeds: int, report: Report) -> None:
    """Games until tau >= 0.9 held through twice as many (the ordering measure) for the 7 bots in
    three clusters far apart (``simulate.uneven_bots``): round robin and each ladder policy."""
    held: dict[str, list[float]] = {run: [] for run in _runs()}
    for seed in range(seeds):
        for run, (fmt, pick) in _runs().items():
            trajectory = simulate(GAME, PLAYERS, uneven_bots(), fmt, HORIZON[8], seed=seed,
                                  stop=lambda t: games_to(t) is not None, **pick)
            held[run].append(games_to(trajectory) or math.inf)
    for run in held:
        report.figure(f"uneven_{run}_games_to_tau_0.9", median(held[run]), "games")
        report.note(f"uneven, {run}, by seed: {_games(held[run])}")
    for run in POLICIES:
        prefix = "" if run == "ladder" else f"{run}_"
        report.figure(f"{prefix}uneven_games_ratio", median(held[run]) / median(held["round-robin"]), "x",
                      "(target <= 0.6)")


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
@click.option("--measure", "measures", type=click.Choice(["order", "newcomer", "uneven"]), multiple=True,
              default=("order", "newcomer", "uneven"), show_default=True)
@click.option("--newcomer-seeds", default=3, show_default=True,
              help="Settled ladders for the newcomer measure (each with 5 newcomers).")
@click.option("--json", "as_json", is_flag=True)
def main(seeds: int, sizes: tuple[str, ...], long_run: bool, games: int, measures: tuple[str, ...],
         newcomer_seeds: int, as_json: bool) -> None:
    report = Report("ladder", as_json)
    if long_run:
        truth(games, report)
        return
    for n in map(int, sizes if "order" in measures else ()):
        held: dict[str, list[float]] = {}
        first: dict[str, list[float]] = {}
        for run, (fmt, pick) in _runs().items():
            for seed in range(seeds):
                trajectory = simulate(GAME, PLAYERS, known_bots(n), fmt, HORIZON[n], seed=seed,
                                      stop=lambda t: games_to(t) is not None, **pick)
                held.setdefault(run, []).append(games_to(trajectory) or math.inf)
                first.setdefault(run, []).append(games_to(trajectory, hold=1) or math.inf)
        for run in _runs():
            report.figure(f"{n}_bots_{run}_games_to_tau_0.9", median(held[run]), "games",
                          f"(first reached: {median(first[run]):.0f})")
            report.note(f"{n} bots, {run}, by seed: held from {_games(held[run])}; first reached {_games(first[run])}")
        for run in POLICIES:
            name = "ladder" if run == "ladder" else run
            report.figure(f"{n}_bots_{name}_over_round_robin_first_reached",
                          median(first[run]) / median(first["round-robin"]), "x")
            report.figure(f"{n}_bots_{name}_over_round_robin", median(held[run]) / median(held["round-robin"]), "x",
                          "(target <= 0.5)")
    if "newcomer" in measures:
        newcomer(newcomer_seeds, report)
    if "uneven" in measures:
        uneven(seeds, report)
    for candidates in (50, 200):
        report.figure(f"pick_table_{candidates}_candidates", pick_ms(candidates), "ms")


def _runs() -> dict[str, tuple[Format, dict[str, Any]]]:
    """The round robin, then each ladder policy: (format, pick_table's keyword arguments) by name."""
    return {"round-robin": ("round-robin", {}), **{name: ("ladder", pick) for name, pick in POLICIES.items()}}


def _games(values: list[float]) -> str:
    return " ".join("never" if math.isinf(v) else str(int(v)) for v in values)


if __name__ == "__main__":
    main()
