"""The readable log of a game of Sobek: one line of English per event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def describe_event(event: dict[str, Any], name: Callable[[int], str]) -> str | None:
    """One line of English for a game log; ``name(seat)`` labels a seat. None: not worth a line."""
    kind, who = event["type"], name(event["seat"]) if "seat" in event else ""
    card, target = event.get("card"), name(event["target"]) if "target" in event else ""
    cards = ", ".join(event.get("cards", ()))
    match kind:
        case "round":
            return f"=== round {event['round']}"
        case "delivery":
            return f"   {who + ' lays a' if who else 'a'} delivery: {cards}"
        case "start":
            by = f" (chosen by {name(event['chooser'])})" if "chooser" in event else ""
            return f"   {who} starts the round{by}"
        case "turn":
            return f"-- {who}'s turn"
        case "take":
            skipped = event.get("skipped")
            tail = f"; corruption: {', '.join(skipped)}" if skipped else ""
            return f"{who} takes {card} from position {event['position']}{tail}"
        case "play":
            return f"{who} plays the {card}"
        case "draw":
            return f"   {who} draws {event['count']} card(s)" + (f": {cards}" if cards else "")
        case "purge":
            return f"   {who} names {event['family']}: {event['count']} card(s) leave the corruption pile" + (
                f" ({cards})" if cards else "")
        case "steal":
            return f"   {who} steals {card} from {target}"
        case "seize":
            return f"   {who} takes a card from {target}'s corruption pile" + (f": {card}" if card else "")
        case "bury":
            return f"   {who} buries {event['count']} card(s)" + (f": {cards}" if cards else "")
        case "set" | "extend" | "add" | "horizontal":
            what = {"set": "plays a set", "extend": "extends a set", "add": "adds to a set",
                    "horizontal": "lays a horizontal set"}[kind]
            return f"{who} {what} of {event['family']}: {cards}"
        case "token":
            seen = event.get("tokens")
            among = f" among {', '.join(seen)}" if seen else ""
            return f"   {who} chooses the {event['token']} token{among}"
        case "discard_token":
            return f"   {who} discards the {event['token']} token"
        case "guild":
            return f"   Guild: {who} and {target} move to the next space with the same symbol"
        case "flood":
            return f"   Flood: {who} will take another turn"
        case "curse":
            return f"   {who} curses {target}"
        case "prosperity":
            return f"   {who} puts Prosperity on set {event['set_index']}"
        case "embalming":
            return f"   Embalming: {who} takes {event['count']} card(s) from the corruption pile into hand"
        case "deception":
            return f"   Deception: {who} scores a point per card in the corruption pile"
        case "score":
            return f"   {who} {'scores' if event['points'] >= 0 else 'loses'} {abs(event['points'])}: " \
                   f"{event['score']} points"
        case "round_end":
            return f"** {who} took the last card: the round ends"
        case "unplayed":
            return f"   {who}'s {event['count']} card(s) left in hand go to corruption"
        case "corruption":
            tag = " - corrupt" if event["corrupt"] else ""
            return f"   {who}'s corruption: {event['count']} card(s), {event['scarabs']} scarab(s){tag}"
        case "game_over":
            return "** game over"
    return None
