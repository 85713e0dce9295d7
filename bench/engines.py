"""Engine speed: random self-play in one process, one core; and what a search bot gets from it.

A decision is what the referee does per move: build the deciding seat's view, list
the legal actions, apply one. Figures are medians over repeated runs; the same run
also times legal+apply without the view, so the view's share is visible.

For search (``--search``, at each game's smallest and largest player count), from positions a
third of the way into games: ``clone+apply`` is an engine's own ``clone()`` then one random
action, beside the same with a deep copy (the generic clone, its baseline); ``draws`` is states
drawn from the deciding seat's view (``arena_games.determinise``, the sampler prepared once per
position, as a search does); ``iterations`` is what the ISMCTS bot (``arenabot.search``, the
game's tuning) completes in a 1 s decision. The issue's target: 1,000 iterations a second.

    python -m bench.engines [--game prohis] [--players 4] [--repeats 5] [--seconds 2] [--search] [--json]
"""

from __future__ import annotations

import copy
import random
import time
from collections.abc import Callable, Sequence
from functools import partial

import click

from arena_games import GAMES, GameSpec, State, get_game
from arena_games.determinise import sampler

from .common import Report, median, pin_to_one_core


def run(spec: GameSpec, n: int, seconds: float, with_view: bool, seed0: int) -> tuple[int, int, float]:
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


def positions(spec: GameSpec, n: int, count: int, seed0: int) -> list[State]:
    """Positions a third of the way into random games, at a decision with a choice."""
    out = []
    rng = random.Random(seed0)
    for g in range(count):
        state = spec.new_game(n, seed0 + g)
        actions = []
        probe = state.clone()
        while not probe.is_terminal():
            actions.append(rng.choice(probe.legal_actions()))
            probe.apply(actions[-1])
        for action in actions[: len(actions) // 3]:
            state.apply(action)
        while len(state.legal_actions()) < 2 and not state.is_terminal():
            state.apply(state.legal_actions()[0])
        out.append(state)
    return out


def rate(work: Callable[[], object], seconds: float) -> float:
    """Calls of ``work()`` a second, over about ``seconds``."""
    calls = 0
    start = time.perf_counter()
    while True:
        for _ in range(50):
            work()
        calls += 50
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return calls / elapsed


def search_figures(report: Report, spec: GameSpec, n: int, repeats: int, seconds: float) -> None:
    from arenabot.search import ISMCTS

    states = positions(spec, n, 8, 77)
    rng = random.Random(1)

    def cycle(calls: Sequence[Callable[[], object]]) -> Callable[[], None]:
        """One call of each in turn, over and over."""
        i = 0

        def work() -> None:
            nonlocal i
            calls[i % len(calls)]()
            i += 1
        return work

    def clone_apply(clone: Callable[[State], State]) -> list[Callable[[], None]]:
        def one(state: State, legal: list[str]) -> Callable[[], None]:
            return lambda: clone(state).apply(legal[rng.randrange(len(legal))])
        return [one(s, s.legal_actions()) for s in states]

    own, deep, draws, iterations = [], [], [], []
    for _ in range(repeats):  # interleaved, so that drift hits each alike
        own.append(rate(cycle(clone_apply(lambda s: s.clone())), seconds))
        deep.append(rate(cycle(clone_apply(copy.deepcopy)), seconds))
        drawers = [sampler(s.view(s.current_player()), history=s.history(s.current_player()), settings=s.settings)
                   for s in states]
        draws.append(rate(cycle([partial(draw, rng) for draw in drawers]), seconds))
        done = 0
        for k, state in enumerate(states[:4]):  # a 1 s decision from each of four positions
            bot = ISMCTS(k, max_ms=1000 * seconds, share=1.0)
            seat = state.current_player()
            bot.start_game({"seed": k, "settings": {}})
            bot.decide({**state.view(seat), "events": state.history(seat)}, state.legal_actions())
            done += bot.last_iterations
        iterations.append(done / (4 * seconds))
    label = f"{spec.name}-{n}p"
    report.figure(f"{label} clone+apply_per_s", median(own), "/s")
    report.figure(f"{label} deepcopy+apply_per_s (baseline)", median(deep), "/s",
                  f"own clone {median(own) / median(deep):.0f}x faster")
    report.figure(f"{label} draws_per_s", median(draws), "/s")
    report.figure(f"{label} search_iterations_per_s", median(iterations), "/s", "target 1,000")


@click.command()
@click.option("--game", "games", multiple=True, type=click.Choice(sorted(GAMES)), help="Default: all.")
@click.option("--players", "counts", multiple=True, type=int, help="Default: every count of each game.")
@click.option("--repeats", default=5, show_default=True)
@click.option("--seconds", default=1.0, show_default=True, help="Per repeat.")
@click.option("--search/--no-search", default=True, show_default=True,
              help="Also the search figures: clone+apply, draws and ISMCTS iterations a second.")
@click.option("--json", "as_json", is_flag=True)
def main(
    games: tuple[str, ...], counts: tuple[int, ...], repeats: int, seconds: float, search: bool, as_json: bool
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
            if search and n in {spec.min_players, spec.max_players}:
                search_figures(report, spec, n, repeats, seconds)


if __name__ == "__main__":
    main()
