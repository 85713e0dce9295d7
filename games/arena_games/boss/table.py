"""The Boss's table as it is drawn (:mod:`arena_games.scene`): the row of boss cards left to right
with Chicago in its place, each city's face-down reward and the cards revealed under it, the police
cards; each seat's hand (the cities of every hand are public, the values only its owner's), its
cubes in reserve and on each boss, those out of play, its Banished token and its points; at the
end, the rewards face up and each seat scored as the rulebook scores it (``docs/games/boss.md``).

Everything comes from the views given: one seat's (its hand face up, the others' as city backs),
or every seat's at the end (each hand face up from its owner's view).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from ..core import TERMINAL, View, ranks_from_scores
from ..scene import Card, Face, Item, Scene, SeatArea, Stack, Text, Token, Zone
from ..views import UNKNOWN
from .components import BADGES_TO_END, BOSSES, KINDS, NONE
from .describe import EFFECT_TEXT, kind_title, title

# A colour per city, as the city cards' backs are coloured; Chicago, which has no cards, is black.
CITY_COLOUR = {"new_york": "blue", "boston": "green", "detroit": "red", "kansas_city": "yellow",
               "cincinnati": "purple", "memphis": "orange", "philadelphia": "teal", "chicago": "black"}
POLICE_FACE = {"gold": ("Gold badge", "gold"), "silver": ("Silver badge", "grey"),
               "double": ("Double badge", "brown")}
PHASE_WORDS = {"turn": "reveal a card or place cubes", "cubes": "placing cubes on {boss}",
               "reveal": "reveal a card, after placing", "place": "place cubes or pass, after the reveal"}


def boss_title(boss: str) -> str:
    """A boss card as the rulebook numbers it: ``"3 Detroit"``; Chicago has no number."""
    return title(boss) if boss == "chicago" else f"{BOSSES.index(boss) + 1} {title(boss)}"


@functools.cache
def face(name: str) -> Face:
    """A card as views name it: a city card's face (bags or a penalty), a city card's back (its
    city, in the colour every seat sees; "?" for the value only its holder knows), or a police card."""
    if name in POLICE_FACE:
        words, colour = POLICE_FACE[name]
        return Face(name, words, "", "police", colour)
    if name in CITY_COLOUR:  # a back
        return Face(name, title(name), "?", "", CITY_COLOUR[name])
    city, _, kind = name.rpartition("_")
    if kind not in KINDS:
        raise ValueError(f"not a card of The Boss: {name!r}")
    return Face(name, kind_title(kind), kind if kind.isdigit() else "", title(city), CITY_COLOUR[city])


def points(n: int) -> str:
    return f"{n} point{'' if n == 1 else 's'}"


def chicago_worth(bosses: list[dict[str, Any]], position: int) -> int:
    """What Chicago's controller would score now: half the last card revealed under each city to
    its left (a penalty counts 0), rounded down."""
    total = 0
    for boss in bosses[:position]:
        if boss["revealed"]:
            kind = boss["revealed"][-1].rpartition("_")[2]
            total += int(kind) if kind.isdigit() else 0
    return total // 2


def _boss_zone(v: View, position: int, boss: dict[str, Any], resolved: dict[str, dict[str, Any]]) -> Zone:
    """A boss card: its reward (face down until the end) and the cards revealed under it, in order,
    then each seat's cubes on it (in the seat's colour: its area says the big and small); at the
    end, who took it in the last resolution."""
    name = boss["boss"]
    items: list[Item] = []
    if name == "chicago":
        if v["phase"] != "over":  # at the end Chicago has moved on: its last worth is in the scoring
            items.append(Text(f"worth {chicago_worth(v['bosses'], position)} now"))
    else:
        reward = boss["reward"]
        items.append(Card(None if reward in (UNKNOWN, NONE) else face(reward), "reward"))
        items += [Card(face(c)) for c in boss["revealed"]]
    for s in range(v["num_players"]):
        if boss["big"][s] or boss["small"][s]:
            items.append(Token(f"seat {s}", boss["big"][s] + boss["small"][s], SEAT_COLOUR[s]))
    if name in resolved:
        items.append(Text(_taken(resolved[name], short=True)))
    return Zone(boss_title(name), tuple(items), highlight=position == v["placing"])


def _taken(event: dict[str, Any], short: bool = False) -> str:
    """A resolve event in words: who took the boss and what it did (``short``: in a word or two)."""
    if "seat" not in event:
        return "taken by nobody"
    effect = event["effect"]
    if not short:
        return EFFECT_TEXT[effect].format(**event)
    what = points(event["points"]) if effect == "points" else "no cube to lose" if effect == "no_cube" else effect
    return f"seat {event['seat']}: {what}"


def _cards_zone(v: View) -> Zone:
    """Each city's cards in the game (a setting), for the deduction: public, in every view."""
    lines = [f"{title(b['boss'])}: " + ", ".join(kind_title(c.rpartition("_")[2]) for c in b["cards"])
             for b in sorted(v["bosses"], key=lambda b: BOSSES.index(b["boss"])) if b["cards"]]
    return Zone("Each city's cards", tuple(map(Text, lines)))


# A colour per seat for its cubes, none of the cities' colours.
SEAT_COLOUR = ("pink", "brown", "grey", "gold")


def _police_zone(v: View) -> Zone:
    items: list[Item] = [Card(face(c)) for c in v["police"]]
    items.append(Stack("face down", v["police_left"]))
    double = v["police"].count("double")
    gold, silver = v["police"].count("gold") + double, v["police"].count("silver") + double
    items.append(Text(f"badges: gold {gold}, silver {silver}; the game ends at {BADGES_TO_END} of one colour"))
    return Zone("Police", tuple(items))


def _seat_area(v: View, s: int, hand: list[str] | None, ranks: list[int] | None,
               resolved: list[dict[str, Any]]) -> SeatArea:
    player, active = v["players"][s], v["active"]
    turn = active == s and v["phase"] != "over"
    zones: list[Zone] = []
    cards = [Card(face(c)) for c in hand] if hand is not None else [Card(face(city)) for city in player["hand"]]
    if cards or v["phase"] != "over":
        zones.append(Zone("Hand", tuple(cards), highlight=turn and v["phase"] in ("turn", "reveal")))
    colour = SEAT_COLOUR[s]
    reserve: list[Item] = [Token("big in reserve", player["big"], colour),
                           Token("small in reserve", player["small"], colour)]
    zones.append(Zone("Cubes", tuple(reserve), highlight=turn and v["phase"] in ("cubes", "place")))
    placed: list[Item] = []
    for boss in v["bosses"]:
        big, small = boss["big"][s], boss["small"][s]
        if big or small:
            placed.append(Token(f"{title(boss['boss'])}, big", big, colour))
            if small:
                placed.append(Token(f"{title(boss['boss'])}, small", small, colour))
    if placed:
        zones.append(Zone("On the bosses", tuple(placed)))
    out: list[Item] = []
    if player["dead"]:
        out.append(Token("dead", player["dead"], colour))
    for rounds in sorted(set(player["prison"])):
        out.append(Token(f"in prison, {rounds} round{'s' if rounds > 1 else ''} left",
                         player["prison"].count(rounds), colour))
    if player["hospital"]:
        out.append(Token("in hospital this round", player["hospital"], colour))
    if player["banished"]:
        out.append(Token("Banished from Cincinnati", 1, CITY_COLOUR["cincinnati"]))
    if out:
        zones.append(Zone("Out of play", tuple(out)))
    if ranks is None:
        last = f" ({player['last_round_points']} in the last round)" if v["round"] > 1 else ""
        zones.append(Zone("Points", (Text(points(player["points"]) + last),)))
    else:
        zones += _scoring(v, s, ranks, resolved)
    status = [w for w, on in (("dealer", v["dealer"] == s and v["phase"] != "over"),
                              ("banished", player["banished"]),
                              ("last turn due", s in v["last_turns"])) if on]
    if ranks is not None:
        status.insert(0, f"place {ranks[s]}")
    return SeatArea(s, tuple(zones), ", ".join(status))


def _scoring(v: View, s: int, ranks: list[int], resolved: list[dict[str, Any]]) -> tuple[Zone, Zone]:
    """The rulebook's scoring: most points, then most points in the last round, then most cubes in
    reserve; the last resolution's rewards this seat took, as its events told them."""
    player = v["players"][s]
    lines = [f"place {ranks[s]}: {points(player['points'])}",
             f"tie-break 1: {points(player['last_round_points'])} in the last round",
             f"tie-break 2: {player['big'] + player['small']} cubes in reserve "
             f"({player['big']} big, {player['small']} small)"]
    taken = [f"{title(e['boss'])}: {_taken(e)}" for e in resolved if e.get("seat") == s]
    return (Zone("Scoring", tuple(map(Text, lines))), Zone("Last resolution", tuple(map(Text, taken or ["nothing"]))))


def _phase(v: View) -> str:
    if v["phase"] == "over":
        return f"Game over after round {v['round']}" + (" (overtime)" if v["overtime"] else "")
    words = PHASE_WORDS[v["phase"]]
    if v["phase"] == "cubes":
        words = words.format(boss=title(v["bosses"][v["placing"]]["boss"]))
    rnd = "Overtime round" if v["overtime"] else f"Round {v['round']}"
    return f"{rnd}{' last turns' if v['last_turn'] else ''}: {words}"


def table(views: Sequence[View]) -> Scene:
    """One seat's table from its view, or every seat's (in seat order) once the game is over."""
    v = views[0]
    own = {view["seat"]: view["hand"] for view in views}
    over = v["phase"] == "over"
    if len(views) > 1 and not over:
        raise ValueError("the full table is drawn only once the game is over")
    n = v["num_players"]
    ranks: list[int] | None = None
    if over:
        players = v["players"]
        ranks = ranks_from_scores([(p["points"], p["last_round_points"], p["big"] + p["small"]) for p in players])
    # The last resolution, from the events (public: every seat is told the same).
    resolved: list[dict[str, Any]] = []
    for event in v["events"] if over else ():
        if event["type"] == "round":  # an earlier round's resolution, told a seat with no decision since
            resolved.clear()
        elif event["type"] == "resolve":
            resolved.append(event)
    centre = [_boss_zone(v, i, boss, {e["boss"]: e for e in resolved}) for i, boss in enumerate(v["bosses"])]
    centre.append(_police_zone(v))
    centre.append(_cards_zone(v))
    if over:
        centre.append(Zone("Scoring", (Text("Most points; ties: the last round's, then most cubes in reserve"),)))
    facts = [f"Chicago is boss card {v['chicago'] + 1} of {len(v['bosses'])}",
             f"{len(v['police'])} police card{'s' if len(v['police']) != 1 else ''} flipped, {v['police_left']} left"]
    if v["last_turn"] and not over:
        facts.append("last turns: most cubes in reserve first")
    seats = tuple(_seat_area(v, s, own.get(s), ranks, resolved) for s in range(n))
    to_act = None if over or v["to_act"] == TERMINAL else v["to_act"]
    return Scene("boss", _phase(v), to_act, tuple(centre), seats, tuple(facts))


