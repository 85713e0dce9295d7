"""Drawing a game's table every way it is drawn, for the games' table tests."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from arena.tables import scene
from arena.tables.svg import svg
from arena.tables.text import text
from arena_games import State, View, get_game
from arenabot.strategies import make_strategy


def drawn(game: str, views: Sequence[View], names: Sequence[str] | None = None) -> str:
    """The table of ``game`` from ``views`` (one seat's, or every seat's) as the wide SVG, the
    narrow SVG and the text, one after the other: what a perturbation test compares byte for
    byte (swap the cards a seat may not know, and its drawing must not change)."""
    table = scene(game, views)
    names = list(names) if names is not None else [f"seat {i}" for i in range(len(table.seats))]
    return "\n".join([svg(table, names, None), svg(table, names, None, narrow=True), text(table, names, None)])


def played(game: str, players: int, seed: int,
           settings: Mapping[str, Any] | None = None) -> Iterator[tuple[int, State]]:
    """A game of ``game`` between heuristic and random players (in turn), step by step:
    ``(step, state)`` before each decision and once at the end (the same state, played on)."""
    bots = [make_strategy("heuristic" if s % 2 else "random", game, seed + s) for s in range(players)]
    state = get_game(game).new_game(players, seed, settings)
    step = 0
    while True:
        yield step, state
        if state.is_terminal():
            return
        seat = state.current_player()
        state.apply(bots[seat].decide(state.view(seat), state.legal_actions()))
        step += 1
