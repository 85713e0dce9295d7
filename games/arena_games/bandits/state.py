"""Bandits: outlaws steal each other's hands and raid hideouts, 2 to 6 players.

The rules are those of ``docs/games/bandits.md``; the methods follow them in their
order, each kind of decision by its pair ``_legal_<phase>`` and ``_apply_<phase>``.
Names follow the rulebook: loot (*Gold Bars* and *Money Bags*) is *stashed*
face down under a player's *hideout*; *Outlaws* bring guns to an *attack* on a hand,
or with a *Tracker* to a *raid* on a hideout; *Lawmen* bring stars to the defence;
*Two-Faced* cards serve either side; a *Backfire* turns a fight on the attacker; a
*Booby Trap* under a hideout spoils a raid. Cards played in a fight go to the
*Boneyard*. A round ends when the draw pile runs out; loot under hideouts scores.

Decisions are fine-grained; each lists every legal action:

========  ========================  ===============================================
phase     who decides               actions
========  ========================  ===============================================
turn      the active player         ``draw``, ``attack:<seat>`` (a hand),
                                    ``raid:<seat>`` (a hideout, playing a Tracker),
                                    ``stash:<card>`` (first card of a stash)
attack    the attacker              ``gun:<card>`` (next Outlaw or Two-Faced card),
                                    ``done`` (from the first gun card on)
defend    the defender              ``star:<card>`` (next Lawman or Two-Faced card),
                                    ``backfire`` (before any star), ``done``
backfire  the attacker, after a     ``star:<card>``, ``done``
          Backfire
stash     the active player         ``stash:<card>`` (next loot card of the same kind,
                                    or the Booby Trap), ``done`` (from 3 loot cards)
========  ========================  ===============================================

Refilling hands is not a decision: it is forced and shows nothing hidden to anyone.

Where the rulebook is silent, this engine decides (the page lists these too):

* A raid may name any opponent's hideout, even an empty one (a Backfire can still
  make it costly for the raider), and a defender may go on playing stars once the
  guns are matched (it thins a hand that refills to 6 afterwards).
* A Backfire is played instead of stars, so only before the first star card.
* A stash may start with the Booby Trap; its first loot card fixes its kind.
* After a Backfire in a raid, the attacker's hideout is the one at stake, and a
  Booby Trap in it goes off as in any raid.
* Refills after a fight go attacker first, then defender, whatever a Backfire did.
  When the pile runs out during a refill the round ends at once; in the new round the
  players under 6 refill clockwise from the player whose turn just ended (so an
  interrupted refill goes on in the same order).

The deck's cards and the smallest new pile that starts a round are settings, with the
page's [house] values as defaults.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import math
import random
import re
from collections.abc import Callable
from itertools import repeat, starmap
from typing import Any, Literal, NamedTuple

from ..cards import CardSet, deal, shuffled
from ..core import DONE, TERMINAL, Action, BadSettings, GameSpec, PhasedState, Settings, View, action_table
from ..views import UNKNOWN, EventLog, MutedLog, restore_log, seat_view

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


class BanditsState(PhasedState):
    """A game of Bandits. Seats are numbered clockwise from 0."""

    PHASES = PHASES
    PARSED = PARSED

    settings: BanditsSettings

    def __init__(self, game: GameSpec, num_players: int, seed: int, settings: BanditsSettings) -> None:
        super().__init__(game, num_players, seed, settings)
        n, rng = num_players, self.rng
        self._rng_shared = False  # with a clone: see clone()
        self.winning_total = settings.winning_total or WINNING_TOTALS[n]

        # Setup: shuffle the deck, deal 6 each; the rest is the draw pile.
        self.cards, self.face, self.card_name = make_deck(settings.deck_counts())
        deck = list(range(len(self.cards)))
        self.removed: list[int] = []  # out of the game: the Backfires, if that rule is off
        if not settings.backfire:
            self.removed = self.cards.ids("backfire")
            deck = [c for c in deck if self.face[c] != BACKFIRE]
        if len(deck) <= HAND_SIZE * n:
            raise BadSettings(f"the deck settings give {len(deck)} cards in play; {n} players need more than "
                              f"{HAND_SIZE * n}: {HAND_SIZE} each and a draw pile")
        self.pile: list[int] = shuffled(rng, deck)  # the top card is the last one
        self.hands: list[list[int]] = [deal(self.pile, HAND_SIZE) for _ in range(n)]
        self.hideouts: list[list[int]] = [[] for _ in range(n)]
        self.boneyard: list[int] = []
        self.totals = [0] * n
        self.round = 1
        first = rng.randrange(n) if settings.first_player == "random" else 0

        self.phase = TURN
        self.active = first  # whose turn it is; the attacker during a fight
        self.to_act = first  # who decides: the defender during a defence
        # The fight in progress: the attacker's cards (a Tracker first, in a raid), the
        # defender's stars or Backfire, and the attacker's stars after a Backfire.
        self.defender = -1
        self.raid = False
        self.attack: list[int] = []
        self.defence: list[int] = []
        self.counter: list[int] = []
        # The stash in progress, and its kind once a loot card fixes it.
        self.stash: list[int] = []
        self.stash_kind = NOT_LOOT
        self.log.add({"type": "new_round", "round": 1, "pile_size": len(self.pile)})
        self.log.add({"type": "turn", "seat": first})

    def clone(self) -> BanditsState:
        """An independent copy, field by field: the card lists are copied; the spec, the
        settings, the deck tables, ``removed`` (never changed after the deal), the cached legal
        actions (replaced, never changed, by :meth:`apply`) and the logged events (read-only)
        are shared. So is the random source, until either state needs it (:meth:`_chance`):
        most simulated games end before a raid or a new round does."""
        new = object.__new__(type(self))
        fields = new.__dict__
        fields.update(self.__dict__)
        self._rng_shared = fields["_rng_shared"] = True
        fields["log"] = _copy_log(self.log)
        fields["pile"] = self.pile[:]
        fields["hands"] = [hand[:] for hand in self.hands]
        fields["hideouts"] = [hideout[:] for hideout in self.hideouts]
        fields["boneyard"] = self.boneyard[:]
        fields["totals"] = self.totals[:]
        fields["attack"] = self.attack[:]
        fields["defence"] = self.defence[:]
        fields["counter"] = self.counter[:]
        fields["stash"] = self.stash[:]
        return new

    def _chance(self) -> random.Random:
        """The game's random source, made this state's own first if a clone shares it."""
        if self._rng_shared:
            rng = random.Random.__new__(random.Random)
            rng.setstate(self.rng.getstate())
            self.rng, self._rng_shared = rng, False
        return self.rng

    # -- cards ---------------------------------------------------------------------------
    def _sorted_names(self, cards: list[int]) -> list[str]:
        """Face names of ``cards`` in face order, as views list them (never ids)."""
        return list(map(self.card_name.__getitem__, sorted(cards)))

    def _names(self, cards: list[int]) -> list[str]:
        """Face names of ``cards`` in their own order (cards played in a fight)."""
        return list(map(self.card_name.__getitem__, cards))

    def _guns(self, cards: list[int]) -> int:
        face_of = self.face
        return sum(GUNS[face_of[c]] for c in cards)

    def _stars(self, cards: list[int]) -> int:
        face_of = self.face
        return sum(STARS[face_of[c]] for c in cards)

    # -- decisions, phase by phase, in the order of the rules -------------------------------
    # A turn: 1. draw, 2. attack a hand, 3. stash, or 4. raid a hideout ---------------------
    def _legal_turn(self) -> list[Action]:
        active = self.active
        counts = self.cards.counts(self.hands[active])
        acts = [DRAW]  # the pile is never empty at a turn: its last card ends the round
        if any(counts[f] for f in GUN_FACES):
            acts += ATTACKS[self.num_players][active]
            if counts[TRACKER]:
                acts += RAIDS[self.num_players][active]
        kinds = self._stashable_kinds(counts)
        acts += [STASH_CARD[f] for kind in kinds for f in LOOT_FACES[kind] if counts[f]]
        if kinds and counts[BOOBY_TRAP]:
            acts.append(STASH_CARD[BOOBY_TRAP])
        return acts

    @staticmethod
    def _stashable_kinds(counts: list[int]) -> tuple[int, ...]:
        """The loot kinds (GOLD, BAGS) of which ``counts`` holds enough for a stash."""
        return tuple(kind for kind in (GOLD, BAGS)
                     if sum(counts[f] for f in LOOT_FACES[kind]) >= STASH_MIN)

    def _apply_turn(self, seat: int, verb: str, arg: int) -> None:
        if verb == DRAW:
            self._draw(seat)
        elif verb == "stash":
            self.phase = STASH
            self._stash_card(seat, arg)
        else:
            self._declare(seat, arg, raid=verb == "raid")

    # 1. Draw ------------------------------------------------------------------------------
    def _draw(self, seat: int) -> None:
        card = self.pile.pop()
        self.hands[seat].append(card)
        self.log.add({"type": "draw", "seat": seat}, {"card": self.card_name[card]}, to=(seat,))
        self._end_turn(())

    # 2 and 4. Attack a hand, raid a hideout ---------------------------------------------------
    def _declare(self, seat: int, target: int, raid: bool) -> None:
        self.defender, self.raid = target, raid
        if raid:
            self.attack.append(self.cards.take_face(self.hands[seat], TRACKER))
        self.log.add({"type": "raid" if raid else "attack", "seat": seat, "target": target})
        self.phase = ATTACK

    def _legal_attack(self) -> list[Action]:
        counts = self.cards.counts(self.hands[self.active])
        acts = [GUN_CARD[f] for f in GUN_FACES if counts[f]]
        if self._guns(self.attack):  # at least one gun card is down
            acts.append(DONE)
        return acts

    def _apply_attack(self, seat: int, verb: str, face: int) -> None:
        if verb == "gun":
            self._play(self.attack, seat, face, "gun")
        else:
            self.phase, self.to_act = DEFEND, self.defender
            self.log.add({"type": "guns", "seat": seat, "guns": self._guns(self.attack)})

    def _play(self, pile: list[int], seat: int, face: int, kind: str) -> None:
        """One gun or star card from ``seat``'s hand, face up into the fight."""
        pile.append(self.cards.take_face(self.hands[seat], face))
        self.log.add({"type": kind, "seat": seat, "card": NAMES[face]})

    # Fights ---------------------------------------------------------------------------------
    def _legal_defend(self) -> list[Action]:
        counts = self.cards.counts(self.hands[self.defender])
        acts = [STAR_CARD[f] for f in STAR_FACES if counts[f]]
        if counts[BACKFIRE] and not self.defence:
            acts.append(BACKFIRE_ACT)  # instead of stars, and never against a Backfire
        acts.append(DONE)
        return acts

    def _apply_defend(self, seat: int, verb: str, face: int) -> None:
        if verb == "star":
            self._play(self.defence, seat, face, "star")
        elif verb == BACKFIRE_ACT:
            self.defence.append(self.cards.take_face(self.hands[seat], BACKFIRE))
            self.log.add({"type": "backfire", "seat": seat})
            self.phase, self.to_act = BACKFIRED, self.active
        else:
            self._settle()

    def _legal_backfire(self) -> list[Action]:
        """After a Backfire the attacker defends against their own guns."""
        counts = self.cards.counts(self.hands[self.active])
        return [STAR_CARD[f] for f in STAR_FACES if counts[f]] + [DONE]

    def _apply_backfire(self, seat: int, verb: str, face: int) -> None:
        if verb == "star":
            self._play(self.counter, seat, face, "star")
        else:
            self._settle()

    def _settle(self) -> None:
        attacker, defender = self.active, self.defender
        guns = self._guns(self.attack)
        if self.phase == BACKFIRED:  # roles turned: the attacker defended
            defending, claimant, stars = attacker, defender, self._stars(self.counter)
        else:
            defending, claimant, stars = defender, attacker, self._stars(self.defence)
        if stars >= guns:
            self.log.add({"type": "defended", "seat": defending, "guns": guns, "stars": stars})
        else:
            self.log.add({"type": "beaten", "seat": defending, "guns": guns, "stars": stars})
            if self.raid:
                self._rob_hideout(claimant, defending)
            else:
                self._take_hand(claimant, defending)
        # Every card played in the fight goes to the Boneyard.
        self.boneyard += self.attack + self.defence + self.counter
        self.attack.clear()
        self.defence.clear()
        self.counter.clear()
        self.defender, self.raid = -1, False
        self._end_turn((attacker, defender))

    def _take_hand(self, winner: int, loser: int) -> None:
        """A hand attack lost: the loser gives every card left in hand to the winner."""
        taken = list(self.hands[loser])
        self.hands[loser].clear()
        self.hands[winner] += taken
        self._log_transfer("take_hand", winner, loser, taken)

    def _rob_hideout(self, winner: int, loser: int) -> None:
        """A raid lost: 6 random cards of the loser's hideout go into the winner's, unless
        the hideout is booby-trapped."""
        hideout = self.hideouts[loser]
        if self.settings.booby_trap_goes_off:
            for i, c in enumerate(hideout):
                if self.face[c] == BOOBY_TRAP:
                    self.boneyard.append(hideout.pop(i))
                    self.log.add({"type": "trap", "seat": winner, "target": loser})
                    return
        self._chance().shuffle(hideout)  # a hideout is an unordered heap: take from a random order
        taken = deal(hideout, RAID_TAKE)
        self.hideouts[winner] += taken
        self._log_transfer("take_hideout", winner, loser, taken)

    def _log_transfer(self, kind: str, winner: int, loser: int, taken: list[int]) -> None:
        # Only the two players involved see the cards; everyone sees the count.
        secret = {"cards": self._sorted_names(taken)} if taken else None
        self.log.add({"type": kind, "seat": winner, "target": loser, "count": len(taken)},
                     secret, to=(winner, loser))

    # 3. Stash -------------------------------------------------------------------------------
    def _legal_stash(self) -> list[Action]:
        counts = self.cards.counts(self.hands[self.active])
        kinds = (self.stash_kind,) if self.stash_kind != NOT_LOOT else self._stashable_kinds(counts)
        acts = [STASH_CARD[f] for kind in kinds for f in LOOT_FACES[kind] if counts[f]]
        if counts[BOOBY_TRAP]:
            acts.append(STASH_CARD[BOOBY_TRAP])
        if self.stash_kind != NOT_LOOT and len(self.stash) - self._trap_in_stash() >= STASH_MIN:
            acts.append(DONE)
        return acts

    def _apply_stash(self, seat: int, verb: str, face: int) -> None:
        if verb == "stash":
            self._stash_card(seat, face)
        else:
            self._close_stash(seat)

    def _stash_card(self, seat: int, face: int) -> None:
        self.stash.append(self.cards.take_face(self.hands[seat], face))
        if KIND[face] != NOT_LOOT:
            self.stash_kind = KIND[face]

    def _close_stash(self, seat: int) -> None:
        self.log.add({"type": "stash", "seat": seat, "count": len(self.stash)},
                     {"cards": self._sorted_names(self.stash)}, to=(seat,))
        self.hideouts[seat] += self.stash
        self.stash.clear()
        self.stash_kind = NOT_LOOT
        self._end_turn((seat,))

    def _trap_in_stash(self) -> int:
        return sum(1 for c in self.stash if self.face[c] == BOOBY_TRAP)

    # Hands, rounds, the end ---------------------------------------------------------------
    def _end_turn(self, refills: tuple[int, ...]) -> None:
        """Refills ``refills`` in order, ends the round whenever the pile runs out, and
        passes the turn on."""
        order = refills
        while True:
            for seat in order:
                if not self.pile:
                    break
                self._refill(seat)
            if self.pile:
                break
            # The last card of the pile has been taken: the round ends at once.
            if not self._end_round():
                self._game_over()
                return
            n = self.num_players
            order = tuple((self.active + k) % n for k in range(n))
        self.active = self.to_act = (self.active + 1) % self.num_players
        self.phase = TURN
        self.log.add({"type": "turn", "seat": self.active})

    def _refill(self, seat: int) -> None:
        hand = self.hands[seat]
        if len(hand) < HAND_SIZE:
            drawn = deal(self.pile, HAND_SIZE - len(hand))
            hand += drawn
            self.log.add({"type": "refill", "seat": seat, "count": len(drawn)},
                         {"cards": self._sorted_names(drawn)}, to=(seat,))

    def _end_round(self) -> bool:
        """Scores the round and starts the next one; False when the game ends instead."""
        round_scores = [sum(VALUE[self.face[c]] for c in hideout) for hideout in self.hideouts]
        self.totals = [t + r for t, r in zip(self.totals, round_scores, strict=True)]
        self.log.add({"type": "round_over", "round": self.round, "round_scores": round_scores,
                      "totals": list(self.totals)})
        best = max(self.totals)
        if best >= self.winning_total and self.totals.count(best) == 1:
            return False  # enough, and alone at the top: a tie plays another round
        if self.round >= self.settings.max_rounds:
            return False
        # The Boneyard and every hideout are shuffled together into the new pile.
        heap = self.boneyard + [c for hideout in self.hideouts for c in hideout]
        self.boneyard.clear()
        for hideout in self.hideouts:
            hideout.clear()
        self.pile += shuffled(self._chance(), heap)
        if len(self.pile) < self.settings.min_new_pile:
            return False
        self.round += 1
        self.log.add({"type": "new_round", "round": self.round, "pile_size": len(self.pile)})
        return True

    # -- scoring -------------------------------------------------------------------------
    def scores(self) -> list[int]:
        """Each seat's total over the rounds played (loot in hideouts counts at a round's end)."""
        return list(self.totals)

    # -- information -----------------------------------------------------------------------
    def view(self, seat: int) -> View:
        phase, active, hands, hideouts = self.phase, self.active, self.hands, self.hideouts
        stash, removed = self.stash, self.removed
        v = seat_view(self, seat, PHASES[phase], self.current_player(), self.log)
        v.update({
            "active": active,
            "round": self.round,
            "hand": self._sorted_names(hands[seat]),
            "hideout": self._sorted_names(hideouts[seat]),
            "players": [{"hand_size": len(hand), "hideout_size": len(hideout), "total": total}
                        for hand, hideout, total in zip(hands, hideouts, self.totals, strict=True)],
            "pile_size": len(self.pile),
            "boneyard": self._sorted_names(self.boneyard),
            "removed": self._sorted_names(removed) if removed else [],
            # A stash goes face down: only the stasher sees its cards.
            "stash": self._sorted_names(stash) if seat == active else [UNKNOWN] * len(stash),
            "winning_total": self.winning_total,
            "max_rounds": self.settings.max_rounds,
        })
        if phase in (ATTACK, DEFEND, BACKFIRED):
            # Cards played in a fight are face up, in the order played.
            attack, defence, counter = self.attack, self.defence, self.counter
            v.update({
                "attacker": active, "defender": self.defender, "raid": self.raid,
                "attack": self._names(attack), "guns": self._guns(attack),
                "defence": self._names(defence), "stars": self._stars(defence),
                "counter": self._names(counter), "counter_stars": self._stars(counter),
            })
        else:
            v.update({"attacker": -1, "defender": -1, "raid": False, "attack": [], "guns": 0,
                      "defence": [], "stars": 0, "counter": [], "counter_stars": 0})
        return v

    def card_places(self) -> dict[str, list[int]]:
        places = {"pile": self.pile, "boneyard": self.boneyard, "removed": self.removed,
                  "attack": self.attack, "defence": self.defence, "counter": self.counter,
                  "stash": self.stash}
        for s in range(self.num_players):
            places[f"hand{s}"] = self.hands[s]
            places[f"hideout{s}"] = self.hideouts[s]
        return places


# -- readable logs -------------------------------------------------------------------------
def describe_event(event: dict, name: Callable[[int], str]) -> str | None:
    """One line of English for a game log; ``name(seat)`` labels a seat. None: not worth a line."""
    kind, who = event["type"], name(event["seat"]) if "seat" in event else ""
    target = name(event["target"]) if "target" in event else ""
    cards = event.get("cards")
    listed = f": {', '.join(cards)}" if cards else ""
    match kind:
        case "new_round":
            return f"== round {event['round']}: {event['pile_size']} cards in the pile"
        case "turn":
            return f"-- {who}'s turn"
        case "draw":
            return f"{who} draws" + (f" ({event['card']})" if "card" in event else "")
        case "attack":
            return f"{who} attacks {target}'s hand"
        case "raid":
            return f"{who} plays a Tracker and raids {target}'s hideout"
        case "gun" | "star":
            return f"   {who} plays {event['card']}"
        case "guns":
            return f"   {who} attacks with {event['guns']} gun(s)"
        case "backfire":
            return f"   {who} answers with a Backfire: the attacker must defend"
        case "defended":
            return f"   {who} holds: {event['stars']} star(s) against {event['guns']} gun(s)"
        case "beaten":
            return f"   {who} is beaten: {event['stars']} star(s) against {event['guns']} gun(s)"
        case "take_hand":
            return f"   {who} takes {target}'s hand of {event['count']} card(s){listed}"
        case "take_hideout":
            return f"   {who} carries off {event['count']} card(s) from {target}'s hideout{listed}"
        case "trap":
            return f"   the Booby Trap in {target}'s hideout goes off: {who} takes nothing"
        case "stash":
            return f"{who} stashes {event['count']} card(s){listed}"
        case "refill":
            return f"   {who} refills {event['count']} card(s){listed}"
        case "round_over":
            scores = ", ".join(map(str, event["round_scores"]))
            return f"** round {event['round']} over: hideouts score {scores}; totals " + ", ".join(
                map(str, event["totals"]))
        case "game_over":
            return "** game over"
    return None


# -- determinisation -------------------------------------------------------------------------
# A state drawn from what one seat has seen, for search (arena_games.determinise). The page's
# "Sampling a state" lists the facts honoured; the seat's own knowledge is all that goes in.

def _copy_log(log: EventLog) -> EventLog:
    """A log of its own for a clone: the entries are copied, the events they hold shared."""
    if isinstance(log, MutedLog):
        return log  # records nothing: shared
    copy = EventLog.__new__(EventLog)
    copy.entries = log.entries[:]
    copy.cursor = log.cursor[:]
    return copy


class _DrawnLog(EventLog):
    """A drawn state's log: the seat's history, shared by every draw of a decision until the
    state records an event of its own (a search mutes its states at once, so they never do)."""

    __slots__ = ("owned",)

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
        return sum(self.hideout[seat]) + sum(group[0] for group in self.groups[seat])

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


class _Sampler:
    """Prepares, once per decision, the fixed part of every draw: a template of the known cards
    and the pools of unknown ones, by kind (Gold Bars, Money Bags, Booby Traps, the rest)."""

    TRIES = 64  # draws that fail a constraint are drawn again ...
    RELAX = 32  # ... and from this try on, a stash's single kind is not required

    def __init__(self, view: View, history: list[dict[str, Any]], settings: BanditsSettings) -> None:
        seat, n = view["seat"], view["num_players"]
        deck = make_deck(settings.deck_counts())
        free = [deck.cards.ids(name) for name in NAMES]  # ids not placed yet, by face

        def take(name: str) -> int:
            ids = free[FACE_OF[name]]
            if not ids:
                raise ValueError(f"the view shows more {name} cards than the deck holds")
            return ids.pop()

        phase, active, players = PHASES.index(view["phase"]), view["active"], view["players"]
        hands: list[list[int]] = [[] for _ in range(n)]
        hideouts: list[list[int]] = [[] for _ in range(n)]
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
        self.gunner = active if phase == ATTACK and active != seat and not view["guns"] else -1

        # The facts of the history, where they fit the view and the deck (else only the view's).
        known = knowledge(view, history, settings)
        others = [s for s in range(n) if s != seat]
        pins = {s: [0] * NUM_FACES for s in others}
        pinned_hideouts = {s: [0] * NUM_FACES for s in others}
        groups: list[tuple[int, int, bool, bool]] = []  # (seat, cards, one stash, may hold a trap)
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
        # Stashes of one kind, biggest first (the most constrained first); then the mixed groups,
        # without Booby Traps and with; and all as mixed groups, for the draws that relax.
        self.groups = ([(s, count, trap) for s, count, single, trap in sorted(groups, key=lambda g: -g[1])
                        if single and count >= STASH_MIN],
                       [(s, count) for s, count, single, trap in groups
                        if not trap and not (single and count >= STASH_MIN)],
                       [(s, count) for s, count, single, trap in groups
                        if trap and not (single and count >= STASH_MIN)])
        self.relaxed = ([], [(s, count) for s, count, _, trap in groups if not trap],
                        [(s, count) for s, count, _, trap in groups if trap])
        self.hand_slots = {s: players[s]["hand_size"] - len(hands[s]) for s in others}
        self.hands, self.hideouts = hands, hideouts

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

        log = restore_log(seat, view, history, n)
        self.entries, self.cursor = log.entries, log.cursor
        self.totals = [p["total"] for p in players]
        self.base = {
            "game": GAME, "num_players": n, "seed": 0, "settings": settings, "_legal": None,
            "winning_total": view["winning_total"], "cards": deck.cards, "face": deck.face,
            "card_name": deck.name, "removed": removed, "round": view["round"], "phase": phase,
            "active": active, "to_act": view["to_act"] if phase != OVER else TERMINAL,
            "defender": view["defender"], "raid": view["raid"], "stash_kind": stash_kind,
        }

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


def sampler(view: View, history: list[dict[str, Any]],
            settings: BanditsSettings) -> Callable[[random.Random], BanditsState]:
    """Prepares the draws of states that ``view``'s seat may be in (see arena_games.determinise)."""
    return _Sampler(view, history, settings).draw


GAME = GameSpec(
    name="bandits",
    title="Bandits",
    min_players=2,
    max_players=6,
    settings=BanditsSettings,
    state=BanditsState,
    version="1.1.0",  # 1.1: the deck and min_new_pile are settings (the defaults play as 1.0 did)
    cards=CARDS,
    score_unit="loot",
    describe_event=describe_event,
    # A failed seat draws at its turn, closes any choice as soon as it may, and puts up
    # no defence; otherwise the first legal action (the weakest card) completes a choice.
    fallback_preference=(DRAW, DONE),
    sampler=sampler,
)
