"""Drawing a game's table every way it is drawn, for the games' table tests."""

from __future__ import annotations

from collections.abc import Sequence

from arena.tables import scene
from arena.tables.svg import svg
from arena.tables.text import text
from arena_games import View


def drawn(game: str, views: Sequence[View], names: Sequence[str] | None = None) -> str:
    """The table of ``game`` from ``views`` (one seat's, or every seat's) as the wide SVG, the
    narrow SVG and the text, one after the other: what a perturbation test compares byte for
    byte (swap the cards a seat may not know, and its drawing must not change)."""
    table = scene(game, views)
    names = list(names) if names is not None else [f"seat {i}" for i in range(len(table.seats))]
    return "\n".join([svg(table, names, None), svg(table, names, None, narrow=True), text(table, names, None)])
