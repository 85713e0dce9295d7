"""Sobek's sampler (docs/games/sobek.md, "Sampling a state"): the facts it honours, checked against
real games.

An :class:`Oracle` follows a real game card by card, from the real state's card ids as they move
between places, and keeps what one seat may know of each other player's hand and corruption pile:
the faces it saw enter (goods taken or skipped face up, a card it stole or lost to a Thief or a
Vizier), the backs it saw (the two green starting cards, a face-down character, a Thief's steal
seen by its back). What leaves a place face up takes its face away, or its back when the face was
not known; an unseen steal, an unseen Vizier's pick or a Scribe's burial forgets the place. States
drawn for the seat must hold at least what the oracle knows; the deck, the removed cards and the
unused green cards must be of the right backs; the remaining event tokens, once the seat has chosen
among them, must be the real ones. ``test_determinise.py`` checks the rest (the seat's view and
history, conservation, playing on).
"""

from __future__ import annotations

import collections
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from arena_games import get_game
from arena_games.determinise import sampler
from arena_games.sobek import BACK_OF, GREEN, ORANGE, ROLE_OF, TOKEN_COPIES, SobekState
from arenabot.strategies import make_strategy

SOBEK = get_game("sobek")


def canonical(data) -> str:
    return json.dumps(data, sort_keys=True)


def places_of(state: SobekState) -> dict[int, str]:
    return {c: place for place, cards in state.card_places().items() for c in cards}


class Oracle:
    """What ``seat`` knows of the other players' hands and piles: per place, faces and backs."""

    def __init__(self, state: SobekState, seat: int) -> None:
        self.seat = seat
        self.face = state.face
        self.round = 0
        self.faces: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        self.backs: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        self.chose = False  # whether the seat has chosen an event token this round
        self._new_round(state)

    def _new_round(self, state: SobekState) -> None:
        self.round, self.chose = state.round, False
        self.faces.clear()
        self.backs.clear()
        for s in range(state.num_players):
            if s != self.seat:
                self.backs[f"hand{s}"][GREEN] = len(state.hands[s])

    def _owner(self, place: str) -> int:
        return int(place[-1]) if place.startswith(("hand", "corruption")) else -1

    def _watched(self, place: str) -> bool:
        return self._owner(place) not in (-1, self.seat)

    def _forget(self, place: str) -> None:
        self.faces[place].clear()
        self.backs[place].clear()

    def _leaves(self, place: str, f: int) -> None:
        """A card of face ``f`` leaves ``place`` and the seat sees its face."""
        if self.faces[place][f]:
            self.faces[place][f] -= 1
        elif self.backs[place][BACK_OF[f]]:
            self.backs[place][BACK_OF[f]] -= 1

    def update(self, state: SobekState, seat: int, phase: str, moves: list[tuple[int, str, str]]) -> None:
        """Follows the cards ``moves`` took (card, from, to) when ``seat`` acted in ``phase``."""
        if phase == "event" and seat == self.seat:
            self.chose = True
        if state.is_terminal():
            return
        if state.round != self.round:
            self._new_round(state)
            return
        for c, src, dst in moves:
            f = self.face[c]
            seen = self.seat in (self._owner(src), self._owner(dst))
            if src == "market":  # taken or skipped: goods face up, a character face down
                if self._watched(dst):
                    if ROLE_OF[f] < 0:
                        self.faces[dst][f] += 1
                    else:
                        self.backs[dst][ORANGE] += 1
            elif src.startswith("hand") and dst.startswith("hand"):  # a Thief's steal
                if seen:
                    if self._watched(src):
                        self._leaves(src, f)
                    if self._watched(dst):
                        self.faces[dst][f] += 1
                else:
                    self._forget(src)
                    self.backs[dst][BACK_OF[f]] += 1
            elif src.startswith("corruption") and dst.startswith("hand") and self._owner(src) != self._owner(dst):
                if seen:  # a Vizier's pick
                    if self._watched(src):
                        self._leaves(src, f)
                    if self._watched(dst):
                        self.faces[dst][f] += 1
                else:
                    self._forget(src)
            elif src.startswith("corruption") and dst.startswith("hand"):  # Embalming: the whole pile
                if self._watched(src):
                    self.faces[dst] += self.faces.pop(src, collections.Counter())
                    self.backs[dst] += self.backs.pop(src, collections.Counter())
            elif src.startswith("hand") and dst.startswith("corruption"):  # a Scribe's burial
                if self._watched(src):
                    self._forget(src)
            elif self._watched(src) and dst.startswith(("set", "selection", "discard")):  # face up
                self._leaves(src, f)

    def check(self, real: SobekState, drawn: SobekState) -> None:
        face = drawn.face
        for place, cards in drawn.card_places().items():
            faces = collections.Counter(face[c] for c in cards)
            backs = collections.Counter(BACK_OF[f] for f in faces.elements())
            if self._watched(place):
                assert not self.faces[place] - faces, f"{place}: known faces missing"
                known_backs = self.backs[place] + collections.Counter(BACK_OF[f] for f in self.faces[place].elements())
                assert not known_backs - backs, f"{place}: known backs missing"
            elif place in ("deck", "removed"):
                assert backs[GREEN] == 0, f"a green card in the {place}"
            elif place == "green_out":
                assert set(backs) <= {GREEN}
        if self.chose:
            kinds = sorted(t // TOKEN_COPIES for t in drawn.tokens)
            assert kinds == sorted(t // TOKEN_COPIES for t in real.tokens), "the remaining tokens differ"


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 4), heuristic=st.booleans())
def test_drawn_states_keep_what_the_seat_knows(seed: int, n: int, heuristic: bool):
    """Along a whole game, at every decision, a state drawn for the deciding seat holds every card
    the seat knows to be in another player's hand or pile, by face or by back."""
    kinds = ["heuristic" if heuristic and s % 2 else "random" for s in range(n)]
    players = [make_strategy(kind, "sobek", seed + s) for s, kind in enumerate(kinds)]
    state = SOBEK.new_game(n, seed)
    assert isinstance(state, SobekState)
    oracles = [Oracle(state, s) for s in range(n)]
    rng = random.Random(seed)
    while not state.is_terminal():
        seat = state.current_player()
        drawn = sampler(state.view(seat), history=state.history(seat), settings=state.settings)(rng)
        assert isinstance(drawn, SobekState)
        oracles[seat].check(state, drawn)
        action = players[seat].decide(state.view(seat), state.legal_actions())
        before, phase = places_of(state), state.phase_name()
        state.apply(action)
        after = places_of(state)
        moves = [(c, src, after[c]) for c, src in before.items() if after[c] != src]
        for oracle in oracles:
            oracle.update(state, seat, phase, moves)


PHASES_SEEN = ("start", "set", "event", "token", "thief", "steal", "vizier", "pick", "bury", "courtesan", "add",
               "horizontal", "horizontal_set")


def test_every_kind_of_decision_draws_for_every_seat():
    """At a decision of each kind, mid-action ones included (another seat laying a set, burying
    for a Scribe, adding for a Courtesan), a state drawn for any seat agrees with its view and
    plays on to the end."""
    seen: set[str] = set()
    for seed in range(6):
        n = 2 + seed % 3
        players = [make_strategy("random", "sobek", seed + s) for s in range(n)]
        state = SOBEK.new_game(n, seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            phase = state.phase_name()
            if phase in PHASES_SEEN and (phase not in seen or rng.random() < 0.1):
                seen.add(phase)
                for seat in range(n):
                    view, history = state.view(seat), state.history(seat)
                    drawn = sampler(view, history=history, settings=state.settings)(rng)
                    assert canonical(drawn.view(seat)) == canonical(view)
                    assert canonical(drawn.history(seat)) == canonical(history)
                    assert drawn.legal_actions() == state.legal_actions() or seat != state.current_player()
                    drawn.mute()
                    while not drawn.is_terminal():
                        legal = drawn.legal_actions()
                        assert legal, f"no legal action in a state drawn at a {phase} decision"
                        drawn.apply(rng.choice(legal))
            seat = state.current_player()
            state.apply(players[seat].decide(state.view(seat), state.legal_actions()))
    assert seen == set(PHASES_SEEN)


def test_a_view_without_its_history_still_draws():
    """Without the history (a bot that kept none), only the view's sizes constrain the other
    hands and piles; the draw still agrees with the view and plays on."""
    state = SOBEK.new_game(3, 11)
    rng = random.Random(11)
    for _ in range(60):
        state.apply(rng.choice(state.legal_actions()))
    seat = state.current_player()
    view = state.view(seat)
    drawn = sampler(view, settings=state.settings)(rng)
    assert canonical(drawn.view(seat)) == canonical(view)
    assert drawn.legal_actions() == state.legal_actions()
    while not drawn.is_terminal():
        drawn.apply(rng.choice(drawn.legal_actions()))


def test_the_end_of_a_round_and_an_empty_deck():
    """After the last card, while the players lay horizontal sets: nothing is left in the deck or
    the market, the hands are known by their sizes and what was seen, and a draw plays on into
    the next round, dealt from the drawn state's own rng."""
    state = SOBEK.new_game(2, 5)
    rng = random.Random(5)
    while state.phase_name() != "horizontal":
        state.apply(rng.choice(state.legal_actions()))
    seat = state.current_player()
    view = state.view(seat)
    draw = sampler(view, history=state.history(seat), settings=state.settings)
    one, two = draw(random.Random(1)), draw(random.Random(2))
    for drawn in (one, two):
        assert drawn.deck == [] and drawn.market == []
        assert canonical(drawn.view(seat)) == canonical(view)
        while drawn.phase_name() in ("horizontal", "horizontal_set"):
            drawn.apply(drawn.legal_actions()[-1])  # done
    assert one.round == two.round == state.round + 1
    assert canonical(one.card_places()) != canonical(two.card_places()), "the next round's deal is the rng's"
