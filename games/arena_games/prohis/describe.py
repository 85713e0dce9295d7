"""The readable log of a game of Prohis: one line of English per event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def describe_event(event: dict[str, Any], name: Callable[[int], str]) -> str | None:
    """One line of English for a game log; ``name(seat)`` labels a seat. None: not worth a line."""
    kind, who = event["type"], name(event["seat"]) if "seat" in event else ""
    card = event.get("card")
    match kind:
        case "turn":
            return f"-- {who}'s turn"
        case "take":
            return f"{who} takes the {card} from market slot {event['position']}"
        case "refill":
            return f"   market slot {event['position']} refilled: {card}"
        case "pile":
            return f"{who} draws from the pile" + (f" ({card})" if card else "")
        case "pass":
            return f"{who} passes and leaves the game"
        case "convoy":
            cards = event.get("cards")
            return f"{who} runs a convoy of {event['count']}" + (f": {', '.join(cards)}" if cards else "")
        case "claim":
            return f"   {who} claims with a {event['rank']}"
        case "decline":
            return f"   {who} declines"
        case "inspector":
            return f"   {who} is the Inspector ({event['rank']})"
        case "bribe":
            cards = event.get("cards")
            return f"   {who} offers a bribe of {event['count']} card(s)" + (
                f": {', '.join(cards)}" if cards else ""
            )
        case "silent":
            return f"   {who} stays silent"
        case "accept" | "reject" | "waive" | "inspect":
            return f"   {who} {kind}s" if kind != "waive" else f"   {who} waives the inspection"
        case "flip":
            return f"   {who} turns up position {event['position']}: {card}"
        case "outcome":
            return f"   convoy {OUTCOME_TEXT[event['outcome']]}"
        case "end_triggered":
            return "** the pile is empty and the market short: everyone takes one last turn"
        case "game_over":
            return "** game over"
    return None


OUTCOME_TEXT = {
    "unchallenged": "passes unchallenged into the smuggler's warehouse",
    "bribed": "passes: the bribe was taken",
    "waived": "passes: the Inspector waived, banking their Prohi",
    "cleared": "passes inspection; the smuggler takes the Inspector's Prohi",
    "seized": "seized by the Inspector",
}
