"""Sobek: merchants collecting sets of goods at a Nile market, without becoming the most corrupt.

The rules are those of ``docs/games/sobek.md``; :mod:`.state` follows them in their order
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

The package: ``components`` (the cards, tokens, track and settings, the phases and actions),
``state`` (the rules in play and the view of a seat), ``sampling`` (states drawn from a seat's
view, for search), ``describe`` (the readable log, actions in words) and ``table`` (the table as
it is drawn, from views); this module is the game's header,
:data:`GAME`.
"""

from __future__ import annotations

from ..core import DONE, GameSpec
from .components import (
    AMULETS,
    BACK_OF,
    BACKS,
    CARDS,
    CURSE_WEIGHT,
    DEFAULT_VALUED,
    DISCARD,
    FAMILIES,
    FAMILY_OF,
    GREEN,
    ORANGE,
    PENALTY_STEP,
    PROSPERITY_BONUS,
    ROLE_OF,
    ROUNDS,
    SCARABS_OF,
    SET_MIN,
    SYMBOLS,
    TAKE,
    TOKEN_COPIES,
    TOKENS,
    TURN,
    SobekSettings,
)
from .describe import describe_action, describe_event
from .sampling import sampler
from .state import PlayedSet, SobekState
from .table import table

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
    actions={"start": ("seat",), "take": ("position",), "play": ("card",), "set": ("family",),
             "extend": ("set_index",), "card": ("card",), "done": (), "token": ("token",), "target": ("seat",),
             "apply": (), "discard": (), "prosperity": ("set_index",), "family": ("family",), "steal": ("card",),
             "pick": ("card",), "bury": ("card",)},
    view_first=("hand", "corruption", "market", "selection", "shown", "tokens", "token", "discard", "scores",
                "active", "deck_size"),
    seat_fields=("seat", "to_act", "active", "target", "start_player"),
    describe_event=describe_event,
    describe_action=describe_action,
    table=table,
    # A failed seat takes the first market card (no corruption) and never starts a set or plays a
    # character; it closes what it had started as soon as it may, discards a token it had chosen,
    # and lays no horizontal set.
    fallback_preference=(DONE, DISCARD, TAKE[0]),
    sampler=sampler,
)

__all__ = [
    "AMULETS", "BACKS", "BACK_OF", "CARDS", "CURSE_WEIGHT", "DEFAULT_VALUED", "FAMILIES", "FAMILY_OF", "GAME",
    "GREEN", "ORANGE", "PENALTY_STEP", "PROSPERITY_BONUS", "ROLE_OF", "ROUNDS", "SCARABS_OF", "SET_MIN", "SYMBOLS",
    "TOKENS", "TOKEN_COPIES", "TURN", "PlayedSet", "SobekSettings", "SobekState", "describe_action",
    "describe_event", "table",
]
