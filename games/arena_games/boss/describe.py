"""The readable log of a game of The Boss: one line of English per event, and each action in the
docs' words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def describe_event(event: dict[str, Any], name: Callable[[int], str]) -> str | None:
    """One line of English for a game log; ``name(seat)`` labels a seat. None: not worth a line."""
    kind, who = event["type"], name(event["seat"]) if "seat" in event else ""
    match kind:
        case "round":
            extra = " (overtime)" if event.get("overtime") else ""
            return (f"== round {event['round']}{extra}: {who} deals; Chicago is boss card "
                    f"{event['position'] + 1}")
        case "deal":
            return f"   {who} holds {', '.join(event['cards'])}"
        case "turn":
            return f"-- {who}'s {'last ' if event.get('last') else ''}turn"
        case "place":
            small = f" and {event['small']} small" if event.get("small") else ""
            return f"   {who} adds {event['big']} big{small} cube(s) to {title(event['boss'])}"
        case "reveal":
            return f"   {who} reveals {card_title(event['card'])}"
        case "police":
            return f"** police card: {event['card']}"
        case "last_turns":
            return "** last turns, most cubes in reserve first: " + ", ".join(map(name, event["seats"]))
        case "resolve":
            card = f" (reward {card_title(event['card'])})" if "card" in event else ""
            if "seat" not in event:
                return f"   {title(event['boss'])}: nobody{card}"
            return f"   {title(event['boss'])}: {who}{card} {EFFECT_TEXT[event['effect']].format(**event)}"
        case "round_end":
            return f"   end of round {event['round']}: points " + ", ".join(map(str, event["scores"]))
        case "overtime":
            return "** tied at the top: one overtime round for " + ", ".join(map(name, event["seats"]))
        case "game_over":
            return "** game over"
    return None


def title(name: str) -> str:
    return name.replace("_", " ").title()


EFFECT_TEXT = {
    "points": "scores {points}",
    "dies": "loses a big cube for good",
    "prison": "sends a big cube to prison for 2 rounds",
    "hospital": "sends a big cube to hospital for 1 round",
    "banished": "is banished from Cincinnati",
    "no_cube": "has no big cube left to lose",
}


def describe_action(action: str, secret: bool) -> str:
    """An action in the docs' words. Nothing of a Boss action is secret: a reveal turns the card
    face up for everyone at once, and cubes are placed in the open; so ``secret`` changes nothing."""
    verb, _, arg = action.partition(":")
    match verb:
        case "reveal":
            return f"reveals {card_title(arg)}"
        case "place":
            return f"places cubes on {title(arg)}"
        case "big":
            return "adds a big cube"
        case "small":
            return "adds a small cube"
        case "done":
            return "ends the placement"
        case "pass":
            return "places no cubes"
    return action


def card_title(name: str) -> str:
    """``"detroit_3"`` -> ``"Detroit 3 bags"``; ``"memphis_hospital"`` -> ``"Memphis Hospital"``."""
    city, _, kind = name.rpartition("_")
    return f"{title(city)} {kind_title(kind)}"


def kind_title(kind: str) -> str:
    """A city card's kind in words: ``"3"`` -> ``"3 bags"``, ``"revolver"`` -> ``"Revolver"``."""
    return f"{kind} bag{'' if kind == '1' else 's'}" if kind.isdigit() else kind.title()
