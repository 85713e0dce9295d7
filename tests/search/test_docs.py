"""The search page's example bot (docs/search.md, "A search bot in a dozen lines") runs as
written in every game (with 4 simulations an action instead of 40, to be quick)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena_games import GAMES
from arenabot.strategies import make_strategy

DOC = Path(__file__).resolve().parents[2] / "docs" / "search.md"


def example_bot():
    code = re.search(r"```python\n# flatmc.py\n(.*?)```", DOC.read_text(), re.S).group(1)
    assert code.rstrip().endswith('run(FlatMC(), name="flat-mc", version="0.1.0")')
    scope: dict = {}
    assert "range(40)" in code
    code = code.rstrip().rsplit("\n", 1)[0].replace("range(40)", "range(4)")  # all but the run(...) line
    exec(compile(code, str(DOC), "exec"), scope)
    return scope["FlatMC"]


@pytest.mark.parametrize("game", list(GAMES))
def test_the_flat_monte_carlo_example_plays(game: str):
    spec = GAMES[game]
    n = spec.min_players
    flat = example_bot()(0)
    seed = 0
    players = [flat, *(make_strategy("random", game, seed + s) for s in range(1, n))]
    for s, p in enumerate(players):
        p.start_game({"game": game, "game_index": seed, "seat": s, "num_players": n, "players": [],
                      "seed": seed + s, "settings": {}})
    state = spec.new_game(n, seed)
    while not state.is_terminal():
        s = state.current_player()
        action = players[s].decide(state.view(s), state.legal_actions())
        assert action in state.legal_actions()
        state.apply(action)
    assert flat.history and flat.history[0] == state.history(0)[0]
