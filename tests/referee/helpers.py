"""Running real matches in tests."""

from __future__ import annotations

import sys
from pathlib import Path

from referee.debug import CUT
from referee.limits import DEBUG_BYTES
from referee.match import run_match
from referee.records import Record, read_record
from referee.spec import parse_spec

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
RANDOM_BOT = [PY, str(ROOT / "sample_bots/python/random/bot.py")]
HEURISTIC_BOT = [PY, str(ROOT / "sample_bots/python/prohis_heuristic/bot.py")]
MISBEHAVE = [PY, str(ROOT / "tests/bots/misbehave.py")]


def bot(name: str, command: list[str]) -> dict:
    return {"name": name, "command": command}


def play_match(tmp_path: Path, bots: list[dict], games: int = 1, seed: int = 1, **extra) -> dict:
    data = {"match_id": "test", "game": "prohis", "games": games, "seed": seed, "bots": bots, **extra}
    return run_match(parse_spec(data), tmp_path)


def check_records_replay(tmp_path: Path, result: dict) -> None:
    """Every game's recorded actions, replayed through the engine, give the recorded scores."""
    for game in result["games"]:
        record = read_record(tmp_path / game["record"])
        assert record.result is not None
        state = record.replay()
        assert state.is_terminal()
        assert state.scores() == record.result["scores"] == game["scores"]


def check_debug_texts(record: Record, seat: int, tag: str) -> None:
    """The debug texts of ``seat`` in ``record``, as tests/kits/javascript/debugger.js and its
    twins in Go and C++ (tests/bots/debugger.go, debugger.cpp) say them: one a decision, beside
    it, made safe and cut; none for the other seats."""
    mine = [d for d in record.decisions if d["seat"] == seat]
    assert mine and all("debug" not in d for d in record.decisions if d["seat"] != seat)
    for n, d in enumerate(mine, 1):
        lines = d["debug"].split("\n")
        assert lines[0] == f"{tag} seat {seat} decision {n}: {d['action']}"
        if n % 3 == 0:
            assert lines[1] == "\\x1b[2J\\rforged\\u202eevil\ufffd"
        if n % 5 == 0:
            assert d["debug"].endswith(CUT) and len(d["debug"].encode()) == DEBUG_BYTES + len(CUT)
