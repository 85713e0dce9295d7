"""View perturbation: a seat's view, and the message sent to it, depend on exactly what
that seat may know.

Take random mid-game states and each seat s. Swapping two cards between places s
cannot see (or reordering the pile) must leave the bytes of s's view unchanged;
swapping a card s can see with a hidden card of another face must change them.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arenabot import codec
from arenabot.proto import arena_pb2 as pb
from referee.games import GAMES, GameSpec, State
from referee.players import make_player

from .visibility import SLOTS, Slot

CASES = [(spec, n) for spec in GAMES.values() for n in range(spec.min_players, spec.max_players + 1)]


def random_midgame(spec: GameSpec, n: int, seed: int, steps: int) -> State:
    players = [make_player("heuristic" if s % 2 else "random", spec.name, seed + s) for s in range(n)]
    state = spec.new_game(n, seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        seat = state.current_player()
        state.apply(players[seat].decide(state.view(seat), state.legal_actions()))
    return state


def render(state: State, seat: int) -> str:
    return json.dumps(state.view(seat), sort_keys=True)


def wire(state: State, seat: int) -> bytes:
    """The bytes the referee would send to ``seat``: its DecisionRequest, serialised."""
    view, events = codec.encode_view(state.view(seat))
    legal = state.legal_actions() if state.current_player() == seat else []
    request = pb.DecisionRequest(view=view, events=events,
                                 legal_actions=[codec.encode_action(state.game.name, a) for a in legal])
    return request.SerializeToString(deterministic=True)


def swap(state: State, a: Slot, b: Slot) -> None:
    places = state.card_places()
    pa, pb = places[a[0]], places[b[0]]
    pa[a[1]], pb[b[1]] = pb[b[1]], pa[a[1]]
    state._legal = None


def face(spec: GameSpec, state: State, slot: Slot) -> int:
    return spec.cards.face_of[state.card_places()[slot[0]][slot[1]]]


def differing_pairs(spec, state, left: list[Slot], right: list[Slot], rng: random.Random, count: int):
    """Up to ``count`` random pairs of distinct slots holding cards of different faces."""
    pairs = []
    for _ in range(count * 20):
        if not left or not right or len(pairs) >= count:
            break
        a, b = rng.choice(left), rng.choice(right)
        if a != b and face(spec, state, a) != face(spec, state, b):
            pairs.append((a, b))
    return pairs


@pytest.mark.parametrize("spec, n", CASES, ids=[f"{s.name}-{n}p" for s, n in CASES])
@settings(max_examples=150)
@given(seed=st.integers(0, 2**31), steps=st.integers(0, 400), pick=st.randoms(use_true_random=False))
def test_view_depends_only_on_what_the_seat_may_see(spec: GameSpec, n: int, seed: int, steps: int,
                                                   pick: random.Random):
    state = random_midgame(spec, n, seed, steps)
    for seat in range(n):
        base, base_wire = render(state, seat), wire(state, seat)
        hidden, visible = SLOTS[spec.name](state, seat)
        for a, b in differing_pairs(spec, state, hidden, hidden, pick, 5):
            swap(state, a, b)
            assert render(state, seat) == base, f"seat {seat} saw a swap of hidden {a} and {b}"
            assert wire(state, seat) == base_wire, f"seat {seat}'s message changed with hidden {a}, {b}"
            swap(state, a, b)
        for a, b in differing_pairs(spec, state, visible, hidden, pick, 5):
            swap(state, a, b)
            assert render(state, seat) != base, f"seat {seat} missed a swap of visible {a} with {b}"
            assert wire(state, seat) != base_wire, f"seat {seat}'s message missed visible {a}, {b}"
            swap(state, a, b)
        assert render(state, seat) == base and wire(state, seat) == base_wire


@pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))
def test_pile_order_is_invisible(spec: GameSpec):
    for seed in range(30):
        state = random_midgame(spec, spec.max_players, seed, 40)
        before = [render(state, s) for s in range(state.num_players)]
        for name, cards in state.card_places().items():
            if name in ("pile", "deck"):
                random.Random(seed).shuffle(cards)
        assert [render(state, s) for s in range(state.num_players)] == before
