"""Real gRPC matches of Sobek over Unix sockets between local-process bots."""

from __future__ import annotations

import json

import pytest

from referee.records import read_record

from .helpers import MISBEHAVE, PY, RANDOM_BOT, ROOT, bot, check_records_replay, play_match

SOBEK_HEURISTIC_BOT = [PY, str(ROOT / "sample_bots/python/sobek_heuristic/bot.py")]


def sobek_match(tmp_path, bots: list[dict], games: int = 1, seed: int = 1, **extra) -> dict:
    return play_match(tmp_path, bots, games=games, seed=seed, game="sobek", **extra)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_match_at_every_player_count(tmp_path, n):
    bots = [bot(f"b{i}", SOBEK_HEURISTIC_BOT if i % 2 else RANDOM_BOT) for i in range(n)]
    result = sobek_match(tmp_path, bots, games=n, seed=n)
    assert len(result["games"]) == n
    for g in result["games"]:
        assert g["failures"] == [""] * n
        assert sorted(g["ranks"])[0] == 1
    for b in range(n):  # seats rotate: every bot sits in every seat once
        assert sorted(g["bots"].index(b) for g in result["games"]) == list(range(n))
    check_records_replay(tmp_path, result)
    assert json.loads((tmp_path / "result.json").read_text()) == result
    header = read_record(tmp_path / "game-000.jsonl").header
    assert (header["game"], header["num_players"], header["engine_version"]) == ("sobek", n, "1.0.0")
    assert header["settings"]["start_tie_break"] == "seat_order"


def test_the_heuristic_beats_random_over_the_wire(tmp_path):
    bots = [bot("heuristic", SOBEK_HEURISTIC_BOT), bot("random", RANDOM_BOT)]
    result = sobek_match(tmp_path, bots, games=6, seed=7)
    totals = {t["bot"]: t for t in result["totals"]}
    assert totals["heuristic"]["mean_score"] > totals["random"]["mean_score"]
    assert totals["heuristic"]["wins"] >= 4


def test_builtin_and_process_bots_play_identical_games(tmp_path):
    """Over the wire a Sobek bot sees exactly the engine's view: the same strategies make the
    same decisions in process and as processes."""
    procs = sobek_match(tmp_path / "p", [bot("a", SOBEK_HEURISTIC_BOT), bot("b", RANDOM_BOT),
                                         bot("c", SOBEK_HEURISTIC_BOT)], games=3, seed=11)
    builtins = sobek_match(tmp_path / "b", [{"name": "a", "builtin": "heuristic"},
                                            {"name": "b", "builtin": "random"},
                                            {"name": "c", "builtin": "heuristic"}], games=3, seed=11)
    for g in range(3):
        assert read_record(tmp_path / "p" / f"game-{g:03d}.jsonl").actions == \
            read_record(tmp_path / "b" / f"game-{g:03d}.jsonl").actions
    assert [g["scores"] for g in procs["games"]] == [g["scores"] for g in builtins["games"]]


def test_settings_reach_the_engine_and_the_record(tmp_path):
    settings = {"start_tie_break": "random", "track_symbols": "lotus,scarab,eye,ankh"}
    result = sobek_match(tmp_path, [bot("r1", RANDOM_BOT), bot("r2", RANDOM_BOT)], settings=settings)
    header = read_record(tmp_path / "game-000.jsonl").header
    assert header["settings"]["track_symbols"] == "lotus,scarab,eye,ankh"
    check_records_replay(tmp_path, result)


def test_a_failing_seat_gets_the_fallback_and_the_game_finishes(tmp_path):
    bots = [bot("r0", RANDOM_BOT), bot("bad", [*MISBEHAVE, "illegal", "5"]), bot("r2", RANDOM_BOT)]
    result = sobek_match(tmp_path, bots, seed=5)
    game = result["games"][0]
    seat = game["bots"].index(1)
    assert game["failures"][seat] == "illegal" and game["ranks"][seat] == 3
    record = read_record(tmp_path / game["record"])
    assert any(d.get("fallback") for d in record.decisions if d["seat"] == seat)
    check_records_replay(tmp_path, result)
