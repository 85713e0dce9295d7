"""Prohis determinisation: the facts docs/games/prohis.md lists under "Sampling a state", checked
against the real game.

An oracle replays the real game card by card (card ids, not faces) and notes, for the seat that
draws, which hidden cards it can place: a card it saw go into another seat's hand (the starting
Captain and Major, a market pick, a Prohi card returned) or warehouse (a waived Prohi, cards turned
up, what its own convoy or bribe gave), and where a card known in a hand may be once its holder
has moved cards out of that hand face down. Each such card is really there (the oracle is checked
on the real state), and every drawn state holds at least as many cards of that face in those
places. ``test_determinise.py`` checks what holds for every game (the view, the history, the deck).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, cast

from hypothesis import given, settings
from hypothesis import strategies as st

from arena_games import get_game
from arena_games.determinise import determinise, sampler
from arena_games.prohis import CARDS, REMOVED_FOR_SMALL_GAMES, ProhisState
from arenabot.strategies import make_strategy

PROHIS = get_game("prohis")
FACE = CARDS.face_of
CAPTAIN, MAJOR = CARDS.index["captain"], CARDS.index["major"]


def places_of(state: ProhisState) -> dict[int, str]:
    return {card: place for place, cards in state.card_places().items() for card in cards}


class Oracle:
    """What seat ``seat`` knows of where hidden cards are, by card id, as the real game goes.

    ``fact[card]`` is ``("place", p)``: the card is in place ``p``; ``("hand", s)``: in seat
    ``s``'s hand; ``("loose", s)``: it was known in ``s``'s hand, then ``s`` moved cards out of
    its hand face down, so it is in ``s``'s hand or warehouse, in the warehouse of an Inspector
    who seized a convoy of ``s`` or took an unseen bribe of ``s`` (``reach[s]``), or in the convoy
    or bribe on the table if ``s`` is the Smuggler. A card of a face seen leaving ``s``'s hand face
    up voids every fact on ``s``'s hand's cards of that face (the seat cannot tell which card it
    was); a convoy of ``s`` seized by the seat itself voids ``s``'s loose cards.
    """

    def __init__(self, state: ProhisState, seat: int) -> None:
        self.seat = seat
        self.fact: dict[int, tuple[str, int | str]] = {}
        self.reach: list[set[str]] = [set() for _ in range(state.num_players)]
        for s, hand in enumerate(state.hands):
            if s != seat:
                for card in hand:
                    if FACE[card] in (CAPTAIN, MAJOR):
                        self.fact[card] = ("hand", s)
        self.pending_bribe: list[int] = []

    def of_hand(self, s: int) -> list[int]:
        return [card for card, (kind, who) in self.fact.items() if kind in ("hand", "loose") and who == s]

    def hidden_move(self, s: int) -> None:
        for card in self.of_hand(s):
            self.fact[card] = ("loose", s)

    def seen_leaving(self, s: int, face: int) -> None:
        for card in self.of_hand(s):
            if FACE[card] == face:
                del self.fact[card]

    def know(self, card: int, target: str) -> None:
        """The seat saw ``card`` go to ``target`` (its own places it sees anyway)."""
        if target in (f"hand{self.seat}", f"warehouse{self.seat}"):
            self.fact.pop(card, None)
        elif target.startswith("hand"):
            self.fact[card] = ("hand", int(target[4:]))
        else:
            self.fact[card] = ("place", target)

    def step(self, state: ProhisState, action: str) -> None:
        """Applies ``action`` to the real ``state``, noting what the seat learns from it."""
        seat, phase, smuggler = self.seat, state.phase_name(), state.active
        inspector, convoy, revealed = state.inspector, list(state.convoy), list(state.revealed)
        before = places_of(state)
        state.apply(action)
        after = places_of(state)
        moved = [(c, before[c], after[c]) for c in before if before[c] != after[c]]
        if phase == "flip":  # a convoy card turned up: the seat saw it come out of the Smuggler's hand
            position = int(action.split(":")[1])
            if smuggler != seat:
                self.seen_leaving(smuggler, FACE[convoy[position]])
            revealed[position] = True
        for card, source, target in moved:
            if source == f"hand{smuggler}" and target == "convoy" and smuggler != seat:
                self.hidden_move(smuggler)
            elif source.startswith("hand") and target == "bribe":
                self.pending_bribe.append(card)
            elif source.startswith("hand") and target == "claims" and source != f"hand{seat}":
                self.seen_leaving(int(source[4:]), FACE[card])
            elif source in ("market", "claims"):
                self.know(card, target)
            elif source == "convoy":
                if seat == smuggler or revealed[convoy.index(card)]:
                    self.know(card, target)
                elif target == f"warehouse{seat}":  # seized by the seat: documented as forgotten
                    for loose in self.of_hand(smuggler):
                        del self.fact[loose]
                elif target != f"warehouse{smuggler}":  # seized: the Smuggler's loose cards may be there
                    self.reach[smuggler].add(target)
            elif source == "bribe":
                if seat in (smuggler, inspector):
                    self.know(card, target)
                elif target.startswith("warehouse"):  # an unseen bribe taken
                    self.reach[smuggler].add(target)
        if phase == "bribe" and action == "done":  # the offer: the Inspector sees it now
            if seat == inspector:
                for card in self.pending_bribe:
                    self.seen_leaving(smuggler, FACE[card])
                    self.know(card, "bribe")
            elif seat != smuggler:
                self.hidden_move(smuggler)
            self.pending_bribe = []

    def finish(self, state: ProhisState) -> dict[int, set[str]]:
        """The places each known card may be in now (a convoy being loaded, a bribe being made up,
        are hidden moves)."""
        smuggler = state.active
        if smuggler != self.seat and (self.pending_bribe or state.phase_name() == "convoy"):
            self.hidden_move(smuggler)
        facts: dict[int, set[str]] = {}
        for card, (kind, who) in self.fact.items():  # the kind says whether `who` is a place or a seat
            if kind == "place":
                facts[card] = {cast(str, who)}
            elif kind == "hand":
                facts[card] = {f"hand{who}"}
            else:
                facts[card] = {f"hand{who}", f"warehouse{who}"} | self.reach[cast(int, who)]
                if who == smuggler:
                    facts[card] |= {"convoy", "bribe"}
        return facts


def position(n: int, seed: int, stop: float, any_seat: bool,
             settings: dict | None = None) -> tuple[ProhisState, int, dict[int, set[str]]]:
    """A game of heuristic and random players to the fraction ``stop`` of its length, the seat to
    draw for, and the oracle's facts for that seat."""
    rng = random.Random(seed)
    players = [make_strategy(rng.choice(["random", "heuristic"]), "prohis", seed + s) for s in range(n)]
    state = cast(ProhisState, PROHIS.new_game(n, seed, settings))
    actions = []
    while not state.is_terminal():
        seat = state.current_player()
        actions.append(players[seat].decide(state.view(seat), state.legal_actions()))
        state.apply(actions[-1])
    actions = actions[: min(len(actions) - 1, int(stop * len(actions)))]
    probe = PROHIS.new_game(n, seed, settings)
    for action in actions:
        probe.apply(action)
    seat = rng.randrange(n) if any_seat else probe.current_player()
    state = cast(ProhisState, PROHIS.new_game(n, seed, settings))
    oracle = Oracle(state, seat)
    for action in actions:
        oracle.step(state, action)
    return state, seat, oracle.finish(state)


def check_facts(real: ProhisState, seat: int, facts: dict[int, set[str]], drawn: ProhisState) -> None:
    real_places = places_of(real)
    for card, allowed in facts.items():  # the oracle's facts are true
        assert real_places[card] in allowed, (CARDS.name(card), real_places[card], allowed)
    held = Counter((place, FACE[card]) for card, place in places_of(drawn).items())
    # For every set of places a fact names, and every face: the drawn state holds there at least
    # as many cards of that face as the facts put there.
    for among in {frozenset(a) for a in facts.values()}:
        for face in range(len(CARDS.names)):
            needed = sum(1 for card, a in facts.items() if FACE[card] == face and a <= among)
            assert sum(held[place, face] for place in among) >= needed, (sorted(among), CARDS.names[face])
    # Captains and Majors never are in the pile; the removed cards are what the rules remove.
    assert not [c for c in drawn.pile if FACE[c] in (CAPTAIN, MAJOR)]
    removed = Counter(CARDS.name(c) for c in drawn.removed)
    n = real.num_players
    expected = Counter({"captain": 6 - n, "major": 6 - n})
    if n <= 4:
        expected.update({CARDS.names[f]: k for f, k in REMOVED_FOR_SMALL_GAMES})
    assert removed == +expected


@settings(max_examples=60, deadline=None)
@given(n=st.integers(3, 6), seed=st.integers(0, 2**32 - 1), stop=st.floats(0, 1), any_seat=st.booleans(),
       house=st.booleans())
def test_drawn_states_honour_what_the_seat_has_seen(n: int, seed: int, stop: float, any_seat: bool, house: bool):
    """``house``: the [house] rules that move Prohi cards otherwise, and a single bribe offer."""
    settings = {"reclaim_on_waive": True, "seizure_takes_prohi": False, "max_bribe_offers": 1} if house else None
    real, seat, facts = position(n, seed, stop, any_seat, settings)
    if real.is_terminal():
        return
    draw = sampler(real.view(seat), history=real.history(seat), settings=real.settings)
    assert cast(Any, draw).__self__.with_history  # the whole history's facts fit the view: no retreat to the view alone
    rng = random.Random(seed)
    for _ in range(3):
        check_facts(real, seat, facts, cast(ProhisState, draw(rng)))


def test_at_the_start_every_hand_holds_its_captain_and_major():
    for seed in range(10):
        state = PROHIS.new_game(4, seed)
        seat = state.current_player()
        for r in range(5):
            drawn = determinise(state.view(seat), random.Random(r), history=state.history(seat))
            for s in range(4):
                faces = Counter(CARDS.name(c) for c in drawn.hands[s])
                assert faces["captain"] == faces["major"] == 1


def test_a_card_taken_from_the_market_stays_in_the_takers_hand_until_a_convoy():
    state = PROHIS.new_game(3, 11)
    taker = state.current_player()
    state.apply("take:0")
    taken = CARDS.name(state.hands[taker][-1])
    state.apply("done")
    seat = state.current_player()
    for r in range(20):
        drawn = determinise(state.view(seat), random.Random(r), history=state.history(seat))
        assert Counter(CARDS.name(c) for c in drawn.hands[taker])[taken] >= 1
    state.apply("convoy:captain")  # the next seat runs a convoy: its Captain and Major are loose now
    state.apply("convoy:major")
    state.apply("done")
    runner = (taker + 1) % 3
    seat = state.current_player()
    majors = Counter()
    for r in range(40):
        drawn = determinise(state.view(seat), random.Random(r), history=state.history(seat))
        where = [place for place, cards in drawn.card_places().items()
                 if any(CARDS.name(c) == "major" for c in cards) and place in (f"hand{runner}", "convoy")]
        assert where  # the runner's Major is in its hand or in the convoy
        majors[tuple(sorted(where))] += 1
    assert len(majors) > 1  # and both are drawn


def test_the_view_alone_is_enough_and_the_end_of_the_game_draws():
    state = PROHIS.new_game(5, 4)
    players = [make_strategy("heuristic", "prohis", s) for s in range(5)]
    views = 0
    while not state.is_terminal():
        seat = state.current_player()
        view = state.view(seat)
        if views % 7 == 0 or state.end_triggered:  # without the history: the view's events only
            drawn = determinise(view, random.Random(views), settings=state.settings)
            assert drawn.view(seat) == view
            assert not [c for c in drawn.pile if CARDS.name(c) in ("captain", "major")]
        views += 1
        state.apply(players[seat].decide(view, state.legal_actions()))
    assert state.end_triggered


def test_the_engine_draws_nothing_after_setup_so_its_clones_share_its_random_source():
    rng = random.Random(0)
    for n in (3, 6):
        state = PROHIS.new_game(n, n)
        before = state.rng.getstate()
        while not state.is_terminal():
            state.apply(rng.choice(state.clone().legal_actions()))
        assert state.rng.getstate() == before
