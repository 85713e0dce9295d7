"""What a drawn table costs on the server: one step drawn as SVG, per game, p50 and p99.

Games of random legal play, at a middle player count; every step of each is drawn for the seat
to act (its scene from its view, then the wide SVG), and for the full table (every seat's view).
The baseline, in the same run and on the same steps, is what the replay API already does per step:
the seat's view encoded as JSON. Sizes are the SVG's bytes, raw and gzipped (as the page gets it).

    python -m bench.tables [--game prohis] [--games 20] [--json]
"""

from __future__ import annotations

import gzip
import json
import random
import time
from collections.abc import Sequence

import click

from arena.tables import scene
from arena.tables.svg import svg
from arena_games import GAMES, get_game

from .common import Report, pin_to_one_core


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@click.command()
@click.option("--game", "games", multiple=True, type=click.Choice(sorted(GAMES)), help="Default: all.")
@click.option("--games", "count", default=20, show_default=True, help="Random games per game.")
@click.option("--json", "as_json", is_flag=True)
def main(games: tuple[str, ...], count: int, as_json: bool) -> None:
    pin_to_one_core()
    report = Report("tables", as_json)
    for name in games or sorted(GAMES):
        spec = get_game(name)
        n = (spec.min_players + spec.max_players + 1) // 2
        names = [f"bot-{s}" for s in range(n)]
        seat_ms, full_ms, json_ms, sizes, zipped = [], [], [], [], []
        for g in range(count):
            state, rng = spec.new_game(n, 1000 + g), random.Random(g)
            while True:
                s = -1 if state.is_terminal() else state.current_player()
                view = state.view(max(s, 0))
                t0 = time.perf_counter()
                drawing = svg(scene(name, [view]), names, None)
                t1 = time.perf_counter()
                json.dumps(view, separators=(",", ":"))
                t2 = time.perf_counter()
                svg(scene(name, [state.view(k) for k in range(n)]), names, None)
                t3 = time.perf_counter()
                seat_ms.append((t1 - t0) * 1000)
                json_ms.append((t2 - t1) * 1000)
                full_ms.append((t3 - t2) * 1000)
                data = drawing.encode()
                sizes.append(len(data))
                zipped.append(len(gzip.compress(data, 6)))
                if s < 0:
                    break
                state.apply(rng.choice(state.legal_actions()))
        label = f"{name}-{n}p"
        for what, values in (("seat svg", seat_ms), ("full svg", full_ms), ("view json (baseline)", json_ms)):
            report.figure(f"{label} {what} p50", percentile(values, 0.5), "ms", f"{len(values)} steps")
            report.figure(f"{label} {what} p99", percentile(values, 0.99), "ms")
        report.figure(f"{label} seat svg kB median", percentile(sizes, 0.5) / 1000, "kB",
                      f"gzipped {percentile(zipped, 0.5) / 1000:.1f} kB")


if __name__ == "__main__":
    main()
