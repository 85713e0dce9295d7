"""Playing a game with in-process players: the simplest loop around an engine.

Tests, benchmarks and the demo use it; the referee proper (seats, time limits,
records) wraps the same loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from arena_games import GameSpec, Settings, State


class Player(Protocol):
    def decide(self, view: dict[str, Any], legal_actions: list[str]) -> str: ...


def play(
    spec: GameSpec,
    players: Sequence[Player],
    seed: int,
    settings: Settings | Mapping[str, Any] | None = None,
    actions: list[str] | None = None,
) -> State:
    """Plays one game to its end and returns the final state.

    When ``actions`` is a list, every action taken is appended to it, so that
    ``replay(spec, len(players), seed, actions)`` reproduces the game.
    """
    state = spec.new_game(len(players), seed, settings)
    while not state.is_terminal():
        seat = state.current_player()
        action = players[seat].decide(state.view(seat), state.legal_actions())
        state.apply(action)
        if actions is not None:
            actions.append(action)
    return state


def replay(
    spec: GameSpec,
    num_players: int,
    seed: int,
    actions: Sequence[str],
    settings: Settings | Mapping[str, Any] | None = None,
) -> State:
    """Replays ``actions`` from ``seed``; the result is the game that produced them."""
    state = spec.new_game(num_players, seed, settings)
    for action in actions:
        state.apply(action)
    return state
