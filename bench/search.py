"""How strong the search bot is: its win rate and mean rank against the game's heuristic.

A table is one bot under test and heuristics in the other seats, at the game's smallest player
count (or --players). Each deal is played in every rotation (the tested bot in each seat in turn),
so luck cancels as in a league's duplicate matches. The baseline, in the same run and on the same
deals, is the heuristic itself in the tested seat: its win rate is the table's par (about 1/n).

    python -m bench.search [--game prohis] [--games 300] [--iterations 200] [--jobs 2] [--json]

A game "won" is a game the tested bot ranks first in, alone or tied; the mean rank counts shared
places as the ranks say (1 is best). ``--iterations`` is the search's fixed budget per decision
(the built-in ``search`` player's is 200), so a run is reproducible.
"""

from __future__ import annotations

import math
import multiprocessing
import time
from typing import Any

import click

from arena_games import GAMES, get_game
from arenabot.search import ISMCTS
from arenabot.strategies import SEARCH_ITERATIONS, Strategy, make_strategy

from .common import Report


def contender(kind: str, game: str, seed: int, iterations: int) -> Strategy:
    if kind == "search":
        return ISMCTS(seed, iterations=iterations)
    return make_strategy(kind, game, seed)


def play_deal(args: tuple[str, int, str, int, int]) -> list[dict[str, Any]]:
    """Every rotation of one deal: the tested bot (``kind``) in each seat, heuristics elsewhere."""
    game, players, kind, deal, iterations = args
    spec = get_game(game)
    out = []
    for seat in range(players):
        bots = [contender(kind if s == seat else "heuristic", game, 1000 * deal + s, iterations)
                for s in range(players)]
        for s, bot in enumerate(bots):
            bot.start_game({"game": game, "game_index": seat, "seat": s, "num_players": players,
                            "players": [f"p{i}" for i in range(players)], "seed": 1000 * deal + s + 7,
                            "settings": {}})
        state = spec.new_game(players, 10_000 + deal)
        start = time.perf_counter()
        decisions = 0
        while not state.is_terminal():
            s = state.current_player()
            state.apply(bots[s].decide(state.view(s), state.legal_actions()))
            decisions += s == seat
        out.append({"rank": state.ranks()[seat], "seconds": time.perf_counter() - start, "decisions": decisions})
    return out


def measure(game: str, players: int, kind: str, deals: int, iterations: int, jobs: int) -> dict[str, float]:
    work = [(game, players, kind, d, iterations) for d in range(deals)]
    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            results = [g for deal in pool.map(play_deal, work) for g in deal]
    else:
        results = [g for args in work for g in play_deal(args)]
    n = len(results)
    wins = sum(r["rank"] == 1 for r in results) / n
    return {"games": n, "win_rate": wins, "win_rate_se": math.sqrt(wins * (1 - wins) / n),
            "mean_rank": sum(r["rank"] for r in results) / n,
            "seconds_per_game": sum(r["seconds"] for r in results) / n}


@click.command()
@click.option("--game", "games", multiple=True, type=click.Choice(sorted(GAMES)), help="Default: all.")
@click.option("--players", type=int, default=None, help="Default: each game's smallest count.")
@click.option("--games", "count", default=300, show_default=True,
              help="Games per bot (rounded up to whole deals, each played in every rotation).")
@click.option("--iterations", default=SEARCH_ITERATIONS, show_default=True, help="The search's budget a decision.")
@click.option("--jobs", default=1, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def main(games: tuple[str, ...], players: int | None, count: int, iterations: int, jobs: int, as_json: bool) -> None:
    report = Report("search", as_json)
    for name in games or sorted(GAMES):
        n = players or get_game(name).min_players
        deals = -(-count // n)
        for kind in ("search", "heuristic"):  # the heuristic in the tested seat: the baseline
            m = measure(name, n, kind, deals, iterations, jobs)
            label = f"{name}-{n}p {kind}"
            report.figure(f"{label} win_rate", 100 * m["win_rate"], "%",
                          f"of {m['games']} games, standard error {100 * m['win_rate_se']:.1f}")
            report.figure(f"{label} mean_rank", m["mean_rank"], "")
            report.figure(f"{label} seconds_per_game", m["seconds_per_game"], "s")


if __name__ == "__main__":
    main()
