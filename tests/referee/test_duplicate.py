"""No bot process is dealt the same deal twice (ACPC's duplicate rule), yet every deal of a
duplicate match is played in every seat rotation."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from .helpers import PY, ROOT, bot, check_records_replay, play_match

RECORDER = [PY, str(ROOT / "tests/bots/recorder.py")]


def dealt(log: Path, result: dict) -> dict[str, list[str]]:
    """What each process of a bot says it was dealt: process -> the deals of its games."""
    deals: dict[str, list[str]] = defaultdict(list)
    for line in log.read_text().splitlines():
        if line.startswith("DEALT "):
            _, process, game_index, _seat = line.split()
            deals[process].append(result["games"][int(game_index)]["deal"])
    return deals


def test_a_duplicate_match_gives_each_rotation_fresh_processes(tmp_path):
    result = play_match(tmp_path, [bot(f"rec{i}", RECORDER) for i in range(3)], games=6, seed=2)
    games = result["games"]
    # two deals, each in all three rotations
    assert sorted((g["deal"], g["rotation"]) for g in games) == [(d, r) for d in "01" for r in range(3)]
    assert len({g["seed"] for g in games}) == 2
    for b in range(3):
        per_process = dealt(tmp_path / f"bot{b}-rec{b}.log", result)
        assert sum(map(len, per_process.values())) == 6, per_process  # it was told of every game
        for process, deals in per_process.items():
            assert len(deals) == len(set(deals)), f"bot {b}'s process {process} was dealt {deals}"
        assert len(per_process) == 3, per_process  # one process per rotation
        assert result["totals"][b]["processes"] == 3
        assert result["totals"][b]["restarts"] == 0  # a fresh process is not a restart
        assert sorted(g["bots"].index(b) for g in games) == [0, 0, 1, 1, 2, 2]  # every seat, twice
    check_records_replay(tmp_path, result)


def test_a_match_of_distinct_deals_keeps_its_processes(tmp_path):
    """A plan whose deals are all different (as a league's) needs no fresh process."""
    plan = [[f"d{i}", i % 3] for i in range(6)]
    result = play_match(tmp_path, [bot(f"rec{i}", RECORDER) for i in range(3)], plan=plan, seed=2, games=6)
    assert [t["processes"] for t in result["totals"]] == [1, 1, 1]
    for b in range(3):
        per_process = dealt(tmp_path / f"bot{b}-rec{b}.log", result)
        assert [len(d) for d in per_process.values()] == [6], per_process
    assert [g["deal"] for g in result["games"]] == [f"d{i}" for i in range(6)]


def test_in_process_players_are_renewed_too(tmp_path):
    """Built-in players get a fresh strategy per rotation, as processes do."""
    result = play_match(tmp_path, [{"name": n, "builtin": "random"} for n in "abc"], games=6, seed=2)
    assert [t["processes"] for t in result["totals"]] == [3, 3, 3]
