"""The components of The Boss: its bosses, city cards and police cards, its [house] settings, and
the phases and actions its decisions are made of (``docs/games/boss.md``)."""

from __future__ import annotations

import dataclasses
import functools
import itertools

from ..cards import CardSet
from ..core import BadSettings, Settings, action_table
from ..views import UNKNOWN

# -- bosses and cards ----------------------------------------------------------------------
CITIES = ("new_york", "boston", "detroit", "kansas_city", "cincinnati", "memphis", "philadelphia")
NEW_YORK, BOSTON, DETROIT, KANSAS_CITY, CINCINNATI, MEMPHIS, PHILADELPHIA = range(7)
CHICAGO = 7  # a boss card with no number and no city cards
BOSSES = (*CITIES, "chicago")

# A city card is a number of bags (points) or a penalty. Every kind exists once per city
# in the card set, and the ``city_cards`` setting picks which of them are in the game.
VALUES = (1, 2, 3, 4, 5)
REVOLVER, PRISON, HOSPITAL, BANISHED = range(len(VALUES), len(VALUES) + 4)
KINDS = (*(str(v) for v in VALUES), "revolver", "prison", "hospital", "banished")
POLICE = (("gold", 2), ("silver", 2), ("double", 1))

CARDS = CardSet([(f"{city}_{kind}", 1) for city in CITIES for kind in KINDS] + list(POLICE))
FACE, NAMES = CARDS.face_of, CARDS.names
NAME = tuple(NAMES[f] for f in FACE)  # by card id
CITY_CARDS = len(CITIES) * len(KINDS)  # ids below this are city cards, the rest police
CITY_OF = tuple(c // len(KINDS) for c in range(CITY_CARDS))
KIND_OF = tuple(c % len(KINDS) for c in range(CITY_CARDS))
VALUE_OF = tuple(VALUES[k] if k < len(VALUES) else 0 for k in KIND_OF)  # penalties score 0
GOLD, SILVER, DOUBLE = (CARDS.index[name] for name, _ in POLICE)
NONE = "none"  # no card at all: Chicago's reward

BIG_CUBES, SMALL_CUBES, HAND_SIZE = 6, 3, 5
BADGES_TO_END = 3
PRISON_ROUNDS = 2  # a jailed cube sits out the next 2 rounds; a hospitalised one, the next round


def card_id(city: int, kind: int) -> int:
    return city * len(KINDS) + kind


DEFAULT_CITY_CARDS = (
    "new_york:2/3/hospital,boston:1/4/prison,detroit:1/2/3/4/revolver,kansas_city:1/2/3/revolver,"
    "cincinnati:2/3/banished,memphis:1/2/3/hospital,philadelphia:1/2/4/revolver/prison"
)
# Cards the rulebook names: these must stay whatever the setting says.
KNOWN_CARDS = ((DETROIT, REVOLVER), (CINCINNATI, BANISHED), (MEMPHIS, HOSPITAL),
               (PHILADELPHIA, REVOLVER), (PHILADELPHIA, PRISON), (KANSAS_CITY, REVOLVER))


Table = tuple[tuple[int, ...], ...]  # the kinds of each city's cards, by city


@functools.lru_cache(maxsize=32)
def parse_city_cards(text: str, base: Table | None = None) -> Table:
    """``"new_york:2/3/hospital,..."`` -> the kinds of each city's cards, by city.

    Cities the text does not list keep their cards in ``base`` (the default table).
    Raises BadSettings naming the problem.
    """
    table = [list(kinds) for kinds in (DEFAULT_TABLE if base is None else base)]
    for item in filter(None, (part.strip() for part in text.split(","))):
        city, sep, cards = item.partition(":")
        if not sep or city not in CITIES:
            raise BadSettings(f"setting city_cards: expected CITY:CARD/CARD/..., with CITY one of "
                              f"{', '.join(CITIES)}; got {item!r}")
        kinds = [k.strip() for k in cards.split("/") if k.strip()]
        bad = [k for k in kinds if k not in KINDS]
        if bad or not kinds:
            raise BadSettings(f"setting city_cards: {city} needs cards among {', '.join(KINDS)}; "
                              f"got {cards!r}")
        if len(set(kinds)) != len(kinds):
            raise BadSettings(f"setting city_cards: {city} lists a card twice ({cards!r})")
        table[CITIES.index(city)] = [KINDS.index(k) for k in kinds]
    for known, kind in KNOWN_CARDS:
        if kind not in table[known]:
            raise BadSettings(f"setting city_cards: {CITIES[known]} must keep its {KINDS[kind]} card "
                              "(the rulebook's)")
    if [k for k in table[KANSAS_CITY] if k >= len(VALUES)] != [REVOLVER]:
        raise BadSettings("setting city_cards: the Revolver is Kansas City's only penalty (the rulebook's)")
    if any(BANISHED in table[c] for c in range(len(CITIES)) if c != CINCINNATI):
        raise BadSettings("setting city_cards: the Banished card is Cincinnati's only")
    return tuple(tuple(sorted(kinds)) for kinds in table)


DEFAULT_TABLE = parse_city_cards(DEFAULT_CITY_CARDS, base=((),) * len(CITIES))


def city_combinations(table: Table, num_players: int) -> list[tuple[int, ...]]:
    """Every set of cities whose cards deal 5 to each player plus one reward per city.

    The rules give 3, 5 and 7 cities for 2, 3 and 4 players: 2n - 1 cities.
    """
    count = 2 * num_players - 1
    need = count + HAND_SIZE * num_players
    return [combo for combo in itertools.combinations(range(len(CITIES)), count)
            if sum(len(table[c]) for c in combo) == need]


@dataclasses.dataclass(frozen=True)
class BossSettings(Settings):
    """The [house] rules of The Boss, with the defaults of its page."""

    city_cards: str = DEFAULT_CITY_CARDS
    """Each city's cards: ``city:card/card/...``, comma-separated; a card is 1 to 5 (bags) or
    ``revolver``, ``prison``, ``hospital``, ``banished``. Cities not listed keep the default
    table; the cards the rulebook names (see its page) must stay."""

    cities: str = ""
    """The cities in play, comma-separated (``detroit,philadelphia,boston``). Empty: one of
    the combinations that deal exactly 5 cards to each player, drawn with the game seed."""

    first_dealer: int = 0
    """The seat that deals (and plays) first in round 1; the rulebook says the oldest player."""

    chicago_needs_other_boss: bool = True
    """Cubes may go to Chicago only from a player who already has cubes on another boss card
    this round (this project's reading of "before this round"). Off: Chicago is open to all."""

    overtime: bool = True
    """When the first place is still tied after the tie-breaks, one more round is played (once).
    Off: the tied players share the place at once."""

    def __post_init__(self) -> None:
        table = parse_city_cards(self.city_cards)
        if self.first_dealer < 0:
            raise BadSettings(f"setting first_dealer: must be a seat (0 or more), got {self.first_dealer}")
        if self.cities:
            names = [c.strip() for c in self.cities.split(",")]
            bad = [c for c in names if c not in CITIES]
            if bad:
                raise BadSettings(f"setting cities: unknown {', '.join(map(repr, bad))}; "
                                  f"known: {', '.join(CITIES)}")
            combo = tuple(sorted(CITIES.index(c) for c in names))
            if len(set(combo)) != len(combo) or not any(
                combo in city_combinations(table, n) for n in (2, 3, 4)
            ):
                raise BadSettings(
                    f"setting cities: {self.cities!r} is not a combination of 3, 5 or 7 distinct cities "
                    "whose cards number cities + 5 x players"
                )

    def table(self) -> Table:
        return parse_city_cards(self.city_cards)


# -- phases and actions ------------------------------------------------------------------
TURN, CUBES, REVEAL, PLACE, OVER = range(5)
PHASES = ("turn", "cubes", "reveal", "place", "over")

REVEAL_CARD = tuple(f"reveal:{name}" for name in NAME[:CITY_CARDS])  # by card id
PLACE_ON = tuple(f"place:{b}" for b in BOSSES)
BIG, SMALL, PASS = "big", "small", "pass"
PARSED = action_table(REVEAL_CARD, PLACE_ON)

# The names views show: a card's face; the back of a city card is its city.
BACK = tuple(CITIES[CITY_OF[c]] if c < CITY_CARDS else UNKNOWN for c in range(len(CARDS)))
EFFECTS = {REVOLVER: "dies", PRISON: "prison", HOSPITAL: "hospital", BANISHED: "banished"}


def sorted_backs(cards: list[int]) -> list[str]:
    """The backs of ``cards`` (their cities), in city order."""
    return [BACK[c] for c in sorted(cards)]
