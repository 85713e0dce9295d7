"""Running real matches in tests."""

from __future__ import annotations

import sys
from pathlib import Path

from referee.match import run_match
from referee.records import read_record
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
