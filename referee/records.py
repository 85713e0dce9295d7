"""Game records: one JSON-lines file per game.

Line 1 is the header (game, settings, seed, deal label, engine version, who sits where); then one
line per decision (seat, action, think time, and whether the referee's fallback made
it; and the bot's debug text for it, when it sent one: its owner's alone, see
:func:`without_debug`); a line for each failure, where it happened; the last line is the result. A record without
its result line is a game that did not finish (the referee was killed, or it is still being
played: a referee with bots out of process writes each line as it happens, so that the web
server can show a running game).

``seed`` + ``settings`` + the decisions' actions replay the game through the engine.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena_games import State, get_game

from .selfplay import replay

FORMAT = "arena-game-record/1"
_json_string = json.encoder.encode_basestring_ascii


class RecordError(ValueError):
    """A file that is not a readable game record."""


class RecordWriter:
    """Writes one game's record. With ``live``, every line reaches the file as it is written
    (about 3 µs a decision), so that a running game can be watched; without (every bot in
    process: tests, benchmarks), lines are buffered."""

    def __init__(self, path: Path, live: bool = False) -> None:
        self.path = path
        self.file = open(path, "w", buffering=1 if live else -1)  # noqa: SIM115 - closed by close()

    def _line(self, data: dict[str, Any]) -> None:
        self.file.write(json.dumps(data, separators=(",", ":")) + "\n")

    def header(self, **fields: Any) -> None:
        self._line({"type": "header", "format": FORMAT, **fields})

    def decision(self, seat: int, action: str, ms: float, debug: str = "", fallback: bool = False) -> None:
        """``debug``: the bot's debug text, already made safe (referee/debug.py); always the
        line's last key, so that :func:`without_debug` can cut it off."""
        # Written by hand: this is on every decision's path, and actions are plain legal strings.
        # (json.dumps's own string encoder, without its call's overhead: ASCII, all else escaped)
        tail = f',"debug":{_json_string(debug)}}}\n' if debug else ',"fallback":true}\n' if fallback else "}\n"
        self.file.write(f'{{"type":"decision","seat":{seat},"action":"{action}","ms":{ms:.3f}{tail}')

    def failure(self, seat: int, reason: str, detail: str, at: str = "start") -> None:
        """``at``: ``start`` (bringing the bot up for the game) or ``decision`` (asked one: the
        next decision line is the fallback played for it)."""
        self._line({"type": "failure", "seat": seat, "reason": reason, "detail": detail, "at": at})

    def result(self, scores: list[int], ranks: list[int], failures: list[str]) -> None:
        self._line({"type": "result", "scores": scores, "ranks": ranks, "failures": failures})

    def close(self) -> None:
        self.file.close()


@dataclass
class Record:
    """A record as read. Each failure also says where it happened: ``"decision"`` is the number
    of decisions recorded before it; with ``"at": "decision"`` the seat failed when it was asked
    that decision (whose line is then the fallback's), otherwise before it was asked (records
    older than ``at`` say nothing)."""

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


DEBUG_KEY = ',"debug":'


def without_debug(data: bytes) -> bytes:
    """A record's bytes with every decision's debug text taken out: what a record is where
    every seat's reader may read it (a bundle). The debug key is a decision line's last, and
    the sequence ``,"debug":`` cannot occur inside a JSON string (its quote would be escaped),
    so each line is cut there and closed: exactly the line written without a debug text."""
    if DEBUG_KEY.encode() not in data:
        return data
    lines = data.split(b"\n")
    for i, line in enumerate(lines):
        at = line.find(DEBUG_KEY.encode())
        if at >= 0 and line.startswith(b'{"type":"decision"'):
            lines[i] = line[:at] + b"}"
    return b"\n".join(lines)


def read_record(path: str | Path, growing: bool = False) -> Record:
    """The record in ``path``. With ``growing`` (a game being played), a last line that is not
    complete yet is left for the next read."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror}") from None
    if growing:
        text = text[: text.rfind("\n") + 1]
    lines = text.splitlines()
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
            record.failures.append({**data, "decision": len(record.decisions)})
        elif kind == "result":
            record.result = data
        else:
            raise RecordError(f"{path}:{number}: unknown line type {kind!r}")
    if record is None:
        raise RecordError(f"{path}: empty file")
    return record
