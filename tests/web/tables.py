"""Reading the cards a replay page shows, from its HTML: for comparing with the API's answer, and
the page drawn on the server with the one replay.js draws."""

from __future__ import annotations

from html.parser import HTMLParser


class _Cards(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.cards: dict[tuple[str, str], list[str]] = {}
        self.stack: list[tuple[str, dict[str, str | None]]] = []
        self.in_table = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag in ("br", "input", "meta", "link", "img"):
            return
        self.stack.append((tag, found))
        if found.get("id") == "table":
            self.in_table = True
        if not self.in_table or "data-card" not in found:
            return
        seat = next((a["data-seat"] for t, a in reversed(self.stack) if t == "section" and "data-seat" in a), None)
        field = next((a["data-field"] for t, a in reversed(self.stack) if t == "dd" and "data-field" in a), None)
        if seat is not None and field is not None:
            self.cards.setdefault((seat, field), []).append(found["data-card"] or "")

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            open_tag, attrs = self.stack.pop()
            if attrs.get("id") == "table":
                self.in_table = False
            if open_tag == tag:
                break


def shown_cards(html: str) -> dict[tuple[str, str], list[str]]:
    """``{(seat, field): [card, ...]}`` of the step table (``#table``) in ``html``: every card
    chip, under the seat's section and the field it is in."""
    parser = _Cards()
    parser.feed(html)
    return parser.cards


def view_cards(view: dict, seat: int | str) -> dict[tuple[str, str], list[str]]:
    """The same, from a view as the API gives it: its fields that are lists of cards."""
    return {(str(seat), k): v for k, v in view.items()
            if k not in ("events", "players") and isinstance(v, list) and v and all(isinstance(c, str) for c in v)}
