"""View perturbation: a seat's view, and the message sent to it, depend on exactly what
that seat may know.

Two ways, both against the tests' own statement of the rules (visibility.py):

* States: take random mid-game states and each seat s. Swapping two pieces (cards, or
  Sobek's tokens) that s cannot see, or sees only by equal backs, must leave the bytes of
  s's view unchanged; swapping a piece s can see with a hidden one of another face must
  change them. This checks the view as it stands, not the events already logged.
* Twins (twins.py): the game played beside copies of itself, each perturbed before the
  engine logs anything about the change (another deal, another card drawn or stolen, another
  card stashed). While a twin differs only out of s's sight, everything s is sent, events
  included, must be byte-identical. A deliberately leaky engine, writing a secret into the
  public part of an event, is caught for every kind of secret event of every game.
"""

from __future__ import annotations

import collections
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_games import GAMES, GameSpec, State
from arena_games.views import Event, EventLog
from arenabot.strategies import make_strategy

from .twins import leaky, play_twins, render, swap, wire
from .visibility import SIGHTS, TOKEN, Slot, face_names, kind

CASES = [(spec, n) for spec in GAMES.values() for n in range(spec.min_players, spec.max_players + 1)]
IDS = [f"{s.name}-{n}p" for s, n in CASES]


def random_midgame(spec: GameSpec, n: int, seed: int, steps: int) -> State:
    players = [make_strategy("heuristic" if s % 2 else "random", spec.name, seed + s) for s in range(n)]
    state = spec.new_game(n, seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        seat = state.current_player()
        state.apply(players[seat].decide(state.view(seat), state.legal_actions()))
    return state


def differing_pairs(state: State, left: list[Slot], right: list[Slot], rng: random.Random, count: int):
    """Up to ``count`` random pairs of slots holding pieces of one kind and different faces."""
    faces = face_names(state)
    pairs: list[tuple[Slot, Slot]] = []
    for _ in range(count * 20):
        if not left or not right or len(pairs) >= count:
            break
        a, b = rng.choice(left), rng.choice(right)
        face_a, face_b = faces[a[0]][a[1]], faces[b[0]][b[1]]
        if face_a != face_b and kind(state, a[0], face_a) == kind(state, b[0], face_b):
            pairs.append((a, b))
    return pairs


def check_swaps(state: State, pick: random.Random, count: int = 5) -> list[tuple[Slot, Slot]]:
    """Swaps up to ``count`` pairs of pieces per seat and checks that seat's view and message (see the
    module's docstring); returns the pairs swapped."""
    sight_of, swapped = SIGHTS[state.game.name], []
    for seat in range(state.num_players):
        base, base_wire = render(state, seat), wire(state, seat)
        before = sight_of(state, seat)
        unseen = before.hidden + list(before.backs)
        for a, b in differing_pairs(state, unseen, unseen, pick, count):
            swap(state, a, b)
            after = sight_of(state, seat)
            if all((s in before.hidden and s in after.hidden) or before.backs.get(s, "") == after.backs.get(s)
                   for s in (a, b)):  # a different back would show: visible swaps are checked below
                assert render(state, seat) == base, f"seat {seat} saw a swap of unseen {a} and {b}"
                assert wire(state, seat) == base_wire, f"seat {seat}'s message changed with unseen {a}, {b}"
                swapped.append((a, b))
            swap(state, a, b)
        for a, b in differing_pairs(state, before.visible, before.hidden, pick, count):
            swap(state, a, b)
            assert render(state, seat) != base, f"seat {seat} missed a swap of visible {a} with {b}"
            assert wire(state, seat) != base_wire, f"seat {seat}'s message missed visible {a}, {b}"
            swapped.append((a, b))
            swap(state, a, b)
        assert render(state, seat) == base and wire(state, seat) == base_wire
    return swapped


@pytest.mark.parametrize("spec, n", CASES, ids=IDS)
@settings(max_examples=150)
@given(seed=st.integers(0, 2**31), steps=st.integers(0, 400), pick=st.randoms(use_true_random=False))
def test_view_depends_only_on_what_the_seat_may_see(spec: GameSpec, n: int, seed: int, steps: int,
                                                   pick: random.Random):
    check_swaps(random_midgame(spec, n, seed, steps), pick)


def test_sobek_tokens_are_swapped_like_the_cards():
    """The round's remaining tokens are seen by the player choosing one only, the chosen one by all,
    the unused ones by nobody: swaps at every token decision of random games."""
    spec, swapped = GAMES["sobek"], collections.Counter()
    for seed in range(30):
        n, pick = 2 + seed % 3, random.Random(seed)
        players = [make_strategy("heuristic", spec.name, seed + s) for s in range(n)]
        state = spec.new_game(n, seed)
        while not state.is_terminal():
            if state.phase_name() in ("event", "token"):
                for a, b in check_swaps(state, pick, count=3):
                    swapped[(a[0], b[0])] += a[0].startswith(TOKEN)
            seat = state.current_player()
            state.apply(players[seat].decide(state.view(seat), state.legal_actions()))
    places = {place for pair, count in swapped.items() if count for place in pair}
    assert {"token_tokens", "token_out", "token_held"} <= places, swapped
    assert sum(swapped.values()) > 200, f"only {sum(swapped.values())} token swaps"


@pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))
def test_pile_order_is_invisible(spec: GameSpec):
    for seed in range(30):
        state = random_midgame(spec, spec.max_players, seed, 40)
        before = [render(state, s) for s in range(state.num_players)]
        for name, cards in state.card_places().items():
            if name in ("pile", "deck"):
                random.Random(seed).shuffle(cards)
        assert [render(state, s) for s in range(state.num_players)] == before


# -- Twins: the perturbation comes before the events ------------------------------------------------
@pytest.mark.parametrize("spec, n", CASES, ids=IDS)
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31), call=st.integers(0, 8), pick=st.integers(0, 2**31))
def test_twins_that_differ_out_of_a_seats_sight_send_it_the_same_bytes(spec: GameSpec, n: int, seed: int,
                                                                      call: int, pick: int):
    run = play_twins(spec, n, seed, call, random.Random(pick))
    assert run.leak is None, f"{run.leak} ({run})"


class SecretTypes(EventLog):
    """An event log that notes the types of the events that carry a secret."""

    def __init__(self, num_players: int) -> None:
        super().__init__(num_players)
        self.types: set[str] = set()

    def add(self, public: Event, secret: Event | None = None, to: tuple[int, ...] = ()) -> None:
        if secret:
            self.types.add(public["type"])
        super().add(public, secret, to)


# Every type of event that carries a secret, by game: the leaky engine of each must be caught.
SECRET_EVENTS = {
    "prohis": ("pile", "convoy", "bribe"),
    "sobek": ("take", "draw", "steal", "seize", "bury", "token"),
    "boss": ("deal",),
    "bandits": ("draw", "refill", "stash", "take_hand", "take_hideout"),
}


@pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))
def test_the_leaky_engines_cover_every_secret_event(spec: GameSpec):
    types: set[str] = set()
    for seed in range(20):
        state = spec.new_game(spec.max_players - seed % 2, seed)
        state.log = log = SecretTypes(state.num_players)  # setup's events are logged again later
        players = [make_strategy("heuristic", spec.name, seed + s) for s in range(state.num_players)]
        while not state.is_terminal():
            seat = state.current_player()
            state.apply(players[seat].decide(state.view(seat), state.legal_actions()))
        types |= log.types
    assert types == set(SECRET_EVENTS[spec.name])


LEAKS = [(spec, kind) for spec in GAMES.values() for kind in SECRET_EVENTS[spec.name]]


@pytest.mark.parametrize("spec, kind", LEAKS, ids=[f"{s.name}-{k}" for s, k in LEAKS])
def test_a_secret_written_into_a_public_event_is_caught(spec: GameSpec, kind: str):
    """An engine that writes the secret of ``kind`` events into their public part is caught by twins
    (the state perturbation test above passes it: the event is logged before any swap)."""
    engine = leaky(spec, frozenset({kind}))
    runs = []
    for trial in range(200):  # the rarest, a lost raid's cards, shows in about 1 game of 13
        n = spec.min_players + trial % (spec.max_players - spec.min_players + 1)
        seed, call = 1000 + trial, trial % 5
        run = play_twins(engine, n, seed, call, random.Random(trial), fork_rate=1, max_twins=4)
        if run.leak:
            leaked, _ = run.leak.first_event()
            assert leaked and leaked["type"] == kind, str(run.leak)
            # The same twins of the genuine engine tell that seat nothing.
            assert play_twins(spec, n, seed, call, random.Random(trial), fork_rate=1, max_twins=4).leak is None
            return
        runs.append(run)
    pytest.fail(f"a leaky {kind!r} event went unnoticed in {len(runs)} games with twins: "
                f"{sum(r.steps for r in runs)} decisions, {sum(r.twins for r in runs)} twins, "
                f"{sum(r.compared for r in runs)} views compared")
