"""docs/images/table-<game>.png: each game's drawn table, as one seat sees a step of a game of
random play (the README shows them). Draws with arena/tables/svg.py and photographs the SVG in
Debian's chromium, headless (make browser installs it).

    .venv/bin/python scripts/table_shots.py
"""

from __future__ import annotations

import random
import re
import subprocess
import tempfile
from pathlib import Path

from arena.tables import scene
from arena.tables.svg import svg
from arena_games import get_game

ROOT = Path(__file__).resolve().parent.parent
# (game, players, seed, steps of random play): a step with a good deal on the table
SHOTS = (("prohis", 4, 5, 40), ("sobek", 3, 5, 40), ("boss", 3, 5, 40), ("bandits", 3, 4, 30))
NAMES = ("heuristic", "search", "random", "bold")


def main() -> None:
    for name, n, seed, steps in SHOTS:
        state, rng = get_game(name).new_game(n, seed), random.Random(seed)
        for _ in range(steps):
            state.apply(rng.choice(state.legal_actions()))
        drawing = svg(scene(name, [state.view(state.current_player())]), NAMES[:n], None)
        width, height = (int(float(x)) for x in re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', drawing).groups())
        with tempfile.TemporaryDirectory() as tmp:
            source = Path(tmp) / f"{name}.svg"
            source.write_text(drawing)
            out = ROOT / "docs" / "images" / f"table-{name}.png"
            subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                            f"--screenshot={out}", f"--window-size={width},{height}", source.as_uri()],
                           check=True, capture_output=True)
        print(out.relative_to(ROOT))


if __name__ == "__main__":
    main()
