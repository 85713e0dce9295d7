"""Bandits rules: every check of docs/games/bandits.md, its example, and each kind of decision."""

from __future__ import annotations

import collections
import hashlib
import json
import random

import pytest

from arena_games import BadPlayerCount, BadSettings, IllegalAction, get_game
from arena_games.bandits import CARDS, BanditsState
from arena_protocol import codec
from arenabot.strategies import BanditsHeuristic, make_strategy
from referee.selfplay import play as self_play

from .rig import all_cards, fill, snapshot

BANDITS = get_game("bandits")


def faces(cards: list[int]) -> list[str]:
    return sorted(CARDS.name(c) for c in cards)


def new(n: int = 3, seed: int = 1, **settings) -> BanditsState:
    state = BANDITS.new_game(n, seed, settings)
    assert isinstance(state, BanditsState)
    return state


def rig(state: BanditsState, hands: dict[int, list[str]] | None = None,
        hideouts: dict[int, list[str]] | None = None, pile_top: list[str] | None = None,
        active: int = 0) -> BanditsState:
    """Gives the listed seats exactly those hands and hideouts, puts ``pile_top`` on the pile
    (the first listed is drawn first), and makes ``active`` the player to start a turn.

    Cards come from the pile, the Boneyard, then the hands of seats not listed."""
    hands, hideouts = hands or {}, hideouts or {}
    others = [state.hands[s] for s in range(state.num_players) if s not in hands]
    spare = [state.pile, state.boneyard, *others]
    for seat, cards in hands.items():
        fill(state, CARDS, state.hands[seat], cards, spare)
    for seat, cards in hideouts.items():
        fill(state, CARDS, state.hideouts[seat], cards, spare)
    if pile_top is not None:
        top: list[int] = []
        fill(state, CARDS, top, pile_top, spare)
        state.pile += reversed(top)
    state.active = state.to_act = active
    state.invalidate_caches()
    return state


def leave_in_pile(state: BanditsState, count: int) -> None:
    """Keeps only the top ``count`` cards of the pile; the rest go to the Boneyard."""
    state.boneyard += state.pile[:-count]
    del state.pile[:-count]


def play(state: BanditsState, *actions: str) -> None:
    for action in actions:
        state.apply(action)
        assert sorted(all_cards(state)) == list(range(100)), f"cards not conserved after {action}"


def events(state: BanditsState, seat: int | None = None, kinds: tuple[str, ...] = ()) -> list[dict]:
    return [e for e in state.history(seat) if not kinds or e["type"] in kinds]


LOOT6 = ["gold_2", "gold_3", "bag_1", "bag_2", "bag_3", "bag_4"]
REFILLS = ["tracker", "outlaw_1", "outlaw_2", "outlaw_4", "outlaw_5", "tracker", "booby_trap"]


# -- Players and cards ------------------------------------------------------------------------
def test_deck_of_100_cards_with_the_counts_of_the_rules():
    counts = collections.Counter(CARDS.name(c) for c in range(len(CARDS)))
    assert len(CARDS) == 100
    assert [counts[f"gold_{v}"] for v in (2, 3, 4, 5, 6)] == [6, 5, 5, 4, 3]
    assert [counts[f"bag_{v}"] for v in (1, 2, 3, 4)] == [7, 6, 6, 5]
    assert [counts[f"outlaw_{v}"] for v in range(1, 7)] == [4, 4, 4, 3, 3, 1]
    assert [counts[f"lawman_{v}"] for v in range(1, 7)] == [4, 4, 4, 3, 3, 1]
    assert [counts[f"two_faced_{v}"] for v in (1, 2, 3)] == [3, 4, 3]
    assert (counts["tracker"], counts["backfire"], counts["booby_trap"]) == (2, 2, 1)
    loot = sum(k for name, k in counts.items() if name.startswith(("gold_", "bag_")))
    assert loot == 47


# Whole games played with the default settings, by seed-driven random choices, before the deck
# became a setting: (players, seed) -> the start of the SHA-256 of their history, views and scores.
GAMES_BEFORE_THE_DECK_SETTINGS = {2: "076fbe79238ea6ce", 3: "7f231479de924afd", 4: "09355621803e4ff3",
                                  5: "273c8e68b55771ee", 6: "9e84b89c4d73b458"}


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_the_default_settings_deal_and_play_the_same_games_as_before(n):
    state, rng = new(n, n), random.Random(n)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    game = json.dumps([state.history(), [state.view(s) for s in range(n)], state.scores()], sort_keys=True)
    assert hashlib.sha256(game.encode()).hexdigest()[:16] == GAMES_BEFORE_THE_DECK_SETTINGS[n]


def test_a_deck_of_other_values_and_counts_plays_to_the_end():
    deck = {"gold_bars": "10x6", "money_bags": "", "outlaws": "8x1,2x6", "lawmen": " 9 x 2 ", "two_faced": "",
            "trackers": "0", "backfires": "3", "booby_traps": "2"}  # as the CLI gives them
    state = new(3, 0, **deck)
    counts = collections.Counter(state.cards.name(c) for c in range(len(state.cards)))
    assert counts == {"gold_6": 10, "outlaw_1": 8, "outlaw_6": 2, "lawman_2": 9, "backfire": 3, "booby_trap": 2}
    assert len(state.pile) == 34 - 3 * 6
    kinds: set[str] = set()
    for seed in range(30):
        state, rng = new(3, seed, **deck), random.Random(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            assert not any(a.startswith("raid:") for a in legal), "a raid without a Tracker"
            state.apply(rng.choice(legal))
            assert sorted(all_cards(state)) == list(range(34))
        kinds |= {e["type"] for e in state.history()}
        assert all(total % 6 == 0 for total in state.scores()), "only Gold Bars worth 6 score"
        view = state.view(seed % 3)
        assert codec.decode_view(*codec.encode_view(view)) == view
    assert {"stash", "beaten", "take_hand", "backfire", "round_over"} <= kinds


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_six_cards_dealt_to_each_player_and_the_rest_is_the_pile(n):
    state = new(n)
    assert [len(h) for h in state.hands] == [6] * n
    assert len(state.pile) == 100 - 6 * n
    assert sorted(all_cards(state)) == list(range(100))
    assert state.hideouts == [[] for _ in range(n)] and state.boneyard == []
    assert state.view(0)["players"][n - 1] == {"hand_size": 6, "hideout_size": 0, "total": 0}


@pytest.mark.parametrize("n", [1, 7])
def test_two_to_six_players(n):
    with pytest.raises(BadPlayerCount, match="2 to 6 players"):
        new(n)


def test_first_player_is_chosen_by_the_seed_or_is_seat_0():
    assert {new(4, seed).active for seed in range(40)} == {0, 1, 2, 3}
    assert new(4, 5).active == new(4, 5).active  # the same seed, the same first player
    assert {new(4, seed, first_player="seat0").active for seed in range(10)} == {0}
    assert new(4, 3).current_player() == new(4, 3).active


# -- A turn ----------------------------------------------------------------------------------
def test_turn_lists_draw_attacks_raids_and_stashes():
    state = rig(new(), hands={0: ["outlaw_1", "tracker", "gold_2", "gold_2", "gold_5", "booby_trap"]})
    assert state.legal_actions() == ["draw", "attack:1", "attack:2", "raid:1", "raid:2",
                                     "stash:gold_2", "stash:gold_5", "stash:booby_trap"]


def test_no_attack_without_a_gun_card_and_no_raid_without_a_tracker():
    state = rig(new(), hands={0: ["tracker", "lawman_6", "gold_2", "bag_1", "bag_2", "backfire"]})
    assert state.legal_actions() == ["draw"]
    state = rig(new(), hands={0: ["two_faced_1", "lawman_6", "gold_2", "bag_1", "bag_2", "backfire"]})
    assert state.legal_actions() == ["draw", "attack:1", "attack:2"]


def test_draw_takes_the_top_card_and_ends_the_turn():
    state = rig(new(), hands={0: LOOT6}, pile_top=["outlaw_6"])
    play(state, "draw")
    assert faces(state.hands[0]).count("outlaw_6") == 1 and len(state.hands[0]) == 7
    assert state.active == 1 and state.phase_name() == "turn" and state.current_player() == 1
    assert events(state, 0, ("draw",)) == [{"type": "draw", "seat": 0, "card": "outlaw_6"}]
    assert events(state, 1, ("draw",)) == [{"type": "draw", "seat": 0}]


# -- Fights: attacking a hand ----------------------------------------------------------------
def example(*defence: str) -> BanditsState:
    """The rules' example: Outlaw 3 and Two-Faced 2 attack seat 1, who holds ``defence``
    and loot."""
    loot = ["gold_4", "gold_5", "bag_3", "bag_4", "gold_6"][: 6 - len(defence)]
    state = rig(new(), hands={0: ["outlaw_3", "two_faced_2", "gold_2", "gold_3", "bag_1", "bag_2"],
                              1: [*defence, *loot],
                              2: LOOT6},
                pile_top=REFILLS)
    play(state, "attack:1")
    assert state.phase_name() == "attack" and state.current_player() == 0
    assert state.legal_actions() == ["gun:outlaw_3", "gun:two_faced_2"]  # no done before a gun card
    play(state, "gun:outlaw_3")
    assert state.legal_actions() == ["gun:two_faced_2", "done"]
    play(state, "gun:two_faced_2", "done")
    assert state.phase_name() == "defend" and state.current_player() == 1
    assert state.view(2)["guns"] == 5 and state.view(2)["attack"] == ["outlaw_3", "two_faced_2"]
    return state


def test_example_3_plus_2_guns_defended_by_5_stars():
    state = example("lawman_5")
    assert state.legal_actions() == ["star:lawman_5", "done"]
    play(state, "star:lawman_5", "done")
    assert events(state, kinds=("defended",)) == [{"type": "defended", "seat": 1, "guns": 5, "stars": 5}]
    assert faces(state.boneyard) == ["lawman_5", "outlaw_3", "two_faced_2"]  # every card played
    # Nothing changed hands; both refilled to 6, the attacker first.
    assert faces(state.hands[0]) == sorted(["gold_2", "gold_3", "bag_1", "bag_2", *REFILLS[:2]])
    assert faces(state.hands[1]) == sorted(["gold_4", "gold_5", "gold_6", "bag_3", "bag_4", REFILLS[2]])
    assert [e["seat"] for e in events(state, kinds=("refill",))] == [0, 1]
    assert state.active == 1 and state.phase_name() == "turn"


def test_example_3_plus_2_guns_beat_4_stars():
    state = example("lawman_4")
    play(state, "star:lawman_4", "done")
    assert events(state, kinds=("beaten",)) == [{"type": "beaten", "seat": 1, "guns": 5, "stars": 4}]
    # The defender gives every card left in hand to the attacker, then refills 6.
    assert faces(state.hands[0]) == ["bag_1", "bag_2", "bag_3", "bag_4", "gold_2", "gold_3", "gold_4",
                                     "gold_5", "gold_6"]
    assert faces(state.hands[1]) == sorted(REFILLS[:6])


def test_two_faced_cards_count_as_stars_in_defence():
    state = example("two_faced_3", "two_faced_2")
    assert state.legal_actions() == ["star:two_faced_2", "star:two_faced_3", "done"]
    play(state, "star:two_faced_3")
    assert state.view(0)["stars"] == 3
    play(state, "star:two_faced_2", "done")
    assert events(state, kinds=("defended",))[0]["stars"] == 5


def test_refill_order_after_a_lost_hand_attack_attacker_first_then_defender():
    guns = ["outlaw_1", "outlaw_2", "outlaw_3", "outlaw_4", "outlaw_5", "outlaw_6"]
    state = rig(new(), hands={0: guns, 1: ["lawman_1", "gold_6", "gold_6", "gold_6", "gold_5", "gold_5"],
                              2: LOOT6},
                pile_top=["tracker", "lawman_2", "lawman_2", "lawman_2", "lawman_2", "bag_4", "bag_4"])
    play(state, "attack:1", *(f"gun:{g}" for g in guns), "done", "star:lawman_1", "done")
    # The attacker holds the 5 cards won and draws 1 first; the defender then draws 6.
    assert faces(state.hands[0]) == ["gold_5", "gold_5", "gold_6", "gold_6", "gold_6", "tracker"]
    assert faces(state.hands[1]) == ["bag_4", "bag_4", "lawman_2", "lawman_2", "lawman_2", "lawman_2"]
    assert [(e["seat"], e["count"]) for e in events(state, kinds=("refill",))] == [(0, 1), (1, 6)]


def test_defender_may_play_nothing_and_loses_the_hand():
    state = example("lawman_6")
    assert "done" in state.legal_actions()
    play(state, "done")
    assert events(state, kinds=("beaten",))[0]["stars"] == 0
    assert "lawman_6" in faces(state.hands[0])


def test_defender_may_go_on_playing_stars_once_the_guns_are_matched():
    state = rig(new(), hands={0: ["outlaw_1", *LOOT6[:5]], 1: ["lawman_2", "lawman_3", *LOOT6[:4]]})
    play(state, "attack:1", "gun:outlaw_1", "done", "star:lawman_2")
    assert state.legal_actions() == ["star:lawman_3", "done"]
    play(state, "star:lawman_3", "done")
    assert faces(state.boneyard) == ["lawman_2", "lawman_3", "outlaw_1"]


def test_cards_won_from_a_hand_are_seen_by_the_two_players_involved():
    state = example("lawman_1")
    play(state, "star:lawman_1", "done")
    cards = ["gold_4", "gold_5", "gold_6", "bag_3", "bag_4"]  # in face order, as views list cards
    full = {"type": "take_hand", "seat": 0, "target": 1, "count": 5, "cards": cards}
    assert events(state, 0, ("take_hand",)) == [full]
    assert events(state, 1, ("take_hand",)) == [full]
    assert events(state, 2, ("take_hand",)) == [{"type": "take_hand", "seat": 0, "target": 1, "count": 5}]


# -- Fights: raiding a hideout ---------------------------------------------------------------
def raid_setup(hideout: list[str], **settings) -> BanditsState:
    state = rig(new(**settings), hands={0: ["tracker", "outlaw_6", *LOOT6[:4]],
                                        1: ["lawman_1", *LOOT6[1:]], 2: LOOT6},
                hideouts={1: hideout})
    play(state, "raid:1")
    assert faces(state.attack) == ["tracker"] and state.view(1)["raid"] is True
    assert state.legal_actions() == ["gun:outlaw_6"]  # a Tracker alone is not a raid
    play(state, "gun:outlaw_6", "done")
    return state


def test_raid_lost_takes_6_random_cards_into_the_raiders_hideout():
    hideout = ["gold_2", "gold_3", "gold_4", "gold_5", "gold_6", "bag_1", "bag_2", "bag_3"]
    state = raid_setup(hideout)
    play(state, "star:lawman_1", "done")
    assert len(state.hideouts[0]) == 6 and len(state.hideouts[1]) == 2
    assert sorted(faces(state.hideouts[0]) + faces(state.hideouts[1])) == sorted(hideout)
    assert faces(state.boneyard) == ["lawman_1", "outlaw_6", "tracker"]
    taken = events(state, 2, ("take_hideout",))
    assert taken == [{"type": "take_hideout", "seat": 0, "target": 1, "count": 6}]  # others: the count
    assert events(state, 1, ("take_hideout",))[0]["cards"] == CARDS.sorted_names(state.hideouts[0])


def test_the_cards_a_raid_takes_are_drawn_by_the_seed():
    hideout = ["gold_2", "gold_3", "gold_4", "gold_5", "gold_6", "bag_1", "bag_2", "bag_3"]
    left = set()
    for seed in range(12):
        state = rig(new(seed=seed), hands={0: ["tracker", "outlaw_6", *LOOT6[:4]], 1: LOOT6},
                    hideouts={1: hideout})
        play(state, "raid:1", "gun:outlaw_6", "done", "done")
        left.add(tuple(faces(state.hideouts[1])))
    assert len(left) > 1


def test_raid_lost_takes_everything_from_a_small_hideout():
    state = raid_setup(["gold_6", "bag_4"])
    play(state, "done")
    assert faces(state.hideouts[0]) == ["bag_4", "gold_6"] and state.hideouts[1] == []


def test_raid_defended_changes_nothing_but_the_cards_played():
    state = rig(new(), hands={0: ["tracker", "outlaw_1", *LOOT6[:4]], 1: ["lawman_1", *LOOT6[1:]]},
                hideouts={1: ["gold_6", "bag_4"]})
    play(state, "raid:1", "gun:outlaw_1", "done", "star:lawman_1", "done")
    assert faces(state.hideouts[1]) == ["bag_4", "gold_6"] and state.hideouts[0] == []
    assert faces(state.boneyard) == ["lawman_1", "outlaw_1", "tracker"]


def test_a_raid_may_name_an_empty_hideout():
    state = rig(new(), hands={0: ["tracker", "outlaw_1", *LOOT6[:4]]})
    assert "raid:2" in state.legal_actions()
    play(state, "raid:2", "gun:outlaw_1", "done", "done")
    assert events(state, kinds=("take_hideout",)) == [{"type": "take_hideout", "seat": 0, "target": 2,
                                                       "count": 0}]


def test_booby_trap_goes_off_and_the_raider_takes_nothing():
    state = raid_setup(["gold_6", "gold_5", "booby_trap"])
    play(state, "done")
    assert state.hideouts[0] == [] and faces(state.hideouts[1]) == ["gold_5", "gold_6"]
    assert "booby_trap" in faces(state.boneyard)
    assert events(state, kinds=("trap",)) == [{"type": "trap", "seat": 0, "target": 1}]


def test_booby_trap_that_does_not_go_off_is_carried_off_like_any_card():
    state = raid_setup(["gold_6", "gold_5", "booby_trap"], booby_trap_goes_off=False)
    play(state, "done")
    assert faces(state.hideouts[0]) == ["booby_trap", "gold_5", "gold_6"] and state.hideouts[1] == []


# -- Fights: Backfire ----------------------------------------------------------------------------
def backfire_setup(raid: bool = False, attacker_hideout: list[str] | None = None,
                   **settings) -> BanditsState:
    """Seat 0 attacks (or raids) seat 1 with an Outlaw 5; seat 1 holds a Backfire."""
    hand = ["outlaw_5", "lawman_2", "lawman_3", "backfire", "gold_2", "gold_3"]
    if raid:
        hand = ["tracker", *hand[:5]]
    defender = ["backfire", "lawman_1", "gold_4", "gold_5", "bag_3", "bag_4"]
    state = rig(new(**settings), hands={0: hand, 1: defender, 2: LOOT6},
                hideouts={0: attacker_hideout or [], 1: ["gold_6"]})
    play(state, "raid:1" if raid else "attack:1", "gun:outlaw_5", "done")
    return state


def test_backfire_makes_the_attacker_defend_against_their_own_guns():
    state = backfire_setup()
    assert state.legal_actions() == ["star:lawman_1", "backfire", "done"]
    play(state, "backfire")
    assert state.phase_name() == "backfire" and state.current_player() == 0
    # A Backfire cannot be answered by a Backfire, even by an attacker holding one.
    assert state.legal_actions() == ["star:lawman_2", "star:lawman_3", "done"]
    assert state.view(2)["defence"] == ["backfire"]


def test_backfire_only_instead_of_stars():
    state = backfire_setup()
    play(state, "star:lawman_1")
    assert state.legal_actions() == ["done"]


def test_backfire_attacker_fails_and_the_defender_wins_the_attackers_hand():
    state = backfire_setup()
    play(state, "backfire", "star:lawman_2", "done")  # 2 stars against 5 guns
    assert events(state, kinds=("beaten",)) == [{"type": "beaten", "seat": 0, "guns": 5, "stars": 2}]
    taken = ["gold_2", "gold_3", "lawman_3", "backfire"]
    assert events(state, 1, ("take_hand",))[0] == {"type": "take_hand", "seat": 1, "target": 0, "count": 4,
                                                   "cards": taken}
    assert set(taken) <= set(faces(state.hands[1]))
    assert faces(state.boneyard) == ["backfire", "lawman_2", "outlaw_5"]
    assert [(e["seat"], e["count"]) for e in events(state, kinds=("refill",))] == [(0, 6)]  # 1 holds 9


def test_backfire_attacker_holds_and_nothing_changes_hands():
    state = backfire_setup()
    play(state, "backfire", "star:lawman_2")
    v = state.view(2)
    assert (v["phase"], v["to_act"], v["attacker"], v["defender"]) == ("backfire", 0, 0, 1)
    assert (v["guns"], v["defence"], v["stars"], v["counter"], v["counter_stars"]) == (
        5, ["backfire"], 0, ["lawman_2"], 2)
    play(state, "star:lawman_3", "done")
    assert events(state, kinds=("defended",)) == [{"type": "defended", "seat": 0, "guns": 5, "stars": 5}]
    assert {"backfire", "gold_2", "gold_3"} <= set(faces(state.hands[0]))


def test_backfired_raid_gives_the_defender_cards_of_the_attackers_hideout():
    state = backfire_setup(raid=True, attacker_hideout=["gold_2", "gold_3", "bag_1"])
    play(state, "backfire", "done")
    assert faces(state.hideouts[1]) == ["bag_1", "gold_2", "gold_3", "gold_6"] and state.hideouts[0] == []


def test_backfired_raid_sets_off_the_attackers_booby_trap():
    state = backfire_setup(raid=True, attacker_hideout=["gold_2", "booby_trap"])
    play(state, "backfire", "done")
    assert faces(state.hideouts[0]) == ["gold_2"] and faces(state.hideouts[1]) == ["gold_6"]
    assert events(state, kinds=("trap",)) == [{"type": "trap", "seat": 1, "target": 0}]


def test_without_the_backfire_rule_the_backfires_are_set_aside():
    state = new(backfire=False)
    assert faces(state.removed) == ["backfire", "backfire"]
    assert sorted(all_cards(state)) == list(range(100))
    assert len(state.pile) == 100 - 2 - 18
    assert state.view(1)["removed"] == ["backfire", "backfire"]
    assert "backfire" not in [CARDS.name(c) for h in state.hands for c in h]
    assert new().removed == []


# -- Stashes -------------------------------------------------------------------------------------
def test_stash_of_three_gold_bars_with_the_booby_trap():
    state = rig(new(), hands={0: ["gold_2", "gold_6", "gold_6", "bag_1", "booby_trap", "outlaw_1"]})
    play(state, "stash:gold_6")
    assert state.phase_name() == "stash"
    # No done with 1 loot card.
    assert state.legal_actions() == ["stash:gold_2", "stash:gold_6", "stash:booby_trap"]
    play(state, "stash:booby_trap", "stash:gold_6")
    assert state.legal_actions() == ["stash:gold_2"]  # a trap is not loot: still 2 loot cards
    assert state.view(1)["stash"] == ["unknown"] * 3  # face down
    assert state.view(0)["stash"] == ["gold_6", "gold_6", "booby_trap"]
    play(state, "stash:gold_2")
    assert state.legal_actions() == ["done"]
    play(state, "done")
    assert faces(state.hideouts[0]) == ["booby_trap", "gold_2", "gold_6", "gold_6"]
    assert len(state.hands[0]) == 6  # refilled after the stash
    assert events(state, 1, ("stash",)) == [{"type": "stash", "seat": 0, "count": 4}]
    assert events(state, 0, ("stash",))[0]["cards"] == ["gold_2", "gold_6", "gold_6", "booby_trap"]
    assert state.view(1)["players"][0]["hideout_size"] == 4 and state.view(1)["hideout"] == []
    assert state.active == 1


def test_stash_of_two_loot_is_refused():
    state = rig(new(), hands={0: ["gold_2", "gold_3", "bag_1", "bag_2", "outlaw_1", "booby_trap"]})
    assert not [a for a in state.legal_actions() if a.startswith("stash:")]
    state = rig(new(), hands={0: ["gold_2", "gold_3", "gold_4", "bag_2", "outlaw_1", "lawman_1"]})
    play(state, "stash:gold_2", "stash:gold_3")
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="'done' is not legal for seat 0 in phase 'stash'"):
        state.apply("done")
    assert snapshot(state) == before


def test_stash_of_mixed_kinds_is_refused():
    state = rig(new(), hands={0: ["gold_2", "gold_3", "bag_1", "outlaw_1", "lawman_1", "tracker"]})
    assert not [a for a in state.legal_actions() if a.startswith("stash:")]  # 3 loot, but 2 kinds
    state = rig(new(), hands={0: ["gold_2", "gold_3", "gold_4", "bag_1", "bag_2", "bag_3"]})
    play(state, "stash:gold_2")
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="'stash:bag_1' is not legal"):
        state.apply("stash:bag_1")
    assert snapshot(state) == before
    play(state, "stash:gold_3", "stash:gold_4", "done")
    assert faces(state.hideouts[0]) == ["gold_2", "gold_3", "gold_4"]


def test_stash_containing_an_outlaw_is_refused():
    state = rig(new(), hands={0: ["gold_2", "gold_3", "gold_4", "outlaw_1", "lawman_1", "tracker"]})
    for action in ("stash:outlaw_1", "stash:lawman_1", "stash:tracker"):
        before = snapshot(state)
        with pytest.raises(IllegalAction, match="not legal"):
            state.apply(action)
        assert snapshot(state) == before
    play(state, "stash:gold_2", "stash:gold_3")
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="'stash:outlaw_1' is not legal for seat 0 in phase 'stash'"):
        state.apply("stash:outlaw_1")
    assert snapshot(state) == before


def test_stash_may_start_with_the_booby_trap():
    state = rig(new(), hands={0: ["booby_trap", "gold_2", "gold_3", "bag_1", "bag_2", "bag_3", "gold_4"]})
    play(state, "stash:booby_trap")
    assert state.legal_actions() == ["stash:gold_2", "stash:gold_3", "stash:gold_4", "stash:bag_1",
                                     "stash:bag_2", "stash:bag_3"]
    play(state, "stash:bag_2")
    assert state.legal_actions() == ["stash:bag_1", "stash:bag_3"]  # the kind is fixed now


# -- Rounds and scoring ---------------------------------------------------------------------------
def test_round_ends_when_the_last_card_is_drawn_and_hideouts_score():
    state = rig(new(), hands={0: ["gold_6", "outlaw_1", *LOOT6[:4]]},
                hideouts={0: ["gold_6", "gold_5", "bag_1", "booby_trap"], 1: ["bag_4"]})
    leave_in_pile(state, 1)
    boneyard_and_hideouts = sorted(state.boneyard + state.hideouts[0] + state.hideouts[1])
    play(state, "draw")
    assert events(state, kinds=("round_over",)) == [
        {"type": "round_over", "round": 1, "round_scores": [12, 4, 0], "totals": [12, 4, 0]}]
    assert state.scores() == [12, 4, 0]  # loot in hands counts nothing, nor does the trap
    # The Boneyard and every hideout make the new pile; hands are kept.
    assert sorted(state.pile) == boneyard_and_hideouts
    assert state.boneyard == [] and state.hideouts == [[], [], []] and len(state.hands[0]) == 7
    assert state.round == 2 and state.view(2)["round"] == 2
    assert events(state, kinds=("new_round",))[-1] == {"type": "new_round", "round": 2,
                                                       "pile_size": len(boneyard_and_hideouts)}
    assert state.active == 1 and state.phase_name() == "turn"  # play resumes with the next player


def test_round_ends_at_once_during_a_refill_and_the_refill_resumes_from_the_new_pile():
    state = rig(new(), hands={0: ["outlaw_1", "outlaw_2", "outlaw_3", *LOOT6[:3]],
                              1: ["lawman_6", *LOOT6[:5]], 2: LOOT6})
    leave_in_pile(state, 2)
    play(state, "attack:1", "gun:outlaw_1", "gun:outlaw_2", "gun:outlaw_3", "done", "star:lawman_6", "done")
    log = [(e["type"], e.get("seat"), e.get("count")) for e in events(state)[-6:]]
    assert log == [("refill", 0, 2),  # the attacker takes the last 2 cards: the round is over at once
                   ("round_over", None, None), ("new_round", None, None),
                   ("refill", 0, 1), ("refill", 1, 1),  # the refills go on in order, from the new pile
                   ("turn", 1, None)]
    assert [len(h) for h in state.hands] == [6, 6, 6] and state.round == 2


@pytest.mark.parametrize("n, total", [(2, 60), (3, 50), (4, 40), (5, 35), (6, 30)])
def test_winning_totals_by_player_count(n, total):
    assert new(n).winning_total == total and new(n).view(0)["winning_total"] == total
    assert new(n, winning_total=25).winning_total == 25


def test_a_total_that_is_enough_wins_at_the_end_of_the_round():
    state = rig(new(), hands={0: LOOT6},
                hideouts={0: ["gold_6"] * 3 + ["gold_5"] * 4 + ["gold_4"] * 3, 1: ["bag_3"] * 4})
    leave_in_pile(state, 1)
    play(state, "draw")
    assert state.is_terminal() and state.current_player() == -1 and state.legal_actions() == []
    assert state.scores() == [50, 12, 0] and state.ranks() == [1, 2, 3]
    assert events(state)[-1] == {"type": "game_over", "scores": [50, 12, 0]}


def test_below_the_winning_total_the_game_goes_on():
    state = rig(new(), hands={0: LOOT6}, hideouts={0: ["gold_6"] * 3 + ["gold_5"] * 4 + ["gold_4"] * 2})
    leave_in_pile(state, 1)
    play(state, "draw")
    assert not state.is_terminal() and state.scores() == [46, 0, 0] and state.round == 2


def test_a_tie_at_the_top_plays_one_more_round():
    state = rig(new(winning_total=20), hands={0: LOOT6},
                hideouts={0: ["gold_6", "gold_6", "gold_4", "gold_4"], 1: ["gold_5"] * 4, 2: ["gold_6"]})
    leave_in_pile(state, 1)
    play(state, "draw")
    assert state.scores() == [20, 20, 6] and not state.is_terminal() and state.round == 2
    # In the next round seat 1 pulls ahead.
    rig(state, hands={1: LOOT6}, hideouts={1: ["bag_1"]}, active=1)
    leave_in_pile(state, 1)
    play(state, "draw")
    assert state.is_terminal() and state.scores() == [20, 21, 6] and state.ranks() == [2, 1, 3]


def test_after_the_last_round_the_highest_total_wins_and_ties_share_the_place():
    state = rig(new(max_rounds=1), hands={0: LOOT6}, hideouts={0: ["gold_3"], 1: ["bag_3"], 2: ["bag_1"]})
    leave_in_pile(state, 1)
    play(state, "draw")
    assert state.is_terminal() and state.scores() == [3, 3, 1] and state.ranks() == [1, 1, 3]


def test_the_game_ends_after_8_rounds_by_default():
    state = new()
    assert state.settings.max_rounds == 8 and state.view(0)["max_rounds"] == 8
    state.round = 8
    rig(state, hands={0: LOOT6})
    leave_in_pile(state, 1)
    play(state, "draw")
    assert state.is_terminal()


def test_the_game_ends_if_the_new_pile_would_be_empty():
    state = rig(new(), hands={0: LOOT6})
    state.hands[1] += state.pile[:-1]  # every card but one in hands
    del state.pile[:-1]
    play(state, "draw")
    assert state.is_terminal() and state.round == 1 and state.pile == []
    assert [e["type"] for e in events(state)[-2:]] == ["round_over", "game_over"]


def test_a_new_pile_smaller_than_min_new_pile_ends_the_game():
    def round_end(min_new_pile: int) -> BanditsState:
        state = rig(new(min_new_pile=min_new_pile), hands={0: LOOT6})
        state.hands[1] += state.pile[:-1]  # every card but the last in hands, or in the Boneyard
        del state.pile[:-1]
        state.boneyard += [state.hands[1].pop() for _ in range(3)]
        play(state, "draw")
        return state

    assert round_end(3).round == 2 and len(round_end(3).pile) == 3  # 3 cards are enough for 3
    state = round_end(4)
    assert state.is_terminal() and state.round == 1 and len(state.pile) == 3
    assert [e["type"] for e in events(state)[-2:]] == ["round_over", "game_over"]


# -- Bad input -----------------------------------------------------------------------------------
@pytest.mark.parametrize("action", ["attack:0", "attack:9", "raid:1", "stash:outlaw_1", "star:lawman_1",
                                    "done", "", "DRAW", " draw", "draw:1", "backfire"])
def test_illegal_action_is_refused_and_changes_nothing(action):
    state = rig(new(), hands={0: ["outlaw_1", "lawman_1", *LOOT6[:4]]})
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="not legal for seat 0 in phase 'turn'; legal: draw, attack:1"):
        state.apply(action)
    assert snapshot(state) == before


def test_refused_mid_fight_changes_nothing():
    state = example("lawman_5")
    before = snapshot(state)
    for action in ("star:lawman_4", "gun:outlaw_3", "backfire", "draw"):
        with pytest.raises(IllegalAction, match="for seat 1 in phase 'defend'"):
            state.apply(action)
        assert snapshot(state) == before


def test_no_action_after_the_end():
    state = rig(new(max_rounds=1), hands={0: LOOT6})
    leave_in_pile(state, 1)
    play(state, "draw")
    with pytest.raises(IllegalAction, match="the game is over"):
        state.apply("draw")


@pytest.mark.parametrize("settings, message", [
    ({"winning_total": 0}, "winning_total: must be at least 1"),
    ({"winning_total": "lots"}, "winning_total: expected an integer"),
    ({"max_rounds": 0}, "max_rounds: must be at least 1"),
    ({"first_player": "youngest"}, "not one of random, seat0"),
    ({"backfire": "perhaps"}, "expected true or false"),
    ({"booby_trap": True}, "unknown setting"),
    ({"min_new_pile": 0}, "min_new_pile: must be at least 1"),
    ({"gold_bars": "6 x 2, 5"}, "gold_bars: expected CARDSxVALUE items .* got ' 5'"),
    ({"gold_bars": "2=6"}, "gold_bars: expected CARDSxVALUE items"),
    ({"gold_bars": "6x7"}, "gold_bars: Gold Bars are worth 2 to 6, got 7 in '6x7'"),
    ({"money_bags": "3x1,2x1"}, "money_bags: value 1 is listed twice"),
    ({"outlaws": "0x1"}, "outlaws: 1 to 20 cards of a value, got 0 in '0x1'"),
    ({"lawmen": "21x1"}, "lawmen: 1 to 20 cards of a value, got 21"),
    ({"two_faced": "1x4"}, "two_faced: Two-Faced cards carry guns and stars 1 to 3, got 4"),
    ({"two_faced": "1x-1"}, "two_faced: expected CARDSxVALUE items"),
    ({"trackers": -1}, "trackers: 0 to 20 cards, got -1"),
    ({"booby_traps": "many"}, "booby_traps: expected an integer"),
    ({"backfires": 21}, "backfires: 0 to 20 cards, got 21"),
])
def test_bad_settings_are_named(settings, message):
    with pytest.raises(BadSettings, match=message):
        new(**settings)


SMALL_DECK = {"gold_bars": "1x2", "money_bags": "10x1", "outlaws": "1x1", "lawmen": "", "two_faced": "",
              "trackers": 0, "backfires": 0, "booby_traps": 0}  # 12 cards


def test_a_deck_too_small_for_the_players_is_refused():
    with pytest.raises(BadSettings, match="12 cards in play; 2 players need more than 12: 6 each and a draw pile"):
        new(2, **SMALL_DECK)
    assert len(new(2, **{**SMALL_DECK, "trackers": 1}).pile) == 1  # 13 cards leave a pile of one
    with pytest.raises(BadSettings, match="18 cards in play; 3 players need more than 18"):
        new(3, **{**SMALL_DECK, "money_bags": "16x1", "backfires": 1, "backfire": False})  # 1 set aside


def test_settings_from_cli_strings():
    state = new(winning_total="45", max_rounds="3", backfire="off", booby_trap_goes_off="no",
                first_player="seat0")
    s = state.settings
    assert (s.winning_total, s.max_rounds, s.backfire, s.booby_trap_goes_off) == (45, 3, False, False)
    assert new(winning_total="none").settings.winning_total is None


# -- Who knows what (targeted; the perturbation tests cover it broadly) ----------------------------
def test_a_seat_sees_its_own_hand_and_hideout_and_only_sizes_of_the_others():
    state = rig(new(), hands={0: ["gold_6", *LOOT6[:5]], 1: ["outlaw_6", *LOOT6[:5]]},
                hideouts={0: ["bag_4"], 1: ["gold_5", "gold_4"]})
    v = state.view(0)
    assert v["hand"] == ["gold_2", "gold_3", "gold_6", "bag_1", "bag_2", "bag_3"]  # in face order
    assert v["hideout"] == ["bag_4"]
    assert v["players"][1] == {"hand_size": 6, "hideout_size": 2, "total": 0}
    assert "outlaw_6" not in str(v) and "gold_5" not in str(v)


def test_the_fallback_draws_and_closes_choices():
    assert BANDITS.fallback(["draw", "attack:1"]) == "draw"
    assert BANDITS.fallback(["star:lawman_1", "backfire", "done"]) == "done"
    assert BANDITS.fallback(["gun:outlaw_1", "gun:outlaw_2"]) == "gun:outlaw_1"


def test_events_are_those_since_the_seats_last_decision():
    state = rig(new())
    play(state, "draw")
    assert [e["type"] for e in state.view(0)["events"]] == ["draw", "turn"]  # since its decision
    assert [e["type"] for e in state.view(1)["events"]] == ["new_round", "turn", "draw", "turn"]


def test_every_event_has_a_log_line():
    kinds = set()
    for seed in range(20):
        players = [make_strategy("heuristic" if s % 2 else "random", "bandits", seed + s) for s in range(4)]
        state = self_play(BANDITS, players, seed)
        for event in state.history():
            kinds.add(event["type"])
            assert BANDITS.describe_event(event, lambda s: f"seat {s}"), event
    assert {"draw", "attack", "raid", "gun", "guns", "star", "backfire", "defended", "beaten", "take_hand",
            "take_hideout", "stash", "refill", "round_over", "new_round", "game_over"} <= kinds


# -- The heuristic player --------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 4, 6])
def test_the_heuristic_beats_random_players(n):
    """One heuristic seat among random ones, rotated over 60 games: it ranks far better."""
    heuristic, random_ = [], []
    for game in range(60):
        seat = game % n
        players = [make_strategy("heuristic" if s == seat else "random", "bandits", 100 * game + s)
                   for s in range(n)]
        ranks = self_play(BANDITS, players, seed=game).ranks()
        heuristic.append(ranks[seat])
        random_ += [r for s, r in enumerate(ranks) if s != seat]
    assert sum(heuristic) / len(heuristic) + 0.5 < sum(random_) / len(random_)


def test_the_heuristic_defends_with_the_weakest_card_that_holds():
    state = rig(new(), hands={0: ["outlaw_4", *LOOT6[:5]],
                              1: ["lawman_2", "lawman_5", "lawman_6", "two_faced_3", "gold_4", "gold_5"]})
    play(state, "attack:1", "gun:outlaw_4", "done")
    bot = BanditsHeuristic(seed=1)
    assert bot.decide(state.view(1), state.legal_actions()) == "star:lawman_5"
