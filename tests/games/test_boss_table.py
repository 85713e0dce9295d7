"""The Boss's drawn table (``arena_games.boss.table``) and its actions in words: a seat's table
shows exactly what its view does (the perturbation of test_views.py, on the scene, its SVG and
its text), the full table at the end scores as the rulebook does, and every action
has words."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena_games import State
from arena_games.boss import GAME
from arena_games.scene import Card, Face, Scene, Text

from .drawing import drawn
from .test_views import differing_pairs, random_midgame
from .twins import swap
from .visibility import SIGHTS


def seat_table(state: State, seat: int) -> str:
    """The seat's scene and its drawings (wide and narrow SVG, text)."""
    view = state.view(seat)
    return repr(GAME.table([view])) + drawn("boss", [view])  # type: ignore[misc]


def faces(scene: Scene) -> list[Face]:
    zones = [*scene.centre, *(z for area in scene.seats for z in area.zones)]
    return [item.face for zone in zones for item in zone.items if isinstance(item, Card) and item.face]


def strings(value: Any) -> set[str]:
    """Every string a view holds, at any depth."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*map(strings, value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*map(strings, value)) if value else set()
    return set()


# (players, seed, steps): the start, the middle of a round, a last turn, the end.
STATES = [(2, 1, 0), (2, 2, 25), (3, 3, 60), (4, 4, 45), (4, 5, 130), (3, 8, 200), (2, 6, 10_000), (4, 7, 10_000)]


@pytest.mark.parametrize("n, seed, steps", STATES)
def test_a_seat_table_shows_what_its_view_shows(n: int, seed: int, steps: int) -> None:
    state, pick = random_midgame(GAME, n, seed, steps), random.Random(seed)
    sight_of = SIGHTS["boss"]
    hidden_swaps = visible_swaps = 0
    for seat in range(n):
        view = state.view(seat)
        scene = GAME.table([view])  # type: ignore[misc]
        assert {f.name for f in faces(scene)} <= strings(view), "a face the view does not show"
        base = seat_table(state, seat)
        before = sight_of(state, seat)
        unseen = before.hidden + list(before.backs)
        for a, b in differing_pairs(state, unseen, unseen, pick, 6):
            swap(state, a, b)
            after = sight_of(state, seat)
            if all((s in before.hidden and s in after.hidden) or before.backs.get(s, "") == after.backs.get(s)
                   for s in (a, b)):
                assert seat_table(state, seat) == base, f"seat {seat}'s table shows unseen {a}, {b}"
                hidden_swaps += 1
            swap(state, a, b)
        for a, b in differing_pairs(state, before.visible, unseen, pick, 3):
            swap(state, a, b)
            assert seat_table(state, seat) != base, f"seat {seat}'s table missed visible {a}, {b}"
            visible_swaps += 1
            swap(state, a, b)
        assert seat_table(state, seat) == base
    assert hidden_swaps and visible_swaps or state.is_terminal()  # at the end little is left hidden


def test_the_full_table_at_the_end_scores_as_the_rulebook() -> None:
    for n, seed in ((2, 11), (3, 12), (4, 13)):
        state = random_midgame(GAME, n, seed, 10_000)
        assert state.is_terminal()
        views = [state.view(s) for s in range(n)]
        scene = GAME.table(views)  # type: ignore[misc]
        assert scene.to_act is None and scene.phase.startswith("Game over")
        assert {f.name for f in faces(scene)} <= set().union(*map(strings, views))
        ranks = state.ranks()
        for area, view in zip(scene.seats, views, strict=True):
            assert area.status.startswith(f"place {ranks[area.seat]}")
            scoring = next(z for z in area.zones if z.title == "Scoring")
            lines = [item.text for item in scoring.items if isinstance(item, Text)]
            points = view["players"][area.seat]["points"]
            assert lines[0] == f"place {ranks[area.seat]}: {points} point{'' if points == 1 else 's'}"
            assert lines[1].startswith("tie-break 1") and lines[2].startswith("tie-break 2")
        rewards = [i for z in scene.centre for i in z.items if isinstance(i, Card) and i.note == "reward"]
        assert rewards and all(card.face for card in rewards), "the rewards lie face up at the end"
        assert scene.centre[-1].title == "Scoring"
    mid = random_midgame(GAME, 2, 14, 20)
    with pytest.raises(ValueError):
        GAME.table([mid.view(0), mid.view(1)])  # type: ignore[misc]


def test_every_action_has_words() -> None:
    verbs: set[str] = set()
    for n, seed in ((2, 21), (4, 22)):
        state = GAME.new_game(n, seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            for action in state.legal_actions():
                verbs.add(action.partition(":")[0])
                for secret in (True, False):
                    words = GAME.describe_action(action, secret)
                    assert words and words != action and "_" not in words, (action, words)
            state.apply(rng.choice(state.legal_actions()))
    assert verbs == set(GAME.actions)
    assert GAME.describe_action("reveal:detroit_3", False) == "reveals Detroit 3 bags"
    assert GAME.describe_action("reveal:memphis_hospital", True) == "reveals Memphis Hospital"
    assert GAME.describe_action("place:kansas_city", False) == "places cubes on Kansas City"
