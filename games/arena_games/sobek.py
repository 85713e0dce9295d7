"""Sobek: merchants collecting sets of goods at a Nile market, without becoming the most corrupt.

The rules are those of ``docs/games/sobek.md``; the methods follow them in their order
(components, the setup of each round, a turn, the characters, the event tokens, the end of
a round, the end of the game), each kind of decision by its pair ``_legal_<phase>`` and
``_apply_<phase>``. Names follow the rulebook: cards are taken from the
*market* along the Nile, cards skipped go under the taker's *corruption* tile, goods are
laid in *sets*, and the round's *event tokens* reward playing a set.

Decisions are fine-grained; each lists every legal action:

===============  ======================  ==========================================================
phase            who decides             actions
===============  ======================  ==========================================================
start            lowest score (rounds    ``start:<seat>``: who starts the round
                 2 and 3)
turn             the active player       ``take:<i>`` (one of the first 4 market cards),
                                         ``play:<character>`` (for its power), ``set:<family>``
                                         (a new set), ``extend:<set>`` (add to a set of yours)
set              the active player       ``card:<face>`` (next card of the set), ``done``
event            the active player       ``token:<token>``: one of the remaining event tokens
token            the active player       the chosen token: ``target:<seat>`` (Guild, Curse),
                                         ``prosperity:<set>``, ``apply`` (Flood, Embalming,
                                         Deception); or ``discard``
priest           the active player       ``family:<family>`` (High Priest)
thief / steal    the active player       ``target:<seat>``, then ``steal:<back>`` (Thief)
vizier / pick    the active player       ``target:<seat>``, then ``pick:<face>`` (Vizier)
bury             each opponent over 6    ``bury:<face>``, one card at a time (Scribe)
courtesan / add  the active player       ``extend:<set>``, then ``card:<face>``, ``done`` (Courtesan)
merchant         the active player       ``take:<i>``, any market card (Merchant)
horizontal       each player in turn     ``set:<family>`` (a horizontal set) or ``done``
horizontal_set   that player             ``card:<face>``, ``done``
===============  ======================  ==========================================================

Market positions count the cards still in the market from the temple, from 0. Sets are
numbered per player in the order they were laid, from 0.

Where the rulebook is silent, this engine decides (the page lists them all):

* Choosing a token is part of the reward and is not optional; the chosen token may then be
  discarded unused. Guild moves the opponent to the next space with the symbol of *their* space.
* Deception counts the cards in the pile; a Curse counts as 2 cards only at the end of the round.
* A Thief picks a back colour; the engine takes one of the victim's cards with that back at
  random (the victim's hand is shown face down in a random order). A Thief or Vizier may only
  target an opponent who has a card to take; with no such opponent the power has no effect.
* A set, once started, must be completed (3 or more cards); a card choice closes by itself when
  no eligible card is left, or when the Courtesan's second card is added.
* A player whose corruption pile is empty (and holds no Curse) is never the most corrupt.
* Horizontal sets are laid starting with the player after the one who ended the round.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Literal, NamedTuple

from .cards import CardSet, deal, shuffled
from .core import DONE, Action, BadSettings, GameSpec, PhasedState, Settings, View, action_table
from .views import seat_view

# -- components ----------------------------------------------------------------------------
FAMILIES = ("ivory", "ebony", "marble", "cattle", "fish", "wheat")
IVORY, EBONY, MARBLE, CATTLE, FISH, WHEAT = range(6)
AMULETS = 6  # the family index of an Amulet: wild, it belongs to no family
FAMILY_CARDS = (6, 7, 7, 9, 10, 10)  # goods cards per family, the green ones included
AMULET_CARDS = 5
GREEN_CARDS = 9
CHARACTER_CARDS = 9
MAX_SCARABS = 3  # the most scarabs a valued card may carry (a setting's bound)
ROLES = ("queen", "high_priest", "scribe", "vizier", "thief", "courtesan", "merchant")
QUEEN, HIGH_PRIEST, SCRIBE, VIZIER, THIEF, COURTESAN, MERCHANT = range(7)

# What a face-down card shows: its back. Starting goods are green, deck goods beige,
# characters orange; views show these where a seat sees only the back. (The protocol's zero
# card, "unknown", is never needed: a card no seat may see is never shown at all.)
BACKS = ("back_green", "back_beige", "back_orange")
GREEN, BEIGE, ORANGE = range(3)


class _Faces(NamedTuple):
    names: tuple[str, ...]
    family: tuple[int, ...]
    scarabs: tuple[int, ...]
    role: tuple[int, ...]  # -1 for goods
    back: tuple[int, ...]


def _all_faces() -> _Faces:
    """Every face the settings can describe, grouped by family so sorted hands read by family.

    Per family: beige goods with 0 to 3 scarabs, the green starting card (0 scarabs), and each
    character role in that family. The settings say how many of each exist (often none).
    """
    rows: list[tuple[str, int, int, int, int]] = []
    for fam, family in enumerate(FAMILIES):
        rows += [(f"{family}_{v}", fam, v, -1, BEIGE) for v in range(MAX_SCARABS + 1)]
        rows.append((f"{family}_green", fam, 0, -1, GREEN))
        rows += [(f"{role}_{family}", fam, 0, r, ORANGE) for r, role in enumerate(ROLES)]
    rows.append(("amulet", AMULETS, 0, -1, BEIGE))
    return _Faces(*(tuple(column) for column in zip(*rows, strict=True)))


FACES = _all_faces()
NAMES = FACES.names
FAMILY_OF, SCARABS_OF, ROLE_OF, BACK_OF = FACES.family, FACES.scarabs, FACES.role, FACES.back
AMULET = NAMES.index("amulet")
# A card as everyone sees it in the market: goods face up, characters face down.
PUBLIC = tuple(BACKS[ORANGE] if r >= 0 else n for n, r in zip(NAMES, ROLE_OF, strict=True))

TOKENS = ("guild", "flood", "curse", "prosperity", "embalming", "deception")
GUILD, FLOOD, CURSE, PROSPERITY, EMBALMING, DECEPTION = range(6)
TOKEN_COPIES = 2  # token id t is of kind t // TOKEN_COPIES
ROUND_TOKENS = 5
PROSPERITY_FAMILIES = (WHEAT, FISH, CATTLE)
PROSPERITY_BONUS = 2  # scarabs per Prosperity token on a set
CURSE_WEIGHT = 2  # a Curse counts as this many cards in a corruption pile

SYMBOLS = ("number", "ankh", "eye", "scarab", "lotus")
NUMBER = 0
TRACK = 100  # the score track wraps here; scores go on counting above it

ROUNDS = 3
EARLY_END_ROUND, EARLY_END_SCORE = 2, 100  # after round 2, a score above 100 ends the game
STARTING_HAND = 2
DELIVERY = 9
MARKET_REACH = 4  # a take chooses among the first 4 cards still in the market
TWO_PLAYER_REMOVAL = 9
QUEEN_DRAW = 3
SCRIBE_LIMIT = 6
COURTESAN_MAX = 2
SET_MIN = 3
PENALTY_STEP = 10  # a corrupt player steps back once per full 10 points scored in the round


# -- settings ------------------------------------------------------------------------------
DEFAULT_VALUED = "ivory=3x3,ebony=4x2,marble=4x2,cattle=4x1,fish=5x1,wheat=5x1"
DEFAULT_GREEN = "wheat=2,fish=2,cattle=2,marble=1,ebony=1,ivory=1"
DEFAULT_CHARACTERS = ("queen=ivory,high_priest=ebony,scribe=marble,vizier=cattle,vizier=wheat,"
                      "thief=fish,thief=wheat,courtesan=fish,merchant=cattle")
DEFAULT_TRACK = "ankh,eye,scarab,lotus/eye,scarab,lotus,ankh/eye,ankh,lotus,scarab/scarab,lotus,eye,ankh"


def _items(setting: str, text: str) -> list[tuple[str, str]]:
    """``"a=1,b=2"`` -> ``[("a", "1"), ("b", "2")]``, naming the setting on a bad item."""
    out = []
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise BadSettings(f"setting {setting}: expected NAME=VALUE items separated by commas, "
                              f"got {item!r}")
        out.append((key.strip(), value.strip()))
    return out


def _family(setting: str, name: str) -> int:
    if name not in FAMILIES:
        raise BadSettings(f"setting {setting}: {name!r} is not a family; families: {', '.join(FAMILIES)}")
    return FAMILIES.index(name)


@functools.lru_cache(maxsize=32)
def parse_green(text: str) -> tuple[int, ...]:
    """Green starting cards per family."""
    green = [0] * len(FAMILIES)
    for name, value in _items("green_cards", text):
        fam = _family("green_cards", name)
        if not value.isdigit() or int(value) > FAMILY_CARDS[fam]:
            raise BadSettings(f"setting green_cards: {name} must be 0 to {FAMILY_CARDS[fam]} cards, "
                              f"got {value!r}")
        green[fam] += int(value)
    if sum(green) != GREEN_CARDS:
        raise BadSettings(f"setting green_cards: there are {GREEN_CARDS} green cards, got {sum(green)}")
    return tuple(green)


@functools.lru_cache(maxsize=32)
def parse_valued(text: str, green: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """(cards, scarabs each) per family: the beige cards that carry scarabs."""
    valued: list[tuple[int, int] | None] = [None] * len(FAMILIES)
    for name, value in _items("valued_cards", text):
        fam = _family("valued_cards", name)
        count, sep, scarabs = value.partition("x")
        beige = FAMILY_CARDS[fam] - green[fam]
        if valued[fam] is not None:
            raise BadSettings(f"setting valued_cards: {name} is listed twice")
        if not (sep and count.isdigit() and scarabs.isdigit()):
            raise BadSettings(f"setting valued_cards: {name} must be CARDSxSCARABS such as 3x2, "
                              f"got {value!r}")
        if not 1 <= int(count) <= beige:
            raise BadSettings(f"setting valued_cards: {name} has {beige} beige cards ({green[fam]} of its "
                              f"{FAMILY_CARDS[fam]} are green), so 1 to {beige} may carry scarabs; "
                              f"got {count}")
        if not 1 <= int(scarabs) <= MAX_SCARABS:
            raise BadSettings(f"setting valued_cards: a card carries 1 to {MAX_SCARABS} scarabs, "
                              f"got {scarabs}")
        valued[fam] = (int(count), int(scarabs))
    missing = [FAMILIES[f] for f, v in enumerate(valued) if v is None]
    if missing:
        raise BadSettings(f"setting valued_cards: every family has valued cards; "
                          f"missing {', '.join(missing)}")
    return tuple(v for v in valued if v is not None)


@functools.lru_cache(maxsize=32)
def parse_characters(text: str) -> tuple[tuple[int, int], ...]:
    """(role, family) of each character card."""
    out = []
    for role, family in _items("characters", text):
        if role not in ROLES:
            raise BadSettings(f"setting characters: {role!r} is not a character; known: {', '.join(ROLES)}")
        out.append((ROLES.index(role), _family("characters", family)))
    if len(out) != CHARACTER_CARDS:
        raise BadSettings(f"setting characters: there are {CHARACTER_CARDS} character cards, got {len(out)}")
    return tuple(out)


@functools.lru_cache(maxsize=32)
def parse_track(text: str) -> tuple[int, ...]:
    """The symbol of each space 0..99 of the score track."""
    blocks = []
    for block in text.split("/"):
        names = [s.strip() for s in block.split(",")]
        if len(names) != 4 or any(s not in SYMBOLS[1:] for s in names):
            raise BadSettings(f"setting track_symbols: each block is 4 of {', '.join(SYMBOLS[1:])} "
                              f"separated by commas, blocks by '/'; got {block!r}")
        blocks.append(tuple(SYMBOLS.index(s) for s in names))
    track = []
    for k in range(TRACK // 5):
        track.append(NUMBER)  # multiples of 5 are numbered: a fifth symbol
        track += blocks[k % len(blocks)]
    return tuple(track)


@dataclasses.dataclass(frozen=True)
class SobekSettings(Settings):
    """The [house] rules of Sobek, with the defaults of its page."""

    valued_cards: str = DEFAULT_VALUED
    """Beige goods cards carrying scarabs, per family: ``family=CARDSxSCARABS`` (1 to 3 scarabs).
    The family's other goods cards have none."""

    green_cards: str = DEFAULT_GREEN
    """The 9 green-backed starting cards (no scarabs), per family: ``family=CARDS``."""

    characters: str = DEFAULT_CHARACTERS
    """The 9 character cards as ``role=family``; roles: queen, high_priest, scribe, vizier, thief,
    courtesan, merchant."""

    track_symbols: str = DEFAULT_TRACK
    """Symbols of spaces 5k+1..5k+4 of the score track, one block of 4 per k mod (number of
    blocks), blocks separated by ``/``; multiples of 5 are numbered spaces."""

    start_tie_break: Literal["seat_order", "random"] = "seat_order"
    """Rounds 2 and 3: several players share the lowest score; the first in seat order chooses
    the start player (``seat_order``), or one of them drawn by the game seed (``random``)."""

    def __post_init__(self) -> None:
        parse_valued(self.valued_cards, parse_green(self.green_cards))
        parse_characters(self.characters)
        parse_track(self.track_symbols)


class Deck(NamedTuple):
    """The physical cards described by a game's settings."""

    cards: CardSet
    green: tuple[int, ...]  # ids of the green starting cards
    others: tuple[int, ...]  # ids of the beige goods and the characters: the deck


@functools.lru_cache(maxsize=32)
def make_deck(valued_cards: str, green_cards: str, characters: str) -> Deck:
    green = parse_green(green_cards)
    valued = parse_valued(valued_cards, green)
    counts = dict.fromkeys(NAMES, 0)
    for fam, family in enumerate(FAMILIES):
        count, scarabs = valued[fam]
        counts[f"{family}_{scarabs}"] = count
        counts[f"{family}_0"] = FAMILY_CARDS[fam] - green[fam] - count
        counts[f"{family}_green"] = green[fam]
    counts["amulet"] = AMULET_CARDS
    for role, fam in parse_characters(characters):
        counts[f"{ROLES[role]}_{FAMILIES[fam]}"] += 1
    cards = CardSet(list(counts.items()))
    ids = range(len(cards))
    return Deck(cards, tuple(c for c in ids if BACK_OF[cards.face_of[c]] == GREEN),
                tuple(c for c in ids if BACK_OF[cards.face_of[c]] != GREEN))


CARDS = make_deck(DEFAULT_VALUED, DEFAULT_GREEN, DEFAULT_CHARACTERS).cards


# -- phases and actions --------------------------------------------------------------------
(START, TURN, SET, EVENT, TOKEN, PRIEST, THIEF_TARGET, STEAL, VIZIER_TARGET, PICK, BURY,
 COURTESAN_SET, ADD, MERCHANT_TAKE, HORIZONTAL, HORIZONTAL_SET, OVER) = range(17)
PHASES = ("start", "turn", "set", "event", "token", "priest", "thief", "steal", "vizier", "pick", "bury",
          "courtesan", "add", "merchant", "horizontal", "horizontal_set", "over")

MAX_SETS = 32  # far above the 63 cards / 3 a player could lay in a round
MAX_SEATS = 4
TAKE = tuple(f"take:{i}" for i in range(DELIVERY))
PLAY = tuple(f"play:{n}" for n in NAMES)
SET_OF = tuple(f"set:{f}" for f in FAMILIES)
EXTEND = tuple(f"extend:{i}" for i in range(MAX_SETS))
CARD = tuple(f"card:{n}" for n in NAMES)
TOKEN_OF = tuple(f"token:{t}" for t in TOKENS)
TARGET = tuple(f"target:{s}" for s in range(MAX_SEATS))
START_AT = tuple(f"start:{s}" for s in range(MAX_SEATS))
PROSPERITY_ON = tuple(f"prosperity:{i}" for i in range(MAX_SETS))
FAMILY_OF_ACT = tuple(f"family:{f}" for f in FAMILIES)
STEAL_BACK = tuple(f"steal:{b}" for b in BACKS)
PICK_FACE = tuple(f"pick:{n}" for n in NAMES)
BURY_FACE = tuple(f"bury:{n}" for n in NAMES)
APPLY, DISCARD = "apply", "discard"
PARSED = action_table(TAKE, PLAY, SET_OF, EXTEND, CARD, TOKEN_OF, TARGET, START_AT, PROSPERITY_ON,
                      FAMILY_OF_ACT, STEAL_BACK, PICK_FACE, BURY_FACE)


class PlayedSet:
    """A set on the table: its family, its cards in the order laid, its Prosperity tokens."""

    __slots__ = ("family", "cards", "prosperity", "horizontal")

    def __init__(self, family: int, cards: list[int], horizontal: bool = False) -> None:
        self.family = family
        self.cards = cards
        self.prosperity: list[int] = []  # token ids
        self.horizontal = horizontal

    def score(self, face_of: tuple[int, ...]) -> int:
        """A set played during the round: (scarabs + 2 per Prosperity) x cards; horizontal: scarabs."""
        scarabs = sum(SCARABS_OF[face_of[c]] for c in self.cards)
        if self.horizontal:
            return scarabs
        return (scarabs + PROSPERITY_BONUS * len(self.prosperity)) * len(self.cards)


class SobekState(PhasedState):
    """A game of Sobek. Seats are numbered clockwise from 0."""

    PHASES = PHASES
    PARSED = PARSED

    settings: SobekSettings

    def __init__(self, game: GameSpec, num_players: int, seed: int, settings: SobekSettings) -> None:
        super().__init__(game, num_players, seed, settings)
        n = num_players
        deck = make_deck(settings.valued_cards, settings.green_cards, settings.characters)
        self.cards: CardSet = deck.cards
        self.face: tuple[int, ...] = deck.cards.face_of
        self.green_ids, self.deck_ids = deck.green, deck.others
        self.track = parse_track(settings.track_symbols)
        self.score = [0] * n
        self.round = 0
        self.phase = START
        self.active = self.to_act = self.start_player = 0
        self.queue: list[int] = []  # seats still to bury (Scribe) or to lay horizontal sets
        self.buried: list[int] = []  # faces buried so far by the seat in ``queue[0]``
        self._setup_round()

    # -- Setup of each round -------------------------------------------------------------
    def _setup_round(self) -> None:
        n, rng = self.num_players, self.rng
        self.round += 1
        # 1. Two green cards each; the rest are out this round.
        greens = shuffled(rng, self.green_ids)
        self.hands: list[list[int]] = [deal(greens, STARTING_HAND) for _ in range(n)]
        self.green_out: list[int] = greens
        # 2. The deck: beige goods and characters; with 2 players its top 9 are out this round.
        self.deck: list[int] = shuffled(rng, self.deck_ids)  # the top card is the last one
        self.removed: list[int] = deal(self.deck, TWO_PLAYER_REMOVAL) if n == 2 else []
        self.corruption: list[list[int]] = [[] for _ in range(n)]
        self.sets: list[list[PlayedSet]] = [[] for _ in range(n)]
        self.curses: list[list[int]] = [[] for _ in range(n)]  # Curse token ids, with the pile
        self.discard: list[int] = []
        self.selection: list[int] = []  # cards being laid in a set, or added by a Courtesan
        self.market: list[int] = []
        self.delivery = 0
        self.extra_turn = False
        self.target = -1  # the opponent a Thief or Vizier chose
        self.build_family, self.build_index = -1, -1  # the set being built; -1: a new set
        self.log.add({"type": "round", "round": self.round})
        # 3. The first delivery.
        self._deliver(-1)
        # 4. Five event tokens, face down; the other seven are out this round.
        tokens = shuffled(rng, range(len(TOKENS) * TOKEN_COPIES))
        self.tokens: list[int] = tokens[:ROUND_TOKENS]
        self.tokens_out: list[int] = tokens[ROUND_TOKENS:]  # face down, out this round
        self.held: list[int] = []  # the token being applied
        self.tokens_used: list[int] = []  # applied or discarded, face up (a Curse or a Prosperity stays)
        # 5. The start player.
        if self.round == 1:
            self._start(rng.randrange(n), -1)
            return
        low = min(self.score)
        tied = [s for s in range(n) if self.score[s] == low]
        chooser = tied[0] if self.settings.start_tie_break == "seat_order" else rng.choice(tied)
        self.phase, self.active, self.to_act = START, chooser, chooser

    def _deliver(self, seat: int) -> None:
        """Lays the next delivery along the Nile: goods face up, characters face down."""
        self.market = deal(self.deck, DELIVERY)
        self.delivery += 1
        face = self.face
        event = {"type": "delivery", "cards": [PUBLIC[face[c]] for c in self.market]}
        if seat >= 0:
            event["seat"] = seat
        self.log.add(event)

    def _start(self, seat: int, chooser: int) -> None:
        self.start_player = seat
        event = {"type": "start", "seat": seat}
        if chooser >= 0:
            event["chooser"] = chooser
        self.log.add(event)
        self._begin_turn(seat)

    def _legal_start(self) -> list[Action]:
        """Rounds 2 and 3: the player with the lowest score chooses who starts."""
        return list(START_AT[: self.num_players])

    def _apply_start(self, seat: int, verb: str, arg: int) -> None:
        self._start(arg, seat)

    # A turn: A. take a card, B. play a character, or C. play a set ----------------------------
    def _legal_turn(self) -> list[Action]:
        seat, face = self.to_act, self.face
        hand = self.hands[seat]
        acts = list(TAKE[: min(MARKET_REACH, len(self.market))])
        fits = [0] * (len(FAMILIES) + 1)  # cards per family, Amulets last
        characters = set()
        for c in hand:
            f = face[c]
            fits[FAMILY_OF[f]] += 1
            if ROLE_OF[f] >= 0:
                characters.add(f)
        if characters:
            acts += [PLAY[f] for f in sorted(characters)]
        amulets = fits[AMULETS]
        if len(hand) >= SET_MIN:
            acts += [SET_OF[fam] for fam in range(len(FAMILIES))
                     if fits[fam] and fits[fam] + amulets >= SET_MIN]
            acts += [EXTEND[i] for i, st in enumerate(self.sets[seat])
                     if fits[st.family] + amulets >= SET_MIN]
        return acts

    def _apply_turn(self, seat: int, verb: str, arg: int) -> None:
        if verb == "take":
            self._take(seat, arg, corrupting=True)
        elif verb == "play":
            self._play(seat, arg)
        elif verb == "set":
            self._build(SET, arg, -1)
        else:  # extend
            self._build(SET, self.sets[seat][arg].family, arg)

    def _begin_turn(self, seat: int) -> None:
        self.phase, self.active, self.to_act = TURN, seat, seat
        self.log.add({"type": "turn", "seat": seat})

    def _end_turn(self) -> None:
        if self.extra_turn:  # Flood: the same player again
            self.extra_turn = False
            self._begin_turn(self.active)
        else:
            self._begin_turn((self.active + 1) % self.num_players)

    # A. Take a card (and the Merchant's take) ----------------------------------------------
    def _take(self, seat: int, position: int, corrupting: bool) -> None:
        market, face = self.market, self.face
        card = market[position]
        f = face[card]
        self.hands[seat].append(card)
        event = {"type": "take", "seat": seat, "position": position, "card": PUBLIC[f]}
        hidden = ROLE_OF[f] >= 0  # a face-down character: only the taker learns which
        secret: dict | None = None
        if corrupting and position:  # every card skipped goes under the taker's corruption tile
            skipped = market[:position]
            self.corruption[seat] += skipped
            event["skipped"] = [PUBLIC[face[c]] for c in skipped]
            if hidden or any(ROLE_OF[face[c]] >= 0 for c in skipped):
                secret = {"card": NAMES[f], "skipped": [NAMES[face[c]] for c in skipped]}
            del market[: position + 1]
        else:
            del market[position]
            if hidden:
                secret = {"card": NAMES[f]}
        self.log.add(event, secret, (seat,))
        if market:
            self._end_turn()
        elif self.deck:  # the taker lays the next delivery
            self._deliver(seat)
            self._end_turn()
        else:  # the last card of the last delivery: the round ends at once
            self._end_round(seat)

    # B. Play a character ---------------------------------------------------------------------
    def _play(self, seat: int, f: int) -> None:
        self.discard.append(self.cards.take_face(self.hands[seat], f))
        self.log.add({"type": "play", "seat": seat, "card": NAMES[f]})
        role, n = ROLE_OF[f], self.num_players
        others = [(seat + k) % n for k in range(1, n)]  # clockwise from the player's left
        if role == QUEEN:
            drawn = deal(self.deck, QUEEN_DRAW)
            self.hands[seat] += drawn
            secret = {"cards": [NAMES[self.face[c]] for c in drawn]} if drawn else None
            self.log.add({"type": "draw", "seat": seat, "count": len(drawn)}, secret, (seat,))
            self._end_turn()
        elif role == HIGH_PRIEST:
            self.phase = PRIEST
        elif role == THIEF:
            self._choose_or_end(THIEF_TARGET, any(self.hands[s] for s in others))
        elif role == VIZIER:
            self._choose_or_end(VIZIER_TARGET, any(self.corruption[s] for s in others))
        elif role == SCRIBE:
            self.queue = [s for s in others if len(self.hands[s]) > SCRIBE_LIMIT]
            self._next_bury()
        elif role == COURTESAN:
            self._choose_or_end(COURTESAN_SET, bool(self._courtesan_sets(seat)))
        else:  # Merchant
            self.phase = MERCHANT_TAKE

    def _choose_or_end(self, phase: int, possible: bool) -> None:
        """Asks for the power's choice, or ends the turn when the power can have no effect."""
        if possible:
            self.phase = phase
        else:
            self._end_turn()

    def _legal_priest(self) -> list[Action]:
        return list(FAMILY_OF_ACT)

    def _apply_priest(self, seat: int, verb: str, fam: int) -> None:
        """High Priest: the named family's cards (characters too) leave the corruption pile."""
        pile, face = self.corruption[seat], self.face
        purged = [c for c in pile if FAMILY_OF[face[c]] == fam]
        pile[:] = [c for c in pile if FAMILY_OF[face[c]] != fam]
        self.discard += purged  # face up, like every discard
        event = {"type": "purge", "seat": seat, "family": FAMILIES[fam], "count": len(purged)}
        if purged:
            event["cards"] = [NAMES[face[c]] for c in purged]
        self.log.add(event)
        self._end_turn()

    def _legal_thief(self) -> list[Action]:
        seat = self.to_act
        return [TARGET[s] for s in range(self.num_players) if s != seat and self.hands[s]]

    def _apply_thief(self, seat: int, verb: str, victim: int) -> None:
        self.target, self.phase = victim, STEAL

    def _legal_steal(self) -> list[Action]:
        face = self.face
        return [STEAL_BACK[b] for b in sorted({BACK_OF[face[c]] for c in self.hands[self.target]})]

    def _apply_steal(self, seat: int, verb: str, back: int) -> None:
        """Thief: one of the victim's cards with the chosen back, at random (they are face down)."""
        victim, face = self.target, self.face
        hand = self.hands[victim]
        candidates = [i for i, c in enumerate(hand) if BACK_OF[face[c]] == back]
        card = hand.pop(candidates[self.rng.randrange(len(candidates))])
        self.hands[seat].append(card)
        self.log.add({"type": "steal", "seat": seat, "target": victim, "card": BACKS[back]},
                     {"card": NAMES[face[card]]}, (seat, victim))
        self.target = -1
        self._end_turn()

    def _legal_vizier(self) -> list[Action]:
        seat = self.to_act
        return [TARGET[s] for s in range(self.num_players) if s != seat and self.corruption[s]]

    def _apply_vizier(self, seat: int, verb: str, victim: int) -> None:
        self.target, self.phase = victim, PICK

    def _legal_pick(self) -> list[Action]:
        return [PICK_FACE[f] for f in self.cards.faces_in(self.corruption[self.target])]

    def _apply_pick(self, seat: int, verb: str, f: int) -> None:
        """Vizier: the chosen card of the victim's corruption pile, into the Vizier's hand."""
        victim = self.target
        self.hands[seat].append(self.cards.take_face(self.corruption[victim], f))
        self.log.add({"type": "seize", "seat": seat, "target": victim}, {"card": NAMES[f]}, (seat, victim))
        self.target = -1
        self._end_turn()

    def _next_bury(self) -> None:
        """Scribe: the next opponent over 6 cards decides, or the turn ends."""
        if self.queue:
            self.phase, self.to_act, self.buried = BURY, self.queue[0], []
        else:
            self.to_act = self.active
            self._end_turn()

    def _legal_bury(self) -> list[Action]:
        return [BURY_FACE[f] for f in self.cards.faces_in(self.hands[self.to_act])]

    def _apply_bury(self, seat: int, verb: str, f: int) -> None:
        hand = self.hands[seat]
        self.corruption[seat].append(self.cards.take_face(hand, f))
        self.buried.append(f)
        if len(hand) <= SCRIBE_LIMIT:
            self.log.add({"type": "bury", "seat": seat, "count": len(self.buried)},
                         {"cards": [NAMES[b] for b in self.buried]}, (seat,))
            self.buried = []
            self.queue.pop(0)
            self._next_bury()

    def _legal_courtesan(self) -> list[Action]:
        return [EXTEND[i] for i in self._courtesan_sets(self.to_act)]

    def _apply_courtesan(self, seat: int, verb: str, index: int) -> None:
        self._build(ADD, self.sets[seat][index].family, index)

    def _courtesan_sets(self, seat: int) -> list[int]:
        """Sets of ``seat`` to which the hand holds at least one card to add."""
        families = {FAMILY_OF[self.face[c]] for c in self.hands[seat]}
        wild = AMULETS in families
        return [i for i, st in enumerate(self.sets[seat]) if wild or st.family in families]

    def _legal_merchant(self) -> list[Action]:
        return list(TAKE[: len(self.market)])

    def _apply_merchant(self, seat: int, verb: str, position: int) -> None:
        self._take(seat, position, corrupting=False)

    # C. Play a set (and horizontal sets, and the Courtesan's addition) ------------------
    def _build(self, phase: int, fam: int, index: int) -> None:
        self.phase, self.build_family, self.build_index = phase, fam, index

    def _legal_cards(self) -> list[Action]:
        acts = [CARD[f] for f in self._eligible(self.to_act)]
        if self._may_close():
            acts.append(DONE)
        return acts

    def _apply_cards(self, seat: int, verb: str, f: int) -> None:
        if verb == "card":
            self.selection.append(self.cards.take_face(self.hands[seat], f))
            # Close by itself when nothing is left to choose (or the Courtesan's 2 are in).
            if not self._eligible(seat) or (self.phase == ADD and len(self.selection) == COURTESAN_MAX):
                self._close_selection(seat)
        else:
            self._close_selection(seat)

    # A set, a horizontal set and the Courtesan's addition choose their cards alike.
    _legal_set = _legal_horizontal_set = _legal_add = _legal_cards
    _apply_set = _apply_horizontal_set = _apply_add = _apply_cards

    def _eligible(self, seat: int) -> list[int]:
        """Faces in ``seat``'s hand that may join the set being built: its family or Amulets."""
        fam, face = self.build_family, self.face
        return sorted({f for f in (face[c] for c in self.hands[seat]) if FAMILY_OF[f] == fam or f == AMULET})

    def _may_close(self) -> bool:
        """Whether the cards chosen so far make a complete set (or a Courtesan's addition)."""
        chosen = self.selection
        if self.phase == ADD:
            return len(chosen) >= 1
        if len(chosen) < SET_MIN:
            return False
        # A set needs a card that is not an Amulet; an extended set already has one.
        return self.build_index >= 0 or any(self.face[c] != AMULET for c in chosen)

    def _close_selection(self, seat: int) -> None:
        phase, face = self.phase, self.face
        cards = [NAMES[face[c]] for c in self.selection]
        fam, index = self.build_family, self.build_index
        if index < 0:
            self.sets[seat].append(PlayedSet(fam, list(self.selection), phase == HORIZONTAL_SET))
            index = len(self.sets[seat]) - 1
            kind = "horizontal" if phase == HORIZONTAL_SET else "set"
        else:
            self.sets[seat][index].cards += self.selection
            kind = "add" if phase == ADD else "extend"
        self.log.add({"type": kind, "seat": seat, "family": FAMILIES[fam], "set_index": index,
                      "cards": cards})
        self.selection.clear()
        self.build_family, self.build_index = -1, -1
        if phase == HORIZONTAL_SET:
            self.phase = HORIZONTAL  # the same player may lay another
        elif phase == SET and self.tokens:  # Event: playing a set earns a token
            self.phase = EVENT
        else:  # the Courtesan's addition is not playing a set: no event
            self._end_turn()

    # Event tokens ------------------------------------------------------------------------
    def _legal_event(self) -> list[Action]:
        return [TOKEN_OF[k] for k in sorted({t // TOKEN_COPIES for t in self.tokens})]

    def _apply_event(self, seat: int, verb: str, kind: int) -> None:
        seen = sorted(t // TOKEN_COPIES for t in self.tokens)
        token = next(t for t in self.tokens if t // TOKEN_COPIES == kind)
        self.tokens.remove(token)
        self.held.append(token)
        self.log.add({"type": "token", "seat": seat, "token": TOKENS[kind]},
                     {"tokens": [TOKENS[k] for k in seen]}, (seat,))
        self.phase = TOKEN

    def _legal_token(self) -> list[Action]:
        seat, kind = self.to_act, self.held[0] // TOKEN_COPIES
        if kind in (GUILD, CURSE):
            acts = [TARGET[s] for s in range(self.num_players) if s != seat]
        elif kind == PROSPERITY:
            acts = [PROSPERITY_ON[i] for i, st in enumerate(self.sets[seat])
                    if st.family in PROSPERITY_FAMILIES]
        else:
            acts = [APPLY]
        acts.append(DISCARD)
        return acts

    def _apply_token(self, seat: int, verb: str, arg: int) -> None:
        token = self.held.pop()
        kind = token // TOKEN_COPIES
        if verb == DISCARD:
            self.tokens_used.append(token)
            self.log.add({"type": "discard_token", "seat": seat, "token": TOKENS[kind]})
        elif kind == CURSE:  # it stays with the victim's corruption pile
            self.curses[arg].append(token)
            self.log.add({"type": "curse", "seat": seat, "target": arg})
        elif kind == PROSPERITY:
            self.sets[seat][arg].prosperity.append(token)
            self.log.add({"type": "prosperity", "seat": seat, "set_index": arg})
        else:
            self.tokens_used.append(token)
            if kind == GUILD:
                self.log.add({"type": "guild", "seat": seat, "target": arg})
                self._move(seat, self.next_same(self.score[seat]) - self.score[seat])
                self._move(arg, self.next_same(self.score[arg]) - self.score[arg])
            elif kind == FLOOD:
                self.extra_turn = True
                self.log.add({"type": "flood", "seat": seat})
            elif kind == EMBALMING:
                pile = self.corruption[seat]
                self.log.add({"type": "embalming", "seat": seat, "count": len(pile)})
                self.hands[seat] += pile
                pile.clear()
            else:  # Deception: a point per card in the pile; the cards stay
                self.log.add({"type": "deception", "seat": seat, "count": len(self.corruption[seat])})
                self._move(seat, len(self.corruption[seat]))
        self._end_turn()

    # The score track -----------------------------------------------------------------------
    def symbol(self, score: int) -> int:
        """The symbol of a score's space (the track wraps at 100)."""
        return self.track[score % TRACK]

    def next_same(self, score: int) -> int:
        """The next space with the same symbol as ``score``'s."""
        track, sym = self.track, self.track[score % TRACK]
        s = score + 1
        while track[s % TRACK] != sym:
            s += 1
        return s

    def previous_same(self, score: int) -> int:
        """The previous space with the same symbol as ``score``'s, never below 0."""
        track, sym = self.track, self.track[score % TRACK]
        s = score - 1
        while s > 0 and track[s % TRACK] != sym:
            s -= 1
        return max(s, 0)

    def _move(self, seat: int, points: int) -> None:
        self.score[seat] += points
        self.log.add({"type": "score", "seat": seat, "points": points, "score": self.score[seat]})

    # End of a round ------------------------------------------------------------------------
    def _end_round(self, ender: int) -> None:
        """1. The round ends; 2. everyone, in turn order, may lay horizontal sets."""
        n = self.num_players
        self.log.add({"type": "round_end", "seat": ender})
        self.queue = [(ender + k) % n for k in range(1, n + 1)]
        self._next_horizontal()

    def _next_horizontal(self) -> None:
        if self.queue:
            self.phase, self.active, self.to_act = HORIZONTAL, self.queue[0], self.queue[0]
        else:
            self._score_round()

    def _legal_horizontal(self) -> list[Action]:
        return [SET_OF[fam] for fam in self._new_set_families(self.to_act)] + [DONE]

    def _apply_horizontal(self, seat: int, verb: str, fam: int) -> None:
        if verb == "set":
            self._build(HORIZONTAL_SET, fam, -1)
        else:
            self.queue.pop(0)
            self._next_horizontal()

    def _new_set_families(self, seat: int) -> list[int]:
        """Families in which ``seat``'s hand holds a set: 3+ cards, at least one not an Amulet."""
        fits = [0] * (len(FAMILIES) + 1)
        face = self.face
        for c in self.hands[seat]:
            fits[FAMILY_OF[face[c]]] += 1
        return [fam for fam in range(len(FAMILIES)) if fits[fam] and fits[fam] + fits[AMULETS] >= SET_MIN]

    def _score_round(self) -> None:
        n, face = self.num_players, self.face
        # 3. Cards still in hand go under their owner's corruption tile.
        for s in range(n):
            if self.hands[s]:
                self.log.add({"type": "unplayed", "seat": s, "count": len(self.hands[s])})
                self.corruption[s] += self.hands[s]
                self.hands[s].clear()
        # 4. Scoring, set by set.
        points = [sum(st.score(face) for st in self.sets[s]) for s in range(n)]
        for s in range(n):
            self._move(s, points[s])
        # 5. Corruption: most cards (a Curse counts 2), then most scarabs; further ties all corrupt.
        counts = [len(self.corruption[s]) + CURSE_WEIGHT * len(self.curses[s]) for s in range(n)]
        scarabs = [sum(SCARABS_OF[face[c]] for c in self.corruption[s]) for s in range(n)]
        most = max(counts)
        tied = [s for s in range(n) if counts[s] == most]
        richest = max(scarabs[s] for s in tied)
        corrupt = [s in tied and scarabs[s] == richest and most > 0 for s in range(n)]
        for s in range(n):
            self.log.add({"type": "corruption", "seat": s, "count": counts[s], "scarabs": scarabs[s],
                          "corrupt": corrupt[s]})
        for s in range(n):
            if corrupt[s] and points[s] >= PENALTY_STEP:
                back = self.score[s]
                for _ in range(points[s] // PENALTY_STEP):
                    back = self.previous_same(back)
                self._move(s, back - self.score[s])
        # The end of the game, or 6. everything goes back for the next round.
        if self.round == ROUNDS or (self.round == EARLY_END_ROUND and max(self.score) > EARLY_END_SCORE):
            self._game_over()
        else:
            self._setup_round()

    # -- scoring -------------------------------------------------------------------------
    def scores(self) -> list[int]:
        return list(self.score)

    # -- information -----------------------------------------------------------------------
    def view(self, seat: int) -> View:
        phase, face, to_act = self.phase, self.face, self.to_act
        v = seat_view(self, seat, PHASES[phase], self.current_player(), self.log)
        hands, corruption, curses, sets = self.hands, self.corruption, self.curses, self.sets
        deciding = seat == to_act and phase != OVER
        v["round"] = self.round
        v["active"] = self.active
        v["start_player"] = self.start_player
        v["scores"] = list(self.score)
        v["hand"] = [NAMES[f] for f in sorted([face[c] for c in hands[seat]])]
        v["corruption"] = [NAMES[f] for f in sorted([face[c] for c in corruption[seat]])]
        v["players"] = [
            {"hand_size": len(hands[s]), "corruption_size": len(corruption[s]), "curses": len(curses[s]),
             "sets": [{"family": FAMILIES[st.family], "cards": [NAMES[face[c]] for c in st.cards],
                       "prosperity": len(st.prosperity), "horizontal": st.horizontal} for st in sets[s]]
             if sets[s] else []}
            for s in range(self.num_players)
        ]
        v["market"] = [PUBLIC[face[c]] for c in self.market]
        v["deck_size"] = len(self.deck)
        v["delivery"] = self.delivery
        v["discard"] = [NAMES[face[c]] for c in self.discard]
        v["tokens_left"] = len(self.tokens)
        # The remaining tokens are seen only by the player choosing one.
        v["tokens"] = ([TOKENS[k] for k in sorted([t // TOKEN_COPIES for t in self.tokens])]
                       if deciding and phase == EVENT else [])
        v["token"] = TOKENS[self.held[0] // TOKEN_COPIES] if self.held else "unspecified"
        v["selection"] = [NAMES[face[c]] for c in self.selection]
        v["family"] = FAMILIES[self.build_family] if self.build_family >= 0 else "unspecified"
        v["set_index"] = self.build_index
        v["target"] = self.target
        # A Thief sees the backs of the victim's hand; a Vizier sees the victim's pile.
        if deciding and phase == STEAL:
            v["shown"] = [BACKS[b] for b in sorted([BACK_OF[face[c]] for c in hands[self.target]])]
        elif deciding and phase == PICK:
            v["shown"] = [NAMES[f] for f in sorted([face[c] for c in corruption[self.target]])]
        else:
            v["shown"] = []
        v["extra_turn"] = self.extra_turn
        return v

    def card_places(self) -> dict[str, list[int]]:
        places = {"deck": self.deck, "market": self.market, "removed": self.removed,
                  "green_out": self.green_out, "discard": self.discard, "selection": self.selection}
        for s in range(self.num_players):
            places[f"hand{s}"] = self.hands[s]
            places[f"corruption{s}"] = self.corruption[s]
            for i, st in enumerate(self.sets[s]):
                places[f"set{s}.{i}"] = st.cards
        return places

    def token_places(self) -> dict[str, list[int]]:
        """Every event token id by place, as :meth:`card_places` does for cards."""
        places = {"tokens": self.tokens, "out": self.tokens_out, "held": self.held, "used": self.tokens_used}
        for s in range(self.num_players):
            places[f"curses{s}"] = self.curses[s]
            for i, st in enumerate(self.sets[s]):
                places[f"prosperity{s}.{i}"] = st.prosperity
        return places


# -- readable logs -------------------------------------------------------------------------
def describe_event(event: dict, name: Callable[[int], str]) -> str | None:
    """One line of English for a game log; ``name(seat)`` labels a seat. None: not worth a line."""
    kind, who = event["type"], name(event["seat"]) if "seat" in event else ""
    card, target = event.get("card"), name(event["target"]) if "target" in event else ""
    cards = ", ".join(event.get("cards", ()))
    match kind:
        case "round":
            return f"=== round {event['round']}"
        case "delivery":
            return f"   {who + ' lays a' if who else 'a'} delivery: {cards}"
        case "start":
            by = f" (chosen by {name(event['chooser'])})" if "chooser" in event else ""
            return f"   {who} starts the round{by}"
        case "turn":
            return f"-- {who}'s turn"
        case "take":
            skipped = event.get("skipped")
            tail = f"; corruption: {', '.join(skipped)}" if skipped else ""
            return f"{who} takes {card} from position {event['position']}{tail}"
        case "play":
            return f"{who} plays the {card}"
        case "draw":
            return f"   {who} draws {event['count']} card(s)" + (f": {cards}" if cards else "")
        case "purge":
            return f"   {who} names {event['family']}: {event['count']} card(s) leave the corruption pile" + (
                f" ({cards})" if cards else "")
        case "steal":
            return f"   {who} steals {card} from {target}"
        case "seize":
            return f"   {who} takes a card from {target}'s corruption pile" + (f": {card}" if card else "")
        case "bury":
            return f"   {who} buries {event['count']} card(s)" + (f": {cards}" if cards else "")
        case "set" | "extend" | "add" | "horizontal":
            what = {"set": "plays a set", "extend": "extends a set", "add": "adds to a set",
                    "horizontal": "lays a horizontal set"}[kind]
            return f"{who} {what} of {event['family']}: {cards}"
        case "token":
            seen = event.get("tokens")
            among = f" among {', '.join(seen)}" if seen else ""
            return f"   {who} chooses the {event['token']} token{among}"
        case "discard_token":
            return f"   {who} discards the {event['token']} token"
        case "guild":
            return f"   Guild: {who} and {target} move to the next space with the same symbol"
        case "flood":
            return f"   Flood: {who} will take another turn"
        case "curse":
            return f"   {who} curses {target}"
        case "prosperity":
            return f"   {who} puts Prosperity on set {event['set_index']}"
        case "embalming":
            return f"   Embalming: {who} takes {event['count']} card(s) from the corruption pile into hand"
        case "deception":
            return f"   Deception: {who} scores a point per card in the corruption pile"
        case "score":
            return f"   {who} {'scores' if event['points'] >= 0 else 'loses'} {abs(event['points'])}: " \
                   f"{event['score']} points"
        case "round_end":
            return f"** {who} took the last card: the round ends"
        case "unplayed":
            return f"   {who}'s {event['count']} card(s) left in hand go to corruption"
        case "corruption":
            tag = " - corrupt" if event["corrupt"] else ""
            return f"   {who}'s corruption: {event['count']} card(s), {event['scarabs']} scarab(s){tag}"
        case "game_over":
            return "** game over"
    return None


GAME = GameSpec(
    name="sobek",
    title="Sobek",
    min_players=2,
    max_players=4,
    settings=SobekSettings,
    state=SobekState,
    version="1.0.0",
    cards=CARDS,
    score_unit="points",
    describe_event=describe_event,
    # A failed seat takes the first market card (no corruption) and never starts a set or plays a
    # character; it closes what it had started as soon as it may, discards a token it had chosen,
    # and lays no horizontal set.
    fallback_preference=(DONE, DISCARD, TAKE[0]),
)
