"""The readable log of a game of Bandits: one line of English per event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def describe_event(event: dict[str, Any], name: Callable[[int], str]) -> str | None:
    """One line of English for a game log; ``name(seat)`` labels a seat. None: not worth a line."""
    kind, who = event["type"], name(event["seat"]) if "seat" in event else ""
    target = name(event["target"]) if "target" in event else ""
    cards = event.get("cards")
    listed = f": {', '.join(cards)}" if cards else ""
    match kind:
        case "new_round":
            return f"== round {event['round']}: {event['pile_size']} cards in the pile"
        case "turn":
            return f"-- {who}'s turn"
        case "draw":
            return f"{who} draws" + (f" ({event['card']})" if "card" in event else "")
        case "attack":
            return f"{who} attacks {target}'s hand"
        case "raid":
            return f"{who} plays a Tracker and raids {target}'s hideout"
        case "gun" | "star":
            return f"   {who} plays {event['card']}"
        case "guns":
            return f"   {who} attacks with {event['guns']} gun(s)"
        case "backfire":
            return f"   {who} answers with a Backfire: the attacker must defend"
        case "defended":
            return f"   {who} holds: {event['stars']} star(s) against {event['guns']} gun(s)"
        case "beaten":
            return f"   {who} is beaten: {event['stars']} star(s) against {event['guns']} gun(s)"
        case "take_hand":
            return f"   {who} takes {target}'s hand of {event['count']} card(s){listed}"
        case "take_hideout":
            return f"   {who} carries off {event['count']} card(s) from {target}'s hideout{listed}"
        case "trap":
            return f"   the Booby Trap in {target}'s hideout goes off: {who} takes nothing"
        case "stash":
            return f"{who} stashes {event['count']} card(s){listed}"
        case "refill":
            return f"   {who} refills {event['count']} card(s){listed}"
        case "round_over":
            scores = ", ".join(map(str, event["round_scores"]))
            return f"** round {event['round']} over: hideouts score {scores}; totals " + ", ".join(
                map(str, event["totals"]))
        case "game_over":
            return "** game over"
    return None

