"""Bandits' determinisation: the facts docs/games/bandits.md lists under "Sampling a state", checked
on states drawn at positions of real games against what the real game says (its card ids and its
whole history, secrets included), not against the sampler's own reading of the seat's history.

tests/games/test_determinise.py checks what holds for every game (the seat's view and history byte
for byte, conservation, play to the end); this file checks where the hidden cards may go.
"""

from __future__ import annotations

import collections
import itertools
import json
import random
from collections.abc import Iterator
from typing import cast

import pytest

from arena_games import get_game
from arena_games.bandits import (
    BOOBY_TRAP,
    FACE_OF,
    GOLD,
    KIND,
    NOT_LOOT,
    STASH_MIN,
    BanditsState,
)
from arena_games.bandits.sampling import knowledge
from arena_games.determinise import determinise, sampler
from arenabot.strategies import make_strategy

from .test_bandits import rig

BANDITS = get_game("bandits")


def positions(n: int, seed: int, every: int, **settings) -> Iterator[tuple[BanditsState, int]]:
    """A game of ``n`` played by random and heuristic players; every ``every`` decisions, the live
    state with the seat deciding, then with another seat (a bot may draw for any seat)."""
    rng = random.Random(seed)
    players = [make_strategy(rng.choice(["random", "heuristic", "heuristic"]), "bandits", seed + s)
               for s in range(n)]
    state = BANDITS.new_game(n, seed, settings)
    assert isinstance(state, BanditsState)
    step = 0
    while not state.is_terminal():
        seat = state.current_player()
        if step % every == 0:
            yield state, seat
            yield state, (seat + 1 + rng.randrange(n - 1)) % n
        state.apply(players[seat].decide(state.view(seat), state.legal_actions()))
        step += 1


def drawn_states(real: BanditsState, seat: int, count: int, seed: int) -> list[BanditsState]:
    draw = sampler(real.view(seat), history=real.history(seat), settings=real.settings)
    rng = random.Random(seed)
    states = [draw(rng) for _ in range(count)]
    for state in states:
        assert isinstance(state, BanditsState)
        assert json.dumps(state.view(seat), sort_keys=True) == json.dumps(real.view(seat), sort_keys=True)
    return cast(list[BanditsState], states)  # each asserted above


def faces(state: BanditsState, cards: list[int]) -> collections.Counter[str]:
    return collections.Counter(state.card_name[c] for c in cards)


def this_round(history: list[dict]) -> list[dict]:
    """The events since the current round began (the real game's, with every secret)."""
    start = max(i for i, e in enumerate(history) if e["type"] == "new_round")
    return history[start:]


def stashes_fit(cards: collections.Counter[str], stashes: list[int]) -> bool:
    """Whether ``cards`` can be split into stashes of these sizes, each of at least 3 loot of one
    kind and Booby Traps."""
    if any(KIND[FACE_OF[name]] == NOT_LOOT and name != "booby_trap" for name in cards):
        return False
    gold = sum(count for name, count in cards.items() if KIND[FACE_OF[name]] == GOLD)
    bags = sum(cards.values()) - gold - cards["booby_trap"]
    if sum(stashes) != sum(cards.values()):
        return False
    for kinds in itertools.product((True, False), repeat=len(stashes)):  # True: a stash of Gold Bars
        for is_gold, loot in ((True, gold), (False, bags)):
            sizes = [size for size, kind in zip(stashes, kinds, strict=True) if kind == is_gold]
            if not 0 <= sum(sizes) - loot <= sum(size - STASH_MIN for size in sizes):  # the traps among them
                break
        else:
            return True
    return False


def check_hideouts(real: BanditsState, seat: int, drawn: BanditsState) -> None:
    """Hideouts hold loot and Booby Traps only; this round's stashes are each of one kind while
    nothing has left or entered the hideout; a raid that took cards found no Booby Trap; the cards
    this seat lost in a raid are in the raider's hideout while nothing has left it."""
    events = this_round(real.history())
    for other in range(real.num_players):
        if other == seat:
            continue
        hideout = faces(drawn, drawn.hideouts[other])
        assert all(KIND[FACE_OF[n]] != NOT_LOOT or n == "booby_trap" for n in hideout), hideout
        touched = [e for e in events if e["type"] in ("take_hideout", "trap") and other in (e["seat"], e["target"])]
        if not touched:
            stashes = [e["count"] for e in events if e["type"] == "stash" and e["seat"] == other]
            assert stashes_fit(hideout, stashes), (hideout, stashes)
        losses = [i for i, e in enumerate(events) if e["type"] in ("take_hideout", "trap") and e["target"] == other]
        since = events[losses[-1] + 1:] if losses else events
        if real.settings.booby_trap_goes_off and not any(e["type"] == "trap" and e["target"] == other for e in events):
            room = sum(e["count"] - STASH_MIN for e in since if e["type"] == "stash" and e["seat"] == other)
            if losses:  # what was left after the raid held no trap
                assert hideout["booby_trap"] <= room, (hideout, room)
        lost: collections.Counter[str] = collections.Counter()
        for e in since:
            if e["type"] == "take_hideout" and e["seat"] == other and e["target"] == seat:
                lost.update(e.get("cards", []))
        assert not lost - hideout, f"seat {other}'s hideout lacks {lost - hideout}"
        assert not lost - faces(real, real.hideouts[other])  # the oracle itself holds in the real game


def check_hands(real: BanditsState, seat: int, drawn: BanditsState) -> None:
    """A hand that took this seat's hand still holds those cards while its owner has shown or
    stashed nothing and lost nothing since."""
    events = real.history()
    taken = [i for i, e in enumerate(events) if e["type"] == "take_hand" and e["target"] == seat]
    if not taken:
        return
    event = events[taken[-1]]
    winner = event["seat"]
    if winner == seat:
        return
    after = events[taken[-1] + 1:]
    if any(e.get("seat") == winner and e["type"] in ("gun", "star", "backfire", "raid", "stash") for e in after) \
            or any(e["type"] == "take_hand" and e["target"] == winner for e in after):
        return
    if real.phase_name() == "stash" and real.active == winner:  # a stash being made, out of the hand
        return
    mine = collections.Counter(event.get("cards", []))
    assert not mine - faces(real, real.hands[winner])  # the oracle itself holds in the real game
    assert not mine - faces(drawn, drawn.hands[winner]), f"seat {winner}'s hand lacks cards it took"


def check_can_go_on(real: BanditsState, seat: int, drawn: BanditsState) -> None:
    """Another seat's stash being made is loot of one kind and Booby Traps, and it can be closed;
    an attacker who has not played a gun card yet holds one."""
    if real.phase_name() == "stash" and real.active != seat:
        kinds = {KIND[drawn.face[c]] for c in drawn.stash} - {NOT_LOOT}
        assert len(kinds) <= 1 and all(KIND[drawn.face[c]] != NOT_LOOT or drawn.face[c] == BOOBY_TRAP
                                       for c in drawn.stash)
        twin = drawn.clone()
        while twin.phase_name() == "stash":
            twin.apply(twin.legal_actions()[0])  # every card of the kind, then done
    if not drawn.is_terminal():
        assert drawn.legal_actions(), "the drawn state cannot go on"


CASES = [(n, seed) for n in (2, 3, 4, 6) for seed in range(3)]


@pytest.mark.parametrize("n, seed", CASES, ids=[f"{n}p-{seed}" for n, seed in CASES])
def test_drawn_states_put_hidden_cards_where_the_history_allows(n: int, seed: int):
    checked = 0
    for real, seat in positions(n, 100 * n + seed, every=9):
        for drawn in drawn_states(real, seat, 2, seed):
            check_hideouts(real, seat, drawn)
            check_hands(real, seat, drawn)
            check_can_go_on(real, seat, drawn)
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("settings", [{"booby_trap_goes_off": "false"}, {"backfire": "false"},
                                      {"booby_traps": "3", "trackers": "6"}], ids=["trap-off", "no-backfire", "traps"])
def test_the_facts_hold_under_other_settings(settings):
    for real, seat in positions(3, 11, every=7, **settings):
        for drawn in drawn_states(real, seat, 2, 11):
            check_hideouts(real, seat, drawn)
            check_hands(real, seat, drawn)
            check_can_go_on(real, seat, drawn)


@pytest.mark.parametrize("n", [2, 4])
def test_what_the_seat_knows_holds_in_the_real_game(n: int):
    """The seat's reading of its history (arena_games.bandits.sampling.knowledge) is never wrong about the
    real game: the cards it places are there, and its hideout groups add up and fit."""
    for real, seat in positions(n, 7 * n, every=5):
        known = knowledge(real.view(seat), real.history(seat), real.settings)
        assert known is not None
        for other in range(n):
            if other == seat:
                continue
            hand = collections.Counter(real.face[c] for c in real.hands[other])
            if real.phase_name() == "stash" and real.active == other:
                hand.update(real.face[c] for c in real.stash)
            assert all(hand[f] >= count for f, count in enumerate(known.hand[other])), other
            hideout = collections.Counter(real.face[c] for c in real.hideouts[other])
            assert all(hideout[f] >= count for f, count in enumerate(known.hideout[other])), other
            assert known.hideout_size(other) == len(real.hideouts[other])
            stashes = [count for count, single, _ in known.groups[other] if single]
            if len(stashes) == len(known.groups[other]) and not any(known.hideout[other]):
                assert stashes_fit(faces(real, real.hideouts[other]), stashes)


def test_a_hand_or_a_hideout_taken_from_the_seat_is_known_to_be_the_winners():
    """Seat 1 loses its hand, then its hideout, to seat 0: every state drawn for seat 1 gives seat 0
    those cards, in its hand and under its hideout."""
    state = rig(BANDITS.new_game(2, 5), active=0,
                hands={0: ["outlaw_5", "outlaw_4", "bag_1", "tracker", "outlaw_3", "two_faced_2"],
                       1: ["lawman_1", "gold_3", "gold_4", "bag_3", "outlaw_1", "backfire"]},
                hideouts={1: ["gold_2", "gold_5", "gold_6", "bag_2", "bag_4", "bag_1"]})
    state.apply("attack:1")
    state.apply("gun:outlaw_5")
    state.apply("done")
    state.apply("done")  # no defence: seat 1's hand goes to seat 0
    state.apply("draw")  # seat 1's turn
    for action in ("raid:1", "gun:outlaw_4", "gun:outlaw_3", "done", "done"):
        state.apply(action)  # the raid takes the whole hideout
    assert not state.hideouts[1]
    for drawn in drawn_states(state, 1, 20, 3):
        hand, hideout = faces(drawn, drawn.hands[0]), faces(drawn, drawn.hideouts[0])
        assert not collections.Counter(["lawman_1", "gold_3", "gold_4", "bag_3", "outlaw_1", "backfire"]) - hand
        assert hideout == collections.Counter(["gold_2", "gold_5", "gold_6", "bag_2", "bag_4", "bag_1"])


def test_without_the_history_only_the_view_is_known():
    state = BANDITS.new_game(3, 5)
    rng = random.Random(5)
    for _ in range(60):
        state.apply(rng.choice(state.legal_actions()))
    seat = state.current_player()
    view = state.view(seat)
    for r in range(5):
        drawn = determinise(view, random.Random(r), settings=state.settings)
        assert json.dumps(drawn.view(seat), sort_keys=True) == json.dumps(view, sort_keys=True)
        assert drawn.history(seat) == view["events"]


def test_a_finished_game_is_drawn_as_finished():
    state = BANDITS.new_game(2, 3)
    rng = random.Random(3)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    drawn = determinise(state.view(0), random.Random(0), history=state.history(0), settings=state.settings)
    assert drawn.is_terminal() and drawn.scores() == state.scores() and drawn.ranks() == state.ranks()
