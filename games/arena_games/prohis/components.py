"""The components of Prohis: its cards, its [house] settings, and the phases and actions its
decisions are made of (``docs/games/prohis.md``)."""

from __future__ import annotations

import dataclasses
from typing import Literal

from ..cards import CardSet
from ..core import BadSettings, Settings, action_table

# -- cards -------------------------------------------------------------------------------
LEGAL, ILLEGAL, LIEUTENANT, CAPTAIN, MAJOR = range(5)
CARDS = CardSet(
    [("legal", 58), ("illegal", 30), ("lieutenant", 8), ("captain", 6), ("major", 6)]
)
FACE = CARDS.face_of
NAMES = CARDS.names
TITLES = ("Legal Good", "Illegal Good", "Lieutenant", "Captain", "Major")  # the rulebook's words, by face

# With 3 or 4 players these are removed at random before the game: (face, count).
REMOVED_FOR_SMALL_GAMES = ((LEGAL, 18), (ILLEGAL, 10), (LIEUTENANT, 2))
STARTING_DEAL = 4
MARKET_SIZE = 4
MAX_HAND_TO_DRAW = 7  # a player holding 8 or more cards may not draw
CONVOY_MIN, CONVOY_MAX = 2, 4
FLIPS = {LIEUTENANT: 1, CAPTAIN: 2, MAJOR: 3}

# Scoring, in dollars: (in the warehouse, left in hand).
WAREHOUSE_VALUE = (1000, 4000, 3000, 4000, 5000)
HAND_VALUE = (0, -4000, 1000, 2000, 3000)


@dataclasses.dataclass(frozen=True)
class ProhisSettings(Settings):
    """The [house] rules of Prohis, with the defaults of its page."""

    pass_anytime: bool = True
    """A player may pass at any time. Off: only once the end is triggered, or when forced."""

    max_bribe_offers: int = 3
    """At most this many bribe offers per inspection."""

    reclaim_on_waive: bool = False
    """An Inspector who waives takes the Prohi back into hand (the rulebook's variant)
    instead of banking it face down in their warehouse."""

    seizure_takes_prohi: bool = True
    """After the published French rules: an Inspector who seizes a convoy banks their own
    Prohi card with it. Off: the Prohi goes back to the Inspector's hand."""

    tie_break: Literal["none", "most_illegal"] = "none"
    """Equal money shares the place (``none``), or ``most_illegal``: more Illegal Goods
    in the warehouse ranks higher, and only a further tie shares the place."""

    def __post_init__(self) -> None:
        if self.max_bribe_offers < 1:
            raise BadSettings(f"setting max_bribe_offers: must be at least 1, got {self.max_bribe_offers}")


# -- phases and actions ------------------------------------------------------------------
TURN, DRAW, CONVOY, CLAIM, BRIBE, RESPOND, WAIVE, FLIP, OVER = range(9)
PHASES = ("turn", "draw", "convoy", "claim", "bribe", "respond", "waive", "flip", "over")

TAKE = tuple(f"take:{i}" for i in range(MARKET_SIZE))
PILE = "pile"
PASS = "pass"
CONVOY_CARD = tuple(f"convoy:{n}" for n in NAMES)
CLAIM_CARD = tuple(f"claim:{n}" for n in NAMES)  # legal for Prohi cards only
DECLINE = "decline"
BRIBE_CARD = tuple(f"bribe:{n}" for n in NAMES)
SILENT = "silent"
ACCEPT, REJECT = "accept", "reject"
WAIVE_ACT, INSPECT = "waive", "inspect"
FLIP_AT = tuple(f"flip:{i}" for i in range(CONVOY_MAX))
PARSED = action_table(TAKE, CONVOY_CARD, CLAIM_CARD, BRIBE_CARD, FLIP_AT)
