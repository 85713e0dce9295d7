"""Bandits: outlaws steal each other's hands and raid hideouts, 2 to 6 players.

The rules are those of ``docs/games/bandits.md``; :mod:`.state` follows them in their
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

The package: ``components`` (the cards, the settings, the phases and actions), ``state`` (the
rules in play and the view of a seat), ``sampling`` (states drawn from a seat's view, for search),
``describe`` (the readable log, and actions in words) and ``table`` (the table as it is drawn); this
module is the game's header, :data:`GAME`.
"""

from __future__ import annotations

from ..core import DONE, GameSpec
from .components import (
    ATTACK,
    BACKFIRE_ACT,
    BACKFIRED,
    BOOBY_TRAP,
    CARDS,
    DEFEND,
    DRAW,
    FACE_OF,
    GOLD,
    GUNS,
    KIND,
    NOT_LOOT,
    STARS,
    STASH,
    STASH_MIN,
    TRACKER,
    TURN,
    VALUE,
    BanditsSettings,
)
from .describe import describe_action, describe_event
from .sampling import sampler
from .state import BanditsState
from .table import table

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
    actions={"draw": (), "attack": ("target",), "raid": ("target",), "stash": ("card",), "gun": ("card",),
             "star": ("card",), "backfire": (), "done": ()},
    view_first=("hand", "hideout", "stash", "attack", "defence", "counter", "boneyard", "removed", "active",
                "attacker", "defender", "round"),
    seat_fields=("seat", "to_act", "active", "attacker", "defender"),
    describe_event=describe_event,
    describe_action=describe_action,
    table=table,
    # A failed seat draws at its turn, closes any choice as soon as it may, and puts up
    # no defence; otherwise the first legal action (the weakest card) completes a choice.
    fallback_preference=(DRAW, DONE),
    sampler=sampler,
)

__all__ = [
    "ATTACK", "BACKFIRED", "BACKFIRE_ACT", "BOOBY_TRAP", "CARDS", "DEFEND", "DRAW", "FACE_OF", "GAME", "GOLD", "GUNS",
    "KIND", "NOT_LOOT", "STARS", "STASH", "STASH_MIN", "TRACKER", "TURN", "VALUE", "BanditsSettings", "BanditsState",
    "describe_action", "describe_event", "table",
]
