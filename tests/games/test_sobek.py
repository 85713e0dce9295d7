"""Sobek rules: every check of docs/games/sobek.md and its examples, each decision, each setting."""

from __future__ import annotations

import collections
import json
import random

import pytest

from arena_games import BadSettings, IllegalAction, get_game
from arena_games.sobek import (
    CARDS,
    DEFAULT_VALUED,
    FAMILIES,
    SYMBOLS,
    TOKENS,
    TURN,
    PlayedSet,
    SobekState,
    describe_event,
)
from arenabot.strategies import make_strategy

from .rig import fill, snapshot, take_face

SOBEK = get_game("sobek")
PATTERN = {  # the table of docs/games/sobek.md: the symbols of spaces 5k+1..5k+4, by k mod 4
    0: ("ankh", "eye", "scarab", "lotus"),
    1: ("eye", "scarab", "lotus", "ankh"),
    2: ("eye", "ankh", "lotus", "scarab"),
    3: ("scarab", "lotus", "eye", "ankh"),
}


def new(n: int = 3, seed: int = 1, **settings) -> SobekState:
    state = SOBEK.new_game(n, seed, settings)
    assert isinstance(state, SobekState)
    return state


def faces(cards: list[int]) -> list[str]:
    return sorted(CARDS.name(c) for c in cards)


def spare(state: SobekState) -> list[list[int]]:
    return [state.deck, state.removed, state.green_out, state.market]


def cards_of(state: SobekState, names: list[str]) -> list[int]:
    """Cards with these faces, taken from where the test does not care (the deck first)."""
    return [take_face(state, name, CARDS, spare(state)) for name in names]


def rig(state: SobekState, hands: dict[int, list[str]] | None = None,
        corruption: dict[int, list[str]] | None = None, market: list[str] | None = None,
        deck_top: list[str] | None = None, active: int = 0) -> SobekState:
    """Gives the listed seats exactly those hands and corruption piles, sets the market and the
    top of the deck, and makes ``active`` the player to start a turn."""
    for seat, names in (hands or {}).items():
        fill(state, CARDS, state.hands[seat], names, spare(state))
    for seat, names in (corruption or {}).items():
        fill(state, CARDS, state.corruption[seat], names, spare(state))
    if market is not None:
        fill(state, CARDS, state.market, market, spare(state))
    if deck_top is not None:
        top: list[int] = []
        fill(state, CARDS, top, deck_top, spare(state))
        state.deck += reversed(top)  # the first listed is the next drawn
    state.phase, state.active, state.to_act = TURN, active, active
    state.invalidate_caches()
    return state


def give_set(state: SobekState, seat: int, family: str, names: list[str],
             horizontal: bool = False) -> PlayedSet:
    played = PlayedSet(FAMILIES.index(family), cards_of(state, names), horizontal)
    state.sets[seat].append(played)
    return played


def only_tokens(state: SobekState, *kinds: str) -> None:
    """Makes the round's remaining tokens exactly these kinds (the others go out)."""
    state.tokens_out += state.tokens
    state.tokens.clear()
    for kind in kinds:
        token = next(t for t in state.tokens_out if TOKENS[t // 2] == kind)
        state.tokens_out.remove(token)
        state.tokens.append(token)
    state.invalidate_caches()


def play(state: SobekState, *actions: str) -> None:
    for action in actions:
        state.apply(action)


def events(state: SobekState, kind: str, seat: int | None = None) -> list[dict]:
    return [e for e in state.history(seat) if e["type"] == kind]


def empty_deck(state: SobekState) -> None:
    state.removed += state.deck
    state.deck.clear()


def end_round(state: SobekState, ender: int = 0, last: str = "amulet") -> None:
    """``ender`` takes ``last``, the last card of the round; nobody lays a horizontal set."""
    rig(state, market=[last], active=ender)
    empty_deck(state)
    play(state, "take:0")
    while state.phase_name() == "horizontal":
        play(state, "done")


# -- Players and components -------------------------------------------------------------------
def test_the_cards_of_the_rules_file():
    counts = collections.Counter(CARDS.name(c) for c in range(len(CARDS)))
    assert len(CARDS) == 54 + 9
    for family, total in zip(FAMILIES, (6, 7, 7, 9, 10, 10), strict=True):
        assert sum(k for name, k in counts.items() if name.startswith(family + "_")) == total
    assert counts["amulet"] == 5
    valued = {name: k for name, k in counts.items() if name[-1].isdigit() and name[-1] != "0"}
    assert valued == {"ivory_3": 3, "ebony_2": 4, "marble_2": 4, "cattle_1": 4, "fish_1": 5, "wheat_1": 5}
    greens = {name: k for name, k in counts.items() if name.endswith("_green")}
    assert greens == {"wheat_green": 2, "fish_green": 2, "cattle_green": 2, "marble_green": 1,
                      "ebony_green": 1, "ivory_green": 1}
    characters = sorted(name for name, k in counts.items() for _ in range(k) if not name.startswith(
        (*FAMILIES, "amulet")))
    assert characters == sorted(["queen_ivory", "high_priest_ebony", "scribe_marble", "vizier_cattle",
                                 "vizier_wheat", "thief_fish", "thief_wheat", "courtesan_fish",
                                 "merchant_cattle"])


def test_the_symbol_pattern_of_the_score_track():
    state = new()
    for k in range(20):
        assert SYMBOLS[state.symbol(5 * k)] == "number"
        for j in range(4):
            assert SYMBOLS[state.symbol(5 * k + 1 + j)] == PATTERN[k % 4][j], (k, j)
    for s in range(100):  # scores go above 100; the symbol is that of s mod 100
        assert state.symbol(s + 100) == state.symbol(s) == state.symbol(s + 200)


def test_next_and_previous_space_with_the_same_symbol():
    state = new()
    assert state.next_same(0) == 5  # numbered spaces: every 5
    assert state.next_same(3) == 7  # Scarab: 3 -> 7 (the second space of block 1)
    assert state.next_same(1) == 9  # Ankh: 1 -> 9
    assert state.next_same(99) == 101  # Ankh at 99 (block 19), then 101 (block 0 again)
    assert state.previous_same(61) == 59 and state.previous_same(59) == 52
    assert state.previous_same(3) == 0  # no earlier Scarab: never below 0
    assert state.previous_same(0) == 0


# -- Setup of each round ----------------------------------------------------------------------
@pytest.mark.parametrize("n, deck, removed", [(2, 36, 9), (3, 45, 0), (4, 45, 0)])
def test_round_setup(n, deck, removed):
    state = new(n)
    for hand in state.hands:
        assert len(hand) == 2 and all(CARDS.name(c).endswith("_green") for c in hand)
    assert len(state.green_out) == 9 - 2 * n
    assert len(state.market) == 9 and len(state.deck) == deck and len(state.removed) == removed
    assert not any(CARDS.name(c).endswith("_green") for c in state.deck + state.market + state.removed)
    assert len(state.tokens) == 5 and len(state.tokens_out) == 7
    assert state.round == 1 and state.delivery == 1 and state.phase_name() == "turn"


def test_round_one_start_player_is_drawn_from_the_seed():
    assert {new(4, seed).start_player for seed in range(40)} == {0, 1, 2, 3}
    state = new(4, 5)
    assert state.current_player() == state.start_player == state.active


def test_the_market_shows_goods_and_hides_characters():
    state = rig(new(), market=["thief_fish", "wheat_1", "queen_ivory", "amulet"])
    for seat in range(3):
        assert state.view(seat)["market"] == ["back_orange", "wheat_1", "back_orange", "amulet"]


def test_which_face_down_character_is_where_is_invisible():
    state = rig(new(), market=["thief_fish", "wheat_1", "queen_ivory"])
    before = [json.dumps(state.view(s), sort_keys=True) for s in range(3)]
    state.market[0], state.market[2] = state.market[2], state.market[0]
    assert [json.dumps(state.view(s), sort_keys=True) for s in range(3)] == before


# -- A. Take a card -----------------------------------------------------------------------------
def test_taking_card_3_of_4_sends_cards_1_and_2_to_the_takers_corruption_pile():
    state = rig(new(), hands={0: []}, market=["wheat_1", "fish_0", "ivory_3", "amulet", "ebony_2"])
    play(state, "take:2")
    assert faces(state.corruption[0]) == ["fish_0", "wheat_1"]
    assert faces(state.hands[0]) == ["ivory_3"]
    assert [CARDS.name(c) for c in state.market] == ["amulet", "ebony_2"]
    assert events(state, "take")[-1] == {"type": "take", "seat": 0, "position": 2, "card": "ivory_3",
                                         "skipped": ["wheat_1", "fish_0"]}


def test_taking_the_first_card_costs_nothing():
    state = rig(new(), hands={0: []}, market=["wheat_1", "fish_0", "ivory_3"])
    play(state, "take:0")
    assert state.corruption[0] == [] and faces(state.hands[0]) == ["wheat_1"]
    assert state.current_player() == 1


def test_only_the_first_four_cards_may_be_taken_and_fewer_when_fewer_remain():
    state = rig(new(), hands={0: []})
    assert state.legal_actions() == ["take:0", "take:1", "take:2", "take:3"]
    rig(state, hands={0: []}, market=["wheat_1", "fish_0"])
    assert state.legal_actions() == ["take:0", "take:1"]


def test_a_skipped_character_stays_unknown_to_the_others():
    state = rig(new(), hands={0: []}, market=["scribe_marble", "wheat_1", "merchant_cattle"])
    play(state, "take:2")
    public = {"type": "take", "seat": 0, "position": 2, "card": "back_orange",
              "skipped": ["back_orange", "wheat_1"]}
    assert events(state, "take", 1)[-1] == public
    assert events(state, "take", 0)[-1] == {**public, "card": "merchant_cattle",
                                            "skipped": ["scribe_marble", "wheat_1"]}
    assert state.view(0)["corruption"] == ["scribe_marble", "wheat_1"]
    assert state.view(1)["players"][0]["corruption_size"] == 2


def test_the_last_card_of_a_delivery_makes_the_taker_lay_the_next():
    state = rig(new(), market=["wheat_1"], active=1)
    deck = len(state.deck)
    play(state, "take:0")
    assert len(state.market) == 9 and len(state.deck) == deck - 9 and state.delivery == 2
    assert events(state, "delivery")[-1]["seat"] == 1
    assert state.current_player() == 2


@pytest.mark.parametrize("n, deliveries", [(2, 5), (3, 6), (4, 6)])
def test_deliveries_per_round(n, deliveries):
    state = new(n, 3)
    while state.round == 1:
        play(state, state.legal_actions()[0])  # always the first card, or no horizontal set
    laid = [e for e in state.history() if e["type"] in ("delivery", "round_end")]
    assert sum(1 for e in laid[: [e["type"] for e in laid].index("round_end")]
               if e["type"] == "delivery") == deliveries


def test_the_round_ends_at_once_with_the_last_card_of_the_last_delivery():
    state = rig(new(), market=["wheat_1"], active=1)
    empty_deck(state)
    play(state, "take:0")
    assert events(state, "round_end") == [{"type": "round_end", "seat": 1}]
    assert state.phase_name() == "horizontal" and state.current_player() == 2  # the next in turn order


# -- B. Characters --------------------------------------------------------------------------------
def test_a_character_is_played_face_up_onto_the_discard_pile():
    state = rig(new(), hands={0: ["queen_ivory", "wheat_1"]})
    assert "play:queen_ivory" in state.legal_actions()
    play(state, "play:queen_ivory")
    assert faces(state.discard) == ["queen_ivory"]
    assert state.view(2)["discard"] == ["queen_ivory"]


def test_queen_draws_three_cards_seen_by_the_drawer_only():
    state = rig(new(), hands={0: ["queen_ivory"]}, deck_top=["ivory_3", "amulet", "fish_1"])
    play(state, "play:queen_ivory")
    assert faces(state.hands[0]) == ["amulet", "fish_1", "ivory_3"]
    assert events(state, "draw", 0)[-1] == {"type": "draw", "seat": 0, "count": 3,
                                            "cards": ["ivory_3", "amulet", "fish_1"]}
    assert events(state, "draw", 1)[-1] == {"type": "draw", "seat": 0, "count": 3}
    assert state.current_player() == 1


def test_queen_draws_fewer_when_the_deck_has_fewer():
    state = rig(new(), hands={0: ["queen_ivory"]})
    state.removed += state.deck[2:]
    del state.deck[2:]
    play(state, "play:queen_ivory")
    assert len(state.hands[0]) == 2 and state.deck == []


def test_high_priest_discards_a_family_from_the_pile_characters_too_amulets_never():
    state = rig(new(), hands={0: ["high_priest_ebony"], 1: [], 2: []},
                corruption={0: ["fish_1", "thief_fish", "fish_green", "amulet", "wheat_1"]})
    play(state, "play:high_priest_ebony")
    assert state.phase_name() == "priest"
    assert state.legal_actions() == [f"family:{f}" for f in FAMILIES]
    play(state, "family:fish")
    assert faces(state.corruption[0]) == ["amulet", "wheat_1"]
    assert faces(state.discard) == ["fish_1", "fish_green", "high_priest_ebony", "thief_fish"]
    assert events(state, "purge")[-1]["count"] == 3


def test_thief_takes_a_card_by_its_back_and_only_thief_and_victim_see_it():
    state = rig(new(), hands={0: ["thief_fish"], 2: [], 1: ["wheat_green", "ivory_3"]})
    play(state, "play:thief_fish")
    assert state.phase_name() == "thief" and state.legal_actions() == ["target:1"]  # seat 2 has nothing
    play(state, "target:1")
    assert state.view(0)["shown"] == ["back_green", "back_beige"]
    assert state.view(1)["shown"] == [] and state.view(2)["shown"] == []
    assert state.legal_actions() == ["steal:back_green", "steal:back_beige"]
    play(state, "steal:back_beige")
    assert faces(state.hands[0]) == ["ivory_3"] and faces(state.hands[1]) == ["wheat_green"]
    stolen = {"type": "steal", "seat": 0, "target": 1, "card": "ivory_3"}
    assert events(state, "steal", 0)[-1] == stolen == events(state, "steal", 1)[-1]
    assert events(state, "steal", 2)[-1] == {**stolen, "card": "back_beige"}


def test_thief_with_nobody_to_rob_has_no_effect():
    state = rig(new(), hands={0: ["thief_fish"], 1: [], 2: []})
    play(state, "play:thief_fish")
    assert state.phase_name() == "turn" and state.current_player() == 1


def test_scribe_makes_each_opponent_over_six_bury_down_to_six_clockwise():
    state = rig(new(4), hands={0: ["scribe_marble"] + ["wheat_1"] * 5 + ["fish_1"] * 3,
                               1: ["fish_0"] * 3 + ["cattle_0"] * 3 + ["wheat_0"],
                               2: ["ebony_2"] * 4 + ["ivory_0"],
                               3: ["ivory_3"] * 3 + ["marble_2"] * 4 + ["amulet"]})
    play(state, "play:scribe_marble")
    assert state.phase_name() == "bury" and state.current_player() == 1  # not the active player
    assert state.active == 0 and state.legal_actions() == ["bury:cattle_0", "bury:fish_0", "bury:wheat_0"]
    play(state, "bury:wheat_0")
    assert state.current_player() == 3  # seat 1 holds 6; seat 2 holds 5
    assert state.legal_actions() == ["bury:ivory_3", "bury:marble_2", "bury:amulet"]
    play(state, "bury:amulet", "bury:ivory_3")
    assert len(state.hands[3]) == 6 and faces(state.corruption[3]) == ["amulet", "ivory_3"]
    assert len(state.hands[0]) == 8  # the Scribe's own hand is not cut
    assert state.phase_name() == "turn" and state.current_player() == 1
    assert events(state, "bury", 3)[-1] == {"type": "bury", "seat": 3, "count": 2,
                                            "cards": ["amulet", "ivory_3"]}
    assert events(state, "bury", 0)[-1] == {"type": "bury", "seat": 3, "count": 2}


def test_vizier_looks_through_a_pile_and_takes_a_card():
    state = rig(new(), hands={0: ["vizier_cattle"]}, corruption={1: [], 2: ["ivory_3", "amulet"]})
    play(state, "play:vizier_cattle")
    assert state.legal_actions() == ["target:2"]  # seat 1's pile is empty
    play(state, "target:2")
    assert state.view(0)["shown"] == ["ivory_3", "amulet"]
    assert state.view(1)["shown"] == [] and state.view(2)["shown"] == []
    assert state.legal_actions() == ["pick:ivory_3", "pick:amulet"]
    play(state, "pick:ivory_3")
    assert faces(state.hands[0]) == ["ivory_3"] and faces(state.corruption[2]) == ["amulet"]
    assert events(state, "seize", 2)[-1] == {"type": "seize", "seat": 0, "target": 2, "card": "ivory_3"}
    assert events(state, "seize", 1)[-1] == {"type": "seize", "seat": 0, "target": 2}


def test_courtesan_adds_one_or_two_cards_of_the_sets_family_without_an_event():
    state = rig(new(), hands={0: ["courtesan_fish", "wheat_1", "amulet", "fish_1", "wheat_0"]})
    give_set(state, 0, "ivory", ["ivory_3", "ivory_0", "ivory_0"])
    give_set(state, 0, "wheat", ["wheat_1", "wheat_1", "wheat_0"])
    tokens = len(state.tokens)
    play(state, "play:courtesan_fish")
    assert state.legal_actions() == ["extend:0", "extend:1"]  # the Amulet fits any set
    play(state, "extend:1")
    assert state.phase_name() == "add" and state.legal_actions() == ["card:wheat_0", "card:wheat_1",
                                                                      "card:amulet"]
    play(state, "card:wheat_1")
    assert "done" in state.legal_actions()
    play(state, "card:amulet")  # the second card closes the addition
    assert faces(state.sets[0][1].cards) == ["amulet", "wheat_0", "wheat_1", "wheat_1", "wheat_1"]
    assert len(state.tokens) == tokens and state.current_player() == 1  # not playing a set: no event


def test_courtesan_may_add_a_single_card():
    state = rig(new(), hands={0: ["courtesan_fish", "fish_1", "fish_0"]})
    give_set(state, 0, "fish", ["fish_1", "fish_1", "fish_0"])
    play(state, "play:courtesan_fish", "extend:0", "card:fish_1", "done")
    assert len(state.sets[0][0].cards) == 4 and faces(state.hands[0]) == ["fish_0"]


def test_courtesan_with_no_set_has_no_effect():
    state = rig(new(), hands={0: ["courtesan_fish", "fish_1"]})
    play(state, "play:courtesan_fish")
    assert state.phase_name() == "turn" and state.current_player() == 1


def test_merchant_takes_any_market_card_without_corruption():
    state = rig(new(), hands={0: ["merchant_cattle"]},
                market=["wheat_1", "fish_0", "cattle_0", "amulet", "ebony_2", "ivory_3"])
    play(state, "play:merchant_cattle")
    assert state.legal_actions() == [f"take:{i}" for i in range(6)]
    play(state, "take:5")
    assert faces(state.hands[0]) == ["ivory_3"] and state.corruption[0] == []
    assert len(state.market) == 5


def test_merchant_taking_the_last_card_ends_the_round():
    state = rig(new(), hands={0: ["merchant_cattle"]}, market=["wheat_1"])
    empty_deck(state)
    play(state, "play:merchant_cattle", "take:0")
    assert state.phase_name() == "horizontal" and events(state, "round_end")[-1]["seat"] == 0


# -- C. Play a set ----------------------------------------------------------------------------------
def test_a_set_is_offered_only_when_the_hand_holds_one():
    state = rig(new(), hands={0: ["wheat_1", "wheat_0", "fish_1", "amulet", "amulet", "amulet"]})
    sets = [a for a in state.legal_actions() if a.startswith("set:")]
    assert sets == ["set:fish", "set:wheat"]  # three Amulets alone are no set
    rig(state, hands={0: ["wheat_1", "wheat_0", "fish_1"]})
    assert not [a for a in state.legal_actions() if a.startswith("set:")]


def test_playing_a_set_one_card_at_a_time():
    state = rig(new(), hands={0: ["wheat_1", "wheat_0", "thief_wheat", "amulet", "fish_1"]})
    only_tokens(state)  # no event, to look at the set alone
    play(state, "set:wheat")
    assert state.phase_name() == "set"
    assert state.legal_actions() == ["card:wheat_0", "card:wheat_1", "card:thief_wheat", "card:amulet"]
    play(state, "card:amulet", "card:thief_wheat")
    assert "done" not in state.legal_actions()
    play(state, "card:wheat_1")
    assert state.view(1)["selection"] == ["amulet", "thief_wheat", "wheat_1"]  # laid face up
    play(state, "done")
    assert [faces(s.cards) for s in state.sets[0]] == [["amulet", "thief_wheat", "wheat_1"]]
    assert faces(state.hands[0]) == ["fish_1", "wheat_0"]
    assert events(state, "set")[-1] == {"type": "set", "seat": 0, "family": "wheat", "set_index": 0,
                                        "cards": ["amulet", "thief_wheat", "wheat_1"]}
    assert state.current_player() == 1


def test_a_set_needs_a_card_that_is_not_an_amulet():
    state = rig(new(), hands={0: ["amulet", "amulet", "amulet", "ivory_0"]})
    only_tokens(state)
    play(state, "set:ivory", "card:amulet", "card:amulet", "card:amulet")
    assert state.legal_actions() == ["card:ivory_0"]  # done is not legal yet


def test_a_card_choice_closes_by_itself_when_nothing_is_left_to_add():
    state = rig(new(), hands={0: ["fish_1", "fish_0", "fish_green", "wheat_1"]})
    only_tokens(state)
    play(state, "set:fish", "card:fish_1", "card:fish_0", "card:fish_green")
    assert len(state.sets[0]) == 1 and state.current_player() == 1


def test_adding_three_new_cards_to_a_set_of_yours():
    state = rig(new(), hands={0: ["cattle_1", "amulet", "amulet", "fish_1"]})
    give_set(state, 0, "cattle", ["cattle_1", "cattle_0", "vizier_cattle"])
    only_tokens(state)
    assert "extend:0" in state.legal_actions()
    play(state, "extend:0", "card:amulet", "card:amulet")
    assert "done" not in state.legal_actions()
    play(state, "card:cattle_1")
    assert len(state.sets[0]) == 1 and len(state.sets[0][0].cards) == 6
    assert events(state, "extend")[-1]["set_index"] == 0
    rig(state, hands={0: ["cattle_1", "amulet", "fish_1"]})
    assert "extend:0" not in state.legal_actions()  # two cards of the family are not enough


def test_a_character_played_in_a_set_has_no_power():
    state = rig(new(), hands={0: ["merchant_cattle", "cattle_1", "cattle_0"]})
    only_tokens(state)
    play(state, "set:cattle", "card:merchant_cattle", "card:cattle_1", "card:cattle_0")
    assert state.phase_name() == "turn" and state.current_player() == 1
    assert faces(state.discard) == []


# -- Event tokens -----------------------------------------------------------------------------------
def set_and_choose(state: SobekState, token: str) -> None:
    """Seat 0 plays a Wheat set and chooses ``token``."""
    fill(state, CARDS, state.hands[0], ["wheat_1", "wheat_1", "wheat_0"] + [CARDS.name(c) for c in
                                                                         state.hands[0]], spare(state))
    state.invalidate_caches()
    play(state, "set:wheat", "card:wheat_1", "card:wheat_1", "card:wheat_0")
    if state.phase_name() == "set":
        play(state, "done")
    assert state.phase_name() == "event"
    play(state, f"token:{token}")
    assert state.phase_name() == "token"


def test_a_set_lets_its_player_see_the_remaining_tokens_and_choose_one():
    state = rig(new(), hands={0: ["wheat_1", "wheat_1", "wheat_0"]})
    only_tokens(state, "curse", "flood", "curse")
    play(state, "set:wheat", "card:wheat_1", "card:wheat_1", "card:wheat_0")
    assert state.phase_name() == "event" and state.current_player() == 0
    assert state.legal_actions() == ["token:flood", "token:curse"]
    assert state.view(0)["tokens"] == ["flood", "curse", "curse"]
    assert state.view(1)["tokens"] == [] and state.view(1)["tokens_left"] == 3
    play(state, "token:curse")
    assert state.view(1)["token"] == "curse"  # the chosen token is public
    assert events(state, "token", 0)[-1]["tokens"] == ["flood", "curse", "curse"]
    assert "tokens" not in events(state, "token", 1)[-1]
    assert state.legal_actions() == ["target:1", "target:2", "discard"]


def test_no_event_once_the_rounds_tokens_are_gone():
    state = rig(new(), hands={0: ["wheat_1", "wheat_1", "wheat_0"]})
    only_tokens(state)
    play(state, "set:wheat", "card:wheat_1", "card:wheat_1", "card:wheat_0")
    assert state.phase_name() == "turn" and state.current_player() == 1


def test_guild_moves_both_markers_to_the_next_space_with_their_symbol():
    state = rig(new())
    only_tokens(state, "guild")
    state.score[:] = [0, 3, 12]
    set_and_choose(state, "guild")
    play(state, "target:1")
    assert state.score == [5, 7, 12]  # Number 0 -> 5; Scarab 3 -> 7
    assert not state.held and len(state.tokens_used) == 1 and len(state.tokens_out) == 11  # the Guild is used


def test_flood_gives_another_turn_right_after_this_one():
    state = rig(new())
    only_tokens(state, "flood")
    set_and_choose(state, "flood")
    assert state.legal_actions() == ["apply", "discard"]
    play(state, "apply")
    assert state.phase_name() == "turn" and state.current_player() == 0
    assert state.view(0)["extra_turn"] is False  # used up
    play(state, "take:0")
    assert state.current_player() == 1


def test_curse_stays_with_a_pile_and_counts_two_cards_at_the_end_of_the_round():
    state = rig(new(), hands={1: [], 2: []}, corruption={1: ["ebony_0", "ebony_0"],
                                                       2: ["marble_0", "marble_0", "ivory_0"]})
    only_tokens(state, "curse")
    set_and_choose(state, "curse")
    play(state, "target:1")
    assert len(state.curses[1]) == 1 and state.view(0)["players"][1]["curses"] == 1
    state.round = 3
    fill(state, CARDS, state.hands[0], [], spare(state))
    end_round(state, ender=0)
    piles = {e["seat"]: e for e in events(state, "corruption")}
    assert piles[1]["count"] == 4 and piles[2]["count"] == 3 and piles[1]["corrupt"]


def test_prosperity_adds_two_scarabs_to_a_wheat_fish_or_cattle_set():
    state = rig(new())
    only_tokens(state, "prosperity")
    give_set(state, 0, "ivory", ["ivory_3", "ivory_3", "ivory_0"])
    give_set(state, 0, "fish", ["fish_1", "fish_0", "fish_0"])
    set_and_choose(state, "prosperity")
    assert state.legal_actions() == ["prosperity:1", "prosperity:2", "discard"]  # not on Ivory
    play(state, "prosperity:1")
    assert len(state.sets[0][1].prosperity) == 1
    assert state.sets[0][1].score(state.face) == (1 + 2) * 3
    assert state.view(2)["players"][0]["sets"][1]["prosperity"] == 1


def test_prosperity_without_such_a_set_may_only_be_discarded():
    state = rig(new())
    only_tokens(state, "prosperity")
    state.sets[0].clear()
    fill(state, CARDS, state.hands[0], ["ivory_3", "ivory_0", "ivory_0"], spare(state))
    state.invalidate_caches()
    play(state, "set:ivory", "card:ivory_3", "card:ivory_0", "card:ivory_0", "token:prosperity")
    assert state.legal_actions() == ["discard"]
    play(state, "discard")
    assert events(state, "discard_token")[-1] == {"type": "discard_token", "seat": 0, "token": "prosperity"}


def test_embalming_puts_the_corruption_pile_into_the_hand():
    state = rig(new(), hands={0: []}, corruption={0: ["ivory_3", "amulet"]})
    only_tokens(state, "embalming")
    set_and_choose(state, "embalming")
    play(state, "apply")
    assert faces(state.hands[0]) == ["amulet", "ivory_3"] and state.corruption[0] == []


def test_deception_scores_a_point_per_corruption_card_which_stay():
    state = rig(new(), hands={0: []}, corruption={0: ["ivory_3", "amulet", "fish_0"]})
    only_tokens(state, "deception")
    set_and_choose(state, "deception")
    play(state, "apply")
    assert state.score[0] == 3 and len(state.corruption[0]) == 3


def test_a_chosen_token_may_be_discarded_unused():
    state = rig(new(), hands={0: []}, corruption={0: ["ivory_3"]})
    only_tokens(state, "deception", "flood")
    set_and_choose(state, "deception")
    play(state, "discard")
    assert state.score[0] == 0 and len(state.tokens) == 1 and state.current_player() == 1


def test_tokens_are_conserved_through_random_games():
    for seed in range(30):
        state = new(2 + seed % 3, seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            placed = [t for ts in state.token_places().values() for t in ts]
            assert sorted(placed) == list(range(12))


# -- End of a round -------------------------------------------------------------------------------
def test_horizontal_sets_are_laid_in_turn_order_from_hand():
    state = rig(new(), hands={0: ["fish_1", "fish_0", "amulet"], 1: ["wheat_1"], 2: ["ivory_3"] * 3})
    state.round = 3
    rig(state, market=["ivory_0"], active=1)
    empty_deck(state)
    play(state, "take:0")
    order = []
    while state.phase_name() in ("horizontal", "horizontal_set"):
        seat = state.current_player()
        if state.phase_name() == "horizontal":
            order.append(seat)
        legal = state.legal_actions()
        play(state, legal[0])  # lay every set possible
    assert order == [2, 2, 0, 0, 1]  # from the next player; each may lay several, then done
    assert [s.horizontal for s in state.sets[2]] == [True]
    assert faces(state.sets[0][0].cards) == ["amulet", "fish_0", "fish_1"]
    assert faces(state.corruption[1]) == ["ivory_0", "wheat_1"]  # what stays in hand: corruption
    assert events(state, "unplayed") == [{"type": "unplayed", "seat": 1, "count": 2}]


def test_horizontal_sets_cannot_extend_a_set():
    state = rig(new(), hands={0: ["fish_1", "fish_0", "fish_0"]})
    give_set(state, 0, "fish", ["fish_1", "fish_1", "fish_1"])
    state.round = 3
    rig(state, market=["ivory_0"], active=2)
    empty_deck(state)
    play(state, "take:0")
    assert state.current_player() == 0 and state.legal_actions() == ["set:fish", "done"]


EXAMPLE = ["wheat_1", "wheat_1", "wheat_0", "thief_wheat"]


def test_rules_example_horizontal_set_scores_its_scarabs_and_a_played_set_scarabs_times_cards():
    state = new()
    example = give_set(state, 0, "wheat", EXAMPLE, horizontal=True)
    assert example.score(state.face) == 2
    example.horizontal = False
    assert example.score(state.face) == 2 * 4


@pytest.mark.parametrize("when, points", [("horizontal", 2), ("round", 8)])
def test_rules_example_played_both_ways(when, points):
    state = rig(new(), hands={0: list(EXAMPLE), 1: [], 2: []}, corruption={1: ["fish_0"] * 3})
    only_tokens(state)
    state.round = 3
    if when == "round":
        play(state, "set:wheat", *(f"card:{c}" for c in EXAMPLE))  # the last card closes the set
        assert state.current_player() == 1
    rig(state, market=["fish_green"], active=1)
    empty_deck(state)
    play(state, "take:0", "done")  # seat 1 takes the last card: seat 2, then seat 0, lay sets
    if when == "horizontal":
        play(state, "set:wheat", *(f"card:{c}" for c in EXAMPLE))
    play(state, "done", "done")
    assert state.is_terminal() and state.score == [points, 0, 0]


def test_round_scoring_sums_every_set():
    state = rig(new(), hands={0: [], 1: [], 2: []})
    give_set(state, 0, "wheat", ["wheat_1", "wheat_1", "wheat_0", "thief_wheat"], horizontal=True)
    give_set(state, 0, "ivory", ["ivory_3", "ivory_3", "ivory_0"])
    give_set(state, 1, "ebony", ["ebony_2", "amulet", "ebony_0"])
    state.round = 3
    end_round(state, ender=2)
    assert state.score == [2 + 18, 6, 0]  # seat 2 is corrupt, but scored nothing to lose


def fixed_piles(state: SobekState, piles: dict[int, list[str]]) -> dict[int, dict]:
    """Ends round 3 with exactly these corruption piles (the last card goes to an empty hand
    and is counted in the ender's pile: seat 0's pile gets an Amulet, no scarabs)."""
    rig(state, hands={s: [] for s in range(state.num_players)}, corruption=piles)
    give_set(state, 0, "marble", ["marble_2", "marble_2", "marble_0"])  # 12 points each
    give_set(state, 1, "ebony", ["ebony_2", "ebony_2", "ebony_green"])
    give_set(state, 2, "marble", ["marble_2", "marble_2", "marble_green"])
    state.round = 3
    end_round(state, ender=0, last="amulet")
    return {e["seat"]: e for e in events(state, "corruption")}


def test_the_most_cards_is_the_most_corrupt():
    piles = fixed_piles(new(), {0: ["fish_0"] * 3, 1: ["cattle_0"] * 3 + ["wheat_0"] * 2, 2: ["ivory_3"] * 2})
    assert [piles[s]["corrupt"] for s in range(3)] == [False, True, False]


def test_corruption_tie_broken_by_scarabs():
    piles = fixed_piles(new(), {0: ["fish_0", "fish_1", "fish_1"],
                                1: ["ivory_3", "ivory_0", "ebony_0", "ebony_0"],
                                2: ["cattle_1", "cattle_1", "cattle_0", "cattle_0"]})
    assert [piles[s]["count"] for s in range(3)] == [4, 4, 4]
    assert [piles[s]["scarabs"] for s in range(3)] == [2, 3, 2]
    assert [piles[s]["corrupt"] for s in range(3)] == [False, True, False]


def test_a_second_tie_makes_both_corrupt():
    state = new()
    piles = fixed_piles(state, {0: ["fish_0", "fish_1"], 1: ["ivory_3", "ivory_0", "fish_0"],
                                2: ["wheat_1", "wheat_1", "cattle_1"]})
    assert [piles[s]["corrupt"] for s in range(3)] == [False, True, True]
    assert state.score == [12, 9, 9]  # 12 points: one step back from 12 (Ankh) to the previous Ankh, 9


def test_an_empty_pile_is_never_corrupt():
    state = rig(new(), hands={0: ["fish_1", "fish_0"], 1: [], 2: []})
    state.round = 3
    rig(state, market=["fish_green"], active=0)
    empty_deck(state)
    play(state, "take:0", "done", "done", "set:fish", "card:fish_0", "card:fish_1", "card:fish_green", "done")
    assert state.is_terminal() and state.score == [1, 0, 0]  # a horizontal set: 1 scarab
    assert [e["count"] for e in events(state, "corruption")] == [0, 0, 0]
    assert not any(e["corrupt"] for e in events(state, "corruption"))


def test_rulebook_example_corruption_moves_back_two_ankhs():
    """Blue has 38, scores 23 -> 61; 2 lots of 10 -> back 2 Ankhs -> 52 (the corruption cost 9)."""
    state = rig(new(), hands={0: ["fish_1"] * 5, 1: [], 2: []},
                corruption={0: ["cattle_0"] * 3 + ["ebony_0"]})
    give_set(state, 0, "ivory", ["ivory_3", "ivory_3", "ivory_0"])  # 6 scarabs x 3 cards = 18
    state.score[:] = [38, 0, 0]
    state.round = 3
    rig(state, market=["amulet"], active=0)
    empty_deck(state)
    play(state, "take:0", "done", "done")  # seats 1 and 2 lay nothing
    play(state, "set:fish", *["card:fish_1"] * 5)  # a horizontal set: 5 scarabs
    play(state, "done", "done")  # the set (the Amulet stays in hand), then no more sets
    assert [e["score"] for e in events(state, "score") if e["seat"] == 0] == [61, 52]
    assert [e["points"] for e in events(state, "score") if e["seat"] == 0] == [23, -9]
    assert state.score[0] == 52


def test_everything_goes_back_for_the_next_round():
    state = rig(new(), hands={0: ["fish_1"] * 3})
    give_set(state, 1, "ivory", ["ivory_3", "ivory_3", "ivory_0"])
    state.curses[2].append(state.tokens.pop())
    end_round(state, ender=0)
    assert state.round == 2 and state.phase_name() == "start"
    assert all(not s for s in state.sets) and all(not c for c in state.curses)
    assert state.discard == [] and all(not p for p in state.corruption)
    assert len(state.market) == 9 and len(state.deck) == 45 and len(state.tokens) == 5
    assert all(len(h) == 2 for h in state.hands)


def test_the_lowest_score_chooses_the_start_player():
    state = rig(new(), hands={0: [], 1: [], 2: []})
    give_set(state, 0, "ivory", ["ivory_3", "ivory_3", "ivory_0"])
    give_set(state, 2, "fish", ["fish_1", "fish_1", "fish_1"])
    end_round(state, ender=0, last="ivory_0")
    assert state.score[1] == 0 and state.current_player() == 1 and state.phase_name() == "start"
    assert state.legal_actions() == ["start:0", "start:1", "start:2"]
    play(state, "start:2")
    assert state.current_player() == 2 and state.start_player == 2 and state.round == 2
    assert events(state, "start")[-1] == {"type": "start", "seat": 2, "chooser": 1}


@pytest.mark.parametrize("tie_break, choosers", [("seat_order", {0}), ("random", {0, 2})])
def test_ties_for_the_lowest_score_setting(tie_break, choosers):
    seen = set()
    for seed in range(20):
        state = rig(new(3, seed, start_tie_break=tie_break), hands={0: [], 1: [], 2: []})
        give_set(state, 1, "fish", ["fish_1", "fish_1", "fish_1"])
        end_round(state, ender=1, last="ivory_0")
        seen.add(state.current_player())
    assert seen == choosers


# -- End of the game --------------------------------------------------------------------------------
def test_the_game_ends_after_round_three():
    state = new()
    for round_ in (1, 2, 3):
        assert state.round == round_ and not state.is_terminal()
        end_round(state, ender=0)
        if state.phase_name() == "start":
            play(state, state.legal_actions()[0])
    assert state.is_terminal() and state.current_player() == -1 and state.legal_actions() == []
    assert events(state, "game_over") == [{"type": "game_over", "scores": state.scores()}]


@pytest.mark.parametrize("score, over", [(101, True), (100, False)])
def test_the_game_ends_after_round_two_above_100_points(score, over):
    state = rig(new(), hands={0: [], 1: [], 2: []})
    end_round(state, ender=0)
    play(state, "start:0")
    state.score[2] = score
    end_round(state, ender=0)
    assert state.round == 2 + (not over) and state.is_terminal() is over


def test_equal_points_share_the_win():
    state = new()
    state.score[:] = [40, 40, 12]
    assert state.ranks() == [1, 1, 3]


# -- Settings ([house] rules) -----------------------------------------------------------------------
def card_counts(state: SobekState) -> collections.Counter:
    return collections.Counter(state.cards.name(c) for c in range(len(state.cards)))


def test_setting_valued_cards():
    state = new(valued_cards="ivory=2x1,ebony=4x2,marble=4x2,cattle=4x3,fish=5x1,wheat=5x1")
    counts = card_counts(state)
    assert counts["ivory_1"] == 2 and counts["ivory_0"] == 3 and counts["ivory_3"] == 0
    assert counts["cattle_3"] == 4 and counts["cattle_1"] == 0
    assert card_counts(new())["ivory_3"] == 3


def test_setting_green_cards():
    state = new(4, green_cards="wheat=3,fish=2,cattle=2,marble=1,ebony=1")
    counts = card_counts(state)
    assert counts["wheat_green"] == 3 and counts["ivory_green"] == 0 and counts["wheat_0"] == 2
    assert sum(len(h) for h in state.hands) == 8 and len(state.green_out) == 1


def test_setting_characters():
    state = new(characters="queen=wheat,high_priest=ebony,scribe=marble,vizier=cattle,vizier=cattle,"
                           "thief=fish,thief=fish,courtesan=fish,merchant=cattle")
    counts = card_counts(state)
    assert counts["queen_wheat"] == 1 and counts["queen_ivory"] == 0
    assert counts["vizier_cattle"] == 2 and counts["thief_fish"] == 2
    state2 = new(characters="queen=wheat,high_priest=ebony,scribe=marble,vizier=cattle,vizier=cattle,"
                            "thief=fish,thief=fish,courtesan=fish,merchant=cattle")
    fill(state2, state2.cards, state2.hands[state2.active], ["queen_wheat", "wheat_1", "wheat_0"],
         spare(state2))
    state2.invalidate_caches()
    assert "set:wheat" in state2.legal_actions()  # the Queen is Wheat now


def test_setting_track_symbols():
    state = new(track_symbols="lotus,scarab,eye,ankh")
    symbols = [SYMBOLS[state.symbol(s)] for s in range(6)]
    assert symbols == ["number", "lotus", "scarab", "eye", "ankh", "number"]
    assert state.next_same(1) == 6 and state.previous_same(16) == 11
    assert new().next_same(1) == 9


@pytest.mark.parametrize("settings, message", [
    ({"valued_cards": "ivory=3x3"}, "missing ebony, marble, cattle, fish, wheat"),
    ({"valued_cards": DEFAULT_VALUED.replace("ivory=3x3", "ivory=3x4")}, "1 to 3 scarabs"),
    ({"valued_cards": DEFAULT_VALUED.replace("ivory=3x3", "ivory=6x3")},
     "ivory has 5 beige cards .1 of its 6 are green., so 1 to 5"),
    ({"green_cards": "wheat=9", "valued_cards": DEFAULT_VALUED}, "wheat has 1 beige cards .9 of its 10"),
    ({"valued_cards": DEFAULT_VALUED.replace("ivory=3x3", "ivory=three")}, "CARDSxSCARABS"),
    ({"valued_cards": DEFAULT_VALUED + ",ivory=1x1"}, "ivory is listed twice"),
    ({"green_cards": "wheat=2,fish=2"}, "9 green cards, got 4"),
    ({"green_cards": "wheat=2,fish=2,cattle=2,marble=1,ebony=1,silk=1"}, "'silk' is not a family"),
    ({"green_cards": "wheat"}, "expected NAME=VALUE"),
    ({"characters": "queen=ivory"}, "9 character cards, got 1"),
    ({"characters": "king=ivory"}, "'king' is not a character"),
    ({"track_symbols": "ankh,eye,scarab"}, "each block is 4 of"),
    ({"track_symbols": "ankh,eye,scarab,sun"}, "each block is 4 of"),
    ({"start_tie_break": "coin"}, "not one of seat_order, random"),
    ({"starting_hand": 3}, "unknown setting"),
])
def test_bad_settings_are_named(settings, message):
    with pytest.raises(BadSettings, match=message):
        new(**settings)



def test_settings_from_cli_strings():
    state = new(start_tie_break="random", track_symbols="ankh,eye,scarab,lotus")
    assert state.settings.start_tie_break == "random"
    assert SOBEK.settings.from_mapping({}).to_dict()["start_tie_break"] == "seat_order"


# -- Bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize("action", ["take:4", "take:9", "play:queen_ivory", "set:silk", "done", "", "TAKE:0",
                                    " take:0", "token:guild", "extend:0"])
def test_illegal_action_is_refused_and_changes_nothing(action):
    state = rig(new(), hands={0: ["wheat_1"]})
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="not legal for seat 0 in phase 'turn'; legal: take:0"):
        state.apply(action)
    assert snapshot(state) == before


def test_refused_mid_set_changes_nothing():
    state = rig(new(), hands={0: ["wheat_1", "wheat_0", "amulet", "fish_1"]})
    play(state, "set:wheat", "card:wheat_1")
    before = snapshot(state)
    for action in ("card:fish_1", "done", "card:wheat_1", "take:0"):
        with pytest.raises(IllegalAction, match="in phase 'set'"):
            state.apply(action)
    assert snapshot(state) == before


def test_refused_out_of_turn_bury_changes_nothing():
    state = rig(new(), hands={0: ["scribe_marble"], 1: ["fish_0"] * 3 + ["cattle_0"] * 3 + ["wheat_0"]})
    play(state, "play:scribe_marble")
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="not legal for seat 1 in phase 'bury'"):
        state.apply("bury:ivory_3")
    assert snapshot(state) == before


def test_no_action_after_the_end():
    state = new()
    for _ in range(3):
        end_round(state)
        if state.phase_name() == "start":
            play(state, "start:0")
    with pytest.raises(IllegalAction, match="the game is over"):
        state.apply("take:0")


# -- Who knows what (targeted; the perturbation tests cover it broadly) -------------------------------
def test_own_hand_and_pile_are_seen_by_the_owner_only():
    state = rig(new(), hands={0: ["ivory_3", "thief_wheat"]}, corruption={0: ["amulet"]})
    mine, other = state.view(0), state.view(1)
    assert mine["hand"] == ["ivory_3", "thief_wheat"] and mine["corruption"] == ["amulet"]
    assert other["players"][0]["hand_size"] == 2 and other["players"][0]["corruption_size"] == 1
    assert "thief_wheat" not in json.dumps(other)


def test_views_and_events_of_random_games_describe_every_event():
    seen = set()
    for seed in range(12):
        n = 2 + seed % 3
        players = [make_strategy("heuristic" if s % 2 else "random", "sobek", seed + s) for s in range(n)]
        state = new(n, seed)
        while not state.is_terminal():
            seat = state.current_player()
            state.apply(players[seat].decide(state.view(seat), state.legal_actions()))
        for event in state.history():
            line = describe_event(event, lambda s: f"seat {s}")
            assert isinstance(line, str) and line, event
            seen.add(event["type"])
    assert {"round", "delivery", "start", "turn", "take", "play", "set", "token", "score", "round_end",
            "corruption", "game_over"} <= seen


def test_events_are_those_since_the_seats_last_decision():
    state = rig(new(), hands={0: []}, market=["wheat_1", "fish_0", "amulet"])
    play(state, "take:1")
    assert [e["type"] for e in state.view(0)["events"]] == ["take", "turn"]
    assert [e["type"] for e in state.view(1)["events"]][-2:] == ["take", "turn"]
