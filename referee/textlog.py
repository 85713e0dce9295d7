"""Readable game logs: events and results as lines of text."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from .games import GameSpec


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
