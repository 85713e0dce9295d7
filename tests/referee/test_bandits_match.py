"""Real gRPC matches of Bandits over Unix sockets between local-process bots."""

from __future__ import annotations

import pytest

from referee.games.bandits import BanditsSettings
from referee.records import read_record

from .helpers import PY, RANDOM_BOT, ROOT, bot, check_records_replay, play_match

BANDITS_BOT = [PY, str(ROOT / "sample_bots/python/bandits_heuristic/bot.py")]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_bandits_match_at_every_player_count(tmp_path, n):
    bots = [bot(f"b{i}", BANDITS_BOT if i % 2 else RANDOM_BOT) for i in range(n)]
    result = play_match(tmp_path, bots, games=n, seed=n, game="bandits")
    assert len(result["games"]) == n
    for g in result["games"]:
        assert g["failures"] == [""] * n
        assert sorted(g["ranks"])[0] == 1
    # seats rotate: every bot sits in every seat once over n games
    for b in range(n):
        assert sorted(g["bots"].index(b) for g in result["games"]) == list(range(n))
    check_records_replay(tmp_path, result)
    header = read_record(tmp_path / "game-000.jsonl").header
    assert (header["game"], header["num_players"]) == ("bandits", n)
    assert header["settings"] == BanditsSettings().to_dict()  # every setting, with its default


def test_bandits_settings_reach_the_engine(tmp_path):
    bots = [bot("r", RANDOM_BOT), bot("h", BANDITS_BOT), bot("r2", RANDOM_BOT)]
    result = play_match(tmp_path, bots, games=3, seed=5, game="bandits",
                        settings={"max_rounds": 1, "backfire": False})
    check_records_replay(tmp_path, result)
    for g in result["games"]:
        state = read_record(tmp_path / g["record"]).replay()
        assert state.round == 1 and state.settings.backfire is False


def test_bandits_process_and_builtin_bots_play_identical_games(tmp_path):
    """The heuristic makes the same decisions in process and over gRPC: the wire carries
    exactly the engine's view."""
    procs = play_match(tmp_path / "p", [bot("a", BANDITS_BOT), bot("b", RANDOM_BOT), bot("c", BANDITS_BOT)],
                       games=3, seed=11, game="bandits")
    builtins = play_match(tmp_path / "b", [{"name": "a", "builtin": "heuristic"},
                                           {"name": "b", "builtin": "random"},
                                           {"name": "c", "builtin": "heuristic"}],
                          games=3, seed=11, game="bandits")
    for g in range(3):
        assert read_record(tmp_path / "p" / f"game-{g:03d}.jsonl").actions == \
            read_record(tmp_path / "b" / f"game-{g:03d}.jsonl").actions
    assert [g["scores"] for g in procs["games"]] == [g["scores"] for g in builtins["games"]]
