"""The Boss rules: every check of docs/games/boss.md, and each phase, effect and setting."""

from __future__ import annotations

import collections
import random

import pytest

from arena_games import BadSettings, IllegalAction, get_game
from arena_games.boss import CARDS, CITIES, CITY_OF, BossState, city_combinations, parse_city_cards
from arena_protocol import codec

from .rig import fill, snapshot
from .test_views import render, wire

BOSS = get_game("boss")


def new(n: int = 4, seed: int = 1, **settings) -> BossState:
    state = BOSS.new_game(n, seed, settings)
    assert isinstance(state, BossState)
    return state


def names(cards: list[int]) -> list[str]:
    return sorted(CARDS.name(c) for c in cards)


def rig(state: BossState, hands: dict[int, list[str]], rewards: dict[str, str] | None = None,
        revealed: dict[str, list[str]] | None = None) -> BossState:
    """Lays out the round's city cards: every seat's hand, the listed rewards and, last under
    their cities, the listed revealed cards. Every other card of the round lies under its city
    as if revealed earlier, so every card stays in exactly one place."""
    pool: list[int] = []
    places = [state.rewards, *state.hands, *(state.revealed[c] for c in state.cities)]
    for place in places:
        fill(state, CARDS, place, [], [pool])
    for seat, faces in hands.items():
        fill(state, CARDS, state.hands[seat], faces, [pool])
    for name, faces in (revealed or {}).items():
        fill(state, CARDS, state.revealed[CITIES.index(name)], faces, [pool])
    for city in state.cities:
        wanted = (rewards or {}).get(CITIES[city])
        card = next(c for c in pool if (CARDS.name(c) == wanted if wanted else CITY_OF[c] == city))
        pool.remove(card)
        state.rewards.append(card)
    for card in pool:  # the rest were revealed before the listed ones
        state.revealed[CITY_OF[card]].insert(0, card)
    pool.clear()
    state.invalidate_caches()
    return state


def put(state: BossState, boss: str, seat: int, big: int = 1, small: int = 0) -> None:
    """Moves cubes from ``seat``'s reserve onto a boss card (as earlier placements would have)."""
    b = (*CITIES, "chicago").index(boss)
    state.big[seat] -= big
    state.small[seat] -= small
    state.big_on[b][seat] += big
    state.small_on[b][seat] += small
    assert state.big[seat] >= 0 and state.small[seat] >= 0
    state.invalidate_caches()


def play(state: BossState, *actions: str) -> None:
    for action in actions:
        state.apply(action)


def passively(state: BossState, until=lambda s: s.is_terminal()) -> None:
    """Plays the most passive legal action (a failed seat's fallback) until ``until`` holds."""
    while not until(state):
        state.apply(BOSS.fallback(state.legal_actions()))


def police_order(state: BossState, faces: list[str]) -> None:
    """Rigs the police deck so that ``faces`` are flipped first, in that order."""
    fill(state, CARDS, state.deck, list(reversed(faces)), [state.deck])


def two_cards_each(state: BossState, rewards: dict[str, str] | None = None,
                   revealed: dict[str, list[str]] | None = None) -> BossState:
    """Every seat holds 2 cards at the dealer's turn, so the last turns start after one turn each.

    The hands avoid the listed cards and the cities with listed revealed cards (so the turns do
    not change which card was revealed last there), and leave a card for each city's reward.
    """
    rewards, revealed = rewards or {}, revealed or {}
    avoid = set(rewards.values()) | {face for faces in revealed.values() for face in faces}
    in_play = sorted(c for c in rig_pool(state) if CARDS.name(c) not in avoid)
    left = collections.Counter(CITY_OF[c] for c in in_play)
    chosen: list[str] = []
    for c in in_play:
        city = CITIES[CITY_OF[c]]
        if city in revealed or (city not in rewards and left[CITY_OF[c]] == 1):
            continue
        chosen.append(CARDS.name(c))
        left[CITY_OF[c]] -= 1
    n = state.num_players
    return rig(state, {s: chosen[2 * s: 2 * s + 2] for s in range(n)}, rewards, revealed)


def rig_pool(state: BossState) -> list[int]:
    """The round's city cards, wherever they are."""
    return state.rewards + [c for hand in state.hands for c in hand] + [
        c for city in state.cities for c in state.revealed[city]]


# -- Players and components ----------------------------------------------------------------
def test_card_table_and_police_cards():
    state = new()
    in_play = [c for name, cards in state.card_places().items() if name not in ("removed", "deck", "police")
               for c in cards]
    assert len(in_play) == 27
    by_city = collections.defaultdict(list)
    for c in in_play:
        by_city[CITIES[CITY_OF[c]]].append(CARDS.name(c).removeprefix(CITIES[CITY_OF[c]] + "_"))
    assert {city: sorted(kinds) for city, kinds in by_city.items()} == {
        "new_york": ["2", "3", "hospital"], "boston": ["1", "4", "prison"],
        "detroit": ["1", "2", "3", "4", "revolver"], "kansas_city": ["1", "2", "3", "revolver"],
        "cincinnati": ["2", "3", "banished"], "memphis": ["1", "2", "3", "hospital"],
        "philadelphia": ["1", "2", "4", "prison", "revolver"]}
    assert names(state.deck) == ["double", "gold", "gold", "silver", "silver"]
    assert state.big == [6] * 4 and state.small == [3] * 4


@pytest.mark.parametrize("n, count, cities, cards", [(2, 5, 3, 13), (3, 6, 5, 20), (4, 1, 7, 27)])
def test_city_combinations_per_player_count(n, count, cities, cards):
    combos = city_combinations(parse_city_cards(""), n)
    assert len(combos) == count
    for combo in combos:
        assert len(combo) == cities
        assert sum(len(parse_city_cards("")[c]) for c in combo) == cards


def test_the_seed_picks_among_the_combinations():
    seen = {new(2, seed).cities for seed in range(60)}
    assert seen == set(city_combinations(parse_city_cards(""), 2))
    for seed in range(5):
        state = new(3, seed)
        assert sum(len(h) for h in state.hands) == 15 and len(state.rewards) == 5


def test_cities_setting_names_the_combination():
    state = new(2, cities="philadelphia, detroit,boston")
    assert [CITIES[c] for c in state.cities] == ["boston", "detroit", "philadelphia"]
    assert all(new(2, seed, cities="detroit,kansas_city,memphis").cities == (2, 3, 5) for seed in range(5))


# -- Setup -----------------------------------------------------------------------------------
def test_boss_cards_in_a_row_with_chicago_second():
    state = new(4)
    assert [b["boss"] for b in state.view(0)["bosses"]] == [
        "new_york", "chicago", "boston", "detroit", "kansas_city", "cincinnati", "memphis", "philadelphia"]
    state = new(2, cities="memphis,kansas_city,philadelphia")
    row = [b["boss"] for b in state.view(1)["bosses"]]
    assert row == ["kansas_city", "chicago", "memphis", "philadelphia"]


def test_first_dealer_is_seat_0_and_a_setting():
    state = new()
    assert state.dealer == 0 and state.current_player() == 0
    state = new(first_dealer=2)
    assert state.dealer == 2 and state.current_player() == 2
    passively(state, lambda s: s.round == 2)
    assert state.dealer == 3 and state.current_player() == 3  # the button passes clockwise


# -- A round 1-2: rewards and the deal ---------------------------------------------------------
def test_one_reward_per_city_and_five_cards_each():
    for seed in range(10):
        state = new(4, seed)
        assert [CITY_OF[c] for c in state.rewards] == list(state.cities)
        assert [len(h) for h in state.hands] == [5] * 4
        assert all(state.view(s)["bosses"][i]["reward"] in ("unknown", "none") for s in range(4)
                   for i in range(8))


def test_hand_cities_are_public_and_values_private():
    state = rig(new(), {0: ["detroit_3", "memphis_1", "new_york_2", "boston_4", "detroit_1"],
                        1: ["kansas_city_1", "kansas_city_2", "cincinnati_2", "cincinnati_3", "memphis_2"]})
    v1 = state.view(1)
    assert v1["players"][0]["hand"] == ["new_york", "boston", "detroit", "detroit", "memphis"]
    assert v1["hand"] == ["kansas_city_1", "kansas_city_2", "cincinnati_2", "cincinnati_3", "memphis_2"]
    assert state.view(0)["hand"] == ["new_york_2", "boston_4", "detroit_1", "detroit_3", "memphis_1"]


def test_deal_events_show_values_to_the_owner_only():
    state = new()
    deals = {s: [e for e in state.view(s)["events"] if e["type"] == "deal"] for s in range(4)}
    assert deals[0][0]["cards"] == state.view(0)["hand"]
    assert deals[1][0]["cards"] == state.view(0)["players"][0]["hand"]  # backs only


# -- A round 3: turns --------------------------------------------------------------------------
def test_reveal_first_then_optional_placement():
    state = new()
    card = state.legal_actions()[0].removeprefix("reveal:")
    play(state, f"reveal:{card}")
    assert state.phase_name() == "place" and state.current_player() == 0
    assert state.legal_actions()[-1] == "pass"
    assert not [a for a in state.legal_actions() if a.startswith("reveal:")]
    play(state, "pass")
    assert state.current_player() == 1 and state.phase_name() == "turn"
    under = [b["revealed"] for b in state.view(1)["bosses"] if card.startswith(b["boss"] + "_")]
    assert under == [[card]]  # face up under its own boss card, for everyone


def test_place_first_then_mandatory_reveal():
    state = new()
    play(state, "place:detroit", "big", "done")
    assert state.phase_name() == "reveal"
    assert all(a.startswith("reveal:") for a in state.legal_actions())  # no second placement
    play(state, state.legal_actions()[0])
    assert state.current_player() == 1
    assert state.big_on[2] == [1, 0, 0, 0] and state.big[0] == 5


def test_placement_goes_to_one_boss_and_cubes_stay():
    state = new()
    play(state, "place:boston", "big", "small", "big", "done")
    assert state.big_on[1][0] == 2 and state.small_on[1][0] == 1
    events = [e for e in state.history() if e["type"] == "place"]
    assert events == [{"type": "place", "seat": 0, "boss": "boston", "big": 2, "small": 1}]
    play(state, state.legal_actions()[0])  # reveal: the turn ends
    assert state.big_on[1][0] == 2  # cubes cannot move until the round ends


def test_a_placement_in_progress_is_counted_in_the_boss_and_the_reserve():
    """docs/games/boss.md: `bosses[i].big` holds the cubes of the placement in progress
    (`added_big` is the part of them added since `place`), and the reserve is already down."""
    state = new()
    before = state.view(0)
    play(state, "place:boston", "big", "big")
    view = state.view(0)
    boston = view["placing"]
    assert view["bosses"][boston]["boss"] == "boston"
    assert view["added_big"] == 2 and view["bosses"][boston]["big"][0] == 2
    assert view["players"][0]["big"] == before["players"][0]["big"] - 2


def test_rulebook_example_taking_new_york_back_takes_two_cubes():
    state = new()
    put(state, "new_york", 0, 1)  # A
    put(state, "new_york", 1, 2)  # B
    play(state, "place:new_york", "big")
    assert "done" not in state.legal_actions()  # 2 against 2 is no majority
    play(state, "big")
    assert "done" in state.legal_actions()
    play(state, "done")
    assert state.big_on[0][:2] == [3, 2]


def test_placement_offered_only_where_a_majority_can_be_reached():
    state = new()
    put(state, "detroit", 1, 6, 3)  # 9 cubes: seat 0's 9 cannot beat them
    assert "place:detroit" not in state.legal_actions()
    state.big_on[2][1] -= 1
    state.big[1] += 1
    state.invalidate_caches()
    assert "place:detroit" in state.legal_actions()  # 9 against 8
    play(state, "place:detroit", "big", "big", "big", "big", "big", "small", "small")
    assert state.legal_actions() == ["big", "small"]  # 7 against 8, no done yet
    play(state, "small")  # 8 against 8: only the last big cube, then only done: both played at once
    assert state.phase_name() == "reveal"
    assert (state.big_on[2][0], state.small_on[2][0]) == (6, 3)


def test_small_cubes_alone_are_refused():
    state = new()
    play(state, "place:memphis", "small", "small")
    assert "done" not in state.legal_actions()  # a majority of small cubes only
    play(state, "big")
    assert "done" in state.legal_actions()
    state = new()
    state.dead[0], state.big[0] = 6, 0  # no big cube at all: no placement, small cubes or not
    state.invalidate_caches()
    assert not [a for a in state.legal_actions() if a.startswith("place:")]


def test_chicago_is_refused_to_a_player_with_no_cubes_elsewhere_this_round():
    state = new()
    assert "place:chicago" not in state.legal_actions()
    put(state, "detroit", 0)
    assert "place:chicago" in state.legal_actions()
    state = new(chicago_needs_other_boss=False)
    assert "place:chicago" in state.legal_actions()


def test_a_banished_player_never_places_in_cincinnati():
    state = new()
    assert "place:cincinnati" in state.legal_actions()
    state.banished[0] = True
    state.invalidate_caches()
    assert "place:cincinnati" not in state.legal_actions()


def test_a_lone_action_is_played_without_asking():
    state = new()
    state.dead[0], state.big[0] = 6, 0  # nothing to place: after the reveal, the turn just ends
    state.invalidate_caches()
    play(state, state.legal_actions()[0])
    assert state.current_player() == 1 and state.phase_name() == "turn"


def test_turns_go_clockwise_from_the_dealer():
    state = new(3, first_dealer=1)
    order = []
    for _ in range(6):
        order.append(state.current_player())
        play(state, state.legal_actions()[0], "pass")
    assert order == [1, 2, 0, 1, 2, 0]


# -- A round 4: the last turn --------------------------------------------------------------
def test_last_turns_flip_a_police_card_and_go_by_reserve():
    state = two_cards_each(new())
    police_order(state, ["silver"])
    state.small[0], state.small[2] = 2, 1  # reserves: 8, 9, 7, 9
    for _ in range(4):
        assert not state.last_turn
        play(state, state.legal_actions()[0], "pass")
    assert names(state.police) == ["silver"]
    assert state.last_turn
    assert state.current_player() == 1 and state.last_turns == [3, 0, 2]  # 9, 9 (clockwise), 8, 7
    assert [e for e in state.history() if e["type"] == "last_turns"] == [
        {"type": "last_turns", "seats": [1, 3, 0, 2]}]
    assert state.view(0)["events"][-1] == {"type": "turn", "seat": 1, "last": True}


def test_equal_reserves_go_clockwise_from_the_dealer():
    state = two_cards_each(new(first_dealer=2))
    passively(state, lambda s: s.last_turn)
    assert [state.current_player(), *state.last_turns] == [2, 3, 0, 1]


# -- A round 5: resolution -----------------------------------------------------------------
def resolve(state: BossState) -> None:
    """Plays the round out passively: nobody places cubes after the rig."""
    round_ = state.round
    passively(state, lambda s: s.round != round_ or s.is_terminal())


def test_points_go_to_the_controller_and_rewards_turn_up():
    state = two_cards_each(new(), rewards={"detroit": "detroit_4", "new_york": "new_york_3"})
    put(state, "detroit", 2, 1)
    put(state, "detroit", 1, 2)
    resolve(state)
    assert state.points == [0, 4, 0, 0]
    resolved = {e["boss"]: e for e in state.history() if e["type"] == "resolve"}
    assert resolved["detroit"] == {"type": "resolve", "boss": "detroit", "card": "detroit_4", "seat": 1,
                                   "points": 4, "effect": "points"}
    assert resolved["new_york"] == {"type": "resolve", "boss": "new_york", "card": "new_york_3"}


def test_rewards_are_seen_by_all_at_resolution():
    state = new(2, seed=3)
    passively(state)
    for seat in range(2):
        view = state.view(seat)
        shown = [b["reward"] for b in view["bosses"]]
        assert "unknown" not in shown and shown.count("none") == 1


def test_revolver_kills_a_big_cube_for_good():
    state = two_cards_each(new(), rewards={"kansas_city": "kansas_city_revolver"})
    police_order(state, ["gold", "silver", "gold", "silver", "double"])
    put(state, "kansas_city", 3, 2, 1)
    resolve(state)
    assert state.dead[3] == 1 and state.big[3] == 5 and state.small[3] == 2
    resolve(state)
    assert state.big[3] == 5


def test_prison_sits_out_the_next_two_rounds():
    state = two_cards_each(new(), rewards={"boston": "boston_prison"})
    police_order(state, ["gold", "silver", "gold", "silver", "double"])
    put(state, "boston", 0, 2)
    resolve(state)
    assert state.round == 2 and state.big[0] == 5 and state.prison[0] == [2]
    assert state.view(1)["players"][0]["prison"] == [2]
    resolve(state)
    assert state.round == 3 and state.big[0] == 5 and state.prison[0] == [1]
    resolve(state)
    assert state.round == 4 and state.big[0] == 6 and state.prison[0] == []


def test_hospital_sits_out_the_next_round():
    state = two_cards_each(new(), rewards={"memphis": "memphis_hospital"})
    police_order(state, ["gold", "silver", "gold", "silver", "double"])
    put(state, "memphis", 1, 1)
    resolve(state)
    assert state.big[1] == 5 and state.hospital[1] == 1
    resolve(state)
    assert state.big[1] == 6 and state.hospital[1] == 0


def test_banished_never_again_in_cincinnati():
    state = two_cards_each(new(), rewards={"cincinnati": "cincinnati_banished"})
    put(state, "cincinnati", 0, 1)
    resolve(state)
    assert state.banished == [True, False, False, False] and state.big[0] == 6
    assert state.current_player() == 1
    assert "place:cincinnati" in state.legal_actions()
    passively(state, lambda s: s.current_player() == 0)
    assert "place:detroit" in state.legal_actions() and "place:cincinnati" not in state.legal_actions()


def test_penalties_fall_on_the_pool_of_big_cubes():
    rewards = {"detroit": "detroit_revolver", "kansas_city": "kansas_city_revolver",
               "philadelphia": "philadelphia_prison"}
    state = two_cards_each(new(), rewards=rewards)
    put(state, "detroit", 0, 1)
    put(state, "kansas_city", 0, 1)
    put(state, "philadelphia", 0, 1)
    state.big[0], state.dead[0] = 0, 3  # three big cubes left, all on the board
    resolve(state)
    assert state.dead[0] == 5 and state.prison[0] == [2] and state.big[0] == 0


def test_a_penalty_with_no_big_cube_left_has_no_effect():
    # Placements always bring a big cube, so this needs a rig: small cubes alone on Detroit.
    state = two_cards_each(new(), rewards={"detroit": "detroit_revolver"})
    put(state, "detroit", 0, 0, 1)
    state.big[0], state.dead[0] = 0, 6
    resolve(state)
    assert state.dead[0] == 6
    assert [e.get("effect") for e in state.history() if e.get("boss") == "detroit"] == ["no_cube"]


def test_chicago_scores_half_the_last_cards_to_its_left():
    # Chicago third: New York and Boston to its left, last revealed 3 and 4: (3 + 4) // 2 = 3.
    state = new()
    state.row[1], state.row[2] = state.row[2], state.row[1]
    two_cards_each(state, revealed={"new_york": ["new_york_2", "new_york_3"], "boston": ["boston_4"]})
    assert state.view(0)["chicago"] == 2
    put(state, "chicago", 2, 1)
    resolve(state)
    assert state.points == [0, 0, 3, 0]
    assert [e for e in state.history() if e.get("boss") == "chicago"] == [
        {"type": "resolve", "boss": "chicago", "seat": 2, "points": 3, "effect": "points"}]


def test_chicago_counts_penalties_and_empty_cities_as_zero():
    state = new()
    state.row[1:4] = [state.row[2], state.row[3], state.row[1]]  # New York, Boston, Detroit, Chicago
    two_cards_each(state, revealed={"new_york": ["new_york_3", "new_york_hospital"], "boston": ["boston_4"]})
    assert state.revealed[2] == []  # Detroit's cards: the reward and four in hands
    assert state.chicago_sum(3) == (0 + 4 + 0) // 2


def test_chicago_moves_right_and_stays_rightmost():
    state = new(2, cities="detroit,philadelphia,boston", overtime=False)
    police_order(state, ["gold", "silver", "gold", "silver", "double"])
    positions = []
    while not state.is_terminal():
        positions.append(state.view(0)["chicago"])
        resolve(state)
    assert positions == [1, 2, 3, 3, 3]


def test_small_cubes_are_gone_big_cubes_come_back():
    state = two_cards_each(new(), rewards={"detroit": "detroit_1"})
    play(state, "place:detroit", "big", "big", "small", "done")
    resolve(state)
    assert (state.big[0], state.small[0], state.points[0]) == (6, 2, 1)
    assert all(sum(cubes) == 0 for cubes in state.big_on + state.small_on)


# -- A round 7 and the end ---------------------------------------------------------------------
def test_police_double_then_two_golds_ends_after_round_3_and_last_turns_follow_reserves():
    state = new(overtime=False)
    police_order(state, ["double", "gold", "gold", "silver", "silver"])
    state.small[:] = [3, 1, 2, 0]  # reserves 9, 7, 8, 6
    orders = []
    while not state.is_terminal():
        passively(state, lambda s: s.last_turn or s.is_terminal())
        orders.append([state.current_player(), *state.last_turns])
        resolve(state)
    assert state.round == 3
    assert names(state.police) == ["double", "gold", "gold"]
    assert orders == [[0, 2, 1, 3]] * 3
    assert state.history()[-1] == {"type": "game_over", "scores": [0, 0, 0, 0]}
    assert state.legal_actions() == [] and state.current_player() == -1


def test_games_last_three_to_five_rounds():
    rounds = collections.Counter()
    for seed in range(200):
        state = new(seed % 3 + 2, seed, overtime=False)
        passively(state)
        rounds[state.round] += 1
    assert set(rounds) == {3, 4, 5}


def test_scores_and_ranks_with_the_tie_breaks():
    state = new()
    passively(state)
    state.points[:] = [10, 12, 12, 12]
    state.last_round_points[:] = [5, 3, 4, 4]
    state.big[:] = [6, 6, 6, 5]
    state.small[:] = [0, 0, 1, 1]
    assert state.scores() == [10, 12, 12, 12]
    assert state.ranks() == [4, 3, 1, 2]  # points, then the last round, then the reserve
    state.small[3] = 2
    assert state.ranks() == [4, 3, 1, 1]


def test_overtime_round_when_the_lead_is_still_tied():
    state = new()
    police_order(state, ["double", "gold", "gold", "silver", "silver"])
    passively(state, lambda s: s.round == 4 or s.is_terminal())  # nobody scores: all tied
    assert not state.is_terminal() and state.overtime and state.round == 4
    assert [e for e in state.history() if e["type"] == "overtime"] == [{"type": "overtime",
                                                                        "seats": [0, 1, 2, 3]}]
    passively(state)
    assert state.round == 4 and names(state.police) == ["double", "gold", "gold", "silver"]
    assert state.ranks() == [1, 1, 1, 1]  # still tied: the place is shared


def test_overtime_decides_the_winner():
    state = new(2, cities="detroit,philadelphia,boston")
    police_order(state, ["double", "gold", "gold", "silver", "silver"])
    passively(state, lambda s: s.overtime)
    two_cards_each(state, rewards={"detroit": "detroit_4"})
    put(state, "detroit", 1, 1)
    passively(state)
    assert state.round == 4 and state.scores() == [0, 4] and state.ranks() == [2, 1]


def test_no_overtime_when_the_setting_is_off():
    state = new(overtime=False)
    police_order(state, ["double", "gold", "gold", "silver", "silver"])
    passively(state)
    assert state.round == 3 and not state.overtime and state.ranks() == [1, 1, 1, 1]


def test_no_overtime_without_a_tie_at_the_top():
    state = new()
    police_order(state, ["double", "gold", "gold", "silver", "silver"])
    passively(state, lambda s: s.round == 3)
    two_cards_each(state, rewards={"detroit": "detroit_1"})
    put(state, "detroit", 3, 1)
    passively(state)
    assert state.round == 3 and state.ranks() == [2, 2, 2, 1]


# -- Settings ----------------------------------------------------------------------------------
def test_city_cards_setting_changes_the_values():
    state = new(city_cards="new_york:1/5/hospital")
    assert state.view(0)["bosses"][0]["cards"] == ["new_york_1", "new_york_5", "new_york_hospital"]
    two_cards_each(state, rewards={"new_york": "new_york_5"})
    put(state, "new_york", 0, 1)
    resolve(state)
    assert state.points[0] == 5
    assert new().view(0)["bosses"][0]["cards"] == ["new_york_2", "new_york_3", "new_york_hospital"]


def test_city_cards_setting_changes_the_combinations():
    table = parse_city_cards("boston:1/2/4/prison")  # 4 Boston cards: 27 + 1 in all
    assert len(city_combinations(table, 2)) == 8 and city_combinations(table, 4) == []
    with pytest.raises(BadSettings, match="no 7 cities have 27 cards"):
        new(4, city_cards="boston:1/2/4/prison")
    assert new(2, city_cards="boston:1/2/4/prison", cities="boston,detroit,kansas_city").cities == (1, 2, 3)
    with pytest.raises(BadSettings, match="not a combination"):
        new(2, cities="boston,detroit,kansas_city")  # 13 cards only with the changed table


@pytest.mark.parametrize("settings, message", [
    ({"city_cards": "gotham:1/2"}, "CITY one of new_york"),
    ({"city_cards": "detroit:1/2/3/4"}, "detroit must keep its revolver card"),
    ({"city_cards": "kansas_city:1/2/prison/revolver"}, "Kansas City's only penalty"),
    ({"city_cards": "boston:1/banished/prison"}, "Banished card is Cincinnati's only"),
    ({"city_cards": "boston:1/1/prison"}, "lists a card twice"),
    ({"city_cards": "boston:1/7/prison"}, "needs cards among 1, 2, 3, 4, 5"),
    ({"cities": "detroit,gotham,boston"}, "unknown 'gotham'"),
    ({"cities": "detroit,boston"}, "not a combination"),
    ({"cities": "detroit,detroit,philadelphia"}, "not a combination"),
    ({"first_dealer": -1}, "first_dealer: must be a seat"),
    ({"first_dealer": "north"}, "expected an integer"),
    ({"overtime": "perhaps"}, "expected true or false"),
    ({"chicago_first": True}, "unknown setting"),
])
def test_bad_settings_are_named(settings, message):
    with pytest.raises(BadSettings, match=message):
        new(**settings)


@pytest.mark.parametrize("n, settings, message", [
    (2, {"first_dealer": 2}, "seat 2 does not exist with 2 players"),
    (3, {"cities": "detroit,philadelphia,boston"}, "does not fit 3 players"),
])
def test_settings_that_do_not_fit_the_player_count(n, settings, message):
    with pytest.raises(BadSettings, match=message):
        new(n, **settings)


def test_settings_from_cli_strings():
    state = new(2, first_dealer="1", overtime="false", chicago_needs_other_boss="no")
    assert state.dealer == 1 and state.settings.overtime is False
    assert "place:chicago" in state.legal_actions()


# -- Bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize("action", ["big", "done", "pass", "place:chicago", "reveal:detroit_9", "reveal:gold",
                                    "place:gotham", "", "PLACE:detroit", "reveal:"])
def test_illegal_action_is_refused_and_changes_nothing(action):
    state = new()
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="not legal for seat 0 in phase 'turn'; legal: reveal:"):
        state.apply(action)
    assert snapshot(state) == before


def test_revealing_a_card_not_in_hand_is_refused():
    state = rig(new(), {0: ["detroit_1", "detroit_2", "detroit_3", "detroit_4", "memphis_1"]})
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="'reveal:memphis_2' is not legal"):
        state.apply("reveal:memphis_2")
    assert snapshot(state) == before


def test_refused_mid_placement_changes_nothing():
    state = new()
    play(state, "place:detroit")
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="in phase 'cubes'; legal: big, small$"):
        state.apply("done")
    assert snapshot(state) == before


def test_no_action_after_the_end():
    state = new()
    passively(state)
    with pytest.raises(IllegalAction, match="the game is over"):
        state.apply("pass")


# -- Cubes are conserved ---------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_cubes_are_conserved_in_random_games(n):
    for seed in range(40):
        state, rng = new(n, seed), random.Random(seed)
        small_left = [3] * n
        while not state.is_terminal():
            for s in range(n):
                on_big = sum(b[s] for b in state.big_on)
                on_small = sum(b[s] for b in state.small_on)
                assert state.big[s] + on_big + state.dead[s] + len(state.prison[s]) + state.hospital[s] == 6
                assert state.small[s] + on_small <= small_left[s]  # small cubes only ever go
                small_left[s] = state.small[s] + on_small
            state.apply(rng.choice(state.legal_actions()))


# -- Who knows what: the cities of hands are public ---------------------------------------------
def test_swapping_cards_of_one_city_between_hidden_places_is_invisible():
    """Another player's hand card shows its city only: swapping it with a reward or another hand's
    card of the same city leaves the view, and the message, unchanged; of another city, changes them."""
    checked = 0
    for seed in range(40):
        state = new(4 if seed % 2 else 3, seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(60)):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        places = state.card_places()
        for seat in range(state.num_players):
            base, base_wire = render(state, seat), wire(state, seat)
            slots = [(name, i) for name, cards in places.items() for i in range(len(cards))
                     if (name.startswith("hand") and name != f"hand{seat}") or name == "rewards"]
            for a, b in (rng.sample(slots, 2) for _ in range(12)):
                ca, cb = places[a[0]][a[1]], places[b[0]][b[1]]
                places[a[0]][a[1]], places[b[0]][b[1]] = cb, ca
                state.invalidate_caches()
                hand_cities_change = CITY_OF[ca] != CITY_OF[cb] and a[0] != b[0] and (
                    a[0].startswith("hand") or b[0].startswith("hand"))
                if hand_cities_change:
                    assert render(state, seat) != base, (seat, a, b)
                else:
                    assert render(state, seat) == base and wire(state, seat) == base_wire, (seat, a, b)
                places[a[0]][a[1]], places[b[0]][b[1]] = ca, cb
                state.invalidate_caches()
                checked += 1
            assert render(state, seat) == base
    assert checked > 500


def test_views_survive_the_wire():
    state = new()
    passively(state, lambda s: s.round == 2)
    view = state.view(1)
    msg, events = codec.encode_view(view)
    assert codec.decode_view(msg, events) == view
    assert any(e["type"] == "resolve" for e in view["events"])


def test_invalidating_the_caches_drops_the_cached_view_parts_too():
    """A test that rigs a position must not be shown the view parts cached before it."""
    state = new()
    before = state.view(0)
    put(state, "detroit", 1, big=2, small=1)  # then invalidate_caches()
    detroit = next(b for b in state.view(0)["bosses"] if b["boss"] == "detroit")
    assert (detroit["big"][1], detroit["small"][1]) == (2, 1), detroit
    assert state.view(0)["players"][1]["big"] == before["players"][1]["big"] - 2


def test_cached_view_parts_are_those_of_a_fresh_view():
    """The engine caches each seat's and each boss card's part of a view between changes."""
    for seed in range(30):
        n = seed % 3 + 2
        state, rng = new(n, seed), random.Random(seed)
        while True:
            cached = [render(state, s) for s in range(n)]
            state._forget_views()
            assert [render(state, s) for s in range(n)] == cached
            if state.is_terminal():
                break
            seat = state.current_player()
            state.view(seat)
            state.apply(rng.choice(state.legal_actions()))


# -- Logs, the fallback, the heuristic --------------------------------------------------------
def test_every_event_reads_as_a_line_of_the_log():
    kinds = set()
    for seed in range(20):
        state, rng = new(seed % 3 + 2, seed), random.Random(seed)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
        for event in state.history():
            line = BOSS.describe_event(event, lambda s: f"seat{s}")
            assert isinstance(line, str) and line.strip(), event
            kinds.add(event["type"])
    assert kinds >= {"round", "deal", "turn", "place", "reveal", "police", "last_turns", "resolve",
                     "round_end", "game_over"}


def test_the_fallback_places_no_cubes():
    state = new()
    assert BOSS.fallback(state.legal_actions()).startswith("reveal:")
    play(state, BOSS.fallback(state.legal_actions()))
    assert BOSS.fallback(state.legal_actions()) == "pass"
    play(state, "pass", "place:detroit")
    assert BOSS.fallback(state.legal_actions()) == "big"
    play(state, "big")
    assert BOSS.fallback(state.legal_actions()) == "done"


def test_the_heuristic_beats_random_players():
    from arenabot.strategies import make_strategy
    from referee.selfplay import play as play_game

    ranks = []
    for seed in range(24):
        n = seed % 3 + 2
        players = [make_strategy("heuristic" if s == seed % n else "random", "boss", seed * 10 + s)
                   for s in range(n)]
        ranks.append(play_game(BOSS, players, seed).ranks()[seed % n])
    assert sum(ranks) / len(ranks) < 1.4  # random players average 2
