"""States of Bandits drawn from what one seat has seen, for search (:mod:`arena_games.determinise`).

"Sampling a state" in ``docs/games/bandits.md`` lists the facts honoured; the seat's own knowledge
is all that goes in. The seat's history says which faces the other hands and hideouts surely hold
(:class:`Knowledge`); a template of the known cards and the pools of unknown ones is prepared once
per decision, and each draw deals the pools into the hidden places (:class:`_Sampler`).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import random
from collections.abc import Callable
from itertools import repeat, starmap
from typing import Any

from ..core import TERMINAL, GameSpec, Settings, View
from ..views import EventLog, restore_log
from .components import (
    ATTACK,
    BACKFIRE,
    BAGS,
    BOOBY_TRAP,
    FACE_OF,
    GOLD,
    GUNS,
    KIND,
    LOOT_FACES,
    NAMES,
    NOT_LOOT,
    NUM_FACES,
    OVER,
    PHASES,
    STASH_MIN,
    TRACKER,
    BanditsSettings,
    Deck,
    make_deck,
)
from .state import BanditsState


class _DrawnLog(EventLog):
    """A drawn state's log: the seat's history, shared by every draw of a decision until the
    state records an event of its own (a search mutes its states at once, so they never do)."""

    __slots__ = ("owned",)
    owned: bool

    def add(self, public: dict[str, Any], secret: dict[str, Any] | None = None, to: tuple[int, ...] = ()) -> None:
        if not self.owned:
            self.entries = self.entries[:]
            self.owned = True
        super().add(public, secret, to)


LOOT_OR_TRAP = LOOT_FACES[GOLD] + LOOT_FACES[BAGS] + (BOOBY_TRAP,)


class Knowledge:
    """What ``seat`` knows, from its history, of where other players' hidden cards are.

    For every other seat: faces its hand surely holds (cards this seat lost to it, or that a hand
    it won held, less any card of the face it has shown since: a lower bound), faces its hideout
    surely holds (this round's cards this seat lost to it in a raid), and the rest of the hideout
    as *groups*: ``[cards, one stash (loot of a single kind), may hold a Booby Trap]``. A raid or
    a Booby Trap going off mixes a hideout's groups into one of any loot.
    """

    def __init__(self, seat: int, num_players: int, trap_goes_off: bool) -> None:
        self.seat = seat
        self.trap_goes_off = trap_goes_off
        self.hand = [[0] * NUM_FACES for _ in range(num_players)]
        self.hideout = [[0] * NUM_FACES for _ in range(num_players)]
        self.groups: list[list[list[Any]]] = [[] for _ in range(num_players)]
        self._read = {"new_round": self._new_round, "stash": self._stash, "take_hideout": self._take_hideout,
                      "trap": self._trap, "take_hand": self._take_hand, "gun": self._shown, "star": self._shown,
                      "raid": self._raid, "backfire": self._backfire}

    def read(self, events: list[dict[str, Any]]) -> Knowledge:
        """Reads ``events`` (as this seat saw them, in order)."""
        read = self._read
        for event in events:
            handler = read.get(event["type"])
            if handler is not None:
                handler(event)
        return self

    def hideout_size(self, seat: int) -> int:
        size: int = sum(self.hideout[seat]) + sum(group[0] for group in self.groups[seat])
        return size

    def _new_round(self, event: dict[str, Any]) -> None:
        # The hideouts went into the new pile; hands are kept.
        for s in range(len(self.groups)):
            self.hideout[s] = [0] * NUM_FACES
            self.groups[s] = []

    def _stash(self, event: dict[str, Any]) -> None:
        seat = event["seat"]
        if seat != self.seat:
            self.groups[seat].append([event["count"], True, True])
            for f in LOOT_OR_TRAP:  # which of the known loot went in is not known
                self.hand[seat][f] = 0

    def _mix(self, seat: int, cards: int, trap: bool) -> None:
        """Forgets how ``seat``'s hideout is made up, but its size (``cards``)."""
        self.hideout[seat] = [0] * NUM_FACES
        self.groups[seat] = [[cards, False, trap]] if cards > 0 else []

    def _take_hideout(self, event: dict[str, Any]) -> None:
        winner, loser, count = event["seat"], event["target"], event["count"]
        # A raid that takes cards found no Booby Trap, when traps go off.
        trap = not self.trap_goes_off and (self.hideout[loser][BOOBY_TRAP] > 0
                                           or any(group[2] for group in self.groups[loser]))
        if loser != self.seat:
            self._mix(loser, self.hideout_size(loser) - count, trap)
        if winner != self.seat:
            if loser == self.seat:
                for name in event.get("cards", ()):
                    self.hideout[winner][FACE_OF[name]] += 1
            else:
                self.groups[winner].append([count, False, trap])

    def _trap(self, event: dict[str, Any]) -> None:
        target = event["target"]
        if target == self.seat:
            return
        rest = sum(group[0] for group in self.groups[target]) - 1
        if rest >= 0:
            self.groups[target] = [[rest, False, True]] if rest else []
        elif self.hideout[target][BOOBY_TRAP]:
            self.hideout[target][BOOBY_TRAP] -= 1

    def _take_hand(self, event: dict[str, Any]) -> None:
        winner, loser = event["seat"], event["target"]
        if winner != self.seat:
            known = self.hand[winner]
            if loser == self.seat:
                for name in event.get("cards", ()):
                    known[FACE_OF[name]] += 1
            else:
                for f, count in enumerate(self.hand[loser]):
                    known[f] += count
        self.hand[loser] = [0] * NUM_FACES

    def _lose(self, seat: int, face: int) -> None:
        if seat != self.seat and self.hand[seat][face]:
            self.hand[seat][face] -= 1

    def _shown(self, event: dict[str, Any]) -> None:
        self._lose(event["seat"], FACE_OF[event["card"]])

    def _raid(self, event: dict[str, Any]) -> None:
        self._lose(event["seat"], TRACKER)

    def _backfire(self, event: dict[str, Any]) -> None:
        self._lose(event["seat"], BACKFIRE)


def knowledge(view: View, history: list[dict[str, Any]], settings: BanditsSettings) -> Knowledge | None:
    """What the seat of ``view`` knows from ``history``; None when the history does not start at
    the game's start (then only the view is known)."""
    if not history or history[0].get("type") != "new_round" or history[0].get("round") != 1:
        return None
    return Knowledge(view["seat"], view["num_players"], settings.booby_trap_goes_off).read(history)


def _take(pool: list[int], count: int, rand: Callable[[], float], out: list[int]) -> None:
    """Moves ``count`` cards drawn uniformly from ``pool`` to ``out``."""
    for _ in range(count):
        out.append(pool.pop(int(rand() * len(pool))))


@functools.lru_cache(maxsize=4096)
def _stash_ways(gold: int, bags: int, traps: int, count: int) -> tuple[tuple[float, ...], tuple[tuple[int, int], ...]]:
    """How one stash of ``count`` cards may be made from ``gold`` Gold Bars, ``bags`` Money Bags
    and ``traps`` Booby Traps: at least 3 loot of one kind, the rest traps. Each (kind, traps)
    with its share of the ways, cumulated; nothing if there is no way."""
    options = [(kind, t) for kind in (GOLD, BAGS) for t in range(min(traps, count - STASH_MIN) + 1)]
    weights = [math.comb(traps, t) * math.comb(gold if kind == GOLD else bags, count - t) for kind, t in options]
    total = sum(weights)
    if not total:
        return (), ()
    return tuple(itertools.accumulate(w / total for w in weights)), tuple(options)


# The hideouts' unknown cards as a draw deals them: stashes of one kind (seat, cards, may hold a Booby
# Trap); mixed groups without Booby Traps, and with (seat, cards).
Groups = tuple[list[tuple[int, int, bool]], list[tuple[int, int]], list[tuple[int, int]]]


class _Sampler:
    """Prepares, once per decision, the fixed part of every draw: a template of the known cards
    and the pools of unknown ones, by kind (Gold Bars, Money Bags, Booby Traps, the rest)."""

    TRIES = 64  # draws that fail a constraint are drawn again ...
    RELAX = 32  # ... and from this try on, a stash's single kind is not required

    def __init__(self, game: GameSpec, view: View, history: list[dict[str, Any]],
                 settings: BanditsSettings) -> None:
        seat, n = view["seat"], view["num_players"]
        deck = make_deck(settings.deck_counts())
        self.free = [deck.cards.ids(name) for name in NAMES]  # ids not placed yet, by face
        hands: list[list[int]] = [[] for _ in range(n)]
        hideouts: list[list[int]] = [[] for _ in range(n)]
        removed, stash_kind = self._place_seen(view, deck, hands, hideouts)
        groups = self._place_known(view, knowledge(view, history, settings), hands, hideouts)
        # Stashes of one kind, biggest first (the most constrained first); then the mixed groups,
        # without Booby Traps and with; and all as mixed groups, for the draws that relax.
        self.groups: Groups = ([(s, count, trap) for s, count, single, trap in sorted(groups, key=lambda g: -g[1])
                                if single and count >= STASH_MIN],
                               [(s, count) for s, count, single, trap in groups
                                if not trap and not (single and count >= STASH_MIN)],
                               [(s, count) for s, count, single, trap in groups
                                if trap and not (single and count >= STASH_MIN)])
        self.relaxed: Groups = ([], [(s, count) for s, count, _, trap in groups if not trap],
                                [(s, count) for s, count, _, trap in groups if trap])
        players = view["players"]
        self.hand_slots = {s: players[s]["hand_size"] - len(hands[s]) for s in range(n) if s != seat}
        self.hands, self.hideouts = hands, hideouts

        free = self.free
        self.gold = [c for f in LOOT_FACES[GOLD] for c in free[f]]
        self.bags = [c for f in LOOT_FACES[BAGS] for c in free[f]]
        self.traps = free[BOOBY_TRAP]
        self.other = [c for f in range(NUM_FACES) if f not in LOOT_OR_TRAP for c in free[f]]
        unknown = len(self.gold) + len(self.bags) + len(self.traps) + len(self.other)
        slots = (sum(group[1] for group in groups) + sum(self.hand_slots.values())
                 + self.stash_size + view["pile_size"])
        if unknown != slots:
            raise ValueError(f"the view does not fit the deck: {unknown} unseen cards for {slots} hidden places")
        if min(self.hand_slots.values(), default=0) < 0:
            raise ValueError("a hand holds fewer cards than this seat knows of")

        phase = PHASES.index(view["phase"])
        log = restore_log(seat, view, history, n)
        self.entries, self.cursor = log.entries, log.cursor
        self.totals = [p["total"] for p in players]
        self.base = {
            "game": game, "num_players": n, "seed": 0, "settings": settings, "_legal": None,
            "winning_total": view["winning_total"], "cards": deck.cards, "face": deck.face,
            "card_name": deck.name, "removed": removed, "round": view["round"], "phase": phase,
            "active": view["active"], "to_act": view["to_act"] if phase != OVER else TERMINAL,
            "defender": view["defender"], "raid": view["raid"], "stash_kind": stash_kind,
        }

    def _take(self, name: str) -> int:
        """An id of a card ``name`` not placed yet."""
        ids = self.free[FACE_OF[name]]
        if not ids:
            raise ValueError(f"the view shows more {name} cards than the deck holds")
        return ids.pop()

    def _place_seen(self, view: View, deck: Deck, hands: list[list[int]],
                    hideouts: list[list[int]]) -> tuple[list[int], int]:
        """Places the cards the seat sees: its hand and hideout, the Boneyard, the fight's cards,
        the removed cards and its own stash in progress. Returns the removed cards and the stash's
        kind; another seat's stash in progress is left to each draw (``stasher``)."""
        seat, active, take = view["seat"], view["active"], self._take
        hands[seat] = [take(c) for c in view["hand"]]
        hideouts[seat] = [take(c) for c in view["hideout"]]
        self.boneyard = [take(c) for c in view["boneyard"]]
        self.attack = [take(c) for c in view["attack"]]
        self.defence = [take(c) for c in view["defence"]]
        self.counter = [take(c) for c in view["counter"]]
        removed = [take(c) for c in view["removed"]]
        self.stash: list[int] = []
        stash_kind = NOT_LOOT
        self.stasher, self.stash_size = -1, 0  # another seat's stash in progress: drawn
        if seat == active:
            self.stash = [take(c) for c in view["stash"]]
            stash_kind = next((KIND[deck.face[c]] for c in self.stash if KIND[deck.face[c]] != NOT_LOOT), NOT_LOOT)
        elif view["stash"]:
            self.stasher, self.stash_size = active, len(view["stash"])
        # An attacker who has not played a gun card yet holds one (else the state could not go on).
        phase = PHASES.index(view["phase"])
        self.gunner = active if phase == ATTACK and active != seat and not view["guns"] else -1
        return removed, stash_kind

    def _place_known(self, view: View, known: Knowledge | None, hands: list[list[int]],
                     hideouts: list[list[int]]) -> list[tuple[int, int, bool, bool]]:
        """Places the cards the history puts in the other hands and hideouts, where its facts fit
        the view and the deck (else only the view's are known). Returns the rest of each hideout
        as groups: (seat, cards, one stash, may hold a Booby Trap)."""
        seat, players, free = view["seat"], view["players"], self.free
        others = [s for s in range(view["num_players"]) if s != seat]
        pins = {s: [0] * NUM_FACES for s in others}
        pinned_hideouts = {s: [0] * NUM_FACES for s in others}
        groups: list[tuple[int, int, bool, bool]] = []
        for s in others:
            size = players[s]["hideout_size"]
            if known is not None and known.hideout_size(s) == size:
                pinned_hideouts[s] = known.hideout[s]
                groups += [(s, count, single, trap) for count, single, trap in known.groups[s] if count]
            elif size:
                groups.append((s, size, False, True))
            if known is not None and s != self.stasher and sum(known.hand[s]) <= players[s]["hand_size"]:
                pins[s] = known.hand[s]
        demand = [sum(p[f] for p in (*pins.values(), *pinned_hideouts.values())) for f in range(NUM_FACES)]
        if any(d > len(ids) for d, ids in zip(demand, free, strict=True)):  # never, if the history is the game's
            pins = {s: [0] * NUM_FACES for s in others}
            pinned_hideouts = {s: [0] * NUM_FACES for s in others}
            groups = [(s, players[s]["hideout_size"], False, True) for s in others if players[s]["hideout_size"]]
        for s in others:
            hands[s] = [free[f].pop() for f in range(NUM_FACES) for _ in range(pins[s][f])]
            hideouts[s] = [free[f].pop() for f in range(NUM_FACES) for _ in range(pinned_hideouts[s][f])]
        return groups

    def draw(self, rng: random.Random) -> BanditsState:
        """One state: the unknown cards dealt at random into the hidden places, as the facts
        allow. Its chance to come (new piles, raids) draws from ``rng``."""
        rand, face = rng.random, self.base["face"]
        for attempt in range(self.TRIES):
            gold, bags, traps = self.gold[:], self.bags[:], self.traps[:]
            hands = [hand[:] for hand in self.hands]
            hideouts = [hideout[:] for hideout in self.hideouts]
            stash, stash_kind = self.stash[:], self.base["stash_kind"]
            slots = self.hand_slots
            if self.stasher >= 0:
                slots = dict(slots)
                kind = self._stash(stash, hands[self.stasher], slots, gold, bags, traps, rand)
                if kind is None:
                    continue
                stash_kind = kind
            # The hideouts: first each stash of one kind (unless relaxed), then the mixed groups.
            singles, mixed, mixed_traps = self.groups if attempt < self.RELAX else self.relaxed
            for seat, count, trap in singles:
                ways, options = _stash_ways(len(gold), len(bags), len(traps) if trap else 0, count)
                if not ways:
                    break
                kind, t = options[min(bisect.bisect(ways, rand()), len(ways) - 1)]
                _take(traps, t, rand, hideouts[seat])
                _take(gold if kind == GOLD else bags, count - t, rand, hideouts[seat])
            else:
                loot = gold + bags
                for seat, count in mixed:
                    if count > len(loot):
                        break
                    _take(loot, count, rand, hideouts[seat])
                else:
                    loot += traps
                    for seat, count in mixed_traps:
                        if count > len(loot):
                            break
                        _take(loot, count, rand, hideouts[seat])
                    else:
                        # The rest in an order drawn at random (sorting by random keys: all in C).
                        rest = loot + self.other
                        rest.sort(key=dict(zip(rest, starmap(rand, repeat((), len(rest))), strict=True)).__getitem__)
                        start = 0
                        for seat, count in slots.items():
                            hands[seat] += rest[start:start + count]
                            start += count
                        if self.gunner >= 0 and not any(GUNS[face[c]] for c in hands[self.gunner]):
                            continue
                        return self._state(rng, hands, hideouts, rest[start:], stash, stash_kind)
        raise ValueError("no state found that fits the view")  # never with the game's own history

    def _stash(self, stash: list[int], hand: list[int], slots: dict[int, int], gold: list[int], bags: list[int],
               traps: list[int], rand: Callable[[], float]) -> int | None:
        """Draws another seat's stash in progress: loot of one kind and Booby Traps, its hand
        holding enough of that kind to reach 3. Returns the stash's kind, None if no fit."""
        size = self.stash_size
        kinds = [k for k, pool in ((GOLD, gold), (BAGS, bags))
                 if len(pool) >= STASH_MIN and len(pool) + len(traps) >= size]
        if not kinds:
            return None
        weights = [math.comb(len(gold if k == GOLD else bags) + len(traps), size) for k in kinds]
        r = rand() * sum(weights)
        kind = kinds[0] if r < weights[0] else kinds[-1]
        pool = gold if kind == GOLD else bags
        for _ in range(size):  # each card from the kind's loot or the traps
            r = int(rand() * (len(pool) + len(traps)))
            stash.append(pool.pop(r) if r < len(pool) else traps.pop(r - len(pool)))
        loot = sum(1 for c in stash if KIND[self.base["face"][c]] != NOT_LOOT)
        extra = max(0, STASH_MIN - loot)
        if extra > slots[self.stasher]:
            return None
        _take(pool, extra, rand, hand)
        slots[self.stasher] -= extra
        return kind if loot else NOT_LOOT

    def _state(self, rng: random.Random, hands: list[list[int]], hideouts: list[list[int]], pile: list[int],
               stash: list[int], stash_kind: int) -> BanditsState:
        state = object.__new__(BanditsState)
        fields = state.__dict__
        fields.update(self.base)
        log = _DrawnLog.__new__(_DrawnLog)
        log.entries, log.cursor, log.owned = self.entries, self.cursor[:], False
        fields.update(rng=rng, _rng_shared=False, log=log, hands=hands, hideouts=hideouts, pile=pile, stash=stash,
                      stash_kind=stash_kind, boneyard=self.boneyard[:], totals=self.totals[:],
                      attack=self.attack[:], defence=self.defence[:], counter=self.counter[:])
        return state


def sampler(game: GameSpec, view: View, history: list[dict[str, Any]],
            settings: Settings) -> Callable[[random.Random], BanditsState]:
    """Prepares the draws of states that ``view``'s seat may be in (see arena_games.determinise)."""
    assert isinstance(settings, BanditsSettings)
    return _Sampler(game, view, history, settings).draw
