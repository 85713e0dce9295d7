"""The Boss: gangsters, hidden rewards and deduction, 2 to 4 players.

The rules are those of ``docs/games/boss.md``; the methods follow them in their order,
each kind of decision by its pair ``_legal_<phase>`` and ``_apply_<phase>``.
Names follow the rulebook: a row of *boss cards* (seven cities and Chicago) gathers
*cubes* (gangsters: *big* regulars that come back every round, *small* irregulars
used once); under each city lies a face-down *reward*, one of that city's cards;
players *reveal* their other city cards one per turn, and the *police* cards say
when the game ends.

Decisions are fine-grained; each lists every legal action:

=======  =================  =====================================================
phase    who decides        actions
=======  =================  =====================================================
turn     the active player  ``reveal:<card>`` (a card of the hand) or
                            ``place:<boss>`` (start adding cubes to that boss)
cubes    the active player  ``big``, ``small`` (add one cube), ``done``
reveal   the active player  ``reveal:<card>``: the mandatory reveal, after placing
place    the active player  ``place:<boss>``: the optional placement, after
                            revealing; or ``pass``
=======  =================  =====================================================

``<card>`` is a face such as ``detroit_3`` or ``memphis_hospital``; ``<boss>`` a city
such as ``new_york``, or ``chicago``.

Where the rulebook is silent, this engine decides (the page lists these too):

* ``place:<boss>`` is offered only where the placement can be completed: the cubes
  at hand can reach a strict majority there. Cubes are then added one at a time and
  ``done`` is legal once the placement has a big cube and the majority.
* A decision with a single legal action is played at once, without asking. Every
  decision depends only on public information and the decider's own hand, so this
  reveals nothing.
* A penalty falls on the player's pool of big cubes (in reserve or on the board),
  never on the cubes of a particular boss, so it cannot change a majority later in
  the same resolution. Every placement brings a big cube, so a controller always has
  one to lose: the rules' "no big cube left" case is handled but cannot arise in play.
* A cube jailed at the end of round r misses rounds r+1 and r+2; one hospitalised
  misses round r+1.
* Every reward card is turned face up at resolution, also under a boss nobody
  controls.
* The last-turn order is fixed when the police card is flipped.
* The reserve that breaks ties counts big cubes back from prison or hospital at the
  end of the last round, and not those the last round's penalties took.
* Overtime (a setting): when the first place is still tied after every tie-break,
  everyone plays one more complete round, whose points count like any other; it
  flips a police card only if one is left. Then the same ranking applies, and
  players still tied share their place.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import random
from collections.abc import Callable
from operator import add, itemgetter
from typing import Any

from ..cards import CardSet, deal, shuffled
from ..core import (
    DONE,
    TERMINAL,
    Action,
    BadSettings,
    GameSpec,
    PhasedState,
    Settings,
    View,
    action_table,
    ranks_from_scores,
)
from ..views import MUTED, UNKNOWN, EventLog, restore_log, seat_view

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
    for city, kind in KNOWN_CARDS:
        if kind not in table[city]:
            raise BadSettings(f"setting city_cards: {CITIES[city]} must keep its {KINDS[kind]} card "
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


class BossState(PhasedState):
    """A game of The Boss. Seats are numbered clockwise from 0."""

    PHASES = PHASES
    PARSED = PARSED

    settings: BossSettings

    def __init__(self, game: GameSpec, num_players: int, seed: int, settings: BossSettings) -> None:
        super().__init__(game, num_players, seed, settings)
        n, rng = num_players, self.rng
        if settings.first_dealer >= n:
            raise BadSettings(f"setting first_dealer: seat {settings.first_dealer} does not exist "
                              f"with {n} players")

        # Setup 1: the cities in play.
        table = settings.table()
        combos = city_combinations(table, n)
        if settings.cities:
            chosen = tuple(sorted(CITIES.index(c.strip()) for c in settings.cities.split(",")))
            if chosen not in combos:
                raise BadSettings(f"setting cities: {settings.cities!r} does not fit {n} players "
                                  f"({2 * n - 1} cities with {7 * n - 1} cards)")
        elif combos:
            chosen = rng.choice(combos)
        else:
            raise BadSettings(f"setting city_cards: no {2 * n - 1} cities have {7 * n - 1} cards "
                              f"between them, as {n} players need")
        self.cities: tuple[int, ...] = chosen
        in_game = {card_id(c, k) for c in chosen for k in table[c]}
        self.removed: list[int] = [c for c in range(CITY_CARDS) if c not in in_game]
        self.city_cards: tuple[list[str], ...] = tuple(
            [NAME[card_id(c, k)] for k in table[c]] if c in chosen else [] for c in range(len(BOSSES))
        )  # the cards of each city in play: public, shared by every view
        # Setup 2: the boss cards in a row by number, Chicago second.
        self.row: list[int] = [chosen[0], CHICAGO, *chosen[1:]]
        # Setup 3: the police cards, face down (the top card is the last one).
        self.deck: list[int] = shuffled(rng, range(CITY_CARDS, len(CARDS)))
        self.police: list[int] = []
        self.dealer = settings.first_dealer

        # The city cards of a round: one reward per city (in ``cities`` order), the hands,
        # and the cards revealed under each city, in the order they were revealed.
        self.rewards: list[int] = []
        self.rewards_up = False
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.revealed: list[list[int]] = [[] for _ in BOSSES]  # Chicago's stays empty
        self.reward_slot = {city: i for i, city in enumerate(chosen)}  # a city's index in rewards

        # Cubes: in reserve, on each boss (by seat), and out of play.
        self.big = [BIG_CUBES] * n
        self.small = [SMALL_CUBES] * n
        self.big_on: list[list[int]] = [[0] * n for _ in BOSSES]
        self.small_on: list[list[int]] = [[0] * n for _ in BOSSES]
        self.dead = [0] * n
        self.prison: list[list[int]] = [[] for _ in range(n)]  # per jailed cube: rounds to sit out
        self.hospital = [0] * n
        self.banished = [False] * n

        self.points = [0] * n
        self.last_round_points = [0] * n
        self.round = 0
        self.overtime = False
        self.phase = TURN
        self.active = self.to_act = self.dealer
        self.last_turn = False  # the round's last turns have begun
        self.last_turns: list[int] = []  # seats still to take their last turn, in order
        self.turn_revealed = False
        self.placing = -1  # the boss receiving cubes in the current placement
        self.added_big = self.added_small = 0
        # Each seat's and each boss card's part of a view, built when first needed after a change.
        self._player_views: list[dict | None] = [None] * n
        self._boss_views: list[dict | None] = [None] * len(BOSSES)
        self._start_round(sorted(in_game))
        self._settle()

    # -- simulation: a fast clone, whose random source is copied only once it draws ---------
    # A search clones a state per simulation, and most simulations end before the next deal
    # (the only draw from the rng after setup), while copying a random.Random costs more than
    # the rest of a clone. So a clone and its original share the source until one of them
    # draws: that one draws from its own copy (or from a new source, when ``_chance`` is the
    # int seed a determinisation gave it). The shared source itself is then never drawn from.
    @property
    def rng(self) -> random.Random:
        chance = self._chance
        if not self._chance_own:
            if type(chance) is int:
                chance = random.Random(chance)
            else:
                fork = random.Random.__new__(random.Random)
                fork.setstate(chance.getstate())
                chance = fork
            self._chance, self._chance_own = chance, True
        return chance

    @rng.setter
    def rng(self, value: random.Random | int) -> None:
        self._chance, self._chance_own = value, type(value) is not int

    def clone(self) -> BossState:
        """Copies the lists a game changes; shares the rest (see :meth:`State.clone`)."""
        new = BossState.__new__(BossState)
        fields = new.__dict__ = self.__dict__.copy()  # shares the spec, settings, tables, the legal list
        self._chance_own = fields["_chance_own"] = False
        log = self.log
        if log is not MUTED:
            copy = fields["log"] = EventLog.__new__(EventLog)
            copy.entries, copy.cursor = log.entries[:], log.cursor[:]  # the events are read-only
        fields["hands"] = [hand[:] for hand in self.hands]
        fields["revealed"] = [cards[:] for cards in self.revealed]
        fields["big_on"] = [cubes[:] for cubes in self.big_on]
        fields["small_on"] = [cubes[:] for cubes in self.small_on]
        fields["prison"] = [jailed[:] for jailed in self.prison]
        for name in ("big", "small", "dead", "hospital", "banished", "points", "last_round_points", "row",
                     "deck", "police", "rewards", "last_turns", "removed", "_player_views", "_boss_views"):
            fields[name] = fields[name][:]
        return new

    # -- applying actions ----------------------------------------------------------------
    def _apply(self, action: Action) -> None:
        seat = self.to_act  # PhasedState's _apply, written out (a call fewer on the hot path) ...
        self.log.mark(seat)
        self._act(seat, action)
        self._settle()  # ... then the forced decisions

    def _settle(self) -> None:
        """Plays every decision that has a single legal action, and caches the next list."""
        while self.phase != OVER:
            legal = self._legal_actions()
            if len(legal) != 1:
                self._legal = legal
                return
            self._act(self.to_act, legal[0])

    # A round 1-2: rewards and the deal -------------------------------------------------
    def _start_round(self, cards: list[int]) -> None:
        """Starts a round with ``cards``, every city card in play, gathered from the table."""
        rng, n = self.rng, self.num_players
        self.round += 1
        self._forget_views()
        # One random card of each city goes face down under its boss; nobody looks. The rest
        # are shuffled again: what is left after taking the first card of each city is not
        # in a uniformly random order (a city's later cards sit towards the end).
        pile = shuffled(rng, cards)
        rewards = []
        for city in self.cities:
            card = next(c for c in pile if CITY_OF[c] == city)
            pile.remove(card)
            rewards.append(card)
        self.rewards[:] = rewards  # in place: card_places() hands out the state's own lists
        self.rewards_up = False
        pile = shuffled(rng, pile)
        self.log.add({"type": "round", "round": self.round, "seat": self.dealer,
                      "position": self.row.index(CHICAGO)}
                     | ({"overtime": True} if self.overtime else {}))
        # Five cards each; the cities of every hand are public, their values are not.
        for k in range(n):
            seat = (self.dealer + k) % n
            hand = self.hands[seat]
            hand += deal(pile, HAND_SIZE)
            self.log.add({"type": "deal", "seat": seat, "cards": sorted_backs(hand)},
                         {"cards": CARDS.sorted_names(hand)}, to=(seat,))
        self.last_turn, self.last_turns = False, []
        self._start_turn(self.dealer)

    # A round 3: turns ----------------------------------------------------------------------
    def _start_turn(self, seat: int) -> None:
        self.phase, self.active, self.to_act = TURN, seat, seat
        self.turn_revealed = False
        self.log.add({"type": "turn", "seat": seat} | ({"last": True} if self.last_turn else {}))

    def _legal_turn(self) -> list[Action]:
        return [REVEAL_CARD[c] for c in sorted(self.hands[self.active])] + self._placements()

    def _apply_turn(self, seat: int, verb: str, arg: int) -> None:
        if verb == "reveal":
            self._reveal(seat, arg)
        else:
            self._place(arg)

    def _placements(self) -> list[Action]:
        """``place:<boss>`` for every boss where the active player can complete a placement."""
        seat = self.active
        if not self.big[seat]:  # small cubes only go with a big one
            return []
        reach = self.big[seat] + self.small[seat]
        big_on, small_on = self.big_on, self.small_on
        acts = []
        for boss in self.row:
            bigs, smalls = big_on[boss], small_on[boss]
            # A majority is in reach unless another player has ``reach`` or more cubes above mine.
            if max(map(add, bigs, smalls)) - bigs[seat] - smalls[seat] >= reach:
                continue
            if boss == CINCINNATI and self.banished[seat]:
                continue
            if (boss == CHICAGO and self.settings.chicago_needs_other_boss
                    and sum(map(itemgetter(seat), big_on)) == big_on[CHICAGO][seat]):
                continue  # no cubes elsewhere: every placement has a big cube, so big cubes say where
            acts.append(PLACE_ON[boss])
        return acts

    def _place(self, boss: int) -> None:
        """Starts a placement on ``boss``: cubes are then added one at a time."""
        self.placing, self.added_big, self.added_small = boss, 0, 0
        self.phase = CUBES

    def _legal_cubes(self) -> list[Action]:
        seat, boss = self.active, self.placing
        acts: list[Action] = []
        if self.big[seat]:
            acts.append(BIG)
        if self.small[seat]:
            acts.append(SMALL)
        if self.added_big and self._has_majority(seat, boss):
            acts.append(DONE)
        return acts

    def _apply_cubes(self, seat: int, verb: str, arg: int) -> None:
        if verb == BIG:
            self.big[seat] -= 1
            self.big_on[self.placing][seat] += 1
            self.added_big += 1
            self._player_views[seat] = self._boss_views[self.placing] = None
        elif verb == SMALL:
            self.small[seat] -= 1
            self.small_on[self.placing][seat] += 1
            self.added_small += 1
            self._player_views[seat] = self._boss_views[self.placing] = None
        else:  # done
            self.log.add({"type": "place", "seat": seat, "boss": BOSSES[self.placing],
                          "big": self.added_big, "small": self.added_small})
            self.placing, self.added_big, self.added_small = -1, 0, 0
            if self.turn_revealed:
                self._end_turn()
            else:
                self.phase = REVEAL

    def _has_majority(self, seat: int, boss: int) -> bool:
        totals = list(map(add, self.big_on[boss], self.small_on[boss]))
        mine = totals[seat]
        totals[seat] = -1
        return mine > max(totals)

    def _legal_reveal(self) -> list[Action]:
        """The reveal a turn owes after its placement."""
        return [REVEAL_CARD[c] for c in sorted(self.hands[self.active])]

    def _apply_reveal(self, seat: int, verb: str, card: int) -> None:
        self._reveal(seat, card)

    def _reveal(self, seat: int, card: int) -> None:
        self.hands[seat].remove(card)
        self.revealed[CITY_OF[card]].append(card)
        self._player_views[seat] = self._boss_views[CITY_OF[card]] = None
        self.log.add({"type": "reveal", "seat": seat, "card": NAME[card]})
        if self.phase == REVEAL:  # the placement came first: the turn is over
            self._end_turn()
        else:
            self.turn_revealed, self.phase = True, PLACE

    def _legal_place(self) -> list[Action]:
        """The optional placement after the turn's reveal."""
        acts = self._placements()
        acts.append(PASS)
        return acts

    def _apply_place(self, seat: int, verb: str, boss: int) -> None:
        if verb == "place":
            self._place(boss)
        else:  # pass
            self._end_turn()

    def _end_turn(self) -> None:
        n = self.num_players
        if self.last_turn:
            if self.last_turns:
                self._start_turn(self.last_turns.pop(0))
            else:
                self._resolve()
            return
        if set(map(len, self.hands)) != {1}:
            self._start_turn((self.active + 1) % n)
            return
        # A round 4: the last turn. Flip a police card; most cubes in reserve go first,
        # equal reserves clockwise from the dealer (sorted() is stable).
        if self.deck:
            card = self.deck.pop()
            self.police.append(card)
            self.log.add({"type": "police", "card": NAME[card]})
        clockwise = [(self.dealer + k) % n for k in range(n)]
        order = sorted(clockwise, key=lambda s: -(self.big[s] + self.small[s]))
        self.log.add({"type": "last_turns", "seats": order})
        self.last_turn, self.last_turns = True, order[1:]
        self._start_turn(order[0])

    # A round 5: resolution, left to right --------------------------------------------------
    def _resolve(self) -> None:
        n = self.num_players
        self._forget_views()
        self.last_round_points = [0] * n
        lost = [0] * n  # big cubes this round's penalties took
        new_prison, new_hospital = [0] * n, [0] * n
        self.rewards_up = True
        on_board = [sum(column) for column in zip(*self.big_on, strict=True)]  # big cubes, by seat
        for position, boss in enumerate(self.row):
            totals = list(map(add, self.big_on[boss], self.small_on[boss]))
            top = max(totals)
            controller = totals.index(top) if top else -1  # placements keep the majority strict
            event: dict = {"type": "resolve", "boss": BOSSES[boss]}
            if boss == CHICAGO:
                if controller >= 0:
                    points = self.chicago_sum(position)
                    self._score(controller, points)
                    event |= {"seat": controller, "points": points, "effect": "points"}
                self.log.add(event)
                continue
            card = self.rewards[self.reward_slot[boss]]
            event["card"] = NAME[card]
            if controller >= 0:
                event["seat"] = controller
                kind = KIND_OF[card]
                if kind < len(VALUES):
                    self._score(controller, VALUE_OF[card])
                    event |= {"points": VALUE_OF[card], "effect": "points"}
                elif kind == BANISHED:
                    self.banished[controller] = True
                    event["effect"] = "banished"
                elif self.big[controller] + on_board[controller] - lost[controller] > 0:
                    lost[controller] += 1
                    if kind == REVOLVER:
                        self.dead[controller] += 1
                    elif kind == PRISON:
                        new_prison[controller] += 1
                    else:
                        new_hospital[controller] += 1
                    event["effect"] = EFFECTS[kind]
                else:
                    event["effect"] = "no_cube"  # no big cube left to lose: no effect
            self.log.add(event)

        # A round 6: big cubes come back, small ones are gone; Chicago moves right.
        for s in range(n):
            back = self.hospital[s] + self.prison[s].count(1)
            self.prison[s] = [r - 1 for r in self.prison[s] if r > 1] + [PRISON_ROUNDS] * new_prison[s]
            self.hospital[s] = new_hospital[s]
            self.big[s] += on_board[s] - lost[s] + back
        for cubes in (*self.big_on, *self.small_on):
            cubes[:] = [0] * n
        chicago = self.row.index(CHICAGO)
        if chicago < len(self.row) - 1:
            self.row[chicago], self.row[chicago + 1] = self.row[chicago + 1], CHICAGO
        self.dealer = (self.dealer + 1) % n
        self.log.add({"type": "round_end", "round": self.round, "scores": list(self.points)})

        # A round 7, and the end of the game.
        if self.overtime or self.badges() >= BADGES_TO_END:
            keys = self.rank_keys()
            if not self.overtime and self.settings.overtime and keys.count(max(keys)) > 1:
                self.overtime = True
                self.log.add({"type": "overtime", "seats": [s for s in range(n) if keys[s] == max(keys)]})
                self._start_round(self._gather())
                return
            self.active = TERMINAL
            self._game_over()
            return
        self._start_round(self._gather())

    def _gather(self) -> list[int]:
        """Takes every city card in play off the table, in a fixed order, for the next round."""
        cards = list(self.rewards)
        self.rewards.clear()
        for hand in self.hands:  # empty after the last turns, but for completeness
            cards += hand
            hand.clear()
        for city in self.cities:
            cards += self.revealed[city]
            self.revealed[city].clear()
        return sorted(cards)

    def chicago_sum(self, position: int) -> int:
        """Half the last revealed card under each city left of ``position``, rounded down."""
        total = 0
        for boss in self.row[:position]:
            shown = self.revealed[boss]
            if shown:
                total += VALUE_OF[shown[-1]]  # a penalty counts 0
        return total // 2

    def _score(self, seat: int, points: int) -> None:
        self.points[seat] += points
        self.last_round_points[seat] += points

    def badges(self) -> int:
        """The most badges of one colour among the police cards face up (the double has both)."""
        faces = [FACE[c] for c in self.police]
        double = faces.count(DOUBLE)
        return max(faces.count(GOLD), faces.count(SILVER)) + double

    # -- the end -----------------------------------------------------------------------------
    def scores(self) -> list[int]:
        return list(self.points)

    def rank_keys(self) -> list[tuple[int, int, int]]:
        """Most points; then most points in the last round; then most cubes in reserve."""
        return [(self.points[s], self.last_round_points[s], self.big[s] + self.small[s])
                for s in range(self.num_players)]

    def ranks(self) -> list[int]:
        return ranks_from_scores(self.rank_keys())

    # -- information -----------------------------------------------------------------------
    def view(self, seat: int) -> View:
        v = seat_view(self, seat, PHASES[self.phase], self.current_player(), self.log)
        v["round"] = self.round
        v["overtime"] = self.overtime
        v["dealer"] = self.dealer
        v["active"] = self.active
        v["hand"] = [NAME[c] for c in sorted(self.hands[seat])]  # ids sort like faces
        player_views, boss_views = self._player_views, self._boss_views
        v["players"] = [player_views[s] or self._player_view(s) for s in range(self.num_players)]
        v["bosses"] = [boss_views[b] or self._boss_view(b) for b in self.row]
        v["chicago"] = self.row.index(CHICAGO)
        v["police"] = [NAME[c] for c in self.police]
        v["police_left"] = len(self.deck)
        v["last_turn"] = self.last_turn
        v["last_turns"] = self.last_turns[:]
        v["turn_revealed"] = self.turn_revealed
        v["placing"] = self.row.index(self.placing) if self.placing >= 0 else -1
        v["added_big"] = self.added_big
        v["added_small"] = self.added_small
        return v

    # A view's parts for one seat and one boss card are the same for every seat, and most
    # decisions change one of each: they are cached, shared by the views that show them
    # (views are read-only), and rebuilt after a change.
    def _player_view(self, s: int) -> dict:
        part = self._player_views[s] = {
            "hand": [BACK[c] for c in sorted(self.hands[s])], "big": self.big[s], "small": self.small[s],
            "dead": self.dead[s], "prison": self.prison[s][:], "hospital": self.hospital[s],
            "banished": self.banished[s], "points": self.points[s],
            "last_round_points": self.last_round_points[s],
        }
        return part

    def _boss_view(self, b: int) -> dict:
        reward = NONE if b == CHICAGO else NAME[self.rewards[self.reward_slot[b]]] if self.rewards_up else UNKNOWN
        part = self._boss_views[b] = {
            "boss": BOSSES[b], "big": self.big_on[b][:], "small": self.small_on[b][:],
            "revealed": [NAME[c] for c in self.revealed[b]], "reward": reward, "cards": self.city_cards[b],
        }
        return part

    def _forget_views(self) -> None:
        self._player_views[:] = [None] * self.num_players
        self._boss_views[:] = [None] * len(BOSSES)

    def invalidate_caches(self) -> None:
        super().invalidate_caches()
        self._forget_views()

    def card_places(self) -> dict[str, list[int]]:
        places = {"removed": self.removed, "deck": self.deck, "police": self.police,
                  "rewards": self.rewards}
        for city in self.cities:
            places[f"revealed_{CITIES[city]}"] = self.revealed[city]
        for s in range(self.num_players):
            places[f"hand{s}"] = self.hands[s]
        return places


def sorted_backs(cards: list[int]) -> list[str]:
    """The backs of ``cards`` (their cities), in city order."""
    return [BACK[c] for c in sorted(cards)]


# -- determinisation ---------------------------------------------------------------------------
POLICE_IDS = {face: CARDS.ids(name) for face, name in ((GOLD, "gold"), (SILVER, "silver"), (DOUBLE, "double"))}
# A draw sorts the unknown cards by this key plus a random fraction: by city, shuffled within
# each, and the police cards after them.
_DRAW_KEY = (*CITY_OF, *[len(CITIES)] * (len(CARDS) - CITY_CARDS))


def sampler(view: View, history: list[dict[str, Any]], settings: BossSettings) -> Callable[[random.Random], BossState]:
    """Prepares the draws of states consistent with ``view`` (see :mod:`arena_games.determinise`).

    Every round deals the city cards afresh, so what a seat knows of the hidden cards is the
    snapshot its view gives: the values of its own hand, the cards revealed this round, the
    cities (backs) of every hand, and the cards of each city in the game. Everything public
    (cubes, penalties, points, police cards face up, whose turn) is copied from the view. A deal
    gives every assignment of the city cards equally likely, so given those facts the unknown
    cards of each city are uniformly shuffled among its reward and the slots of that city in the
    other hands: that is the draw, and the exact posterior (nothing is inferred from how the others
    played). The police cards still face down are in uniform random order.
    """
    n, seat = view["num_players"], view["seat"]
    index = CARDS.index
    t = BossState.__new__(BossState)
    t.game, t.num_players, t.seed, t.settings = GAME, n, 0, settings
    t.rng = 0
    t.log = restore_log(seat, view, history, n)
    t._legal = None

    row = [BOSSES.index(b["boss"]) for b in view["bosses"]]
    by_boss = {BOSSES.index(b["boss"]): b for b in view["bosses"]}
    cities = tuple(sorted(b for b in row if b != CHICAGO))
    t.cities, t.row = cities, row
    t.city_cards = tuple(list(by_boss[b]["cards"]) if b in by_boss and b != CHICAGO else []
                         for b in range(len(BOSSES)))
    in_game = {index[name] for b in cities for name in t.city_cards[b]}
    t.removed = [c for c in range(CITY_CARDS) if c not in in_game]
    t.reward_slot = {city: i for i, city in enumerate(cities)}

    # The police cards: those face up are known; the rest make the deck, in random order.
    police_ids = {face: list(ids) for face, ids in POLICE_IDS.items()}
    t.police = [police_ids[index[name]].pop(0) for name in view["police"]]
    hidden_police = sorted(c for ids in police_ids.values() for c in ids)
    if len(hidden_police) != view["police_left"]:
        raise ValueError("the view's police cards do not add up")
    t.deck = []

    # The board: cubes, revealed cards, rewards (face up only once the game is over).
    t.big_on = [list(by_boss[b]["big"]) if b in by_boss else [0] * n for b in range(len(BOSSES))]
    t.small_on = [list(by_boss[b]["small"]) if b in by_boss else [0] * n for b in range(len(BOSSES))]
    t.revealed = [[index[name] for name in by_boss[b]["revealed"]] if b in by_boss else []
                  for b in range(len(BOSSES))]
    rewards = [by_boss[city]["reward"] for city in cities]
    t.rewards_up = any(r != UNKNOWN for r in rewards)
    t.rewards = [-1 if r == UNKNOWN else index[r] for r in rewards]

    players = view["players"]
    t.hands = [[index[name] for name in view["hand"]] if s == seat else [] for s in range(n)]
    t.big = [p["big"] for p in players]
    t.small = [p["small"] for p in players]
    t.dead = [p["dead"] for p in players]
    t.prison = [list(p["prison"]) for p in players]
    t.hospital = [p["hospital"] for p in players]
    t.banished = [p["banished"] for p in players]
    t.points = [p["points"] for p in players]
    t.last_round_points = [p["last_round_points"] for p in players]

    t.round, t.overtime, t.dealer, t.active = view["round"], view["overtime"], view["dealer"], view["active"]
    t.phase = PHASES.index(view["phase"])
    t.to_act = view["to_act"] if t.phase != OVER else TERMINAL
    t.last_turn, t.last_turns, t.turn_revealed = view["last_turn"], list(view["last_turns"]), view["turn_revealed"]
    t.placing = row[view["placing"]] if view["placing"] >= 0 else -1
    t.added_big, t.added_small = view["added_big"], view["added_small"]
    t._player_views, t._boss_views = [None] * n, [None] * len(BOSSES)

    # The unknown cards of each city, and the places they fill, in the same order: by city, its
    # reward (target -1 - its slot), then its slots in the other hands (target: the seat); then
    # the police deck (target n).
    known = set(t.hands[seat]).union(*t.revealed, t.rewards)
    unknown: list[int] = []
    targets: list[int] = []
    hidden = sorted(in_game - known)
    for city in cities:
        cards = [c for c in hidden if CITY_OF[c] == city]
        places = [-1 - t.reward_slot[city]] if t.rewards[t.reward_slot[city]] < 0 else []
        for s in range(n):
            if s != seat:
                places += [s] * players[s]["hand"].count(CITIES[city])
        if len(cards) != len(places):
            raise ValueError(f"the view does not add up: {CITIES[city]} has {len(cards)} unknown cards "
                             f"for {len(places)} hidden places")
        unknown += cards
        targets += places
    unknown += hidden_police
    targets += [n] * len(hidden_police)
    template, key = t, _DRAW_KEY

    def draw(rng: random.Random) -> BossState:
        state = template.clone()
        state.rng = rng.getrandbits(64)  # the seed of its future chance: the next rounds' deals
        cards = sorted(unknown, key=lambda c, r=rng.random: key[c] + r())
        hands, rewards, deck = state.hands, state.rewards, state.deck
        for card, target in zip(cards, targets, strict=True):
            if target < 0:
                rewards[~target] = card
            elif target < n:
                hands[target].append(card)
            else:
                deck.append(card)
        return state

    return draw


# -- readable logs -------------------------------------------------------------------------
def describe_event(event: dict, name: Callable[[int], str]) -> str | None:
    """One line of English for a game log; ``name(seat)`` labels a seat. None: not worth a line."""
    kind, who = event["type"], name(event["seat"]) if "seat" in event else ""
    match kind:
        case "round":
            extra = " (overtime)" if event.get("overtime") else ""
            return (f"== round {event['round']}{extra}: {who} deals; Chicago is boss card "
                    f"{event['position'] + 1}")
        case "deal":
            return f"   {who} holds {', '.join(event['cards'])}"
        case "turn":
            return f"-- {who}'s {'last ' if event.get('last') else ''}turn"
        case "place":
            small = f" and {event['small']} small" if event.get("small") else ""
            return f"   {who} adds {event['big']} big{small} cube(s) to {title(event['boss'])}"
        case "reveal":
            return f"   {who} reveals {title(event['card'])}"
        case "police":
            return f"** police card: {event['card']}"
        case "last_turns":
            return "** last turns, most cubes in reserve first: " + ", ".join(map(name, event["seats"]))
        case "resolve":
            card = f" (reward {title(event['card'])})" if "card" in event else ""
            if "seat" not in event:
                return f"   {title(event['boss'])}: nobody{card}"
            return f"   {title(event['boss'])}: {who}{card} {EFFECT_TEXT[event['effect']].format(**event)}"
        case "round_end":
            return f"   end of round {event['round']}: points " + ", ".join(map(str, event["scores"]))
        case "overtime":
            return "** tied at the top: one overtime round for " + ", ".join(map(name, event["seats"]))
        case "game_over":
            return "** game over"
    return None


def title(name: str) -> str:
    return name.replace("_", " ").title()


EFFECT_TEXT = {
    "points": "scores {points}",
    "dies": "loses a big cube for good",
    "prison": "sends a big cube to prison for 2 rounds",
    "hospital": "sends a big cube to hospital for 1 round",
    "banished": "is banished from Cincinnati",
    "no_cube": "has no big cube left to lose",
}


GAME = GameSpec(
    name="boss",
    title="The Boss",
    min_players=2,
    max_players=4,
    settings=BossSettings,
    state=BossState,
    version="1.0.0",
    cards=CARDS,
    score_unit="points",
    describe_event=describe_event,
    # A failed seat places no cubes: it reveals its first card (reveals come first in
    # the list), passes the optional placement, and closes a placement as soon as it may.
    fallback_preference=(PASS, DONE, BIG),
    sampler=sampler,
)
