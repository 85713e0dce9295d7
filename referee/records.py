"""Game records: one JSON-lines file per game.

Line 1 is the header (game, settings, seed, deal label, engine version, who sits where); then one
line per decision (seat, action, think time, and whether the referee's fallback made
it); a line for each failure; the last line is the result. A record without its result
line is a game that did not finish (the referee was killed): it does not count.

``seed`` + ``settings`` + the decisions' actions replay the game through the engine.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .games import State, get_game
from .selfplay import replay

FORMAT = "arena-game-record/1"


class RecordError(ValueError):
    """A file that is not a readable game record."""


class RecordWriter:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.file = open(path, "w")  # noqa: SIM115 - closed by close()

    def _line(self, data: dict[str, Any]) -> None:
        self.file.write(json.dumps(data, separators=(",", ":")) + "\n")

    def header(self, **fields: Any) -> None:
        self._line({"type": "header", "format": FORMAT, **fields})

    def decision(self, seat: int, action: str, ms: float, fallback: bool = False) -> None:
        # Written by hand: this is on every decision's path, and actions are plain legal strings.
        tail = ',"fallback":true}\n' if fallback else "}\n"
        self.file.write(f'{{"type":"decision","seat":{seat},"action":"{action}","ms":{ms:.3f}{tail}')

    def failure(self, seat: int, reason: str, detail: str) -> None:
        self._line({"type": "failure", "seat": seat, "reason": reason, "detail": detail})

    def result(self, scores: list[int], ranks: list[int], failures: list[str]) -> None:
        self._line({"type": "result", "scores": scores, "ranks": ranks, "failures": failures})

    def close(self) -> None:
        self.file.close()


@dataclass
class Record:
    header: dict[str, Any]
    decisions: list[dict[str, Any]] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None

    @property
    def actions(self) -> list[str]:
        return [d["action"] for d in self.decisions]

    def replay(self) -> State:
        """The engine's state after replaying this record's actions from its seed."""
        h = self.header
        return replay(get_game(h["game"]), h["num_players"], h["seed"], self.actions, h["settings"])


def read_record(path: str | Path) -> Record:
    path = Path(path)
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror}") from None
    record: Record | None = None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(f"{path}:{number}: not JSON ({exc.msg})") from None
        kind = data.get("type") if isinstance(data, dict) else None
        if record is None:
            if kind != "header" or data.get("format") != FORMAT:
                raise RecordError(f"{path}: not an Arena game record (no {FORMAT} header on line 1)")
            record = Record(header=data)
        elif kind == "decision":
            record.decisions.append(data)
        elif kind == "failure":
            record.failures.append(data)
        elif kind == "result":
            record.result = data
        else:
            raise RecordError(f"{path}:{number}: unknown line type {kind!r}")
    if record is None:
        raise RecordError(f"{path}: empty file")
    return record
