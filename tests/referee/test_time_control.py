"""The time control: a Fischer increment and a match bank, enforced to the decision, and said to
the bot. A bot that sleeps known amounts (tests/bots/clock.py) plays sobek against a built-in
player; each sleep is at least 100 ms from its limit either way."""

from __future__ import annotations

import json
import re

import pytest

from referee.records import read_record
from referee.spec import SpecError, TimeControl, parse_spec

from .helpers import PY, ROOT, play_match

CLOCK = [PY, str(ROOT / "tests/bots/clock.py")]
# TIMING: each sleep is 100 ms from its limit, but a shared machine's hiccup can still take that
TIMING = pytest.mark.flaky(reruns=1)
# what the round trips of the decisions so far may have taken out of a bank: short of the 100 ms
# every sleep keeps from its limit (CI saw 40 ms passed, once, beside two processes of container tests)
SLACK_MS = 90


def play_clock(tmp_path, plan: str, games: int, **time: int) -> tuple[dict, list[dict]]:
    told = tmp_path / "told.jsonl"
    bots: list[dict] = [{"name": "clock", "command": [*CLOCK, str(told), plan]}, {"name": "r", "builtin": "random"}]
    result = play_match(tmp_path / "match", bots, games=games, game="sobek",
                        time={"startup_ms": 10_000, **time}, max_restarts=0)
    return result, [json.loads(line) for line in told.read_text().splitlines()]


def check_told(told: list[dict], expected: list[tuple[int, int, int, int, int]]) -> None:
    """Each (game, decision, time left, game bank left, match bank left) the bot was told, within
    what the round trips took."""
    for (game, decision, *amounts) in expected:
        entry = next(e for e in told if (e["game"], e["decision"]) == (game, decision))
        said = [entry["time_left_ms"], entry["bank_left_ms"], entry["match_bank_left_ms"]]
        assert all(want - SLACK_MS <= got <= want for got, want in zip(said, amounts, strict=True)), (
            f"game {game} decision {decision}: told {said}, the rules say {amounts}")


def clock_decisions(tmp_path, result: dict, g: int) -> list[dict]:
    game = result["games"][g]
    record = read_record(tmp_path / "match" / game["record"])
    return [d for d in record.decisions if d["seat"] == game["bots"].index(0)]


@TIMING
def test_an_increment_keeps_a_bot_in_time_until_bank_and_increments_run_out(tmp_path):
    """decision 100 ms, bank 300, increment 200. Three decisions of 300 ms (600 ms past the
    limit: without the increment the second would time out, given 200 ms), one at once (the
    bank grows to 500, past bank_ms: uncapped), one of 500 ms (given 600), and one of 500 ms
    given 400: a timeout there, not before."""
    result, told = play_clock(tmp_path, "300,300,300,0,500,500", games=1, decision_ms=100, bank_ms=300,
                              increment_ms=200)
    check_told(told, [(0, 1, 400, 300, 0), (0, 2, 400, 300, 0), (0, 3, 400, 300, 0), (0, 4, 400, 300, 0),
                      (0, 5, 600, 500, 0), (0, 6, 400, 300, 0)])
    game = result["games"][0]
    assert game["failures"][game["bots"].index(0)] == "timeout"
    mine = clock_decisions(tmp_path, result, 0)
    assert [d.get("fallback", False) for d in mine[:6]] == [False] * 5 + [True]
    assert [d["ms"] > 280 for d in mine[:5]] == [True, True, True, False, True]
    record = read_record(tmp_path / "match" / game["record"])
    assert [f["reason"] for f in record.failures] == ["timeout"]
    given = int(re.search(r"no reply within (\d+)", record.failures[0]["detail"]).group(1))
    assert 400 - SLACK_MS <= given <= 400  # 400 ms less the round trips


@TIMING
def test_a_match_bank_pays_what_the_game_banks_cannot_until_it_is_spent(tmp_path):
    """decision 100 ms, game bank 100, match bank 500, two games (the bot changes seats). Game 0:
    200 ms (the game bank pays 100), then 400 ms (the match bank 300: 200 left). Game 1, a full
    game bank again: 300 ms (given 400: 100 from the game bank, 100 from the match bank's 200),
    then 300 ms given 200: a timeout."""
    result, told = play_clock(tmp_path, "200,400/300,300", games=2, decision_ms=100, bank_ms=100,
                              match_bank_ms=500)
    check_told(told, [(0, 1, 700, 100, 500), (0, 2, 600, 0, 500), (1, 1, 400, 100, 200), (1, 2, 200, 0, 100)])
    first, second = result["games"]
    assert first["bots"].index(0) != second["bots"].index(0)  # a bank per bot, not per seat
    assert first["failures"] == ["", ""]
    assert second["failures"][second["bots"].index(0)] == "timeout"
    mine = clock_decisions(tmp_path, result, 1)
    assert [d.get("fallback", False) for d in mine[:2]] == [False, True] and mine[0]["ms"] > 280


def test_the_time_table_reads_back_and_says_what_is_wrong():
    bots = [{"name": "a", "builtin": "random"}, {"name": "b", "builtin": "random"}]
    spec = parse_spec({"game": "sobek", "bots": bots, "time": {"increment_ms": 250, "match_bank_ms": 30_000}})
    assert spec.time == TimeControl(increment_ms=250, match_bank_ms=30_000)
    assert parse_spec(json.loads(json.dumps(spec.to_dict()))) == spec
    assert parse_spec({"game": "sobek", "bots": bots}).time == TimeControl()  # neither: as before
    for time, words in [({"increment": 5}, "unknown: increment"), ({"increment_ms": -1}, "time.increment_ms"),
                        ({"match_bank_ms": 1.5}, "time.match_bank_ms"), ({"match_bank_ms": True}, "whole number"),
                        ({"match_bank_ms": 2**32}, "from 0 to 4294967295"), ({"decision_ms": 0}, "from 1 to")]:
        with pytest.raises(SpecError, match=words):
            parse_spec({"game": "sobek", "bots": bots, "time": time})
