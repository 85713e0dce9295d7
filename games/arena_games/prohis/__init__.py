"""Prohis: smuggling and bluffing, 3 to 6 players.

The rules are those of ``docs/games/prohis.md``; :mod:`.state` follows them in their
order, each kind of decision by its pair ``_legal_<phase>`` and ``_apply_<phase>``.
Names follow the rulebook: a *convoy* is run past the other players, who may
*claim* with a Prohi card; the highest claim makes the *Inspector*, who may be
*bribed*, may *waive*, or *inspects* by turning convoy cards face up.

Decisions are fine-grained; each lists every legal action:

========  =====================  ==================================================
phase     who decides            actions
========  =====================  ==================================================
turn      the active player      ``take:<i>`` (market slot i), ``pile``,
                                 ``convoy:<card>`` (first convoy card), ``pass``
draw      the active player      second pick: ``take:<i>``, ``pile``, or ``done``
convoy    the Smuggler           ``convoy:<card>`` (next card), ``done`` (2 to 4 cards)
claim     each other player      ``claim:<rank>`` or ``decline``
bribe     the Smuggler           ``bribe:<card>`` (one card at a time), then ``done``
                                 to offer; or ``silent``
respond   the Inspector          ``accept`` or ``reject``
waive     the Inspector          ``waive`` or ``inspect`` (only if no bribe was offered)
flip      the Inspector          ``flip:<position>``
========  =====================  ==================================================

``<card>`` is one of ``legal``, ``illegal``, ``lieutenant``, ``captain``, ``major``;
``<rank>`` one of the last three.

Where the rulebook is silent, this engine decides (the page lists these too):

* Flips are not optional: the Inspector turns cards until one stops the
  inspection or the rank's allowance (capped by the convoy size) is used up.
  Stopping early could never help the Inspector.
* A second draw pick with nothing left to take ends the turn without a decision.

The package: ``components`` (the cards, the settings, the phases and actions), ``state`` (the
rules in play and the view of a seat), ``sampling`` (states drawn from a seat's view, for search),
``describe`` (the readable log, actions in words) and ``table`` (the drawn table); this module is
the game's header, :data:`GAME`.
"""

from __future__ import annotations

from ..core import DONE, GameSpec
from .components import (
    BRIBE,
    CARDS,
    CLAIM,
    CONVOY,
    DECLINE,
    DRAW,
    FACE,
    ILLEGAL,
    LEGAL,
    LIEUTENANT,
    PASS,
    REJECT,
    REMOVED_FOR_SMALL_GAMES,
    RESPOND,
    SILENT,
    TURN,
    WAIVE,
    WAIVE_ACT,
    WAREHOUSE_VALUE,
    ProhisSettings,
)
from .describe import describe_action, describe_event
from .sampling import sampler
from .state import ProhisState
from .table import table

GAME = GameSpec(
    name="prohis",
    title="Prohis",
    min_players=3,
    max_players=6,
    settings=ProhisSettings,
    state=ProhisState,
    version="1.2.0",
    cards=CARDS,
    score_unit="$",
    actions={"take": ("position",), "pile": (), "done": (), "pass": (), "convoy": ("card",), "claim": ("card",),
             "decline": (), "bribe": ("card",), "silent": (), "accept": (), "reject": (), "waive": (),
             "inspect": (), "flip": ("position",)},
    view_first=("hand", "warehouse", "market", "convoy", "revealed", "bribe", "claims", "active", "inspector",
                "pile_size"),
    seat_fields=("seat", "to_act", "active", "inspector"),
    describe_event=describe_event,
    describe_action=describe_action,
    table=table,
    # A failed seat leaves the game at its next turn and otherwise stays out of the way.
    fallback_preference=(PASS, DECLINE, SILENT, DONE, REJECT, WAIVE_ACT),
    sampler=sampler,
)

__all__ = [
    "BRIBE", "CARDS", "CLAIM", "CONVOY", "DRAW", "FACE", "GAME", "ILLEGAL", "LEGAL", "LIEUTENANT", "PASS",
    "REMOVED_FOR_SMALL_GAMES", "RESPOND", "TURN", "WAIVE", "WAREHOUSE_VALUE", "ProhisSettings", "ProhisState",
    "describe_event",
]
