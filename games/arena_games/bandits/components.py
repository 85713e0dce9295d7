"""The components of Bandits: its faces and the values they carry, its [house] settings and the
decks they describe, and the phases and actions its decisions are made of
(``docs/games/bandits.md``)."""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Literal, NamedTuple

from ..cards import CardSet
from ..core import BadSettings, Settings, action_table

# -- cards -------------------------------------------------------------------------------
# Every face the protocol names, in its order: loot, Outlaws, Lawmen, Two-Faced cards, special
# actions. A face's name carries its value; the settings say how many cards of each face the
# deck holds (none, for some).
GOLD_VALUES = range(2, 7)  # Gold Bars are worth 2 to 6
BAG_VALUES = range(1, 5)  # Money Bags, 1 to 4
GUNMAN_VALUES = range(1, 7)  # Outlaws' guns and Lawmen's stars; 6: Wild Bill, Sheriff McCoy
TWO_FACED_VALUES = range(1, 4)  # as many guns as stars
NAMES = (tuple(f"gold_{v}" for v in GOLD_VALUES) + tuple(f"bag_{v}" for v in BAG_VALUES)
         + tuple(f"outlaw_{v}" for v in GUNMAN_VALUES) + tuple(f"lawman_{v}" for v in GUNMAN_VALUES)
         + tuple(f"two_faced_{v}" for v in TWO_FACED_VALUES) + ("tracker", "backfire", "booby_trap"))
NUM_FACES = len(NAMES)
FACE_OF = {name: f for f, name in enumerate(NAMES)}
TRACKER, BACKFIRE, BOOBY_TRAP = FACE_OF["tracker"], FACE_OF["backfire"], FACE_OF["booby_trap"]

# What each face is worth and does; every table is indexed by face.
GOLD, BAGS, NOT_LOOT = 0, 1, -1
KIND = tuple(GOLD if n.startswith("gold_") else BAGS if n.startswith("bag_") else NOT_LOOT for n in NAMES)
VALUE = tuple(int(n.rsplit("_", 1)[1]) if KIND[f] != NOT_LOOT else 0 for f, n in enumerate(NAMES))
GUNS = tuple(int(n.rsplit("_", 1)[1]) if n.startswith(("outlaw_", "two_faced_")) else 0 for n in NAMES)
STARS = tuple(int(n.rsplit("_", 1)[1]) if n.startswith(("lawman_", "two_faced_")) else 0 for n in NAMES)
GUN_FACES = tuple(f for f in range(NUM_FACES) if GUNS[f])
STAR_FACES = tuple(f for f in range(NUM_FACES) if STARS[f])
LOOT_FACES = (tuple(f for f in range(NUM_FACES) if KIND[f] == GOLD),
              tuple(f for f in range(NUM_FACES) if KIND[f] == BAGS))

HAND_SIZE = 6  # dealt at the start, and the least anyone holds after a refill
STASH_MIN = 3  # loot cards of one kind
RAID_TAKE = 6  # cards a lost raid gives up
WINNING_TOTALS = {2: 60, 3: 50, 4: 40, 5: 35, 6: 30}
MAX_COPIES = 20  # cards of one face a deck may hold: far above the rulebook's 7


# -- settings ------------------------------------------------------------------------------
# The settings that list the cards of one kind as CARDSxVALUE items:
# setting -> (the faces' name prefix, the values the protocol names, what a value is).
VALUED = {
    "gold_bars": ("gold", GOLD_VALUES, "Gold Bars are worth"),
    "money_bags": ("bag", BAG_VALUES, "Money Bags are worth"),
    "outlaws": ("outlaw", GUNMAN_VALUES, "Outlaws carry guns"),
    "lawmen": ("lawman", GUNMAN_VALUES, "Lawmen carry stars"),
    "two_faced": ("two_faced", TWO_FACED_VALUES, "Two-Faced cards carry guns and stars"),
}
_ITEM = re.compile(r"\s*(\d+)\s*x\s*(\d+)\s*", re.ASCII)


@functools.lru_cache(maxsize=64)
def parse_cards(setting: str, text: str) -> tuple[tuple[int, int], ...]:
    """``"6x2,5x3"`` -> ``((2, 6), (3, 5))``: (value, cards) per item of a CARDSxVALUE setting."""
    _, values, what = VALUED[setting]
    cards: dict[int, int] = {}
    for item in filter(str.strip, text.split(",")):
        match = _ITEM.fullmatch(item)
        if not match:
            raise BadSettings(f"setting {setting}: expected CARDSxVALUE items separated by commas, such as "
                              f"6x2 for six cards of value 2; got {item!r}")
        count, value = map(int, match.groups())
        if value not in values:
            raise BadSettings(f"setting {setting}: {what} {values[0]} to {values[-1]}, got {value} in {item!r}")
        if value in cards:
            raise BadSettings(f"setting {setting}: value {value} is listed twice")
        if not 1 <= count <= MAX_COPIES:
            raise BadSettings(f"setting {setting}: 1 to {MAX_COPIES} cards of a value, got {count} in {item!r}")
        cards[value] = count
    return tuple(sorted(cards.items()))


@dataclasses.dataclass(frozen=True)
class BanditsSettings(Settings):
    """The [house] rules of Bandits, with the defaults of its page."""

    first_player: Literal["random", "seat0"] = "random"
    """Who starts: drawn from the game seed (``random``), or always seat 0 (``seat0``, for
    matches that rotate seats themselves). The rulebook says the youngest player."""

    booby_trap_goes_off: bool = True
    """A raid won against a hideout holding the Booby Trap takes nothing, and the trap goes to
    the Boneyard. Off: the trap is a worthless card that a raid may carry off like any other."""

    backfire: bool = True
    """A defender may answer with a Backfire, making the attacker defend against their own guns.
    Off: the Backfire cards are set aside before the deal (a 98-card deck by default)."""

    winning_total: int | None = None
    """The total that is enough to win at the end of a round. None: by player count,
    60 (2 players), 50 (3), 40 (4), 35 (5), 30 (6)."""

    max_rounds: int = 8
    """After this many rounds the highest total wins; equal totals share the place."""

    min_new_pile: int = 1
    """A new round needs a draw pile of at least this many cards; a smaller new pile ends the
    game. 1 (the default): only an empty new pile ends it."""

    # The deck: CARDSxVALUE items (``6x2``: six cards of value 2); a value not listed has no card.
    gold_bars: str = "6x2,5x3,5x4,4x5,3x6"
    """Gold Bars, worth 2 to 6."""

    money_bags: str = "7x1,6x2,6x3,5x4"
    """Money Bags, worth 1 to 4."""

    outlaws: str = "4x1,4x2,4x3,3x4,3x5,1x6"
    """Outlaws, with 1 to 6 guns (the 6 is Wild Bill)."""

    lawmen: str = "4x1,4x2,4x3,3x4,3x5,1x6"
    """Lawmen, with 1 to 6 stars (the 6 is Sheriff McCoy)."""

    two_faced: str = "3x1,4x2,3x3"
    """Two-Faced cards, with 1 to 3 guns and as many stars."""

    trackers: int = 2
    """Trackers (0 to 20)."""

    backfires: int = 2
    """Backfire cards (0 to 20); set aside when ``backfire`` is off."""

    booby_traps: int = 1
    """Booby Traps (0 to 20)."""

    def __post_init__(self) -> None:
        if self.winning_total is not None and self.winning_total < 1:
            raise BadSettings(f"setting winning_total: must be at least 1 or none, got {self.winning_total}")
        if self.max_rounds < 1:
            raise BadSettings(f"setting max_rounds: must be at least 1, got {self.max_rounds}")
        if self.min_new_pile < 1:
            raise BadSettings(f"setting min_new_pile: must be at least 1 (no round can start without a "
                              f"pile), got {self.min_new_pile}")
        for name in ("trackers", "backfires", "booby_traps"):
            if not 0 <= getattr(self, name) <= MAX_COPIES:
                raise BadSettings(f"setting {name}: 0 to {MAX_COPIES} cards, got {getattr(self, name)}")
        self.deck_counts()  # parses, and so checks, the card settings

    def deck_counts(self) -> tuple[int, ...]:
        """The cards of each face in the deck, in face order."""
        counts = [0] * NUM_FACES
        for setting, (prefix, _, _) in VALUED.items():
            for value, cards in parse_cards(setting, getattr(self, setting)):
                counts[FACE_OF[f"{prefix}_{value}"]] = cards
        counts[TRACKER], counts[BACKFIRE], counts[BOOBY_TRAP] = self.trackers, self.backfires, self.booby_traps
        return tuple(counts)


class Deck(NamedTuple):
    """The physical cards the settings describe."""

    cards: CardSet
    face: tuple[int, ...]  # card id -> face
    name: tuple[str, ...]  # card id -> the name of its face


@functools.lru_cache(maxsize=32)
def make_deck(counts: tuple[int, ...]) -> Deck:
    # A CardSet numbers the cards face by face in face order, so sorting ids sorts faces: views
    # list cards in face order by sorting their ids.
    cards = CardSet(list(zip(NAMES, counts, strict=True)))
    return Deck(cards, cards.face_of, tuple(NAMES[f] for f in cards.face_of))


CARDS = make_deck(BanditsSettings().deck_counts()).cards  # the page's 100 cards


# -- phases and actions ------------------------------------------------------------------
TURN, ATTACK, DEFEND, BACKFIRED, STASH, OVER = range(6)
PHASES = ("turn", "attack", "defend", "backfire", "stash", "over")

DRAW = "draw"
BACKFIRE_ACT = "backfire"
ATTACK_ON = tuple(f"attack:{s}" for s in range(6))
RAID_ON = tuple(f"raid:{s}" for s in range(6))
STASH_CARD = tuple(f"stash:{n}" for n in NAMES)
GUN_CARD = tuple(f"gun:{n}" for n in NAMES)
STAR_CARD = tuple(f"star:{n}" for n in NAMES)
# [players][seat] -> that seat's attacks and raids, on every other seat in seat order
ATTACKS = {n: tuple(tuple(ATTACK_ON[s] for s in range(n) if s != me) for me in range(n)) for n in range(2, 7)}
RAIDS = {n: tuple(tuple(RAID_ON[s] for s in range(n) if s != me) for me in range(n)) for n in range(2, 7)}
PARSED = action_table(ATTACK_ON, RAID_ON, STASH_CARD, GUN_CARD, STAR_CARD)
