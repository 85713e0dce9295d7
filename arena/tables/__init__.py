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
from typing import TYPE_CHECKING

from arena_games import View, get_game
from arena_games.scene import Scene
from referee.textlog import result_lines

if TYPE_CHECKING:
    from arena.replays import Replay


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


def clean(text: str, limit: int = 64) -> str:
    """``text`` chosen by someone else (a bot's name) or taken from a game, made fit to draw:
    every character that is not printable (controls, bidi overrides, line separators, what XML
    may not hold) removed, and cut to ``limit`` characters, ending in an ellipsis when cut."""
    out = "".join(c for c in str(text) if c.isprintable())
    return out if len(out) <= limit else out[: limit - 1] + "…"


def think_time(ms: float) -> str:
    """A decision's think time in words ("12 ms", "1.25 s")."""
    return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.0f} ms" if ms >= 1 else "under 1 ms"


def scene_of(replay: Replay, k: int) -> Scene:
    """The table at step ``k`` of ``replay``: its seat's view, or every seat's (the full table)."""
    step = replay.steps[k]
    return scene(replay.game, [step["view"]] if replay.seat is not None else step["views"])


def frame_of(replay: Replay, k: int) -> Frame:
    """What surrounds step ``k`` of ``replay``, in the game's words: the action in full only to
    the seat that took it, or on the full table; to the other seats, what every seat may know
    of it (``describe_action``'s ``secret``)."""
    spec = get_game(replay.game)
    step = replay.steps[k]
    decider = step["seat"] if step["seat"] >= 0 else None
    secret = replay.seat is None or replay.seat == decider
    action = None
    if step["action"] is not None:
        # a replay's step says it already, by the same rule (arena/replays.py): one wording
        action = step["said"] if "said" in step else spec.describe_action(step["action"], secret)
        if step.get("failure"):
            action += f" (the bot failed: {step['failure']}; the referee played for it)"
        elif step.get("fallback"):
            action += " (played by the referee for a failed bot)"
    legal = step.get("legal")
    result: tuple[str, ...] = ()
    if step.get("end") and replay.result is not None:
        r = replay.result
        result = tuple(line.strip() for line in
                       list(result_lines(spec, r["scores"], r["ranks"], replay.names, r["failures"]))[1:])
    return Frame(
        step=step["step"], last=len(replay.steps) - 1, decider=decider, action=action, ms=step["ms"],
        legal=tuple(spec.describe_action(a, True) for a in legal) if legal else None,
        events=tuple(step["events"]), result=result)
