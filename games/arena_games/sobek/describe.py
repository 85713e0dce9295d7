"""The readable log of a game of Sobek (one line of English per event), and its actions in words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .table import face, title  # a card's words, drawn and said alike


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


def describe_action(action: str, secret: bool) -> str:
    """An action in the words of ``docs/games/sobek.md``; with ``secret`` False, what every seat
    may know of it: a Vizier's pick and a Scribe's burial name no card (the others see neither)."""
    verb, _, arg = action.partition(":")
    match verb:
        case "start":
            return f"chooses seat {arg} to start the round"
        case "take":
            skipped = int(arg)  # the cards before it go to corruption, but for a Merchant's take
            return f"takes market card {arg}" + (f" (skipping {skipped})" if skipped else "")
        case "play":
            return f"plays the {face(arg).title} ({face(arg).family}) for its power"
        case "set":
            return f"starts a set of {title(arg)}"
        case "extend":
            return f"adds to set {arg}"
        case "card":
            return f"lays {_card_words(arg)}"
        case "done":
            return "is done"
        case "token":
            return f"chooses the {title(arg)} token"
        case "target":
            return f"chooses seat {arg}"
        case "apply":
            return "applies the token"
        case "discard":
            return "discards the token unused"
        case "prosperity":
            return f"puts Prosperity on set {arg}"
        case "family":
            return f"names {title(arg)}: those cards leave the corruption pile"
        case "steal":
            return f"steals a card with a {arg.removeprefix('back_')} back"
        case "pick":
            return f"takes {_card_words(arg)} from the corruption pile" if secret \
                else "takes a card from the corruption pile"
        case "bury":
            return f"buries {_card_words(arg)} under the corruption tile" if secret \
                else "buries a card under the corruption tile"
    return action


def _card_words(name: str) -> str:
    """``wheat_1`` -> "Wheat (1 scarab)", ``thief_fish`` -> "the Thief (Fish)", ``amulet`` -> "an Amulet"."""
    f = face(name)
    if f.family == "wild":
        return "an Amulet"
    if f.title != f.family:  # a character
        return f"the {f.title} ({f.family})"
    return f"{f.title} ({f.value} scarab{'' if f.value == '1' else 's'})"
