"""The readable log of a game of Prohis: one line of English per event, and each action in the
rulebook's words (``docs/games/prohis.md``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .components import CARDS, TITLES


def title(name: str) -> str:
    """``name`` (a view's card name) in the rulebook's words: "Illegal Good"."""
    return TITLES[CARDS.index[name]]


def a_card(name: str) -> str:
    """``name`` in the rulebook's words, with its article: "an Illegal Good"."""
    words = title(name)
    return ("an " if words[0] in "AEIOU" else "a ") + words


# The actions with nothing secret in them; ``done`` ends whichever step the decision is in.
PLAIN_ACTIONS = {
    "pile": "draws a card from the pile",
    "done": "is done (ends the draw, closes the convoy, or offers the bribe)",
    "pass": "passes and leaves the game",
    "decline": "declines to claim",
    "silent": "stays silent: offers no bribe",
    "accept": "accepts the bribe",
    "reject": "rejects the bribe",
    "waive": "waives the inspection",
    "inspect": "inspects the convoy",
}


def describe_action(action: str, secret: bool) -> str:
    """``action`` in words; with ``secret`` False, without the card a convoy or a bribe is given
    face down (everyone sees that a card went in, only its owner which)."""
    verb, _, arg = action.partition(":")
    match verb:
        case "take":
            return f"takes the card from market slot {arg}"
        case "convoy":
            return f"adds {a_card(arg) if secret else 'a card'} face down to the convoy"
        case "bribe":
            return f"adds {a_card(arg) if secret else 'a card'} to the bribe"
        case "claim":
            return f"claims with {a_card(arg)}"
        case "flip":
            return f"turns up convoy position {arg}"
    return PLAIN_ACTIONS.get(action, action)


def describe_event(event: dict[str, Any], name: Callable[[int], str]) -> str | None:
    """One line of English for a game log; ``name(seat)`` labels a seat. None: not worth a line."""
    kind, who = event["type"], name(event["seat"]) if "seat" in event else ""
    card = title(event["card"]) if event.get("card") else None  # a pile draw's is the drawer's only
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
            return f"{who} runs a convoy of {event['count']}" + (f": {', '.join(map(title, cards))}" if cards else "")
        case "claim":
            return f"   {who} claims with {a_card(event['rank'])}"
        case "decline":
            return f"   {who} declines"
        case "inspector":
            return f"   {who} is the Inspector ({title(event['rank'])})"
        case "bribe":
            cards = event.get("cards")
            return f"   {who} offers a bribe of {event['count']} card(s)" + (
                f": {', '.join(map(title, cards))}" if cards else ""
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
