"""Real gRPC matches of The Boss over Unix sockets between local-process bots."""

from __future__ import annotations

import pytest

from referee.records import read_record
from referee.spec import SpecError, parse_spec

from .helpers import PY, RANDOM_BOT, ROOT, bot, check_records_replay, play_match

BOSS_HEURISTIC_BOT = [PY, str(ROOT / "sample_bots/python/boss_heuristic/bot.py")]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_boss_match_at_every_player_count(tmp_path, n):
    bots = [bot(f"b{i}", BOSS_HEURISTIC_BOT if i % 2 == 0 else RANDOM_BOT) for i in range(n)]
    result = play_match(tmp_path, bots, games=n, seed=n, game="boss")
    assert len(result["games"]) == n
    for g in result["games"]:
        assert g["failures"] == [""] * n
    for b in range(n):  # seats rotate: every bot sits in every seat once
        assert sorted(g["bots"].index(b) for g in result["games"]) == list(range(n))
    check_records_replay(tmp_path, result)
    header = read_record(tmp_path / "game-000.jsonl").header
    assert (header["game"], header["num_players"], header["engine_version"]) == ("boss", n, "1.0.0")
    assert header["settings"]["overtime"] is True


def test_boss_match_with_settings_and_builtin_seats(tmp_path):
    bots = [bot("h", BOSS_HEURISTIC_BOT), {"name": "r", "builtin": "random"},
            {"name": "bh", "builtin": "heuristic"}]
    result = play_match(tmp_path, bots, games=3, seed=7, game="boss",
                        settings={"first_dealer": 2, "chicago_needs_other_boss": False})
    assert all(g["failures"] == [""] * 3 for g in result["games"])
    check_records_replay(tmp_path, result)
    header = read_record(tmp_path / "game-000.jsonl").header
    assert header["settings"]["first_dealer"] == 2


def test_settings_that_do_not_fit_the_player_count_are_refused_before_the_match():
    bots = [{"name": f"r{i}", "builtin": "random"} for i in range(3)]
    with pytest.raises(SpecError, match="'detroit,philadelphia,boston' does not fit 3 players"):
        parse_spec({"game": "boss", "settings": {"cities": "detroit,philadelphia,boston"}, "bots": bots})
    assert parse_spec({"game": "boss", "settings": {"cities": "detroit,philadelphia,boston"},
                       "bots": bots[:2]}).settings["cities"] == "detroit,philadelphia,boston"
