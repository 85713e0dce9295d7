"""Bots that sleep, crash, lie, babble or never show up: each is recorded with the right
reason and ranked last; the referee survives and the other seats finish their game."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from referee.records import read_record

from .helpers import MISBEHAVE, RANDOM_BOT, bot, check_records_replay, play_match

FAST = {"time": {"startup_ms": 3000, "decision_ms": 300, "bank_ms": 200}}


def run_with(tmp_path, kind: str, after: int = 3, games: int = 1, **extra):
    bots = [bot("r0", RANDOM_BOT), bot("bad", [*MISBEHAVE, kind, str(after)]), bot("r2", RANDOM_BOT)]
    return play_match(tmp_path, bots, games=games, seed=5, **{**FAST, **extra})


def bad_seat(game: dict) -> int:
    return game["bots"].index(1)


def check_failed(tmp_path, result, reason: str, detail: str = "") -> None:
    game = result["games"][0]
    seat = bad_seat(game)
    assert game["failures"][seat] == reason
    assert game["ranks"][seat] == 3  # last
    others = [s for s in range(3) if s != seat]
    assert all(not game["failures"][s] for s in others)
    # the others are ranked among themselves by score
    a, b = others
    assert (game["ranks"][a] < game["ranks"][b]) == (game["scores"][a] > game["scores"][b]) or \
        game["scores"][a] == game["scores"][b]
    record = read_record(tmp_path / game["record"])
    assert [f["reason"] for f in record.failures] == [reason]
    assert detail in record.failures[0]["detail"]
    # after the failure, the fallback played every decision of that seat
    first_fail = next(i for i, d in enumerate(record.decisions) if d.get("fallback"))
    assert all(d.get("fallback") for d in record.decisions[first_fail:] if d["seat"] == seat)
    check_records_replay(tmp_path, result)


def test_sleeping_past_the_limit_is_a_timeout(tmp_path):
    t0 = time.monotonic()
    result = run_with(tmp_path, "sleep")
    check_failed(tmp_path, result, "timeout", "no reply within 500 ms")
    assert time.monotonic() - t0 < 20  # the referee did not wait for the sleeper


def test_exiting_mid_game_is_a_crash(tmp_path):
    result = run_with(tmp_path, "exit")
    check_failed(tmp_path, result, "crash", "exit code 3")


def test_an_action_not_in_the_list_is_illegal(tmp_path):
    result = run_with(tmp_path, "illegal")
    check_failed(tmp_path, result, "illegal", "'flip:9' is not one of")


def test_garbage_in_the_stream_is_malformed(tmp_path):
    result = run_with(tmp_path, "garbage")
    check_failed(tmp_path, result, "malformed", "undecodable message")


def test_garbage_on_the_socket_never_says_hello(tmp_path):
    result = run_with(tmp_path, "rawgarbage", max_restarts=0)
    check_failed(tmp_path, result, "no_hello", "no hello within 3000 ms")


def test_never_connecting_is_no_hello(tmp_path):
    result = run_with(tmp_path, "noconnect", max_restarts=0)
    check_failed(tmp_path, result, "no_hello")


def test_wrong_protocol_version(tmp_path):
    result = run_with(tmp_path, "badversion", max_restarts=0)
    check_failed(tmp_path, result, "protocol_version", "speaks protocol 99")


def test_a_missing_program_fails_to_start(tmp_path):
    bots = [bot("r0", RANDOM_BOT), bot("bad", ["/nonexistent/bot"]), bot("r2", RANDOM_BOT)]
    result = play_match(tmp_path, bots, seed=5, max_restarts=0, **FAST)
    check_failed(tmp_path, result, "start_failed", "cannot run /nonexistent/bot")


def test_a_crashed_bot_is_restarted_for_the_next_game_up_to_the_limit(tmp_path):
    result = run_with(tmp_path, "exit", after=2, games=4, max_restarts=2)
    reasons = [g["failures"][bad_seat(g)] for g in result["games"]]
    assert reasons == ["crash", "crash", "crash", "restart_limit"]
    assert result["totals"][1]["restarts"] == 2
    for g in result["games"]:
        assert [f for s, f in enumerate(g["failures"]) if s != bad_seat(g)] == ["", ""]
    check_records_replay(tmp_path, result)


def test_a_bot_that_dies_before_a_game_is_that_games_crash_with_its_last_words(tmp_path):
    """Dead before its first game, with no restart allowed: its crash is told first (its exit
    status and last words), then the limit, whenever the referee saw it die."""
    result = run_with(tmp_path, "quit", games=2, max_restarts=0)
    assert [g["failures"][bad_seat(g)] for g in result["games"]] == ["crash", "restart_limit"]
    failure = read_record(tmp_path / result["games"][0]["record"]).failures[0]
    assert "exit code 3; its last output: quitting before the first game" in failure["detail"], failure


def test_a_timed_out_bot_is_restarted_for_the_next_game(tmp_path):
    """A timeout ends the bot's stream (its state is unknown): it is restarted before its next
    game, and a bot that keeps timing out uses up its restarts."""
    bots = [bot("r0", RANDOM_BOT), bot("slow", [*MISBEHAVE, "sleep", "2"]), bot("r2", RANDOM_BOT)]
    result = play_match(tmp_path, bots, games=3, seed=5, max_restarts=1, **FAST)
    details = [read_record(tmp_path / g["record"]).failures for g in result["games"]]  # shown if it fails
    details.append((tmp_path / "bot1-slow.log").read_text()[-2000:])
    assert [g["failures"][bad_seat(g)] for g in result["games"]] == ["timeout", "timeout", "restart_limit"], details
    assert result["totals"][1]["restarts"] == 1
    for g in result["games"]:
        assert [f for s, f in enumerate(g["failures"]) if s != bad_seat(g)] == ["", ""]


def test_no_bot_process_or_socket_is_left_behind(tmp_path):
    run_with(tmp_path, "exit", after=1, games=2)
    # this process's match folders (other processes on the machine may be running matches)
    leftovers = [p for p in Path("/tmp").glob("arena-*") if (p / "owner").exists()
                 and (p / "owner").read_text().endswith(f":{os.getpid()}")]
    assert not leftovers
    assert not processes_running("tests/bots/misbehave.py")


def processes_running(script: str) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(arg.decode(errors="replace").endswith(script) for arg in argv[:2]):
            found.append(f"{pid}: {b' '.join(argv).decode(errors='replace')}")
    return found


@pytest.mark.parametrize("kind", ["exit", "illegal"])
def test_bot_output_is_kept_with_the_records(tmp_path, kind):
    run_with(tmp_path, kind)
    log = tmp_path / "bot1-bad.log"
    assert log.exists()
    if kind == "illegal":
        assert "'flip:9' is not among the legal actions" in log.read_text()
