"""Sobek's table as it is drawn (:mod:`arena_games.scene`): the Nile's market from the temple, the
deck and the discards, the round's event tokens; each seat's score and the symbol of its space on
the score track, its sets, hand, corruption pile and curses; at the end, each seat's last round
scored as the rulebook scores it (``docs/games/sobek.md``).

Everything comes from the views given: one seat's (its hand and pile face up, the others' as
backs and counts), or every seat's at the end (each hand and pile face up from its owner's view).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from ..core import View
from ..scene import Card, Face, Item, Scene, SeatArea, Stack, Text, Token, Zone
from .components import (
    AMULET_CARDS,
    AMULETS,
    CHARACTER_CARDS,
    CURSE_WEIGHT,
    DEFAULT_TRACK,
    DELIVERY,
    FAMILIES,
    FAMILY_CARDS,
    FAMILY_OF,
    GREEN_CARDS,
    MARKET_REACH,
    NAMES,
    NUMBER,
    PENALTY_STEP,
    PROSPERITY_BONUS,
    ROLE_OF,
    ROLES,
    ROUNDS,
    SCARABS_OF,
    SYMBOLS,
    TOKENS,
    TRACK,
    TWO_PLAYER_REMOVAL,
    parse_track,
)

# A colour per goods family, apart at a glance (ebony black, fish blue, wheat yellow, ...); Amulets
# are turquoise. A character is drawn in its family's colour.
FAMILY_COLOUR = {"ivory": "pink", "ebony": "black", "marble": "grey", "cattle": "brown", "fish": "blue",
                 "wheat": "yellow"}
AMULET_COLOUR = "teal"
TOKEN_COLOUR = {"guild": "purple", "flood": "blue", "curse": "red", "prosperity": "green",
                "embalming": "brown", "deception": "orange"}
ROLE_TITLE = {"queen": "Queen", "high_priest": "High Priest", "scribe": "Scribe", "vizier": "Vizier",
              "thief": "Thief", "courtesan": "Courtesan", "merchant": "Merchant"}
BACK_WORD = {"back_green": "green back", "back_beige": "beige back", "back_orange": "character"}
# Views do not carry the settings: the symbols are those of the default track.
TRACK_SYMBOLS = parse_track(DEFAULT_TRACK)
DECK = sum(FAMILY_CARDS) + AMULET_CARDS - GREEN_CARDS + CHARACTER_CARDS  # beige goods and characters
_INDEX = {name: i for i, name in enumerate(NAMES)}


def title(word: str) -> str:
    """``"high_priest"`` -> ``"High priest"``: a name of the views in words."""
    return word.replace("_", " ").capitalize()


@functools.cache
def face(name: str) -> Face:
    """A card's face from the game's own data: a goods card's corner is its scarabs."""
    f = _INDEX[name]
    fam, role = FAMILY_OF[f], ROLE_OF[f]
    if fam == AMULETS:
        return Face(name, "Amulet", "", "wild", AMULET_COLOUR)
    family = FAMILIES[fam]
    if role >= 0:
        return Face(name, ROLE_TITLE[ROLES[role]], "", title(family), FAMILY_COLOUR[family])
    return Face(name, title(family), str(SCARABS_OF[f]), title(family), FAMILY_COLOUR[family])


def card(name: str, note: str = "") -> Card:
    """A card as a view names it: a face, or a back (``back_orange``: a character face down)."""
    if name in BACK_WORD:
        return Card(None, f"{note} {BACK_WORD[name]}".strip())
    return Card(face(name), note)


def scarabs(names: Sequence[str]) -> int:
    return sum(SCARABS_OF[_INDEX[n]] for n in names if n in _INDEX)


def space(score: int) -> str:
    """A score's space by its symbol (the track wraps at 100): "Ankh space", ..., "numbered space"."""
    sym = TRACK_SYMBOLS[score % TRACK]
    return f"{'numbered' if sym == NUMBER else title(SYMBOLS[sym])} space"


def _a(word: str) -> str:
    return f"{'an' if word[0] in 'AEIOUaeiou' else 'a'} {word}"


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _phase(v: View) -> str:
    """The decision under way, in the docs' words."""
    phase, fam = v["phase"], title(v["family"]) if v["family"] != "unspecified" else ""
    extending = v["set_index"] >= 0
    words = {  # short: the header has half a line for them
        "start": "choosing who starts",
        "turn": "a turn",
        "set": f"adding to set {v['set_index']} ({fam})" if extending else f"playing a set of {fam}",
        "event": "choosing an event token",
        "token": f"applying the {title(v['token'])} token",
        "priest": "High Priest: naming a family",
        "thief": "Thief: choosing a player",
        "steal": "Thief: stealing a card",
        "vizier": "Vizier: choosing a pile",
        "pick": "Vizier: taking from the pile",
        "bury": "Scribe: burying down to 6",
        "courtesan": "Courtesan: choosing a set",
        "add": f"Courtesan: adding to set {v['set_index']}",
        "merchant": "Merchant: any market card",
        "horizontal": "horizontal sets",
        "horizontal_set": f"a horizontal set of {fam}",
        "over": "game over",
    }.get(phase, title(phase))
    return f"Round {v['round']}: {words}"


def _market(v: View) -> Zone:
    """The Nile from the temple: position 0 is the dock next to it; a take reaches the first 4."""
    reach = len(v["market"]) if v["phase"] == "merchant" else MARKET_REACH
    items: list[Item] = [card(name, f"#{i}" if i < reach else "") for i, name in enumerate(v["market"])]
    taken = DELIVERY - len(v["market"])
    if taken > 0 and v["deck_size"] > 0:  # a full delivery: its emptied docks are known
        items.insert(0, Text(f"{_count(taken, 'dock')} empty"))
    return Zone("The Nile: the market from the temple", tuple(items) or (Text("no cards"),),
                highlight=v["phase"] in ("turn", "merchant"))


def _tokens(v: View) -> Zone:
    """The round's event tokens: face down, but seen by the player choosing one."""
    items: list[Item] = []
    if v["tokens"]:
        for kind in TOKENS:
            if kind in v["tokens"]:
                items.append(Token(title(kind), v["tokens"].count(kind), TOKEN_COLOUR[kind]))
    elif v["tokens_left"]:
        items.append(Stack("face down", v["tokens_left"]))
    else:
        items.append(Text("none left"))
    if v["token"] != "unspecified":
        items.append(Token(f"{title(v['token'])} (chosen)", 1, TOKEN_COLOUR[v["token"]]))
    return Zone("Event tokens", tuple(items), highlight=v["phase"] in ("event", "token"))


def _sets(seat: int, p: dict[str, Any], v: View) -> list[Zone]:
    zones = []
    for i, st in enumerate(p["sets"]):
        kind = "horizontal" if st["horizontal"] else "set"
        items: list[Item] = [card(n) for n in st["cards"]]
        if st["prosperity"]:
            items.append(Token("Prosperity", st["prosperity"], TOKEN_COLOUR["prosperity"]))
        # Where the play is: the set being added to, or every set a Courtesan may choose from.
        mine = seat == v["active"]
        here = mine and (v["phase"] == "courtesan" or v["phase"] in ("set", "add") and v["set_index"] == i)
        zones.append(Zone(f"{kind} {i}: {title(st['family'])}, {_count(scarabs(st['cards']), 'scarab')}",
                          tuple(items), highlight=here))
    return zones


def _scoring(seat: int, v: View) -> Zone | None:
    """The last round's scoring of ``seat``, step by step as the rulebook counts it: the sets
    (played: (scarabs + 2 per Prosperity) x cards; horizontal: scarabs), then corruption."""
    p = v["players"][seat]
    lines = []
    total = 0
    for i, st in enumerate(p["sets"]):
        s, n = scarabs(st["cards"]), len(st["cards"])
        if st["horizontal"]:
            points = s
            lines.append(f"horizontal {i} ({title(st['family'])}): {_count(s, 'scarab')} = {points}")
        else:
            bonus = PROSPERITY_BONUS * st["prosperity"]
            value = f"({_count(s, 'scarab')} + {bonus} Prosperity)" if bonus else _count(s, "scarab")
            points = (s + bonus) * n
            lines.append(f"set {i} ({title(st['family'])}): {value} x {_count(n, 'card')} = {points}")
        total += points
    lines.append(f"sets: {_count(total, 'point')}")
    ended = _round_end(seat, v)
    if ended is None:
        return None if not p["sets"] else _lines(lines)
    _, corrupted, penalty = ended
    count, curses = corrupted["count"], p["curses"]
    held = f"{_count(count - CURSE_WEIGHT * curses, 'card')} + {_count(curses, 'Curse')} x {CURSE_WEIGHT}"
    pile = f"corruption: {held if curses else _count(count, 'card')}, {_count(corrupted['scarabs'], 'scarab')}"
    lines.append(pile)
    if not corrupted["corrupt"]:
        lines.append("not the most corrupt")
    elif total < PENALTY_STEP:
        lines.append(f"the most corrupt, under {PENALTY_STEP} points of sets: no cost")
    else:  # back once per full 10 points of sets, each time to the previous space of the same symbol
        steps, before = total // PENALTY_STEP, v["scores"][seat] - penalty
        lines.append(f"the most corrupt: {_count(steps, 'step')} back by {space(before)}s, "
                     f"{before} to {v['scores'][seat]}")
    lines.append(f"score: {_count(v['scores'][seat], 'point')}")
    return _lines(lines)


def _round_end(seat: int, v: View) -> tuple[int, dict[str, Any], int] | None:
    """``seat``'s last round end among the view's events: the points of its sets, its
    ``corruption`` event (the pile counted) and the points a corrupt player lost; None if the view
    was not told one since its seat's last decision."""
    points, corrupted, penalty = 0, None, 0
    for event in v["events"]:
        if event["type"] == "round" and corrupted is not None:
            break  # the next round's Guild and Deception are no part of it
        if event.get("seat") != seat:
            continue
        if event["type"] == "corruption":
            corrupted = event
        elif event["type"] == "score":
            if corrupted is None:
                points = event["points"]  # the last score before the piles are counted: the sets'
            else:
                penalty += event["points"]
    return None if corrupted is None else (points, corrupted, penalty)


def _lines(lines: list[str]) -> Zone:
    """The Scoring zone: its lines end in ';' and '.', so that they read also when run together."""
    return Zone("Scoring", tuple(Text(line + (";" if i < len(lines) - 1 else ".")) for i, line in enumerate(lines)))


def _seat(seat: int, v: View, own: View | None) -> SeatArea:
    """One seat's side: its score, hand, pile and curses, sets; from ``own`` (its view) when given."""
    p, phase, active = v["players"][seat], v["phase"], v["active"]
    score = v["scores"][seat]
    told: tuple[Item, ...] = ()
    if phase != "over" and (ended := _round_end(seat, v)) is not None:  # a new round: how the last one ended
        points, corrupted, penalty = ended
        told = (Text(f"last round: +{points} from sets" + (f", {penalty} as the most corrupt" if penalty else "")),)
    zones = [Zone("Score", (Text(_count(score, "point")), Text(f"on {_a(space(score))}"), *told),
                  highlight=phase == "start" and v["to_act"] == seat)]
    deciding = v["to_act"] == seat and phase != "over"
    # What the deciding Thief or Vizier is shown of this seat (its hand's backs, its pile's faces)
    # stands in for what the viewer would otherwise see of it.
    shown = tuple(card(n) for n in v["shown"]) if v["target"] == seat else ()
    stealing, picking = bool(shown) and phase == "steal", bool(shown) and phase == "pick"
    if own is not None:
        hand: tuple[Item, ...] = tuple(card(n) for n in own["hand"])
    else:
        hand = shown if stealing else tuple(Card(None) for _ in range(p["hand_size"]))
    zones.append(Zone(f"Hand ({p['hand_size']})" + (", to the Thief" if stealing else ""), hand,
                      highlight=stealing or deciding and phase in ("bury", "horizontal")))
    if v["selection"] and seat == active:
        what = {"set": "set", "add": "Courtesan's cards", "horizontal_set": "horizontal set"}.get(phase, "set")
        zones.append(Zone(f"Laying a {what}: {title(v['family'])}", tuple(card(n) for n in v["selection"]),
                          highlight=True))
    if own is not None:
        pile: list[Item] = [card(n) for n in own["corruption"]]
    else:
        pile = list(shown) if picking else [Stack("face down", p["corruption_size"])] if p["corruption_size"] else []
    if p["curses"]:
        pile.append(Token("Curse", p["curses"], TOKEN_COLOUR["curse"]))
    zones.append(Zone(f"Corruption ({p['corruption_size']})" + (", to the Vizier" if picking else ""), tuple(pile),
                      highlight=picking or deciding and phase == "priest"))
    zones += _sets(seat, p, v)
    if phase == "over" and (scoring := _scoring(seat, v)) is not None:
        zones.append(scoring)
    status = []  # whose decision it is the drawer marks; whose turn it is, when another decides
    if seat == v["start_player"] and phase not in ("start", "over"):  # "start": last round's
        status.append("start player")
    if seat == active and phase != "over" and (v["extra_turn"] or v["to_act"] != seat):
        status.append("Flood: plays again" if v["extra_turn"] else "their turn")
    if v["target"] == seat and phase in ("steal", "pick"):
        status.append("target")
    return SeatArea(seat, tuple(zones), ", ".join(status))


def table(views: Sequence[View]) -> Scene:
    """The table from one seat's view, or from every seat's in seat order (the full table)."""
    own = {v["seat"]: v for v in views}
    v = views[0]
    to_act = v["to_act"] if v["phase"] != "over" else None
    # The decider's view holds what only they see now (the tokens to choose from, a Thief's or a
    # Vizier's look): in the full table, the public part is the same in every view.
    if to_act is not None and to_act in own:
        v = own[to_act]
    n = v["num_players"]
    deliveries = (DECK - (TWO_PLAYER_REMOVAL if n == 2 else 0)) // DELIVERY
    centre = [
        _market(v),
        Zone("Deck and discards", (Stack("deck", v["deck_size"]), *(card(name) for name in v["discard"]))),
        _tokens(v),
    ]
    facts = (f"Round {v['round']} of {ROUNDS}", f"Delivery {v['delivery']} of {deliveries}")
    seats = tuple(_seat(s, v, own.get(s)) for s in range(n))
    return Scene("sobek", _phase(v), to_act, tuple(centre), seats, facts)
