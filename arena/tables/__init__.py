"""Drawn tables: a game's step as a picture, for the replay page, the live page and the terminal.

A game's ``table`` (``games/arena_games/<game>/table.py``, named by its GameSpec) lays out what
may be seen as a :class:`~arena_games.scene.Scene`; :mod:`arena.tables.svg` draws a scene as SVG
(on the server: it works with JavaScript off and under the site's CSP) and :mod:`arena.tables.text`
as text for ``arena replay --step``. A :class:`Frame` is what surrounds the table at a step of a
replay: whose decision it is, the action taken and its think time, the legal actions, the events
in words, and the result at the end, each as the replay's seat may know it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena_games import View, get_game
from arena_games.scene import Scene
from referee.textlog import format_score

if TYPE_CHECKING:  # a replay is only read here
    from ..replays import Replay


@dataclass(frozen=True)
class Frame:
    """Around the table at one step, in words, as the viewing seat may know it."""

    step: int
    last: int  # the replay's last step
    decider: int | None  # whose decision it is (None once the game is over)
    action: str | None  # the action taken, in words; None when not shown
    ms: float | None  # its think time
    legal: tuple[str, ...] | None  # the legal actions in words, for the seat's own decision
    events: tuple[str, ...] = ()  # what happened since the seat's last step, in words
    result: tuple[str, ...] = ()  # at the end: scores and ranks, a line a seat


def scene(game: str, views: Sequence[View]) -> Scene:
    """The table of ``game`` from one seat's view, or from every seat's (the full table)."""
    spec = get_game(game)
    if spec.table is None:
        raise ValueError(f"{spec.title} has no drawn table")
    return spec.table(views)


# -- a replay's step, as drawn -------------------------------------------------------------------
def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def result_lines(game: str, names: Sequence[str], result: dict[str, Any]) -> tuple[str, ...]:
    """The game's end, a line a seat, best rank first: "1st · seat 2 · bob@1: $12,000"."""
    spec = get_game(game)
    scores, ranks = result.get("scores") or [], result.get("ranks") or []
    failures = result.get("failures") or [""] * len(scores)
    order = sorted(range(len(scores)), key=lambda s: (ranks[s] if s < len(ranks) else 0, s))
    return tuple(f"{ordinal(ranks[s])} · seat {s} · {names[s] if s < len(names) else ''}: "
                 f"{format_score(spec, scores[s])}" + (f" (failed: {failures[s]})" if failures[s] else "")
                 for s in order)


def scene_of(replay: Replay, k: int) -> Scene:
    """The table at step ``k`` of ``replay``, as its seat saw it (the full table: every seat's)."""
    step = replay.steps[min(max(k, 0), len(replay.steps) - 1)]
    return scene(replay.game, [step["view"]] if replay.seat is not None else step["views"])


def frame_of(replay: Replay, k: int) -> Frame:
    """What surrounds the table at step ``k``, in the game's words, as the replay's seat may know
    it: another seat's action only as every seat sees it (``describe_action(action, False)``),
    even where the replay holds it (a public game); the full table shows all. ``legal`` (the
    seat's own, when it was asked) and the events are in words too; the end has the result."""
    spec = get_game(replay.game)
    last = len(replay.steps) - 1
    step = replay.steps[min(max(k, 0), last)]
    seat = step["seat"]
    decider = None if step["end"] or seat < 0 else seat
    action = step["said"]  # arena/replays.py's words, as the replay's seat may know them
    legal = tuple(spec.describe_action(a, True) for a in step["legal"]) if step.get("legal") else None
    result = result_lines(replay.game, replay.names, replay.result) if step["end"] and replay.result else ()
    return Frame(step["step"], last, decider, action, step["ms"] if action is not None else None, legal,
                 tuple(step["events"]), result)
