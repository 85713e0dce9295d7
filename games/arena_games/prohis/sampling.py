"""States of Prohis drawn from what one seat has seen, for search (:mod:`arena_games.determinise`).

"Sampling a state" in ``docs/games/prohis.md`` lists the facts a drawn state honours: the seat's
history says where some hidden cards are (:class:`_Facts`); a template holds every known card and
each draw deals the unknown ones into the hidden places (:class:`_Sampler`).
"""

from __future__ import annotations

import random
from array import array
from collections.abc import Callable
from typing import Any

from ..core import GameSpec, Settings, View
from ..views import UNKNOWN, restore_log
from .components import (
    CAPTAIN,
    CARDS,
    CLAIM,
    MAJOR,
    MARKET_SIZE,
    NAMES,
    PHASES,
    REMOVED_FOR_SMALL_GAMES,
    STARTING_DEAL,
    ProhisSettings,
)
from .state import ProhisState

FACES = len(NAMES)
FACE_INDEX = CARDS.index
DECK_SIZE = {False: 40 + 20 + 6, True: 58 + 30 + 8}  # goods and Lieutenants, by "5 or 6 players"
_KEY_BYTES = array("I").itemsize  # random sort keys of this many bytes each


class _Facts:
    """Where a seat's history puts hidden cards of the other seats (``seat`` itself sees its own).

    ``hand[s]`` and ``warehouse[s]`` count, by face, cards known to be in seat ``s``'s hand or
    warehouse. A known card of a hand becomes *loose* when its owner next moves cards out of
    that hand face down (a convoy, a bribe the seat does not see): ``loose[s]`` counts those,
    and ``reach[s]`` lists the places where they may be since (the owner's hand and warehouse,
    the warehouse of an Inspector who seized its convoy or took its bribe).
    """

    def __init__(self, n: int, seat: int) -> None:
        self.n, self.seat = n, seat
        self.hand = [[0] * FACES for _ in range(n)]
        self.warehouse = [[0] * FACES for _ in range(n)]
        self.loose = [[0] * FACES for _ in range(n)]
        self.reach: list[set[int]] = [{s, n + s} for s in range(n)]  # places: hand s is s, warehouse s is n + s
        for s in range(n):
            if s != seat:  # Setup 1: a Captain and a Major in every hand
                self.hand[s][CAPTAIN] = self.hand[s][MAJOR] = 1
        # The sizes the events imply, to check that the history is the whole game's.
        self.hand_size = [STARTING_DEAL + 2] * n
        self.warehouse_size = [0] * n
        self.pile_size = DECK_SIZE[n >= 5] - STARTING_DEAL * n - MARKET_SIZE

    def seen_leaving(self, s: int, face: int) -> None:
        """A card of ``face`` left ``s``'s hand face up (or for this seat's eyes)."""
        if s == self.seat:
            return
        if self.hand[s][face]:
            self.hand[s][face] -= 1
        elif self.loose[s][face]:  # it may have been one of the loose ones: forget one
            self.loose[s][face] -= 1

    def hidden_move(self, s: int) -> None:
        """``s`` moves cards out of its hand face down: what was known of its hand is loose."""
        if s != self.seat:
            self.loose[s] = [a + b for a, b in zip(self.loose[s], self.hand[s], strict=True)]
            self.hand[s] = [0] * FACES

    def to_hand(self, s: int, faces: list[int]) -> None:
        self.hand_size[s] += len(faces)
        if s != self.seat:
            for face in faces:
                self.hand[s][face] += 1

    def to_warehouse(self, s: int, faces: list[int], hidden: int = 0) -> None:
        """``faces`` known, and ``hidden`` unknown cards, go into ``s``'s warehouse."""
        self.warehouse_size[s] += len(faces) + hidden
        if s != self.seat:
            for face in faces:
                self.warehouse[s][face] += 1


class _Reader:
    """Reads a seat's history into :class:`_Facts`, one handler per kind of event, following the
    convoy in progress: its Smuggler, its Inspector and their Prohi card, what this seat knows of
    its cards and of the bribe."""

    def __init__(self, facts: _Facts, settings: ProhisSettings) -> None:
        self.facts, self.settings = facts, settings
        self.claims: list[tuple[int, int]] = []
        self.smuggler = self.inspector = self.prohi = -1
        self.convoy: list[int] | None = None  # the convoy's faces, if this seat knows them
        self.revealed: list[int] = []
        self.count = self.bribe_count = 0
        self.bribe: list[int] | None = None

    def read(self, history: list[dict[str, Any]]) -> None:
        for event in history:
            handler = getattr(self, "_on_" + event["type"], None)
            if handler is not None:
                handler(event)

    def _on_take(self, event: dict[str, Any]) -> None:
        self.facts.to_hand(event["seat"], [FACE_INDEX[event["card"]]])

    def _on_refill(self, event: dict[str, Any]) -> None:
        self.facts.pile_size -= 1

    def _on_pile(self, event: dict[str, Any]) -> None:
        self.facts.pile_size -= 1
        self.facts.hand_size[event["seat"]] += 1  # a card this seat may not know, if another's

    def _on_convoy(self, event: dict[str, Any]) -> None:
        self.smuggler, self.count = event["seat"], event["count"]
        self.facts.hand_size[self.smuggler] -= self.count
        self.convoy = [FACE_INDEX[c] for c in event["cards"]] if "cards" in event else None
        self.revealed, self.claims = [], []
        self.facts.hidden_move(self.smuggler)

    def _on_claim(self, event: dict[str, Any]) -> None:
        self.claims.append((event["seat"], FACE_INDEX[event["rank"]]))
        self.facts.hand_size[event["seat"]] -= 1
        self.facts.seen_leaving(event["seat"], FACE_INDEX[event["rank"]])

    def _on_inspector(self, event: dict[str, Any]) -> None:
        self.inspector, self.prohi = event["seat"], FACE_INDEX[event["rank"]]
        for s, f in self.claims:
            if s != self.inspector:
                self.facts.to_hand(s, [f])

    def _on_bribe(self, event: dict[str, Any]) -> None:
        self.bribe_count = event["count"]
        self.facts.hand_size[self.smuggler] -= self.bribe_count
        self.bribe = [FACE_INDEX[c] for c in event["cards"]] if "cards" in event else None
        if self.bribe is None:
            self.facts.hidden_move(self.smuggler)
        else:
            for f in self.bribe:
                self.facts.seen_leaving(self.smuggler, f)

    def _on_accept(self, event: dict[str, Any]) -> None:
        facts, bribe, inspector = self.facts, self.bribe, self.inspector
        facts.to_hand(inspector, [self.prohi])
        facts.to_warehouse(inspector, bribe or [], 0 if bribe is not None else self.bribe_count)
        if bribe is None:
            facts.reach[self.smuggler].add(facts.n + inspector)

    def _on_reject(self, event: dict[str, Any]) -> None:
        if self.bribe is None:
            self.facts.hand_size[self.smuggler] += self.bribe_count
        else:
            self.facts.to_hand(self.smuggler, self.bribe)

    def _on_flip(self, event: dict[str, Any]) -> None:
        self.revealed.append(FACE_INDEX[event["card"]])
        self.facts.seen_leaving(self.smuggler, FACE_INDEX[event["card"]])

    def _on_outcome(self, event: dict[str, Any]) -> None:
        if event["outcome"] == "seized":
            self._seized()
        else:
            self._passed(event["outcome"])
        self.smuggler = self.inspector = self.prohi = -1
        self.convoy, self.bribe, self.claims = None, None, []

    def _seized(self) -> None:
        facts, inspector, smuggler, revealed = self.facts, self.inspector, self.smuggler, self.revealed
        if self.convoy is not None:  # this seat's own convoy: it knows every card
            facts.to_warehouse(inspector, self.convoy)
        else:
            facts.to_warehouse(inspector, revealed, self.count - len(revealed))
            if self.count == len(revealed):
                pass  # every card was seen
            elif inspector == facts.seat:  # its warehouse shows the whole convoy: forget the loose ones
                facts.loose[smuggler] = [0] * FACES
            else:
                facts.reach[smuggler].add(facts.n + inspector)
        if self.settings.seizure_takes_prohi:
            facts.to_warehouse(inspector, [self.prohi])
        else:
            facts.to_hand(inspector, [self.prohi])

    def _passed(self, outcome: str) -> None:
        facts = self.facts
        facts.to_warehouse(self.smuggler, self.revealed, self.count - len(self.revealed))
        if outcome == "cleared":
            facts.to_hand(self.smuggler, [self.prohi])
        elif outcome == "waived":
            if self.settings.reclaim_on_waive:
                facts.to_hand(self.inspector, [self.prohi])
            else:
                facts.to_warehouse(self.inspector, [self.prohi])


def _read_history(view: View, history: list[dict[str, Any]], settings: ProhisSettings) -> _Facts | None:
    """The facts of a seat's whole history, or None if the history is not the whole game's (its
    counts do not lead to the view's)."""
    facts = _Facts(view["num_players"], view["seat"])
    _Reader(facts, settings).read(history)
    # A convoy being loaded, or a bribe being made up, left the Smuggler's hand unannounced.
    active = view["active"]
    if view["phase"] == "convoy":
        facts.hand_size[active] -= len(view["convoy"])
        facts.hidden_move(active)
    elif view["phase"] == "bribe" and view["bribe_card_count"]:
        facts.hand_size[active] -= view["bribe_card_count"]
        facts.hidden_move(active)
    players = view["players"]
    if (facts.pile_size != view["pile_size"]
            or facts.hand_size != [p["hand_size"] for p in players]
            or facts.warehouse_size != [p["warehouse_size"] for p in players]):
        return None
    return facts


def sampler(game: GameSpec, view: View, history: list[dict[str, Any]],
            settings: Settings) -> Callable[[random.Random], ProhisState]:
    """Draws states consistent with ``view`` and ``history`` (see docs/games/prohis.md, "Sampling
    a state"): the known cards go where they are known to be, once, in a template; each draw
    clones it and deals the unknown ones into the hidden places at random."""
    assert isinstance(settings, ProhisSettings)
    facts = _read_history(view, history, settings)
    try:
        return _Sampler(game, view, history, settings, facts).draw
    except _Inconsistent:
        if facts is None:
            raise ValueError("the view is not one of a game of Prohis") from None
        return _Sampler(game, view, history, settings, None).draw  # the view alone, then


class _Inconsistent(Exception):
    """The facts read from a history do not fit the view's cards."""


class _Sampler:
    """What a drawn state needs, worked out once per decision: a template state holding every
    known card, the places with hidden cards and how many, the loose cards and where each may go,
    and the ids of the unknown cards.

    Places with hidden cards are numbered: hand s is s, warehouse s is n + s, then the convoy, the
    bribe and the pile. Known cards take their ids in a fixed order, so the template is the same
    for the same view and history.
    """

    def __init__(self, game: GameSpec, view: View, history: list[dict[str, Any]], settings: ProhisSettings,
                 facts: _Facts | None) -> None:
        n, seat = view["num_players"], view["seat"]
        self.free = [CARDS.ids(name) for name in NAMES]  # ids not placed yet, by face
        t = self._template(game, view, history, settings)
        holes = self._known_hidden(t, view, facts)
        loose = self._loose(t, facts, holes)
        # With 3 or 4 players, goods and Lieutenants were removed: any of the unknown ones.
        if n <= 4:
            for f, removed in REMOVED_FOR_SMALL_GAMES:
                t.removed += [self._take(f) for _ in range(removed)]
        self.pool = [c for ids in self.free for c in ids]
        if len(self.pool) + len(loose) != sum(holes):
            raise _Inconsistent("the unknown cards do not fill the hidden places")
        self.template, self.holes, self.loose = t, holes, loose
        self.with_history = facts is not None  # else the view alone
        fallback = self._assign_loose()  # a placement of the loose cards that fits
        if fallback is None:
            raise _Inconsistent("the loose cards do not fit where they may be")
        self.fallback = fallback
        self.others = [s for s in range(n) if s != seat]

    def _take(self, f: int) -> int:
        """An id of face ``f`` not placed yet."""
        if not self.free[f]:
            raise _Inconsistent(NAMES[f])
        return self.free[f].pop()

    def _template(self, game: GameSpec, view: View, history: list[dict[str, Any]],
                  settings: ProhisSettings) -> ProhisState:
        """The state with what the view shows: the public cards and counts, the seat's own cards,
        the convoy's cards this seat has seen (``convoy_holes``: the positions of the others)."""
        n, seat = view["num_players"], view["seat"]
        players, face, take = view["players"], FACE_INDEX, self._take
        t = ProhisState.__new__(ProhisState)
        t.game, t.num_players, t.seed, t.settings = game, n, 0, settings
        t.rng = random.Random(0)  # never drawn from after setup (see clone)
        t.log = restore_log(seat, view, history, n)
        t._legal = None
        t.phase, t.active, t.to_act = PHASES.index(view["phase"]), view["active"], view["to_act"]
        t.first_pick, t.end_triggered = view["first_pick"], view["end_triggered"]
        t.final_turns = list(view["final_turns"])
        t.passed = [p["passed"] for p in players]
        t.market = [take(face[c]) for c in view["market"]]
        t.pile = []
        t.hands = [[] for _ in range(n)]
        t.warehouses = [[] for _ in range(n)]
        t.hands[seat] = [take(face[c]) for c in view["hand"]]
        t.warehouses[seat] = [take(face[c]) for c in view["warehouse"]]
        t.claims = [(c["seat"], take(face[c["rank"]])) for c in view["claims"]]
        t.inspector, t.offers, t.flips_left = view["inspector"], view["offers"], view["flips_left"]
        t.revealed = list(view["revealed"])
        t.convoy = [-1 if c == UNKNOWN else take(face[c]) for c in view["convoy"]]
        self.convoy_holes = [i for i, c in enumerate(t.convoy) if c == -1]
        t.bribe = [take(face[c]) for c in view["bribe"]]
        t.claim_order = []
        if t.phase == CLAIM:  # the seats after this claimant, clockwise to the Smuggler
            order = [s for s in ((t.active + k) % n for k in range(1, n)) if not t.passed[s]]
            t.claim_order = order[order.index(t.to_act) + 1:]
        # Setup 1 and the 3-4 player removal: the unused Captains and Majors are known.
        t.removed = [take(CAPTAIN) for _ in range(6 - n)] + [take(MAJOR) for _ in range(6 - n)]
        return t

    def _known_hidden(self, t: ProhisState, view: View, facts: _Facts | None) -> list[int]:
        """Puts the cards the facts place in the other hands and warehouses; returns how many
        hidden cards each place still holds."""
        n, seat, players = view["num_players"], view["seat"], view["players"]
        holes = [0] * (2 * n + 3)
        for s in range(n):
            if s == seat:
                continue
            known_hand = facts.hand[s] if facts else [0] * FACES
            known_warehouse = facts.warehouse[s] if facts else [0] * FACES
            for f in range(FACES):
                t.hands[s] += [self._take(f) for _ in range(known_hand[f])]
                t.warehouses[s] += [self._take(f) for _ in range(known_warehouse[f])]
            holes[s] = players[s]["hand_size"] - len(t.hands[s])
            holes[n + s] = players[s]["warehouse_size"] - len(t.warehouses[s])
        holes[2 * n] = len(self.convoy_holes)
        holes[2 * n + 1] = 0 if view["bribe"] else view["bribe_card_count"]
        holes[2 * n + 2] = view["pile_size"]
        if min(holes) < 0:
            raise _Inconsistent("more cards known in a place than it holds")
        return holes

    def _loose(self, t: ProhisState, facts: _Facts | None,
               holes: list[int]) -> list[tuple[int, tuple[int, ...]]]:
        """The loose cards, each with the places it may be in, the most constrained first."""
        n = t.num_players
        convoy_place, bribe_place, pile_place = 2 * n, 2 * n + 1, 2 * n + 2
        loose: list[tuple[int, tuple[int, ...]]] = []  # (card id, the places it may be in)
        if facts is not None:
            for s in range(n):
                if s == facts.seat:
                    continue
                reach = set(facts.reach[s])
                if s == t.active:  # its convoy, or its bribe, may hold them
                    reach |= {convoy_place, bribe_place}
                places = tuple(p for p in sorted(reach) if holes[p])
                for f in range(FACES):
                    loose += [(self._take(f), places) for _ in range(facts.loose[s][f])]
        # Captains and Majors unaccounted for are in some hidden place, never the pile.
        anywhere = tuple(p for p in range(pile_place) if holes[p])
        for f in (CAPTAIN, MAJOR):
            loose += [(self._take(f), anywhere) for _ in range(len(self.free[f]))]
        loose.sort(key=lambda card: len(card[1]))  # the most constrained first
        return loose

    def _assign_loose(self) -> list[int] | None:
        """A place for each loose card, among those it may be in, that fits them all: a
        bipartite matching of cards to hidden slots, by augmenting paths. One exists whenever
        the facts are true. None: none does."""
        room = self.holes
        slots: dict[int, list[int]] = {p: [] for p in range(len(room))}  # place -> its cards' indices
        placed = [-1] * len(self.loose)

        def augment(i: int, seen: set[int]) -> bool:
            for p in self.loose[i][1]:
                if p in seen:
                    continue
                seen.add(p)
                if len(slots[p]) < room[p]:
                    slots[p].append(i)
                    placed[i] = p
                    return True
                for j in slots[p]:
                    if augment(j, seen):  # j moves elsewhere, i takes its slot
                        slots[p].remove(j)
                        slots[p].append(i)
                        placed[i] = p
                        return True
            return False

        return placed if all(augment(i, set()) for i in range(len(self.loose))) else None

    def draw(self, rng: random.Random) -> ProhisState:
        state = self.template.clone()
        room = self.holes[:]
        cards: list[list[int]] = [[] for _ in room]
        # Each loose card into a hidden slot of its places, uniformly, while there is room.
        rand = rng.random
        for card, places in self.loose:
            if len(places) == 2:  # the usual case (a hand and a warehouse), made quick
                a, b = places
                if room[a] + room[b]:
                    p = a if rand() * (room[a] + room[b]) < room[a] else b
                    room[p] -= 1
                    cards[p].append(card)
                    continue
            total = 0
            for p in places:
                total += room[p]
            if not total:  # the choices so far left no room for this one: a placement that fits
                room = self.holes[:]
                cards = [[] for _ in room]
                for (card, _), p in zip(self.loose, self.fallback, strict=True):
                    cards[p].append(card)
                    room[p] -= 1
                break
            r = int(rand() * total)
            for p in places:
                r -= room[p]
                if r < 0:
                    break
            room[p] -= 1
            cards[p].append(card)
        # The unknown cards, shuffled (by sorting on random keys: faster than random.shuffle).
        pool = self.pool
        keys = array("I", rng.randbytes(_KEY_BYTES * len(pool)))
        start = 0
        shuffled_pool = [pool[i] for i in sorted(range(len(pool)), key=keys.__getitem__)]
        for p, k in enumerate(room):
            if k:
                cards[p] += shuffled_pool[start:start + k]
                start += k
        n = state.num_players
        for s in self.others:
            state.hands[s] += cards[s]
            state.warehouses[s] += cards[n + s]
        if self.convoy_holes:
            hidden = cards[2 * n]
            rng.shuffle(hidden)
            for i, card in zip(self.convoy_holes, hidden, strict=True):
                state.convoy[i] = card
        state.bribe += cards[2 * n + 1]
        state.pile = cards[2 * n + 2]
        return state
