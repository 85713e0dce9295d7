"""Readable game logs: events and results as lines of text; and text from bots made safe to print."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from arena_games import GameSpec


def event_lines(spec: GameSpec, events: Iterable[dict[str, Any]], names: Sequence[str]) -> Iterator[str]:
    def name(seat: int) -> str:
        return names[seat] if 0 <= seat < len(names) else f"seat {seat}"

    for event in events:
        line = spec.describe_event(event, name)
        if line:
            yield line


def result_lines(
    spec: GameSpec, scores: Sequence[int], ranks: Sequence[int], names: Sequence[str],
    failures: Sequence[str] | None = None,
) -> Iterator[str]:
    width = max(len(n) for n in names)
    yield "Final scores:"
    for seat in sorted(range(len(names)), key=lambda s: (ranks[s], s)):
        why = f"  (failed: {failures[seat]})" if failures and failures[seat] else ""
        yield f"  {ranks[seat]}. {names[seat]:<{width}}  {format_score(spec, scores[seat]):>10}{why}"


def format_score(spec: GameSpec, score: int) -> str:
    if spec.score_unit == "$":
        return f"-${-score:,}" if score < 0 else f"${score:,}"
    return f"{score} {spec.score_unit}"


def printable(text: str, limit: int = 64) -> str:
    """``text`` that a bot or an author chose (a name, a version, a failure detail, a line of
    output), made safe to print on a terminal or in a table: every character that is not
    printable (C0 and C1 controls such as ESC, CR and LF, DEL, bidi overrides, line
    separators) is written as its Python escape (``\\x1b``, ``\\n``, ``\\u202e``), and text
    longer than ``limit`` characters is cut, ending in "...", so it cannot push a table apart.
    """
    out = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
    return out if len(out) <= limit else out[: limit - 3] + "..."
