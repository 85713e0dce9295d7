"""Prohis's drawn table: one seat's view, or every seat's (a finished game's full replay), laid out as a
:class:`~arena_games.scene.Scene` in the rulebook's words (``docs/games/prohis.md``).

The middle of the table holds the market, the draw pile, the convoy (face down but for the cards
turned up in an inspection; its Smuggler sees them all) and the bribe on offer (its cards for
whoever sees them, else as many backs). Each seat has its hand (faces for a seat whose view is
given, backs otherwise), its warehouse as a face-down count, the Prohi card it claims with, and
at the end its score as the rulebook counts it. Only what the views hold is drawn.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..core import View
from ..scene import Card, Face, Scene, SeatArea, Stack, Text, Zone
from ..views import UNKNOWN
from .components import CARDS, FLIPS, HAND_VALUE, LIEUTENANT, NAMES, TITLES, WAREHOUSE_VALUE

COLOUR = ("green", "red", "blue", "purple", "gold")  # by face: Legal, Illegal, Lieutenant, Captain, Major
FACES = {
    name: Face(name, TITLES[f], f"${WAREHOUSE_VALUE[f] // 1000}k", "Prohi" if f >= LIEUTENANT else "Goods", COLOUR[f])
    for f, name in enumerate(NAMES)
}  # the corner mark: what the card is worth in a warehouse

PHASE = {  # short: a phone's drawing has room for about 30 characters
    "turn": "A turn: draw, convoy or pass",
    "draw": "Drawing: a second pick",
    "convoy": "Running a convoy",
    "claim": "Inspection: claims",
    "bribe": "Inspection: the bribe",
    "respond": "Inspection: accept or reject",
    "waive": "Inspection: waive or inspect",
    "flip": "Inspection: turning up cards",
    "over": "Game over",
}
SMUGGLING = ("convoy", "claim", "bribe", "respond", "waive", "flip")  # phases with a Smuggler at work


def card(name: str, note: str = "") -> Card:
    """A card as a view names it; ``unknown`` is face down."""
    return Card(None if name == UNKNOWN else FACES[name], note)


def money(dollars: int) -> str:
    return f"{'−' if dollars < 0 else ''}${abs(dollars):,}"


def plural(count: int, name: str) -> str:
    title = TITLES[CARDS.index[name]]
    return f"{count} {title}{'s' if count != 1 else ''}"


def scoring(hand: list[str], warehouse: list[str]) -> tuple[Text, ...]:
    """The rulebook's scoring of one seat: a line per kind of card in its warehouse and in its hand
    ("Warehouse: 2 Illegal Goods × $4,000 = $8,000"), then the total."""
    lines, total = [], 0
    for where, cards, values in (("Warehouse", warehouse, WAREHOUSE_VALUE), ("Hand", hand, HAND_VALUE)):
        counts = Counter(cards)
        for name in NAMES:
            if counts[name]:
                value = values[CARDS.index[name]]
                total += counts[name] * value
                lines.append(Text(f"{where}: {plural(counts[name], name)} × {money(value)} = "
                                  f"{money(counts[name] * value)}"))
    lines.append(Text(f"Total: {money(total)}"))
    return tuple(lines)


def final_scores(view: View) -> list[int] | None:
    """The scores the game-over event announced to everyone, if this view holds it."""
    for event in view["events"]:
        if event["type"] == "game_over":
            return list(event["scores"])
    return None


def seen(views: Sequence[View], field: str) -> list[str]:
    """``field`` (the convoy or the bribe) as the views together know it: a card is face up where
    any of them shows it (on the full table, the Smuggler's view shows every card)."""
    known = [v[field] for v in views if v[field]]
    if not known:
        return []
    return [next((c for c in cards if c != UNKNOWN), UNKNOWN) for cards in zip(*known, strict=True)]


def table(views: Sequence[View]) -> Scene:
    """The table as seen from ``views``: one seat's, or every seat's in seat order (the full table
    of a game's replay, shown once the game is over: every card in a hand, the convoy, the bribe)."""
    if not views:
        raise ValueError("a table needs a view")
    view = views[0]  # every view agrees on what is public
    phase, n = view["phase"], view["num_players"]
    if len(views) > 1 and [v["seat"] for v in views] != list(range(n)):
        raise ValueError("a full table takes every seat's view, in seat order")
    held = {v["seat"]: v for v in views}
    over = phase == "over"
    smuggler = view["active"] if phase in SMUGGLING else -1
    inspector = view["inspector"]
    convoying = phase in ("convoy", "claim", "waive", "flip")
    bribing = phase in ("bribe", "respond")

    centre = [
        Zone("Market", tuple(card(name, f"slot {i}") for i, name in enumerate(view["market"])),
             highlight=phase in ("turn", "draw")),
        Zone("Draw pile", (Stack("face down", view["pile_size"]),), highlight=phase in ("turn", "draw")),
    ]
    convoy = seen(views, "convoy")
    if convoy:
        # Each card by its position (the Inspector turns cards up by position); a face this view
        # sees on a card still face down (the Smuggler's own convoy) says so.
        up = view["revealed"]
        centre.append(Zone("Convoy", tuple(
            card(name, f"{i}: turned up" if up[i] else f"{i}: face down" if name != UNKNOWN else f"{i}")
            for i, name in enumerate(convoy)), highlight=convoying))
    if bribing or view["bribe_card_count"]:
        offered = seen(views, "bribe") or [UNKNOWN] * view["bribe_card_count"]
        centre.append(Zone("Bribe", tuple(card(name) for name in offered), highlight=bribing))

    scores = final_scores(view) if over else None
    seats = []
    for s, public in enumerate(view["players"]):
        own = held.get(s)
        zones = [Zone("Hand", tuple(card(name) for name in own["hand"]) if own else
                      (Card(None),) * public["hand_size"],
                      highlight=s == view["to_act"] and phase in ("turn", "convoy", "claim", "bribe"))]
        claim = [c for c in view["claims"] if c["seat"] == s]
        if claim:
            zones.append(Zone("Claim", (card(claim[0]["rank"]),), highlight=s == inspector))
        warehouse: tuple[Stack | Text, ...] = (Stack("face down", public["warehouse_size"]),)
        if own and own["warehouse"] and not over:  # its owner knows what it holds (at the end: scored)
            counts: Counter[str] = Counter(own["warehouse"])
            warehouse += (Text("holds " + ", ".join(plural(counts[k], k) for k in NAMES if counts[k])),)
        zones.append(Zone("Warehouse", warehouse))
        if over and own:
            zones.append(Zone("Scoring", scoring(own["hand"], own["warehouse"]), highlight=True))
        elif scores is not None:  # announced to everyone at the end; the cards stay face down
            zones.append(Zone("Scoring", (Text(f"Total: {money(scores[s])}"),), highlight=True))
        status = ("passed" if public["passed"] else "Inspector" if s == inspector
                  else "Smuggler" if s == smuggler else "")
        seats.append(SeatArea(s, tuple(zones), status))

    facts = []
    if view["end_triggered"] and not over:
        facts.append(f"The end is triggered: {len(view['final_turns'])} last turn(s) to come after this one")
    if inspector >= 0:
        rank = view["claims"][0]["rank"]
        facts.append(f"The Inspector's {TITLES[CARDS.index[rank]]} turns up at most {FLIPS[CARDS.index[rank]]} cards")
    if phase == "draw":
        facts.append(f"First pick from the {view['first_pick']}")
    if view["offers"]:
        facts.append(f"Bribe offers so far: {view['offers']}")
    if phase == "flip":
        facts.append(f"Cards still to turn up: {view['flips_left']}")
    to_act = view["to_act"]
    return Scene("prohis", PHASE[phase], to_act if to_act >= 0 else None, tuple(centre), tuple(seats), tuple(facts))
