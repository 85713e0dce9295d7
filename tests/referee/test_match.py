"""Real gRPC matches over Unix sockets between local-process bots."""

from __future__ import annotations

import json

import pytest

from referee.match import log_name, ranks_with_failures
from referee.records import read_record

from .helpers import HEURISTIC_BOT, RANDOM_BOT, bot, check_records_replay, play_match


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_match_at_every_player_count(tmp_path, n):
    bots = [bot(f"b{i}", HEURISTIC_BOT if i % 2 else RANDOM_BOT) for i in range(n)]
    result = play_match(tmp_path, bots, games=n, seed=n)
    assert len(result["games"]) == n
    for g in result["games"]:
        assert g["failures"] == [""] * n
        assert sorted(g["bots"]) == list(range(n))
    # seats rotate: every bot sits in every seat once over n games
    for b in range(n):
        assert sorted(g["bots"].index(b) for g in result["games"]) == list(range(n))
    # duplicate deals: one seed for the n rotations
    assert len({g["seed"] for g in result["games"]}) == 1
    check_records_replay(tmp_path, result)
    assert json.loads((tmp_path / "result.json").read_text()) == result


def test_record_header_and_decisions(tmp_path):
    result = play_match(tmp_path, [bot("r1", RANDOM_BOT), bot("h", HEURISTIC_BOT), bot("r2", RANDOM_BOT)])
    record = read_record(tmp_path / "game-000.jsonl")
    h = record.header
    assert (h["game"], h["num_players"], h["engine_version"]) == ("prohis", 3, "1.0.0")
    assert h["seed"] == result["games"][0]["seed"]
    assert h["settings"]["max_bribe_offers"] == 3
    assert [s["bot"] for s in h["seats"]] == ["r1", "h", "r2"]
    assert [s["version"] for s in h["seats"]] == ["1.0.0", "1.0.0", "1.0.0"]  # from each bot's hello
    assert record.decisions and all({"seat", "action", "ms"} <= set(d) for d in record.decisions)
    assert all(d["ms"] >= 0 for d in record.decisions)


def test_builtin_and_process_bots_play_identical_games(tmp_path):
    """The same strategies in process and over gRPC make the same decisions: the wire
    carries exactly the engine's view, and every bot is seeded by the referee."""
    procs = play_match(tmp_path / "p", [bot("a", HEURISTIC_BOT), bot("b", RANDOM_BOT), bot("c", RANDOM_BOT),
                                        bot("d", HEURISTIC_BOT)], games=4, seed=11)
    builtins = play_match(tmp_path / "b", [{"name": "a", "builtin": "heuristic"},
                                           {"name": "b", "builtin": "random"},
                                           {"name": "c", "builtin": "random"},
                                           {"name": "d", "builtin": "heuristic"}], games=4, seed=11)
    for g in range(4):
        assert read_record(tmp_path / "p" / f"game-{g:03d}.jsonl").actions == \
            read_record(tmp_path / "b" / f"game-{g:03d}.jsonl").actions
    assert [g["scores"] for g in procs["games"]] == [g["scores"] for g in builtins["games"]]


def test_ranks_with_failures():
    assert ranks_with_failures([4, 2, 2, 1], ["", "", "", ""]) == [4, 2, 2, 1]
    assert ranks_with_failures([4, 2, 2, 1], ["", "", "", "timeout"]) == [3, 1, 1, 4]
    assert ranks_with_failures([4, 2, 2, 1], ["crash", "", "", "timeout"]) == [3, 1, 1, 3]
    assert ranks_with_failures([1, 2, 3], ["crash", "", ""]) == [3, 1, 2]


def test_match_ranks_keep_the_games_tie_breaks(tmp_path):
    """The referee ranks by the engine's ranks, so a game's tie-break holds in matches too."""
    bots = [{"name": n, "builtin": "heuristic"} for n in "abcd"]
    result = play_match(tmp_path, bots, games=8, seed=3, settings={"tie_break": "most_illegal"})
    for game in result["games"]:
        state = read_record(tmp_path / game["record"]).replay()
        assert game["ranks"] == state.ranks()


def test_any_bot_name_gets_a_safe_log_file(tmp_path):
    names = ["../up", "a/b", "nul\x00byte", "x" * 300, "ok@1.0"]
    result = play_match(tmp_path, [bot(n, RANDOM_BOT) for n in names[:3]], games=1)
    assert not any(f for f in result["games"][0]["failures"])
    logs = sorted(p.name for p in tmp_path.glob("bot*.log"))
    assert logs == ["bot0-.._up.log", "bot1-a_b.log", "bot2-nul_byte.log"]
    assert log_name(3, names[3]) == f"bot3-{'x' * 64}.log" and log_name(4, names[4]) == "bot4-ok@1.0.log"
