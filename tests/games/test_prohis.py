"""Prohis rules: every check of docs/games/prohis.md, plus each outcome of an inspection."""

from __future__ import annotations

import collections

import pytest

from arena_games import BadSettings, IllegalAction, get_game
from arena_games.prohis import CARDS, ProhisState

from .rig import fill, snapshot

PROHIS = get_game("prohis")


def faces(cards: list[int]) -> list[str]:
    return sorted(CARDS.name(c) for c in cards)


def new(n: int = 4, seed: int = 1, **settings) -> ProhisState:
    state = PROHIS.new_game(n, seed, settings)
    assert isinstance(state, ProhisState)
    return state


def rig(state: ProhisState, hands: dict[int, list[str]] | None = None, market: list[str] | None = None,
        pile_top: list[str] | None = None, active: int = 0) -> ProhisState:
    """Gives the listed seats exactly those hands, sets the market and the top of the pile,
    and makes ``active`` the player to start a turn."""
    spare = [state.pile, state.removed]
    for seat, cards in (hands or {}).items():
        fill(state, CARDS, state.hands[seat], cards, spare)
    if market is not None:
        fill(state, CARDS, state.market, market, spare)
    if pile_top is not None:
        top: list[int] = []
        fill(state, CARDS, top, pile_top, spare)
        state.pile += reversed(top)  # the first listed is the next drawn
    state.active = state.to_act = active
    state.invalidate_caches()
    return state


def play(state: ProhisState, *actions: str) -> None:
    for action in actions:
        state.apply(action)


# -- Players and cards ------------------------------------------------------------------------
@pytest.mark.parametrize("n, legal, illegal, lieutenants", [(3, 40, 20, 6), (4, 40, 20, 6),
                                                            (5, 58, 30, 8), (6, 58, 30, 8)])
def test_deck_sizes(n, legal, illegal, lieutenants):
    state = new(n)
    in_play = state.pile + state.market + [c for hand in state.hands for c in hand]
    counts = collections.Counter(CARDS.name(c) for c in in_play)
    assert (counts["legal"], counts["illegal"], counts["lieutenant"]) == (legal, illegal, lieutenants)
    assert counts["captain"] == counts["major"] == n  # one each; the others leave the game
    assert sorted(in_play + state.removed) == list(range(108))


def test_setup_hands_market_and_first_player():
    for seed in range(20):
        state = new(5, seed)
        for hand in state.hands:
            assert len(hand) == 6
            assert faces(hand).count("captain") == 1 and faces(hand).count("major") == 1
        assert len(state.market) == 4
        assert state.current_player() == state.active
    firsts = {new(4, seed).active for seed in range(40)}
    assert firsts == {0, 1, 2, 3}  # chosen by the seed


# -- A turn: drawing ----------------------------------------------------------------------------
def test_no_draw_offered_with_eight_cards():
    state = rig(new(), hands={0: ["legal"] * 8})
    legal = state.legal_actions()
    assert not [a for a in legal if a.startswith("take:") or a == "pile"]
    assert "convoy:legal" in legal


def test_seven_cards_may_still_draw_two():
    state = rig(new(), hands={0: ["legal"] * 7})
    play(state, "pile")
    assert len(state.hands[0]) == 8
    assert "take:0" in state.legal_actions()  # the second pick is still allowed
    play(state, "take:0")
    assert len(state.hands[0]) == 9 and state.active == 1


def test_market_card_is_replaced_at_once_and_may_be_the_second_pick():
    state = rig(new(), market=["legal", "legal", "legal", "legal"], pile_top=["illegal", "major"])
    play(state, "take:2")
    assert CARDS.name(state.market[2]) == "illegal"
    play(state, "take:2")
    assert faces(state.hands[0]).count("illegal") >= 1
    assert CARDS.name(state.market[2]) == "major"


def test_two_cards_from_the_pile_are_not_allowed():
    state = rig(new())
    play(state, "pile")
    assert "pile" not in state.legal_actions()
    assert {"take:0", "done"} <= set(state.legal_actions())
    state2 = rig(new())
    play(state2, "take:0")
    assert "pile" in state2.legal_actions()


def test_one_card_draw_ends_with_done():
    state = rig(new())
    play(state, "take:1", "done")
    assert state.active == 1 and state.phase_name() == "turn"


def test_forced_pass_with_no_draw_and_one_card():
    state = rig(new(), hands={0: ["legal"]})
    state.removed += state.pile + state.market  # nothing left to draw
    state.pile.clear()
    state.market.clear()
    state.invalidate_caches()
    assert state.legal_actions() == ["pass"]


def test_pass_only_when_allowed_if_pass_anytime_is_off():
    state = rig(new(pass_anytime=False))
    assert "pass" not in state.legal_actions()
    assert "pass" in rig(new(pass_anytime=True)).legal_actions()


# -- A turn: convoys -----------------------------------------------------------------------
def test_convoys_of_one_or_five_cards_are_never_legal():
    state = rig(new(), hands={0: ["legal"] * 6})
    play(state, "convoy:legal")
    assert "done" not in state.legal_actions()  # a convoy of 1
    play(state, "convoy:legal")
    assert "done" in state.legal_actions()
    play(state, "convoy:legal", "convoy:legal")
    assert state.legal_actions() == ["done"]  # no fifth card


def test_a_single_card_cannot_start_a_convoy():
    state = rig(new(), hands={0: ["illegal"]})
    assert not [a for a in state.legal_actions() if a.startswith("convoy:")]


def test_any_card_may_ride_in_a_convoy_in_the_chosen_order():
    state = rig(new(), hands={0: ["major", "illegal", "legal", "lieutenant"]})
    play(state, "convoy:major", "convoy:illegal", "convoy:lieutenant", "convoy:legal", "done")
    assert [CARDS.name(c) for c in state.convoy] == ["major", "illegal", "lieutenant", "legal"]


def claims_setup(n=4, **settings):
    """Seat 0 runs legal+illegal+legal; seat 1 holds a Captain, seat 2 a Captain and a Major,
    seat 3 nothing to claim with."""
    state = rig(new(n, **settings), hands={0: ["legal", "illegal", "legal", "legal"],
                                           1: ["captain", "legal"], 2: ["captain", "major"],
                                           3: ["legal", "illegal"]})
    play(state, "convoy:legal", "convoy:illegal", "convoy:legal", "done")
    return state


# -- Inspection: claims --------------------------------------------------------------------
def test_claims_go_clockwise_from_the_smugglers_left():
    state = claims_setup()
    order = []
    while state.phase_name() == "claim":
        order.append(state.current_player())
        play(state, "decline")
    assert order == [1, 2, 3]


def test_claim_tie_first_captain_beats_a_later_captain():
    state = claims_setup()
    play(state, "claim:captain", "claim:captain", "decline")
    assert state.inspector == 1
    assert faces(state.hands[2]) == ["captain", "major"]  # the later claimant took it back


def test_higher_rank_beats_an_earlier_claim():
    state = claims_setup()
    play(state, "claim:captain", "claim:major", "decline")
    assert state.inspector == 2
    assert faces(state.hands[1]) == ["captain", "legal"]


def test_nobody_claims_convoy_succeeds():
    state = claims_setup()
    play(state, "decline", "decline", "decline")
    assert faces(state.warehouses[0]) == ["illegal", "legal", "legal"]
    assert state.active == 1 and not state.convoy


def test_claim_options_are_the_prohi_cards_held():
    state = claims_setup()
    assert state.legal_actions() == ["claim:captain", "decline"]
    play(state, "decline")
    assert state.legal_actions() == ["claim:captain", "claim:major", "decline"]
    play(state, "decline")
    assert state.legal_actions() == ["decline"]


def test_passed_players_do_not_claim():
    state = rig(new(), hands={0: ["legal", "legal"], 1: ["captain"], 2: ["major"], 3: ["major"]})
    state.passed[2] = True
    play(state, "convoy:legal", "convoy:legal", "done")
    order = []
    while state.phase_name() == "claim":
        order.append(state.current_player())
        play(state, "decline")
    assert order == [1, 3]


# -- Inspection: bribes, waiving, flips ----------------------------------------------------
def inspected_by_major(**settings):
    state = claims_setup(**settings)
    play(state, "decline", "claim:major", "decline")
    assert state.inspector == 2 and state.phase_name() == "bribe"
    return state


def test_bribe_accepted():
    state = inspected_by_major()
    play(state, "bribe:legal", "done")
    assert state.current_player() == 2 and state.view(2)["bribe"] == ["legal"]
    assert state.view(1)["bribe"] == [] and state.view(1)["bribe_card_count"] == 1  # others: the count
    play(state, "accept")
    assert faces(state.warehouses[2]) == ["legal"]  # the bribe, face down
    assert faces(state.hands[2]) == ["captain", "major"]  # Prohi back in hand
    assert faces(state.warehouses[0]) == ["illegal", "legal", "legal"]  # convoy succeeds
    assert faces(state.hands[0]) == []
    assert state.active == 1


def test_bribe_rejected_then_inspection_takes_place():
    state = inspected_by_major()
    play(state, "bribe:legal", "done", "reject")
    assert faces(state.hands[0]) == ["legal"]  # the bribe came back
    assert state.phase_name() == "bribe"
    play(state, "silent")
    assert state.phase_name() == "flip"  # no waiving after a rejected offer
    assert state.flips_left == 3


def test_at_most_three_offers_then_inspection():
    state = inspected_by_major()
    for _ in range(2):
        play(state, "bribe:legal", "done", "reject")
        assert state.phase_name() == "bribe"
    play(state, "bribe:legal", "done", "reject")
    assert state.phase_name() == "flip"


def test_max_bribe_offers_is_a_setting():
    state = inspected_by_major(max_bribe_offers=1)
    play(state, "bribe:legal", "done", "reject")
    assert state.phase_name() == "flip"


def test_waive_banks_the_prohi_in_the_inspectors_warehouse():
    state = inspected_by_major()
    play(state, "silent")
    assert state.current_player() == 2 and state.legal_actions() == ["waive", "inspect"]
    play(state, "waive")
    assert faces(state.warehouses[2]) == ["major"]
    assert faces(state.hands[2]) == ["captain"]
    assert faces(state.warehouses[0]) == ["illegal", "legal", "legal"]


def test_waive_with_reclaim_on_waive_takes_the_prohi_back():
    state = inspected_by_major(reclaim_on_waive=True)
    play(state, "silent", "waive")
    assert faces(state.warehouses[2]) == []
    assert faces(state.hands[2]) == ["captain", "major"]


def test_inspection_finds_illegal_goods_and_seizes_the_convoy():
    state = inspected_by_major()
    play(state, "silent", "inspect", "flip:0")  # legal
    assert state.phase_name() == "flip" and state.flips_left == 2
    play(state, "flip:1")  # illegal: stop
    assert faces(state.warehouses[2]) == ["illegal", "legal", "legal", "major"]  # convoy + own Prohi
    assert faces(state.hands[2]) == ["captain"]
    assert faces(state.warehouses[0]) == [] and faces(state.hands[0]) == ["legal"]
    assert state.active == 1


def test_seizure_without_taking_the_prohi():
    state = inspected_by_major(seizure_takes_prohi=False)
    play(state, "silent", "inspect", "flip:1")
    assert faces(state.warehouses[2]) == ["illegal", "legal", "legal"]
    assert faces(state.hands[2]) == ["captain", "major"]


def test_inspection_of_only_legal_goods_clears_the_convoy():
    state = rig(new(), hands={0: ["legal", "legal", "illegal"], 1: ["lieutenant"], 2: [], 3: []})
    play(state, "convoy:legal", "convoy:legal", "done", "claim:lieutenant", "decline", "decline",
         "silent", "inspect")
    assert state.flips_left == 1  # a Lieutenant turns one card
    play(state, "flip:1")
    assert faces(state.warehouses[0]) == ["legal", "legal"]
    assert faces(state.hands[0]) == ["illegal", "lieutenant"]  # the Smuggler takes the Prohi
    assert faces(state.hands[1]) == [] and faces(state.warehouses[1]) == []


def test_flips_never_exceed_the_convoy():
    state = rig(new(), hands={0: ["legal", "legal"], 1: ["major"], 2: [], 3: []})
    play(state, "convoy:legal", "convoy:legal", "done", "claim:major", "decline", "decline",
         "silent", "inspect")
    assert state.flips_left == 2
    play(state, "flip:0", "flip:1")
    assert faces(state.warehouses[0]) == ["legal", "legal"] and faces(state.hands[0]) == ["major"]


def test_revealing_a_prohi_card_stops_the_inspection_and_clears_the_convoy():
    state = rig(new(), hands={0: ["captain", "illegal", "legal"], 1: ["major"], 2: [], 3: []})
    play(state, "convoy:captain", "convoy:illegal", "done", "claim:major", "decline", "decline",
         "silent", "inspect", "flip:0")
    assert faces(state.warehouses[0]) == ["captain", "illegal"]  # the illegal good slipped through
    assert faces(state.hands[0]) == ["legal", "major"]
    assert state.active == 1


def test_only_flipped_cards_are_revealed_to_everyone():
    state = rig(new(), hands={0: ["legal", "illegal", "legal"], 1: ["captain"], 2: [], 3: []})
    play(state, "convoy:legal", "convoy:illegal", "convoy:legal", "done", "claim:captain",
         "decline", "decline", "silent", "inspect", "flip:2")
    assert state.view(3)["convoy"] == ["unknown", "unknown", "legal"]
    assert state.view(0)["convoy"] == ["legal", "illegal", "legal"]  # the Smuggler knows


# -- End of the game --------------------------------------------------------------------
def test_end_trigger_and_final_round():
    state = rig(new(), market=["legal", "legal", "legal", "legal"], active=1)
    state.removed += state.pile[1:]  # one card left in the pile
    del state.pile[1:]
    play(state, "take:0", "take:1")  # the pile empties and the market is short
    assert state.end_triggered
    assert state.final_turns == [3, 0, 1]  # next players, the trigger last
    assert state.active == 2
    for seat, actions in ((2, ["take:0", "done"]), (3, ["take:0", "done"]),
                          (0, ["take:0"]),  # the last market card: nothing left for a second pick
                          (1, ["pass"])):
        assert state.current_player() == seat and not state.is_terminal()
        play(state, *actions)
    assert state.is_terminal()


def test_final_round_skips_passed_players():
    state = rig(new(), market=["legal", "legal", "legal", "legal"], active=1)
    state.passed[3] = True
    state.removed += state.pile
    state.pile.clear()
    play(state, "take:0", "done")
    assert state.final_turns == [0, 1] and state.active == 2


def test_every_player_passing_ends_the_game():
    state = rig(new())
    for seat in (0, 1, 2):
        assert state.current_player() == seat
        play(state, "pass")
    assert not state.is_terminal()
    play(state, "pass")
    assert state.is_terminal() and state.current_player() == -1


def test_passed_players_take_no_more_turns():
    state = rig(new())
    play(state, "pass")
    for _ in range(6):
        assert state.current_player() != 0
        play(state, "take:0", "done")


# -- Scoring -------------------------------------------------------------------------------
def test_scoring_example_from_the_rules():
    state = new()
    spare = [state.pile, state.removed]
    fill(state, CARDS, state.warehouses[0], ["legal", "illegal", "major"], spare)
    fill(state, CARDS, state.hands[0], ["illegal", "captain"], spare)
    assert state.scores()[0] == 8000


@pytest.mark.parametrize("face, warehouse, hand", [("legal", 1000, 0), ("illegal", 4000, -4000),
                                                   ("lieutenant", 3000, 1000), ("captain", 4000, 2000),
                                                   ("major", 5000, 3000)])
def test_scoring_table(face, warehouse, hand):
    state = new()
    spare = [state.pile, state.removed]
    fill(state, CARDS, state.hands[0], [], spare)
    fill(state, CARDS, state.warehouses[0], [face], spare)
    assert state.scores()[0] == warehouse
    fill(state, CARDS, state.warehouses[0], [], spare)
    fill(state, CARDS, state.hands[0], [face], spare)
    assert state.scores()[0] == hand


def test_equal_money_shares_the_place():
    state = new()
    spare = [state.pile, state.removed]
    for seat, cards in enumerate([["major"], ["major"], ["legal"], []]):
        fill(state, CARDS, state.hands[seat], [], spare)
        fill(state, CARDS, state.warehouses[seat], cards, spare)
    assert state.ranks() == [1, 1, 3, 4]


def test_tie_break_most_illegal_setting():
    state = new(tie_break="most_illegal")
    spare = [state.pile, state.removed]
    for seat, cards in enumerate([["legal"] * 4, ["illegal"], ["illegal"], []]):
        fill(state, CARDS, state.hands[seat], [], spare)
        fill(state, CARDS, state.warehouses[seat], cards, spare)
    assert state.ranks() == [3, 1, 1, 4]


# -- Bad input -----------------------------------------------------------------------------
@pytest.mark.parametrize("action", ["take:9", "convoy:joker", "", "done", "flip:0", "TAKE:0", " pass"])
def test_illegal_action_is_refused_and_changes_nothing(action):
    state = rig(new())
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="not legal for seat 0 in phase 'turn'; legal: take:0"):
        state.apply(action)
    assert snapshot(state) == before


def test_refused_mid_inspection_changes_nothing():
    state = inspected_by_major()
    play(state, "bribe:legal")
    before = snapshot(state)
    with pytest.raises(IllegalAction):
        state.apply("bribe:major")  # not in the Smuggler's hand
    assert snapshot(state) == before


def test_no_action_after_the_end():
    state = rig(new())
    play(state, "pass", "pass", "pass", "pass")
    with pytest.raises(IllegalAction, match="the game is over"):
        state.apply("pass")


@pytest.mark.parametrize("settings, message", [
    ({"max_bribe_offers": 0}, "at least 1"),
    ({"max_bribe_offers": "many"}, "expected an integer"),
    ({"reclaim_on_wave": True}, "unknown setting"),
    ({"tie_break": "coin"}, "not one of none, most_illegal"),
    ({"pass_anytime": "perhaps"}, "expected true or false"),
])
def test_bad_settings_are_named(settings, message):
    with pytest.raises(BadSettings, match=message):
        new(**settings)


def test_settings_from_cli_strings():
    state = new(pass_anytime="false", max_bribe_offers="2", tie_break="most_illegal")
    assert state.settings.pass_anytime is False and state.settings.max_bribe_offers == 2


# -- Who knows what (targeted; the perturbation tests cover it broadly) -------------------
def test_card_drawn_from_the_pile_is_seen_by_the_drawer_only():
    state = rig(new(), pile_top=["illegal"])
    play(state, "pile")
    drawer = [e for e in state.view(0)["events"] if e["type"] == "pile"]
    other = [e for e in state.view(1)["events"] if e["type"] == "pile"]
    assert drawer == [{"type": "pile", "seat": 0, "card": "illegal"}]
    assert other == [{"type": "pile", "seat": 0}]


def test_events_are_those_since_the_seats_last_decision():
    state = rig(new())
    play(state, "take:0")
    assert [e["type"] for e in state.view(0)["events"]] == ["take", "refill"]
    play(state, "done")
    assert [e["type"] for e in state.view(0)["events"]] == ["turn"]
    assert [e["type"] for e in state.view(1)["events"]][:3] == ["turn", "take", "refill"]
