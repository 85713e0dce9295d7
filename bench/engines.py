"""Engine speed: random self-play in one process, one core.

A decision is what the referee does per move: build the deciding seat's view, list
the legal actions, apply one. Figures are medians over repeated runs; the same run
also times legal+apply without the view, so the view's share is visible.

    python -m bench.engines [--game prohis] [--players 4] [--repeats 5] [--seconds 2] [--json]
"""

from __future__ import annotations

import random
import time

import click

from arena_games import GAMES, get_game

from .common import Report, median, pin_to_one_core


def run(spec, n: int, seconds: float, with_view: bool, seed0: int) -> tuple[int, int, float]:
    """Plays random games for about ``seconds``; returns (decisions, games, elapsed)."""
    rng = random.Random(seed0)
    choice = rng.choice
    decisions = games = 0
    start = time.perf_counter()
    seed = seed0
    while True:
        state = spec.new_game(n, seed)
        seed += 1
        if with_view:
            while not state.is_terminal():
                state.view(state.current_player())
                state.apply(choice(state.legal_actions()))
                decisions += 1
        else:
            while not state.is_terminal():
                state.apply(choice(state.legal_actions()))
                decisions += 1
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return decisions, games, elapsed


@click.command()
@click.option("--game", "games", multiple=True, type=click.Choice(sorted(GAMES)), help="Default: all.")
@click.option("--players", "counts", multiple=True, type=int, help="Default: every count of each game.")
@click.option("--repeats", default=5, show_default=True)
@click.option("--seconds", default=1.0, show_default=True, help="Per repeat.")
@click.option("--json", "as_json", is_flag=True)
def main(
    games: tuple[str, ...], counts: tuple[int, ...], repeats: int, seconds: float, as_json: bool
) -> None:
    pin_to_one_core()
    report = Report("engines", as_json)
    for name in games or sorted(GAMES):
        spec = get_game(name)
        for n in counts or range(spec.min_players, spec.max_players + 1):
            if not spec.min_players <= n <= spec.max_players:
                continue
            full, bare, gps = [], [], []
            for r in range(repeats):  # interleaved so that drift hits both alike
                d, g, t = run(spec, n, seconds, True, 1000 * r)
                full.append(d / t)
                gps.append(g / t)
                d, _, t = run(spec, n, seconds, False, 1000 * r)
                bare.append(d / t)
            report.figure(f"{name}-{n}p decisions_per_s", median(full), "decisions/s")
            report.figure(f"{name}-{n}p games_per_s", median(gps), "games/s")
            report.figure(f"{name}-{n}p legal+apply_only_per_s", median(bare), "decisions/s")
            # time per decision is 1/rate, so the view's share of it is 1 - full/bare
            report.figure(f"{name}-{n}p view_share_of_time", 100 * (1 - median(full) / median(bare)), "%")


if __name__ == "__main__":
    main()
