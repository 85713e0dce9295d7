"""The kit's ISMCTS (arenabot.search) in process: it answers legally, deterministically with a
fixed budget, inside its clock otherwise, and keeps each game's history apart."""

from __future__ import annotations

import importlib
import random
import time

import pytest

from arena_games import GAMES, GameSpec
from arenabot.search import ISMCTS, SearchConfig, config_for, rank_values
from arenabot.strategies import make_strategy


def info(seat: int, n: int, seed: int = 1) -> dict:
    return {"game": "", "game_index": 0, "seat": seat, "num_players": n, "players": [], "seed": seed,
            "settings": {}}


def play(spec: GameSpec, n: int, seed: int, search_seat: int, bot: ISMCTS) -> tuple[list[str], list[int]]:
    """A game of ``bot`` at ``search_seat`` against heuristics; its choices and the ranks."""
    others = [make_strategy("heuristic", spec.name, seed + s) for s in range(n)]
    bot.start_game(info(search_seat, n, seed))
    state = spec.new_game(n, seed)
    choices = []
    while not state.is_terminal():
        s = state.current_player()
        legal = state.legal_actions()
        if s == search_seat:
            action = bot.decide(state.view(s), legal)
            assert action in legal
            choices.append(action)
        else:
            action = others[s].decide(state.view(s), legal)
        state.apply(action)
    return choices, state.ranks()


@pytest.mark.parametrize("spec", GAMES.values(), ids=list(GAMES))
def test_a_fixed_budget_plays_the_same_game_twice(spec: GameSpec):
    n = spec.min_players
    one = play(spec, n, 11, 0, ISMCTS(3, iterations=20))
    two = play(spec, n, 11, 0, ISMCTS(3, iterations=20))
    assert one == two and one[0]


@pytest.mark.parametrize("spec", GAMES.values(), ids=list(GAMES))
def test_the_clock_is_kept(spec: GameSpec):
    """With 100 ms left, every decision of a game ends inside it (share 0.3: about 15 ms of
    search). Measured in this process's CPU time: this test runs beside the image builds, which
    stalled a decision's wall clock for 257 ms once; a search that overran its deadline would
    overrun in CPU time too. tests/sandbox/test_search_bots.py holds the bots in containers to the
    wall clock, with a CPU hog on their core."""
    n = spec.min_players
    bot = ISMCTS(1, max_ms=250)
    bot.start_game(info(0, n))
    state = spec.new_game(n, 5)
    rng = random.Random(5)
    slowest = 0.0
    searched = 0
    while not state.is_terminal():
        s = state.current_player()
        legal = state.legal_actions()
        if s == 0:
            bot.time_left_ms = 100
            start = time.process_time()
            action = bot.decide(state.view(s), legal)
            slowest = max(slowest, time.process_time() - start)
            searched += bot.last_iterations > 0
        else:
            action = rng.choice(legal)
        state.apply(action)
    assert searched and slowest < 0.1, slowest


def test_history_restarts_with_each_game():
    spec = GAMES["prohis"]
    bot = ISMCTS(2, iterations=5)
    play(spec, 3, 1, 0, bot)
    first = len(bot.history)
    play(spec, 3, 2, 1, bot)  # start_game clears it: a stale history would not end with the view's events
    assert first and bot.history[0]["type"] == "turn"


def test_rank_values_share_tied_places():
    class Stub:
        num_players = 4

        def __init__(self, ranks):
            self._ranks = ranks

        def ranks(self):
            return self._ranks

    assert rank_values(Stub([1, 2, 3, 4])) == [1.0, 2 / 3, 1 / 3, 0.0]
    assert rank_values(Stub([1, 1, 3, 3])) == [5 / 6, 5 / 6, 1 / 6, 1 / 6]


def test_every_game_has_its_tuning():
    for game in GAMES:
        module = importlib.import_module(f"arenabot.search.{game}")
        assert isinstance(module.CONFIG, SearchConfig) and config_for(game) is module.CONFIG, game
