"""The components of Sobek: its faces and cards, its tokens and score track, its [house] settings
and the decks they describe, and the phases and actions its decisions are made of
(``docs/games/sobek.md``)."""

from __future__ import annotations

import dataclasses
import functools
from typing import Literal, NamedTuple

from ..cards import CardSet
from ..core import BadSettings, Settings, action_table

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

