"""Determinisation (arena_games.determinise): over random positions of every game and player
count, a state drawn from a seat's view never contradicts what the seat has seen.

Each position is a game played by random and heuristic players to a random point; the seat is
the one deciding there (the seat a search bot draws for) or, in one position of four, any seat.
For several draws this file checks what holds for every game: the drawn state's view of the seat
is the seat's view, byte for byte (its own cards, every public card and count, the events since
its last decision); its history for the seat is the seat's (every public event, and the seat's
own secrets); every card is in exactly one place; and the state plays on to the end, its clones
independent of it. Each game's own file (``test_determinise_<game>.py``) checks the facts that
game's page lists under "Sampling a state": where the public events put hidden cards.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_games import GAMES, GameSpec, State
from arena_games.determinise import determinise, sampler
from arenabot.strategies import make_strategy

from .test_properties import check_conservation

CASES = [(spec, n) for spec in GAMES.values() for n in range(spec.min_players, spec.max_players + 1)]
DRAWS = 4  # states drawn per position
# positions per game and player count: 40 in each test run (2,560 draws in all), 1,000 in `make thorough`
POSITIONS = 1000 if os.environ.get("HYPOTHESIS_PROFILE") == "thorough" else 40


def canonical(data) -> str:
    return json.dumps(data, sort_keys=True)


def position(spec: GameSpec, n: int, seed: int, stop: float, any_seat: bool = False) -> tuple[State, int]:
    """A game of ``n`` played by a mix of random and heuristic players (from ``seed``), replayed to
    the fraction ``stop`` of its length, and the seat to draw for: the one deciding, or any."""
    rng = random.Random(seed)
    kinds = [rng.choice(["random", "heuristic"]) for _ in range(n)]
    players = [make_strategy(kind, spec.name, seed + s) for s, kind in enumerate(kinds)]
    state = spec.new_game(n, seed)
    actions = []
    while not state.is_terminal():
        seat = state.current_player()
        actions.append(players[seat].decide(state.view(seat), state.legal_actions()))
        state.apply(actions[-1])
    state = spec.new_game(n, seed)
    for action in actions[: min(len(actions) - 1, int(stop * len(actions)))]:
        state.apply(action)
    return state, rng.randrange(n) if any_seat else state.current_player()


def draws(state: State, seat: int, seed: int) -> Iterator[State]:
    view, history = state.view(seat), state.history(seat)
    draw = sampler(view, history=history, settings=state.settings)
    rng = random.Random(seed)
    for _ in range(DRAWS):
        yield draw(rng)


def check_draw(real: State, seat: int, drawn: State) -> None:
    assert drawn is not real
    assert drawn.num_players == real.num_players and drawn.settings == real.settings
    assert canonical(drawn.view(seat)) == canonical(real.view(seat)), "the drawn state's view differs"
    assert canonical(drawn.history(seat)) == canonical(real.history(seat)), "the drawn state's history differs"
    check_conservation(drawn.card_places(), len(real.game.cards))
    assert sorted(real.game.cards.face_of[c] for cards in drawn.card_places().values() for c in cards) == sorted(
        real.game.cards.face_of), "the drawn deck is not the game's"
    assert drawn.current_player() == real.current_player()
    assert drawn.legal_actions() == real.legal_actions() or seat != real.current_player(), \
        "the deciding seat's legal actions differ"


def play_out(state: State, rng: random.Random) -> None:
    """Plays ``state`` to its end at random; halfway, a clone must go its own way."""
    before = None
    steps = 0
    while not state.is_terminal():
        if steps == 3:
            twin = state.clone()
            before = canonical(twin.card_places()), canonical([twin.view(s) for s in range(twin.num_players)])
        state.apply(rng.choice(state.legal_actions()))
        steps += 1
        assert steps < 20_000, "the drawn state's game does not end"
    if before is not None:
        assert (canonical(twin.card_places()), canonical([twin.view(s) for s in range(twin.num_players)])) == before, \
            "playing on changed a clone"
        while not twin.is_terminal():
            twin.apply(rng.choice(twin.legal_actions()))
    assert sorted(state.ranks())[0] == 1


@pytest.mark.parametrize("spec, n", CASES, ids=[f"{s.name}-{n}p" for s, n in CASES])
@settings(max_examples=POSITIONS)
@given(seed=st.integers(0, 2**32 - 1), stop=st.floats(0, 1), any_seat=st.booleans())
def test_a_drawn_state_agrees_with_the_seat(spec: GameSpec, n: int, seed: int, stop: float, any_seat: bool):
    real, seat = position(spec, n, seed, stop, any_seat)
    if real.is_terminal():
        return
    before = canonical(real.card_places()), canonical(real.view(seat))
    for drawn in draws(real, seat, seed):
        check_draw(real, seat, drawn)
        play_out(drawn, random.Random(seed))
    assert (canonical(real.card_places()), canonical(real.view(seat))) == before, "drawing changed the real state"


@pytest.mark.parametrize("spec", GAMES.values(), ids=list(GAMES))
def test_draws_vary_and_repeat_with_the_rng(spec: GameSpec):
    """The same rng draws the same state; different ones draw different hidden cards (at the
    start of a game with 3 or more players, something is always hidden and varies)."""
    state = spec.new_game(max(3, spec.min_players), 7)
    seat = state.current_player()
    view, history = state.view(seat), state.history(seat)
    one = determinise(view, random.Random(1), history=history)
    again = determinise(view, random.Random(1), history=history)
    assert canonical(one.card_places()) == canonical(again.card_places())
    others = {canonical(determinise(view, random.Random(r), history=history).card_places()) for r in range(2, 12)}
    assert len(others) > 1


@pytest.mark.parametrize("spec", GAMES.values(), ids=list(GAMES))
def test_a_muted_drawn_state_plays_on_silently(spec: GameSpec):
    state = spec.new_game(spec.min_players, 3)
    seat = state.current_player()
    drawn = determinise(state.view(seat), random.Random(0))
    drawn.mute()
    twin = drawn.clone()
    rng = random.Random(0)
    while not twin.is_terminal():
        twin.apply(rng.choice(twin.legal_actions()))
    assert twin.history() == [] and drawn.history() == []
    assert twin.view(seat)["events"] == []


@pytest.mark.parametrize("spec", GAMES.values(), ids=list(GAMES))
def test_clone_is_independent_and_equal(spec: GameSpec):
    """An engine's own clone() copies everything a game changes: a clone and its original
    played with the same actions stay equal, and neither sees the other's moves."""
    rng = random.Random(5)
    state = spec.new_game(spec.max_players, 5)
    for _ in range(25):
        state.apply(rng.choice(state.legal_actions()))
    twin = state.clone()
    assert type(state).clone is not State.clone, f"{spec.title} has no clone() of its own"
    assert canonical(twin.card_places()) == canonical(state.card_places())
    assert all(canonical(twin.view(s)) == canonical(state.view(s)) for s in range(state.num_players))
    snapshot = canonical(state.card_places()), canonical([state.view(s) for s in range(state.num_players)])
    actions = []
    while not twin.is_terminal():
        actions.append(rng.choice(twin.legal_actions()))
        twin.apply(actions[-1])
    assert (canonical(state.card_places()), canonical([state.view(s) for s in range(state.num_players)])) == snapshot
    for action in actions:
        state.apply(action)
    assert state.scores() == twin.scores() and canonical(state.history()) == canonical(twin.history())
