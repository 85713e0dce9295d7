"""The readable log of a game of Bandits: one line of English per event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .components import FACE_OF, GUNS, STARS, VALUE
from .table import CHARACTER, face, kind_of, plural  # a card's words, drawn and said alike


def describe_event(event: dict[str, Any], name: Callable[[int], str]) -> str | None:
    """One line of English for a game log; ``name(seat)`` labels a seat. None: not worth a line."""
    kind, who = event["type"], name(event["seat"]) if "seat" in event else ""
    target = name(event["target"]) if "target" in event else ""
    cards = event.get("cards")
    listed = f": {', '.join(map(card_words, cards))}" if cards else ""
    match kind:
        case "new_round":
            return f"== round {event['round']}: {event['pile_size']} cards in the pile"
        case "turn":
            return f"-- {who}'s turn"
        case "draw":
            return f"{who} draws" + (f": {card_words(event['card'])}" if "card" in event else " a card")
        case "attack":
            return f"{who} attacks {target}'s hand"
        case "raid":
            return f"{who} plays a Tracker and raids {target}'s hideout"
        case "gun" | "star":
            card, side = event["card"], "gun" if kind == "gun" else "star"
            if kind_of(card) == "two_faced":  # either side's card: say which side it takes
                value = (GUNS if kind == "gun" else STARS)[FACE_OF[card]]
                return f"   {who} plays a Two-Faced card as {plural(value, side)}"
            return f"   {who} plays {card_words(card)}"
        case "guns":
            return f"   {who} attacks with {plural(event['guns'], 'gun')}"
        case "backfire":
            return f"   {who} answers with a Backfire: the attacker must defend"
        case "defended":
            return f"   {who} holds: {plural(event['stars'], 'star')} against {plural(event['guns'], 'gun')}"
        case "beaten":
            return f"   {who} is beaten: {plural(event['stars'], 'star')} against {plural(event['guns'], 'gun')}"
        case "take_hand":
            return f"   {who} takes {target}'s hand of {plural(event['count'], 'card')}{listed}"
        case "take_hideout":
            return f"   {who} carries off {plural(event['count'], 'card')} from {target}'s hideout{listed}"
        case "trap":
            return f"   the Booby Trap in {target}'s hideout goes off: {who} takes nothing"
        case "stash":
            return f"{who} stashes {plural(event['count'], 'card')}{listed}"
        case "refill":
            return f"   {who} refills {plural(event['count'], 'card')}{listed}"
        case "round_over":
            scores = ", ".join(map(str, event["round_scores"]))
            return f"** round {event['round']} over: hideouts score {scores}; totals " + ", ".join(
                map(str, event["totals"]))
        case "game_over":
            return "** game over"
    return None



def card_words(name: str) -> str:
    """A card in the docs' words: ``"outlaw_3"`` -> ``"an Outlaw with 3 guns"``."""
    f, title = FACE_OF[name], face(name).title
    match kind_of(name):
        case "gold" | "bag":
            return f"{title} worth {VALUE[f]}"
        case "outlaw":
            guns = plural(GUNS[f], "gun")
            return f"{title} (Outlaw, {guns})" if name in CHARACTER else f"an Outlaw with {guns}"
        case "lawman":
            stars = plural(STARS[f], "star")
            return f"{title} (Lawman, {stars})" if name in CHARACTER else f"a Lawman with {stars}"
        case "two_faced":
            return f"a Two-Faced card ({plural(GUNS[f], 'gun')} or {plural(STARS[f], 'star')})"
    return f"a {title}"


def describe_action(action: str, secret: bool) -> str:
    """An action in the words of ``docs/games/bandits.md``; with ``secret`` False, what every seat
    may know of it: a stash goes face down, so its cards are not named (the others see a card go)."""
    verb, _, arg = action.partition(":")
    match verb:
        case "draw":
            return "draws a card from the pile"
        case "attack":
            return f"attacks the hand of seat {arg}"
        case "raid":
            return f"plays a Tracker and raids the hideout of seat {arg}"
        case "stash":
            return f"stashes {card_words(arg)} face down" if secret else "stashes a card face down"
        case "gun":
            if kind_of(arg) == "two_faced":  # either side's card: say which side it takes
                return f"adds a Two-Faced card to the attack, as {plural(GUNS[FACE_OF[arg]], 'gun')}"
            return f"adds {card_words(arg)} to the attack"
        case "star":
            if kind_of(arg) == "two_faced":
                return f"defends with a Two-Faced card, as {plural(STARS[FACE_OF[arg]], 'star')}"
            return f"defends with {card_words(arg)}"
        case "backfire":
            return "answers with a Backfire: the attacker must defend against their own guns"
        case "done":
            return "is done playing cards"
    return action
