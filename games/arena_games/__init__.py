"""The game engines, and the registry that names them.

Each game is one module with a :class:`~arena_games.core.GameSpec` called ``GAME``; its
rules, as the module implements them, are ``docs/games/<name>.md``.
"""

from __future__ import annotations

from . import bandits, boss, prohis, sobek
from .core import (
    DONE,
    TERMINAL,
    Action,
    ActionError,
    BadPlayerCount,
    BadSettings,
    GameError,
    GameSpec,
    IllegalAction,
    MalformedAction,
    PhasedState,
    Settings,
    State,
    UnknownGame,
    View,
)

GAMES: dict[str, GameSpec] = {
    spec.name: spec for spec in (prohis.GAME, sobek.GAME, boss.GAME, bandits.GAME)
}


def get_game(name: str) -> GameSpec:
    """The spec of game ``name``; an unknown name raises :class:`UnknownGame` listing the known ones."""
    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGame(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}") from None


__all__ = [
    "DONE", "GAMES", "TERMINAL", "Action", "ActionError", "BadPlayerCount", "BadSettings",
    "GameError", "GameSpec", "IllegalAction", "MalformedAction", "PhasedState", "Settings", "State",
    "UnknownGame", "View", "get_game",
]
