"""The Boss's sampler (docs/games/boss.md, "Sampling a state"): where a drawn state puts the hidden
cards, checked against the real game's own card ids.

What a seat knows of the hidden cards is the round's snapshot: its own hand, the cards revealed
this round, the cities (backs) of every hand, each city's cards in the game and the police cards
face up. So, against the real state: the known cards are where they really are; each other hand
holds cards of the same cities as the real one; each reward is a card of its city; the cards a
city hides are the same set as in the real game, only shuffled among its hidden places; the police
deck holds the same faces. And the shuffle is uniform: each hidden card of a city is its reward
about equally often.
"""

from __future__ import annotations

import collections
import random
from typing import cast

from hypothesis import given, settings
from hypothesis import strategies as st

from arena_games import get_game
from arena_games.boss import CARDS, CITY_OF, FACE, BossState
from arena_games.determinise import determinise, sampler
from arenabot.strategies import make_strategy

from .test_determinise import canonical, play_out, position

BOSS = get_game("boss")


def hidden_of_city(state: BossState, seat: int, city: int) -> set[int]:
    """The cards of ``city`` that ``seat`` cannot see: the reward and the other hands' cards."""
    cards = {state.rewards[state.reward_slot[city]]}
    for s, hand in enumerate(state.hands):
        if s != seat:
            cards |= {c for c in hand if CITY_OF[c] == city}
    return cards


def check_facts(real: BossState, seat: int, drawn: BossState) -> None:
    assert sorted(drawn.hands[seat]) == sorted(real.hands[seat]), "the seat's own cards changed"
    assert drawn.revealed == real.revealed, "the revealed cards moved"
    assert sorted(drawn.removed) == sorted(real.removed)
    assert drawn.cities == real.cities and drawn.row == real.row
    for s in range(real.num_players):
        assert sorted(CITY_OF[c] for c in drawn.hands[s]) == sorted(CITY_OF[c] for c in real.hands[s]), \
            f"seat {s}'s hand holds other cities than the real one"
    for city in real.cities:
        assert CITY_OF[drawn.rewards[drawn.reward_slot[city]]] == city, "a reward is not a card of its city"
        assert hidden_of_city(drawn, seat, city) == hidden_of_city(real, seat, city), \
            "a city hides other cards than in the real game"
    assert [FACE[c] for c in drawn.police] == [FACE[c] for c in real.police]
    assert sorted(FACE[c] for c in drawn.deck) == sorted(FACE[c] for c in real.deck)


@settings(max_examples=40)
@given(n=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), stop=st.floats(0, 1), any_seat=st.booleans())
def test_a_drawn_state_hides_the_real_cards_in_their_places(n: int, seed: int, stop: float, any_seat: bool):
    real, seat = position(BOSS, n, seed, stop, any_seat)
    assert isinstance(real, BossState)
    if real.is_terminal():
        return
    draw = sampler(real.view(seat), history=real.history(seat), settings=real.settings)
    rng = random.Random(seed)
    for _ in range(3):
        check_facts(real, seat, cast(BossState, draw(rng)))


def test_each_hidden_card_of_a_city_is_its_reward_about_equally_often():
    real = BOSS.new_game(4, 21)
    seat = real.current_player()
    draw = sampler(real.view(seat), history=real.history(seat), settings=real.settings)
    rng = random.Random(0)
    draws = 2000
    rewards: collections.Counter[int] = collections.Counter()
    first_police: collections.Counter[int] = collections.Counter()
    for _ in range(draws):
        state = draw(rng)
        rewards.update(state.rewards)
        first_police[FACE[state.deck[-1]]] += 1
    for city in real.cities:
        hidden = hidden_of_city(real, seat, city)
        for card in hidden:
            p = 1 / len(hidden)
            sigma = (draws * p * (1 - p)) ** 0.5
            assert abs(rewards[card] - draws * p) < 5 * sigma, (CARDS.name(card), rewards[card], draws * p)
    # the police deck is shuffled too: gold and silver (2 cards each) twice as often as the double
    assert abs(first_police[CARDS.index["gold"]] - draws * 0.4) < 5 * (draws * 0.24) ** 0.5
    assert abs(first_police[CARDS.index["double"]] - draws * 0.2) < 5 * (draws * 0.16) ** 0.5


def play_until(n: int, seed: int, stop) -> BossState:
    """A game of heuristic players up to the first decision where ``stop(state)`` holds."""
    players = [make_strategy("heuristic", "boss", seed + s) for s in range(n)]
    state = cast(BossState, BOSS.new_game(n, seed))
    while not state.is_terminal() and not stop(state):
        s = state.current_player()
        state.apply(players[s].decide(state.view(s), state.legal_actions()))
    return state


def check_draws(real: BossState, seat: int, history: bool = True) -> None:
    view = real.view(seat)
    draw = sampler(view, history=real.history(seat) if history else None, settings=real.settings)
    rng = random.Random(1)
    for _ in range(3):
        drawn = cast(BossState, draw(rng))
        assert canonical(drawn.view(seat)) == canonical(view)
        if history:
            assert canonical(drawn.history(seat)) == canonical(real.history(seat))
        assert drawn.legal_actions() == real.legal_actions() or seat != real.current_player()
        check_facts(real, seat, drawn)
        if not real.is_terminal():
            play_out(drawn, random.Random(2))


def test_mid_placement_the_cubes_added_so_far_stay():
    real = play_until(3, 5, lambda s: s.phase_name() == "cubes" and s.added_big > 0)
    assert real.placing >= 0
    check_draws(real, real.current_player())


def test_the_last_turns_with_the_police_card_flipped():
    real = play_until(4, 6, lambda s: s.last_turn and len(s.last_turns) == 1)
    check_draws(real, real.current_player())
    check_draws(real, (real.current_player() + 1) % 4)


def test_the_last_turns_of_the_last_round_with_no_police_card_left():
    for seed in range(200):
        real = play_until(2, seed, lambda s: s.last_turn and not s.deck)
        if not real.is_terminal():
            break
    else:
        raise AssertionError("no game reached its fifth police card")
    check_draws(real, real.current_player())


def test_the_end_of_the_game_everything_is_face_up():
    real = play_until(2, 8, lambda s: False)
    assert real.is_terminal()
    drawn = determinise(real.view(1), random.Random(0), history=real.history(1), settings=real.settings)
    assert drawn.is_terminal() and drawn.ranks() == real.ranks()
    assert canonical(drawn.view(1)) == canonical(real.view(1))
    assert drawn.rewards == real.rewards


def test_without_history_the_view_alone_is_enough():
    real = play_until(3, 9, lambda s: s.round == 2 and s.phase_name() == "place")
    check_draws(real, real.current_player(), history=False)


def test_settings_other_than_the_defaults():
    settings_ = {"cities": "new_york,detroit,cincinnati,memphis,philadelphia", "chicago_needs_other_boss": False,
                 "city_cards": "new_york:2/5/hospital"}
    players = [make_strategy("heuristic", "boss", s) for s in range(3)]
    real = BOSS.new_game(3, 4, settings_)
    for _ in range(30):
        s = real.current_player()
        real.apply(players[s].decide(real.view(s), real.legal_actions()))
    check_draws(real, real.current_player())


def test_draws_share_nothing_with_each_other_or_the_template():
    real = play_until(3, 10, lambda s: s.round == 2)
    seat = real.current_player()
    view = real.view(seat)
    draw = sampler(view, history=real.history(seat), settings=real.settings)
    rng = random.Random(3)
    first, second = draw(rng), draw(rng)
    before = canonical(second.card_places()), canonical(second.view(seat))
    play_out(first, random.Random(4))
    assert (canonical(second.card_places()), canonical(second.view(seat))) == before
    assert canonical(draw(rng).view(seat)) == canonical(view)


def test_a_clone_draws_the_same_future_as_its_original():
    """Clones share the random source until one of them draws from it: both then deal alike."""
    for state in (BOSS.new_game(2, 12), determinise(BOSS.new_game(2, 12).view(0), random.Random(5))):
        twin = state.clone()
        rng = random.Random(6)
        actions = []
        while not twin.is_terminal():
            actions.append(rng.choice(twin.legal_actions()))
            twin.apply(actions[-1])
        again = state.clone()
        for action in actions:
            state.apply(action)
            again.apply(action)
        assert state.scores() == twin.scores() == again.scores()
        assert canonical(state.card_places()) == canonical(twin.card_places()) == canonical(again.card_places())
