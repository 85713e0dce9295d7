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
import random
from collections.abc import Callable
from typing import Any, Literal, NamedTuple

from ..cards import CardSet, deal, shuffled
from ..core import DONE, Action, BadSettings, GameSpec, PhasedState, Settings, View, action_table
from ..views import MUTED, EventLog, restore_log, seat_view

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

    def copy(self) -> PlayedSet:
        twin = PlayedSet.__new__(PlayedSet)
        twin.family, twin.cards, twin.prosperity, twin.horizontal = (
            self.family, self.cards.copy(), self.prosperity.copy(), self.horizontal)
        return twin


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

    # -- the state's chance, and copies for search ---------------------------------------
    # The rng is used only when a round is set up and by a Thief's steal, so a clone shares it
    # until either side needs it (copying a Mersenne Twister's state costs more than the rest of
    # a clone), and a drawn state seeds its own only if it gets that far.
    _rng: random.Random | None
    _rng_seed: int
    _rng_shared: bool

    @property
    def rng(self) -> random.Random:
        r = self._rng
        if r is None:
            r = self._rng = random.Random(self._rng_seed)
            self._rng_shared = False
        elif self._rng_shared:
            own = random.Random.__new__(random.Random)
            own.setstate(r.getstate())
            r = self._rng = own
            self._rng_shared = False
        return r

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._rng, self._rng_shared = value, False

    def clone(self) -> SobekState:
        """An independent copy: the lists of card ids and tokens are copied, the spec, settings,
        card tables and logged events shared; the rng is shared until one of the two uses it."""
        twin = object.__new__(type(self))
        d = twin.__dict__
        d.update(self.__dict__)
        if self._rng is not None:
            self._rng_shared = d["_rng_shared"] = True
        log = self.log
        if log is not MUTED:
            copied = EventLog.__new__(EventLog)
            copied.entries, copied.cursor = log.entries.copy(), log.cursor.copy()
            d["log"] = copied
        d["score"] = self.score.copy()
        d["queue"] = self.queue.copy()
        d["buried"] = self.buried.copy()
        d["hands"] = [h.copy() for h in self.hands]
        d["corruption"] = [p.copy() for p in self.corruption]
        d["sets"] = [[st.copy() for st in ss] if ss else [] for ss in self.sets]
        d["curses"] = [c.copy() for c in self.curses]
        d["green_out"] = self.green_out.copy()
        d["deck"] = self.deck.copy()
        d["removed"] = self.removed.copy()
        d["discard"] = self.discard.copy()
        d["selection"] = self.selection.copy()
        d["market"] = self.market.copy()
        d["tokens"] = self.tokens.copy()
        d["tokens_out"] = self.tokens_out.copy()
        d["held"] = self.held.copy()
        d["tokens_used"] = self.tokens_used.copy()
        return twin

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


# -- sampling a state (determinisation) ----------------------------------------------------
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


class Template(NamedTuple):
    """What a seat's decision fixes for every draw: a state with the known cards in place, and
    how many cards of each class each place with hidden cards still takes."""

    state: SobekState
    places: tuple[tuple[str, int, tuple[int, ...], tuple[tuple[int, int], ...]], ...]
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


def sampler(view: View, history: list[dict[str, Any]],
            settings: SobekSettings) -> Callable[[random.Random], SobekState]:
    """Draws states consistent with ``view`` and ``history`` (docs/games/sobek.md, "Sampling a state")."""
    seat = view["seat"]
    knowledge = Knowledge(seat, view, history)
    template = _template(view, history, settings, knowledge)
    if template is None:  # the slots cannot all be filled: keep only the sizes of hidden places
        knowledge.lost = [True] * knowledge.num_players
        template = _template(view, history, settings, knowledge)
        if template is None:
            raise ValueError("no state of Sobek agrees with this view")
    return functools.partial(_draw, template)


def _template(view: View, history: list[dict[str, Any]], settings: SobekSettings,
              knowledge: Knowledge) -> Template | None:
    n, seat, phase = view["num_players"], view["seat"], PHASES.index(view["phase"])
    to_act = view["to_act"]
    players = view["players"]
    deck = make_deck(settings.valued_cards, settings.green_cards, settings.characters)
    spare = [list(ids) for ids in deck.cards._ids]  # unplaced ids by face

    def place(names: list[str]) -> list[int]:
        return [spare[FACE_INDEX[name]].pop() for name in names]

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
    # The state, with every known card in place.
    st = object.__new__(SobekState)
    st.game, st.num_players, st.seed, st.settings = GAME, n, 0, settings
    st._rng, st._rng_seed, st._rng_shared, st._legal = None, 0, False, None
    st.log = restore_log(seat, view, history, n)
    st.cards, st.face, st.green_ids, st.deck_ids = deck.cards, deck.cards.face_of, deck.green, deck.others
    st.track = parse_track(settings.track_symbols)
    st.score, st.round, st.phase = list(view["scores"]), view["round"], phase
    st.active, st.to_act, st.start_player = view["active"], to_act, view["start_player"]
    st.delivery, st.extra_turn, st.target = view["delivery"], view["extra_turn"], target
    st.build_family = FAMILIES.index(view["family"]) if view["family"] in FAMILIES else -1
    st.build_index = view["set_index"]
    st.buried = buried
    if phase == BURY:  # the Scribe's victims still to bury: clockwise up to the Scribe's player
        later = [(to_act + k) % n for k in range(1, n)]
        later = later[: later.index(st.active)] if st.active in later else later
        st.queue = [to_act] + [s for s in later if players[s]["hand_size"] > SCRIBE_LIMIT]
    elif phase in (HORIZONTAL, HORIZONTAL_SET):  # from to_act on, up to the one who ended the round
        ender = knowledge.ender if knowledge.ender >= 0 else (to_act - 1) % n
        order = [(ender + k) % n for k in range(1, n + 1)]
        st.queue = order[order.index(to_act):]
    else:
        st.queue = []
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
    # The hidden places: the other hands and piles, the deck, the removed and the unused green cards.
    wanted: list[tuple[str, int, list[int]]] = []
    for s in range(n):
        if s != seat:
            wanted.append(("hands", s, hands[s]))
            wanted.append(("corruption", s, piles[s]))
    wanted.append(("deck", -1, [DECK_SLOT] * view["deck_size"]))
    wanted.append(("removed", -1, [DECK_SLOT] * (TWO_PLAYER_REMOVAL if n == 2 else 0)))
    wanted.append(("green_out", -1, [GREEN_SLOT] * (GREEN_CARDS - STARTING_HAND * n)))
    demand = dict.fromkeys(SLOT_CLASSES, 0)
    demand[ORANGE_SLOT] = len(market_slots)
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
    return Template(st, tuple(places), tuple(market_slots), demand, pool_green, pool_other, token_pool,
                    view["tokens_left"], burying, _requirement(view, st, hands))


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


def _meet(t: Template, greens: list[int], others: list[int], rng: random.Random) -> tuple[tuple, dict[int, int]]:
    """Deals first the cards another seat's hand must hold for what it is doing (a set being laid,
    a Courtesan's addition), each into a slot its back fits, while the rest can still be filled.
    Returns the places and the demand left for the other cards."""
    assert t.requirement is not None
    seat, wanted = t.requirement
    face = t.state.face
    places = list(t.places)
    index = next(i for i, p in enumerate(places) if p[0] == "hands" and p[1] == seat)
    field, _, known, counts = places[index]
    known, left = list(known), dict(counts)
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
        orange, beige, rest = [], [], []
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
    sampler=sampler,
)
