"""Bandits's table as it is drawn (:mod:`arena_games.scene`): the draw pile, the fight on the table
(the attack with its guns summed, the defence or the Backfire with its stars, the attacker's stars
after a Backfire), the Boneyard and the cards set aside; each seat's hand, hideout, stash being
made and total; at the end, the last round scored as the rulebook scores it
(``docs/games/bandits.md``).

Everything comes from the views given: one seat's (its hand, hideout and stash face up, the
others' hands as backs and their hideouts as counts), or every seat's (each seat's own cards from
its own view: the full table).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from typing import Any

from ..core import View
from ..scene import Card, Face, Item, Scene, SeatArea, Stack, Text, Token, Zone
from ..views import UNKNOWN
from .components import BAGS, FACE_OF, GOLD, GUNS, KIND, STARS, VALUE

# A colour per kind of card: gold for Gold Bars, brown for the Money Bags' sacking, red Outlaws,
# blue Lawmen, purple for the Two-Faced (both at once), and one each for the special actions.
COLOUR = {"gold": "gold", "bag": "brown", "outlaw": "red", "lawman": "blue", "two_faced": "purple",
          "tracker": "green", "backfire": "orange", "booby_trap": "black"}
TITLE = {"gold": "Gold Bars", "bag": "Money Bags", "outlaw": "Outlaw", "lawman": "Lawman",
         "two_faced": "Two-Faced", "tracker": "Tracker", "backfire": "Backfire", "booby_trap": "Booby Trap"}
CHARACTER = {"outlaw_6": "Wild Bill", "lawman_6": "Sheriff McCoy"}  # the 6s have names of their own


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def kind_of(name: str) -> str:
    """``"two_faced_2"`` -> ``"two_faced"``: the kind a face's name starts with."""
    return name.rsplit("_", 1)[0] if name[-1].isdigit() else name


@functools.cache
def face(name: str) -> Face:
    """A card's face from the game's own data: the corner is a loot card's value, an Outlaw's guns,
    a Lawman's stars; the family line (short, to fit under the title) says what the number is."""
    f, kind = FACE_OF[name], kind_of(name)
    guns, stars = GUNS[f], STARS[f]
    if KIND[f] in (GOLD, BAGS):
        value, family = str(VALUE[f]), "loot"
    elif guns and stars:
        value, family = str(guns), "guns/stars"
    elif guns:
        value, family = str(guns), plural(guns, "gun")
    elif stars:
        value, family = str(stars), plural(stars, "star")
    else:
        value, family = "", "special"
    return Face(name, CHARACTER.get(name, TITLE[kind]), value, family, COLOUR[kind])


def card(name: str, note: str = "") -> Card:
    """A card as a view names it; ``unknown`` (another player's stash being made) is a back."""
    return Card(None, note) if name == UNKNOWN else Card(face(name), note)


def grouped(names: Sequence[str]) -> tuple[Card, ...]:
    """Sorted cards as one card a face, noted with its copies (``×3``): a Boneyard or a hideout of
    thirty cards reads at a glance, and fits the table."""
    out: list[Card] = []
    for name, copies in itertools.groupby(names):
        n = len(list(copies))
        out.append(card(name, f"×{n}" if n > 1 else ""))
    return tuple(out)


def loot(names: Sequence[str]) -> int:
    """What ``names`` would score under a hideout: the loot's values (a Booby Trap is worth nothing)."""
    return sum(VALUE[FACE_OF[n]] for n in names if n in FACE_OF)


def _fighting(v: View) -> bool:
    return int(v["attacker"]) >= 0


def _phase(v: View) -> str:
    """The decision under way, in the docs' words (short: it heads the table)."""
    phase: str = v["phase"]
    fight = "Raid on a hideout" if v["raid"] else "Attack on a hand"
    words = {
        "turn": "A turn: draw, attack, stash or raid",
        "attack": f"{fight}: the guns",
        "defend": f"{fight}: the defence",
        "backfire": f"{fight}: Backfire, the attacker defends",
        "stash": "A stash, face down",
        "over": "Game over",
    }
    return words.get(phase, phase)


def _status(v: View, seat: int) -> str:
    """A word beside a seat's name: its part in the fight or the stash (the drawer marks who acts)."""
    phase, backfired = v["phase"], v["phase"] == "backfire"
    if _fighting(v) and seat == v["attacker"]:
        return "attacker, now defending" if backfired else "attacker"
    if _fighting(v) and seat == v["defender"]:
        return "defender, backfired" if backfired else "defender"
    return "stashing" if phase == "stash" and seat == v["active"] else ""


def _fight(v: View) -> list[Zone]:
    """The cards on the table in a fight, face up in the order played, with guns and stars summed."""
    if not _fighting(v):
        return []
    phase, guns = v["phase"], v["guns"]
    what = "Raid on a hideout" if v["raid"] else "Attack on a hand"
    zones = [Zone(f"{what}: {plural(guns, 'gun')}", tuple(card(n, "as guns" if STARS[FACE_OF[n]] else "")
                                                           for n in v["attack"]), phase == "attack")]
    if phase != "attack":
        backfire = phase == "backfire"
        title = "Defence: a Backfire" if backfire else f"Defence: {plural(v['stars'], 'star')} against {guns}"
        zones.append(Zone(title, tuple(card(n, "as stars" if GUNS[FACE_OF[n]] else "") for n in v["defence"]),
                          phase == "defend"))
        if backfire:
            zones.append(Zone(f"The attacker's defence: {plural(v['counter_stars'], 'star')} against {guns}",
                              tuple(card(n, "as stars" if GUNS[FACE_OF[n]] else "") for n in v["counter"]),
                              True))
    return zones


def _round_over(v: View) -> dict[str, Any] | None:
    """The last round's scoring, if this view was told it since its seat's last decision."""
    ends = [e for e in v["events"] if e["type"] == "round_over"]
    return ends[-1] if ends else None


def _seat_area(seat: int, own: View | None, public: View) -> SeatArea:
    """One seat's side: from its own view when given (faces), else from ``public`` (backs, counts)."""
    player = public["players"][seat]
    phase, active = public["phase"], public["active"]
    zones: list[Zone] = []
    turn_here = phase == "turn" and seat == active
    # What the fight is for: the defender's hand or hideout, the attacker's after a Backfire.
    staked = _fighting(public) and seat == public["attacker" if phase == "backfire" else "defender"]
    stake_hand = ", at stake" if staked and not public["raid"] else ""
    stake_hideout = ", at stake" if staked and public["raid"] else ""
    if own is not None:
        zones.append(Zone(f"Hand{stake_hand}", tuple(card(n) for n in own["hand"]), turn_here))
    else:
        zones.append(Zone(f"Hand{stake_hand}", (Card(None),) * player["hand_size"], turn_here))
    if phase == "stash" and seat == active:
        stash = (own or public)["stash"]
        zones.append(Zone("Stash, going face down", tuple(card(n) for n in stash), True))
    if own is not None:
        zones.append(Zone(f"Hideout: worth {loot(own['hideout'])}{stake_hideout}", grouped(own["hideout"])))
    else:
        zones.append(Zone(f"Hideout{stake_hideout}", (Stack("face down", player["hideout_size"]),)))
    items: list[Item] = [Token("loot", player["total"], "gold")]
    scored = _round_over(public)
    if scored is not None and phase != "over":  # at the end the Scoring zone says it all
        items.append(Text(f"round {scored['round']} scored {scored['round_scores'][seat]}"))
    zones.append(Zone("Total", tuple(items)))
    return SeatArea(seat, tuple(zones), _status(public, seat))


def _scoring(views: dict[int, View], public: View) -> Zone:
    """The end as the rulebook scores it: the loot under each hideout is its last round's score
    (Gold Bars and Money Bags by their values; the Booby Trap and hands count nothing), added to its
    total; then who has enough, or the last round, or a new pile too small to play on. A line a seat,
    short enough to be drawn whole."""
    n, totals = public["num_players"], [p["total"] for p in public["players"]]
    scored = _round_over(public)
    lines: list[Item] = [Text("the loot under each hideout, added to its total:")]
    for s in range(n):
        hideout = views[s]["hideout"] if s in views else None
        score = scored["round_scores"][s] if scored else (loot(hideout) if hideout is not None else None)
        if score is None:  # neither the cards nor the round's scores are known to this view
            lines.append(Text(f"seat {s}: total {totals[s]}"))
            continue
        parts = f"hideout {score}"
        if hideout is not None and loot(hideout) == score:  # the cards are known: by kind
            gold = sum(VALUE[FACE_OF[c]] for c in hideout if KIND[FACE_OF[c]] == GOLD)
            bags = sum(VALUE[FACE_OF[c]] for c in hideout if KIND[FACE_OF[c]] == BAGS)
            parts = " + ".join([f"Gold Bars {gold}"] * bool(gold) + [f"Money Bags {bags}"] * bool(bags)) or "no loot"
            parts += f" = {score}" if gold and bags else ""
        lines.append(Text(f"seat {s}: {parts}; {totals[s] - score} + {score} = {totals[s]}"))
    best, winning, rounds = max(totals), public["winning_total"], public["round"]
    leaders = [s for s in range(n) if totals[s] == best]
    named = " and ".join(f"seat {s}" for s in leaders)
    if best >= winning and len(leaders) == 1:
        lines.append(Text(f"seat {leaders[0]} wins: {best}, at least {winning}, and the highest"))
    elif rounds >= public["max_rounds"]:
        lines += [Text(f"round {rounds} was the last: the highest total wins"), Text(f"{best}: {named}")]
    else:
        lines += [Text("the new pile would be too small: the highest total wins"), Text(f"{best}: {named}")]
    return Zone(f"Scoring: round {rounds}", tuple(lines))


def table(views: Sequence[View]) -> Scene:
    """The table from one seat's view, or from every seat's (each seat's own cards from its view)."""
    own = {v["seat"]: v for v in views}
    public = views[0]  # what every view shows alike: sizes, totals, the fight, the Boneyard
    n, over = public["num_players"], public["phase"] == "over"
    centre = [Zone("Draw pile", (Stack("cards", public["pile_size"]),))]
    centre += _fight(public)
    centre.append(Zone(f"Boneyard: {plural(len(public['boneyard']), 'card')}",
                       grouped(public["boneyard"])))
    if public["removed"]:
        centre.append(Zone("Set aside", grouped(public["removed"])))
    if over:
        centre.append(_scoring(own, public))
    facts = (f"Round {public['round']} of at most {public['max_rounds']}",
             f"A total of {public['winning_total']} wins at a round's end")
    seats = tuple(_seat_area(s, own.get(s), public) for s in range(n))
    return Scene("bandits", _phase(public), None if over else public["to_act"], tuple(centre), seats, facts)

