"""A drawn table, as data: what a game's ``table`` function lays out from views, and what
``arena/tables`` draws (SVG for the web, text for the terminal). Nothing here draws.

A game's ``table.py`` turns what may be seen (one seat's view, or every seat's views once the
game is over) into a :class:`Scene`: the middle of the table and each seat's area, as zones of
cards, face-down stacks, tokens and short texts, in the game's words. A face-down card is a
:class:`Card` whose ``face`` is None: nothing of its face is in the scene, so nothing of it can be
drawn (``tests/test_tables.py`` swaps hidden cards and compares the drawings byte for byte).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The colours a face or a token may name; arena/tables maps each to its ink. Few and named, so a
# game says what a card is ("red"), never how to draw it.
COLOURS = ("red", "orange", "yellow", "green", "teal", "blue", "purple", "pink", "brown", "grey", "black", "gold")


@dataclass(frozen=True)
class Face:
    """The face of a card, from the game's own data."""

    name: str  # as views and actions spell it ("captain", "fish_1")
    title: str  # in the docs' words ("Captain", "Fish")
    value: str = ""  # the corner mark ("3", "+2", "★"), empty for none
    family: str = ""  # its family, suit or city in words
    colour: str = "grey"  # one of COLOURS


@dataclass(frozen=True)
class Card:
    """A card on the table; ``face`` None: face down."""

    face: Face | None
    note: str = ""  # a word under it ("flipped", "new")


@dataclass(frozen=True)
class Stack:
    """Face-down cards shown as a count (a pile, a warehouse, a corruption pile)."""

    label: str
    count: int


@dataclass(frozen=True)
class Token:
    """Counters and markers: cubes, event tokens, curses, a boss's marker."""

    label: str
    count: int = 1
    colour: str = "grey"  # one of COLOURS


@dataclass(frozen=True)
class Text:
    """A short line in the game's words ("bribe offered: 2 cards")."""

    text: str


Item = Card | Stack | Token | Text


@dataclass(frozen=True)
class Zone:
    """A titled row of items (it wraps when long); ``highlight`` marks where the play is."""

    title: str
    items: tuple[Item, ...] = ()
    highlight: bool = False


@dataclass(frozen=True)
class SeatArea:
    """One seat's side of the table."""

    seat: int
    zones: tuple[Zone, ...] = ()
    status: str = ""  # a word beside its name ("passed", "banished", "inspector")


@dataclass(frozen=True)
class Scene:
    """One step's table."""

    game: str
    phase: str  # in words ("Inspection", "Round 2: bidding")
    to_act: int | None  # the seat whose decision it is; None once the game is over
    centre: tuple[Zone, ...] = ()
    seats: tuple[SeatArea, ...] = ()
    facts: tuple[str, ...] = field(default=())  # short lines above the table ("Round 2 of 8")
