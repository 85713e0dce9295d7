"""States of Sobek drawn from what one seat has seen, for search (:mod:`arena_games.determinise`).

"Sampling a state" in ``docs/games/sobek.md`` lists the facts a drawn state honours. The seat's
history of the round says what it knows of each hidden card (:class:`Knowledge`); a template
(:class:`Template`) holds every known card and what each hidden place still takes; each draw
deals the unknown cards into those places (:func:`_draw`).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any, NamedTuple

from ..core import GameSpec, Settings, View
from ..views import restore_log
from .components import (
    ADD,
    AMULET,
    BACK_OF,
    BACKS,
    BEIGE,
    BURY,
    COURTESAN_SET,
    CURSE,
    FAMILIES,
    FAMILY_OF,
    GREEN,
    GREEN_CARDS,
    HORIZONTAL,
    HORIZONTAL_SET,
    NAMES,
    ORANGE,
    PHASES,
    PICK,
    PROSPERITY,
    SCRIBE_LIMIT,
    SET,
    SET_MIN,
    STARTING_HAND,
    STEAL,
    TOKEN_COPIES,
    TOKENS,
    TWO_PLAYER_REMOVAL,
    Deck,
    SobekSettings,
    make_deck,
    parse_track,
)
from .state import PlayedSet, SobekState

# What a seat knows of each hidden card is a *slot*: an exact face (a face index, >= 0), or one
# of these classes. They nest (GREEN in ANY; BEIGE and ORANGE in DECK, DECK in ANY), and a
# card's back says its class, so drawing the unknown cards into the slots by back is simple.
GREEN_SLOT, BEIGE_SLOT, ORANGE_SLOT, DECK_SLOT, ANY_SLOT = -1, -2, -3, -4, -5
SLOT_CLASSES = (GREEN_SLOT, ORANGE_SLOT, BEIGE_SLOT, DECK_SLOT, ANY_SLOT)  # the order they are drawn
SLOT_OF_BACK = (GREEN_SLOT, BEIGE_SLOT, ORANGE_SLOT)  # by back
FACE_INDEX = {name: f for f, name in enumerate(NAMES)}
BACK_INDEX = {name: b for b, name in enumerate(BACKS)}
# Where a card of a known face may sit among a place's slots, the most specific first: taking it
# from the most specific keeps the rest true whichever it was.
WHERE = tuple((f, SLOT_OF_BACK[b], ANY_SLOT) if b == GREEN else (f, SLOT_OF_BACK[b], DECK_SLOT, ANY_SLOT)
              for f, b in enumerate(BACK_OF))


def _slot_class(slot: int) -> int:
    return SLOT_OF_BACK[BACK_OF[slot]] if slot >= 0 else slot


def _common_class(slots: list[int]) -> int:
    """The narrowest class holding every slot (what is left of them after an unseen one leaves)."""
    classes = {_slot_class(x) for x in slots}
    if len(classes) == 1:
        return classes.pop()
    return ANY_SLOT if not classes or GREEN_SLOT in classes or ANY_SLOT in classes else DECK_SLOT


def _hidden_move(hand: list[int], pile: list[int], count: int) -> None:
    """``count`` cards of a hand, unseen which, go to its owner's pile."""
    cls = _common_class(hand)
    hand[:] = [cls] * (len(hand) - count)
    pile += [cls] * count


def _take(slots: list[int], f: int) -> bool:
    """Takes a card of face ``f`` out of ``slots``; False if none may be it."""
    for x in WHERE[f]:
        if x in slots:
            slots.remove(x)
            return True
    return False


class Knowledge:
    """What ``seat`` knows of the hidden cards of the current round, from its history.

    Other players' hands and piles are lists of slots; the seat's own hand and pile are the
    view's (its pile is also followed, to tell what it has buried for a Scribe so far). A place
    whose cards cannot be followed (an incomplete history) is ``lost``: only its size is kept.
    """

    def __init__(self, seat: int, view: View, history: list[dict[str, Any]]) -> None:
        n = self.num_players = view["num_players"]
        self.seat = seat
        self.hands: list[list[int]] = [[GREEN_SLOT] * STARTING_HAND for _ in range(n)]
        self.piles: list[list[int]] = [[] for _ in range(n)]
        self.lost = [False] * n
        self.ender = -1  # who ended the round (horizontal sets)
        self.chosen: list[int] = []  # token kinds chosen this round
        self.remaining: list[int] | None = None  # the remaining token kinds, once seen
        start = max((i for i, e in enumerate(history) if e["type"] == "round" and e["round"] == view["round"]),
                    default=-1)
        if start < 0:
            self.lost = [True] * n
            return
        for event in history[start + 1:]:
            handler = getattr(self, "_on_" + event["type"], None)
            if handler is not None:
                handler(event)

    def _gain(self, seat: int, slot: int) -> None:
        if seat != self.seat:
            self.hands[seat].append(slot)

    def _lose(self, places: list[list[int]], seat: int, f: int) -> None:
        if (seat != self.seat or places is self.piles) and not _take(places[seat], f):
            self.lost[seat] = True

    def _on_take(self, e: dict[str, Any]) -> None:
        s, card = e["seat"], e["card"]
        self._gain(s, ORANGE_SLOT if card == BACKS[ORANGE] else FACE_INDEX[card])
        for name in e.get("skipped", ()):
            self.piles[s].append(ORANGE_SLOT if name == BACKS[ORANGE] else FACE_INDEX[name])

    def _on_play(self, e: dict[str, Any]) -> None:
        if e["seat"] != self.seat:
            self._lose(self.hands, e["seat"], FACE_INDEX[e["card"]])

    def _on_draw(self, e: dict[str, Any]) -> None:
        for _ in range(e["count"]):
            self._gain(e["seat"], DECK_SLOT)

    def _on_purge(self, e: dict[str, Any]) -> None:
        for name in e.get("cards", ()):
            self._lose(self.piles, e["seat"], FACE_INDEX[name])

    def _on_steal(self, e: dict[str, Any]) -> None:
        thief, victim, card = e["seat"], e["target"], e["card"]
        if card in BACK_INDEX:  # seen by neither: only its back is known
            back = BACK_INDEX[card]
            hand = self.hands[victim]
            # Any card of that back may have gone: the known ones of that back become its class.
            cls = SLOT_OF_BACK[back]
            hand[:] = [cls if x >= 0 and BACK_OF[x] == back else x for x in hand]
            for x in (cls, DECK_SLOT, ANY_SLOT) if back != GREEN else (cls, ANY_SLOT):
                if x in hand:
                    hand.remove(x)
                    break
            else:
                self.lost[victim] = True
            self._gain(thief, cls)
        else:
            f = FACE_INDEX[card]
            if victim != self.seat:
                self._lose(self.hands, victim, f)
            self._gain(thief, f)

    def _on_seize(self, e: dict[str, Any]) -> None:
        vizier, victim = e["seat"], e["target"]
        if "card" in e:
            f = FACE_INDEX[e["card"]]
            self._lose(self.piles, victim, f)
            self._gain(vizier, f)
        else:  # any card of the pile may have gone
            pile = self.piles[victim]
            cls = _common_class(pile)
            pile[:] = [cls] * (len(pile) - 1)
            self._gain(vizier, cls)

    def _on_bury(self, e: dict[str, Any]) -> None:
        s, count = e["seat"], e["count"]
        if s == self.seat:
            self.piles[s] += [FACE_INDEX[name] for name in e["cards"]]
        else:
            _hidden_move(self.hands[s], self.piles[s], count)

    def _on_set(self, e: dict[str, Any]) -> None:
        if e["seat"] != self.seat:
            for name in e["cards"]:
                self._lose(self.hands, e["seat"], FACE_INDEX[name])

    _on_extend = _on_add = _on_horizontal = _on_set

    def _on_embalming(self, e: dict[str, Any]) -> None:
        s = e["seat"]
        self._gain_all(s, self.piles[s])
        self.piles[s] = []

    def _gain_all(self, s: int, slots: list[int]) -> None:
        if s != self.seat:
            self.hands[s] += slots

    def _on_unplayed(self, e: dict[str, Any]) -> None:
        s = e["seat"]
        self.piles[s] += self.hands[s] if s != self.seat else [ANY_SLOT] * e["count"]
        self.hands[s] = []

    def _on_round_end(self, e: dict[str, Any]) -> None:
        self.ender = e["seat"]

    def _on_token(self, e: dict[str, Any]) -> None:
        kind = TOKENS.index(e["token"])
        self.chosen.append(kind)
        if "tokens" in e:  # the seat chose: it saw the remaining tokens
            self.remaining = [TOKENS.index(t) for t in e["tokens"]]
        if self.remaining is not None and kind in self.remaining:
            self.remaining.remove(kind)


Requirement = tuple[int, tuple[tuple[frozenset[int], int], ...]]
Place = tuple[str, int, tuple[int, ...], tuple[tuple[int, int], ...]]


class Template(NamedTuple):
    """What a seat's decision fixes for every draw: a state with the known cards in place, and
    how many cards of each class each place with hidden cards still takes."""

    state: SobekState
    places: tuple[Place, ...]
    """(field, seat or -1, known ids, ((class, count), ...)) of each place with hidden cards."""
    market_slots: tuple[int, ...]  # market positions of the face-down characters
    demand: dict[int, int]  # slots of each class, over every place
    pool_green: tuple[int, ...]  # the unknown cards by back
    pool_other: tuple[int, ...]
    token_pool: tuple[int, ...] | None  # the tokens the remaining ones are drawn from (None: known)
    tokens_left: int
    burying: int  # cards buried so far by another seat for a Scribe (their faces are drawn)
    requirement: Requirement | None
    """(seat, ((faces, how many), ...)): cards another seat's hand must hold to go on with what it
    is doing (laying a set, a Courtesan's addition), beyond its known ones."""


def sampler(game: GameSpec, view: View, history: list[dict[str, Any]],
            settings: Settings) -> Callable[[random.Random], SobekState]:
    """Draws states consistent with ``view`` and ``history`` (docs/games/sobek.md, "Sampling a state")."""
    assert isinstance(settings, SobekSettings)
    seat = view["seat"]
    knowledge = Knowledge(seat, view, history)
    template = _template(game, view, history, settings, knowledge)
    if template is None:  # the slots cannot all be filled: keep only the sizes of hidden places
        knowledge.lost = [True] * knowledge.num_players
        template = _template(game, view, history, settings, knowledge)
        if template is None:
            raise ValueError("no state of Sobek agrees with this view")
    return functools.partial(_draw, template)


def _template(game: GameSpec, view: View, history: list[dict[str, Any]], settings: SobekSettings,
              knowledge: Knowledge) -> Template | None:
    """The template of a decision, or None if the unknown cards cannot fill the slots."""
    deck = make_deck(settings.valued_cards, settings.green_cards, settings.characters)
    spare = [deck.cards.ids(name) for name in deck.cards.names]  # unplaced ids by face
    hands, piles, burying, buried = _slots(view, knowledge)
    st, market_slots = _known_state(game, view, history, settings, knowledge, deck, spare, buried)
    hidden = _hidden_places(view, hands, piles, spare, len(market_slots))
    if hidden is None:
        return None
    places, demand = hidden
    face, back = deck.cards.face_of, BACK_OF
    pool = [c for ids in spare for c in ids]
    pool_green = tuple(sorted(c for c in pool if back[face[c]] == GREEN))
    pool_other = tuple(sorted(c for c in pool if back[face[c]] != GREEN))
    oranges = sum(1 for c in pool_other if back[face[c]] == ORANGE)
    if (len(pool) != sum(demand.values()) or demand[GREEN_SLOT] > len(pool_green)
            or demand[ORANGE_SLOT] > oranges or demand[BEIGE_SLOT] > len(pool_other) - oranges
            or demand[ORANGE_SLOT] + demand[BEIGE_SLOT] + demand[DECK_SLOT] > len(pool_other)):
        return None
    token_pool = _place_tokens(st, view, knowledge)
    return Template(st, places, tuple(market_slots), demand, pool_green, pool_other, token_pool,
                    view["tokens_left"], burying, _requirement(view, st, hands))


def _slots(view: View, knowledge: Knowledge) -> tuple[list[list[int]], list[list[int]], int, list[int]]:
    """The slots of every hand and corruption pile now: the history's, then what is happening now
    (cards being laid, cards being buried for a Scribe) and what the deciding seat is shown (the
    backs of a victim's hand, a victim's pile). Also how many cards another seat has buried so far,
    and the faces this seat has buried itself."""
    n, seat, phase = view["num_players"], view["seat"], PHASES.index(view["phase"])
    to_act, players = view["to_act"], view["players"]
    hands, piles = [list(h) for h in knowledge.hands], [list(p) for p in knowledge.piles]
    # What is happening now, not yet in an event: cards being laid, cards being buried.
    if view["selection"] and view["active"] != seat:
        for name in view["selection"]:
            if not _take(hands[view["active"]], FACE_INDEX[name]):
                knowledge.lost[view["active"]] = True
    burying, buried = 0, []
    if phase == BURY:
        if to_act == seat:
            left = [FACE_INDEX[name] for name in view["corruption"]]
            for f in piles[seat]:
                if f in left:
                    left.remove(f)
            buried = sorted(left)
        else:
            burying = players[to_act]["corruption_size"] - len(piles[to_act])
            if 0 < burying <= len(hands[to_act]):
                _hidden_move(hands[to_act], piles[to_act], burying)
            else:
                burying = 0
    for s in range(n):
        if s != seat and (knowledge.lost[s] or len(hands[s]) != players[s]["hand_size"]
                          or len(piles[s]) != players[s]["corruption_size"]):
            hands[s] = [ANY_SLOT] * players[s]["hand_size"]
            piles[s] = [ANY_SLOT] * players[s]["corruption_size"]
    # What the deciding seat is shown now: the backs of a victim's hand, a victim's pile.
    target = view["target"]
    if view["shown"] and phase == STEAL:
        hands[target] = _with_backs(hands[target], [BACK_INDEX[b] for b in view["shown"]])
    elif view["shown"] and phase == PICK:
        piles[target] = [FACE_INDEX[name] for name in view["shown"]]
    return hands, piles, burying, buried


def _known_state(game: GameSpec, view: View, history: list[dict[str, Any]], settings: SobekSettings,
                 knowledge: Knowledge, deck: Deck, spare: list[list[int]],
                 buried: list[int]) -> tuple[SobekState, list[int]]:
    """The state with every known card in place (ids taken from ``spare``), and the market
    positions of its face-down characters, which each draw fills."""
    n, seat, phase = view["num_players"], view["seat"], PHASES.index(view["phase"])
    to_act, players = view["to_act"], view["players"]

    def place(names: list[str]) -> list[int]:
        return [spare[FACE_INDEX[name]].pop() for name in names]

    st = object.__new__(SobekState)
    st.game, st.num_players, st.seed, st.settings = game, n, 0, settings
    st._rng, st._rng_seed, st._rng_shared, st._legal = None, 0, False, None
    st.log = restore_log(seat, view, history, n)
    st.cards, st.face, st.green_ids, st.deck_ids = deck.cards, deck.cards.face_of, deck.green, deck.others
    st.track = parse_track(settings.track_symbols)
    st.score, st.round, st.phase = list(view["scores"]), view["round"], phase
    st.active, st.to_act, st.start_player = view["active"], to_act, view["start_player"]
    st.delivery, st.extra_turn, st.target = view["delivery"], view["extra_turn"], view["target"]
    st.build_family = FAMILIES.index(view["family"]) if view["family"] in FAMILIES else -1
    st.build_index = view["set_index"]
    st.buried = buried
    st.queue = _queue(view, st.active, knowledge.ender)
    st.hands = [place(view["hand"]) if s == seat else [] for s in range(n)]
    st.corruption = [place(view["corruption"]) if s == seat else [] for s in range(n)]
    st.sets = []
    for p in players:
        mine = []
        for shown_set in p["sets"]:
            played = PlayedSet(FAMILIES.index(shown_set["family"]), place(shown_set["cards"]), shown_set["horizontal"])
            mine.append(played)
        st.sets.append(mine)
    st.deck, st.removed, st.green_out = [], [], []  # hidden: each draw deals them
    st.discard = place(view["discard"])
    st.selection = place(view["selection"])
    st.market, market_slots = [], []
    for i, name in enumerate(view["market"]):
        if name == BACKS[ORANGE]:
            st.market.append(-1)
            market_slots.append(i)
        else:
            st.market += place([name])
    return st, market_slots


def _queue(view: View, active: int, ender: int) -> list[int]:
    """The seats still to decide in turn after ``to_act``, with it: the Scribe's victims still to
    bury, or the players still to lay horizontal sets."""
    n, phase, to_act, players = view["num_players"], PHASES.index(view["phase"]), view["to_act"], view["players"]
    if phase == BURY:  # the Scribe's victims still to bury: clockwise up to the Scribe's player
        later = [(to_act + k) % n for k in range(1, n)]
        later = later[: later.index(active)] if active in later else later
        return [to_act] + [s for s in later if players[s]["hand_size"] > SCRIBE_LIMIT]
    if phase in (HORIZONTAL, HORIZONTAL_SET):  # from to_act on, up to the one who ended the round
        ender = ender if ender >= 0 else (to_act - 1) % n
        order = [(ender + k) % n for k in range(1, n + 1)]
        return order[order.index(to_act):]
    return []


def _hidden_places(view: View, hands: list[list[int]], piles: list[list[int]], spare: list[list[int]],
                   market_slots: int) -> tuple[tuple[Place, ...], dict[int, int]] | None:
    """The places with hidden cards (the other hands and piles, the deck, the removed and the
    unused green cards): each with its known cards (ids taken from ``spare``) and how many slots
    of each class it has; and the slots of each class over all of them. None: a known card has
    no id left."""
    n, seat = view["num_players"], view["seat"]
    wanted: list[tuple[str, int, list[int]]] = []
    for s in range(n):
        if s != seat:
            wanted.append(("hands", s, hands[s]))
            wanted.append(("corruption", s, piles[s]))
    wanted.append(("deck", -1, [DECK_SLOT] * view["deck_size"]))
    wanted.append(("removed", -1, [DECK_SLOT] * (TWO_PLAYER_REMOVAL if n == 2 else 0)))
    wanted.append(("green_out", -1, [GREEN_SLOT] * (GREEN_CARDS - STARTING_HAND * n)))
    demand = dict.fromkeys(SLOT_CLASSES, 0)
    demand[ORANGE_SLOT] = market_slots
    places = []
    for field, s, slots in wanted:
        known = []
        for x in slots:
            if x >= 0:
                if not spare[x]:
                    return None
                known.append(spare[x].pop())
        counts = []
        for cls in SLOT_CLASSES:
            k = slots.count(cls)
            if k:
                counts.append((cls, k))
                demand[cls] += k
        places.append((field, s, tuple(known), tuple(counts)))
    return tuple(places), demand


def _requirement(view: View, st: SobekState, hands: list[list[int]]) -> Requirement | None:
    """What another seat laying a set or adding to one for a Courtesan must still hold: enough
    cards of the family or Amulets to close it (one at least, else it would have closed), one
    of them not an Amulet for a new set of Amulets so far; a Courtesan, a card for one of its sets."""
    builder, phase = st.to_act, st.phase
    if builder == view["seat"] or phase not in (SET, HORIZONTAL_SET, ADD, COURTESAN_SET):
        return None
    if phase == COURTESAN_SET:
        families = {played.family for played in st.sets[builder]}
        plain = 0
        total = 1
    else:
        families = {st.build_family}
        chosen = st.selection
        total = 1 if phase == ADD else max(1, SET_MIN - len(chosen))
        plain = int(phase != ADD and st.build_index < 0 and all(st.face[c] == AMULET for c in chosen))
    eligible = frozenset(f for f in range(len(NAMES)) if FAMILY_OF[f] in families or f == AMULET)
    plain_faces = frozenset(f for f in eligible if f != AMULET)
    known = [x for x in hands[builder] if x >= 0]
    plain = max(0, plain - sum(1 for x in known if x in plain_faces))
    total = max(0, total - sum(1 for x in known if x in eligible) - plain)
    wanted = tuple((faces, k) for faces, k in ((plain_faces, plain), (eligible, total)) if k)
    return (builder, wanted) if wanted else None


def _place_tokens(st: SobekState, view: View, knowledge: Knowledge) -> tuple[int, ...] | None:
    """The event tokens of a template: the chosen ones are public (held, applied or discarded, a
    Curse with its pile, a Prosperity with its set); the remaining ones are known to a seat that has
    chosen among them this round; else they are drawn among the others, which this returns."""
    players = view["players"]
    free = list(range(len(TOKENS) * TOKEN_COPIES))

    def token(kind: int) -> int:
        t = next(t for t in free if t // TOKEN_COPIES == kind)
        free.remove(t)
        return t

    st.held = [token(TOKENS.index(view["token"]))] if view["token"] in TOKENS else []
    st.curses = [[token(CURSE) for _ in range(p["curses"])] for p in players]
    for mine, p in zip(st.sets, players, strict=True):
        for played, shown_set in zip(mine, p["sets"], strict=True):
            played.prosperity = [token(PROSPERITY) for _ in range(shown_set["prosperity"])]
    # Applied or discarded: the chosen ones that are neither held, nor a Curse or Prosperity in play.
    used = list(knowledge.chosen)
    for kind in ([TOKENS.index(view["token"])] if st.held else []) + [CURSE] * sum(
            p["curses"] for p in players) + [PROSPERITY] * sum(x["prosperity"] for p in players for x in p["sets"]):
        if kind in used:
            used.remove(kind)
    remaining = [TOKENS.index(t) for t in view["tokens"]] if view["tokens"] else knowledge.remaining
    if remaining is not None and len(remaining) != view["tokens_left"]:
        remaining = None
    st.tokens_used = [token(kind) for kind in used if any(t // TOKEN_COPIES == kind for t in free)]
    st.tokens = []
    if remaining is not None and all(sum(1 for t in free if t // TOKEN_COPIES == k) >= remaining.count(k)
                                     for k in set(remaining)):
        st.tokens = [token(kind) for kind in remaining]
        st.tokens_out = free
        return None
    st.tokens_out = []
    return tuple(free)


def _with_backs(slots: list[int], backs: list[int]) -> list[int]:
    """A hand's slots made to show exactly ``backs`` (a Thief sees them): the classes that allow
    several backs are narrowed to what is left to show; slots that contradict them, replaced."""
    need = [backs.count(b) for b in range(len(BACKS))]
    out, loose = [], []
    for x in slots:
        b = BACK_OF[x] if x >= 0 else {GREEN_SLOT: GREEN, BEIGE_SLOT: BEIGE, ORANGE_SLOT: ORANGE}.get(x, -1)
        if b >= 0:
            need[b] -= 1
            out.append(x)
        else:
            loose.append(x)
    decks = loose.count(DECK_SLOT)
    if min(need) < 0 or len(loose) != sum(need) or decks > need[BEIGE] + need[ORANGE]:
        return [SLOT_OF_BACK[b] for b in backs]
    beige = min(decks, need[BEIGE])
    out += [BEIGE_SLOT] * beige + [ORANGE_SLOT] * (decks - beige)
    need[BEIGE] -= beige
    need[ORANGE] -= decks - beige
    for b in range(len(BACKS)):
        out += [SLOT_OF_BACK[b]] * need[b]
    return out


def _feasible(demand: dict[int, int], greens: int, beiges: int, oranges: int) -> bool:
    """Whether cards of these backs can fill slots of these classes (the classes nest, so counts
    decide)."""
    return (demand[GREEN_SLOT] <= greens and demand[ORANGE_SLOT] <= oranges and demand[BEIGE_SLOT] <= beiges
            and demand[ORANGE_SLOT] + demand[BEIGE_SLOT] + demand[DECK_SLOT] <= beiges + oranges
            and sum(demand.values()) == greens + beiges + oranges)


def _meet(t: Template, greens: list[int], others: list[int],
          rng: random.Random) -> tuple[tuple[Place, ...], dict[int, int]]:
    """Deals first the cards another seat's hand must hold for what it is doing (a set being laid,
    a Courtesan's addition), each into a slot its back fits, while the rest can still be filled.
    Returns the places and the demand left for the other cards."""
    assert t.requirement is not None
    seat, wanted = t.requirement
    face = t.state.face
    places = list(t.places)
    index = next(i for i, p in enumerate(places) if p[0] == "hands" and p[1] == seat)
    field, _, placed, counts = places[index]
    known, left = list(placed), dict(counts)
    demand = dict(t.demand)
    for faces, count in wanted:
        for _ in range(count):
            candidates = [c for c in greens + others if face[c] in faces]
            rng.shuffle(candidates)
            for c in candidates:
                b = BACK_OF[face[c]]
                pool = [len(greens), sum(1 for x in others if BACK_OF[face[x]] == BEIGE)]
                pool.append(len(others) - pool[1])
                pool[b] -= 1
                fits = [x for x in WHERE[face[c]][1:] if left.get(x)]
                cls = next((x for x in fits if _feasible({**demand, x: demand[x] - 1}, *pool)), None)
                if cls is not None:
                    (greens if b == GREEN else others).remove(c)
                    known.append(c)
                    left[cls] -= 1
                    demand[cls] -= 1
                    break
    places[index] = (field, seat, tuple(known), tuple((x, k) for x, k in left.items() if k))
    return tuple(places), demand


def _draw(t: Template, rng: random.Random) -> SobekState:
    """One state of a template: its unknown cards dealt at random into the hidden places."""
    demand, face, places = t.demand, t.state.face, t.places
    greens = list(t.pool_green)
    others = list(t.pool_other)
    if t.requirement is not None:
        places, demand = _meet(t, greens, others, rng)
    rng.shuffle(greens)
    rng.shuffle(others)
    want_orange, want_beige = demand[ORANGE_SLOT], demand[BEIGE_SLOT]
    if want_orange or want_beige:  # the first cards of each back in the shuffled order
        orange: list[int] = []
        beige: list[int] = []
        rest: list[int] = []
        for c in others:
            b = BACK_OF[face[c]]
            if b == ORANGE and len(orange) < want_orange:
                orange.append(c)
            elif b == BEIGE and len(beige) < want_beige:
                beige.append(c)
            else:
                rest.append(c)
    else:
        orange = beige = []
        rest = others
    nd = demand[DECK_SLOT]
    wild = []
    if demand[ANY_SLOT]:
        wild = rest[nd:] + greens[demand[GREEN_SLOT]:]
        rng.shuffle(wild)
    drawn = {GREEN_SLOT: greens, ORANGE_SLOT: orange, BEIGE_SLOT: beige, DECK_SLOT: rest, ANY_SLOT: wild}
    used = dict.fromkeys(SLOT_CLASSES, 0)
    s = t.state.clone()
    market = s.market
    for i in t.market_slots:
        market[i] = orange[used[ORANGE_SLOT]]
        used[ORANGE_SLOT] += 1
    for field, seat, known, counts in places:
        cards = list(known)
        for cls, k in counts:
            start = used[cls]
            cards += drawn[cls][start:start + k]
            used[cls] = start + k
        if seat < 0:
            setattr(s, field, cards)
        else:
            getattr(s, field)[seat] = cards
    if t.burying:
        s.buried = [face[c] for c in s.corruption[s.to_act][-t.burying:]]
    if t.token_pool is not None:  # the remaining tokens, drawn among those not seen
        pool = list(t.token_pool)
        rng.shuffle(pool)
        s.tokens, s.tokens_out = pool[:t.tokens_left], pool[t.tokens_left:]
    s._rng, s._rng_seed, s._rng_shared = None, rng.getrandbits(64), False
    return s
