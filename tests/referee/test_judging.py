"""Judging: a failed seat is restarted fresh whatever it failed by, a launch only ever gets a
stream opened for it, a reply answers the pending decision or is malformed at once, and a
refused hello rules the bot out of the whole match."""

from __future__ import annotations

import time

import pytest
from click.testing import CliRunner

from arena.cli import main as arena
from referee.records import read_record

from .helpers import MISBEHAVE, RANDOM_BOT, bot, check_records_replay, play_match

STARTUP_MS = 5000
# Short enough that a hanging bot costs little, long enough that an honest random bot on a busy
# machine never times out (one did at 300 + 200 ms in CI, failing a test about something else).
FAST = {"time": {"startup_ms": STARTUP_MS, "decision_ms": 500, "bank_ms": 1500}}


def bad_seat(game: dict) -> int:
    return game["bots"].index(1)


def failures(tmp_path, result) -> list[list[dict]]:
    return [read_record(tmp_path / g["record"]).failures for g in result["games"]]


@pytest.mark.parametrize("kind, reason, restarts", [
    ("garbage", "malformed", 1),
    ("zeroid", "malformed", 1),
    ("flood", "malformed", 1),
    ("illegal", "illegal", 0),  # its stream is sound: it plays on without a restart
    ("sleep", "timeout", 1),
    ("exit", "crash", 1),
    ("disconnect", "disconnect", 1),
    ("reconnect", "disconnect", 1),  # and its second stream is never handed to the next launch
])
def test_a_failed_seat_plays_its_next_games(tmp_path, kind, reason, restarts):
    """The bot misbehaves once, in game 0. In games 1 and 2 it (or the process that replaced
    it) answers every decision of its seat itself, and no restart waits out the startup limit."""
    bots = [bot("r0", RANDOM_BOT), bot("bad", [*MISBEHAVE, kind, "3", str(tmp_path / "once")]),
            bot("r2", RANDOM_BOT)]
    result = play_match(tmp_path, bots, games=3, seed=5, **FAST)
    recorded = failures(tmp_path, result)
    assert [g["failures"][bad_seat(g)] for g in result["games"]] == [reason, "", ""], recorded
    assert result["totals"][1]["restarts"] == restarts
    for g in result["games"][1:]:
        mine = [d for d in read_record(tmp_path / g["record"]).decisions if d["seat"] == bad_seat(g)]
        assert mine and not any(d.get("fallback") for d in mine), f"game {g['index']}: {mine}"
    startup = result["timings"]["startup"]
    assert startup < STARTUP_MS / 1000, (
        f"starting the bots and {restarts} restart(s) took {startup:.2f} s, the startup limit is "
        f"{STARTUP_MS} ms; failures: {recorded}")
    check_records_replay(tmp_path, result)


@pytest.mark.parametrize("kind, detail", [
    ("zeroid", "a reply to decision 0 while decision "),
    ("previd", "a reply to decision "),
])
def test_a_reply_to_another_decision_is_malformed_at_once(tmp_path, kind, detail):
    limit_ms = 20_000
    bots = [bot("r0", RANDOM_BOT), bot("bad", [*MISBEHAVE, kind, "3"]), bot("r2", RANDOM_BOT)]
    t0 = time.monotonic()
    result = play_match(tmp_path, bots, seed=5, time={"startup_ms": STARTUP_MS, "decision_ms": limit_ms,
                                                      "bank_ms": 0})
    took = time.monotonic() - t0
    game = result["games"][0]
    [failure] = read_record(tmp_path / game["record"]).failures
    assert game["failures"][bad_seat(game)] == "malformed", failure
    assert detail in failure["detail"], failure
    assert took < limit_ms / 1000 / 4, f"the match took {took:.2f} s; the decision limit is {limit_ms} ms"


@pytest.mark.parametrize("kind, detail", [
    ("badversion", "protocol_version: bot speaks protocol 99, referee speaks 1"),
    ("badgames", "protocol_version: bot plays sobek, not prohis"),
])
def test_a_refused_hello_rules_the_bot_out_of_the_match(tmp_path, kind, detail):
    bots = [bot("r0", RANDOM_BOT), bot("bad", [*MISBEHAVE, kind]), bot("r2", RANDOM_BOT)]
    t0 = time.monotonic()
    result = play_match(tmp_path, bots, games=3, seed=5, max_restarts=2, **FAST)
    took = time.monotonic() - t0
    for game, recorded in zip(result["games"], failures(tmp_path, result), strict=True):
        assert game["failures"] == ["" if s != bad_seat(game) else "protocol_version" for s in range(3)]
        assert [f"{f['reason']}: {f['detail']}" for f in recorded] == [detail]
        decisions = read_record(tmp_path / game["record"]).decisions
        assert all(d.get("fallback") for d in decisions if d["seat"] == bad_seat(game))
    assert result["totals"][1]["restarts"] == 0
    assert result["totals"][1]["refused"] == detail
    assert took < STARTUP_MS / 1000, f"the match took {took:.2f} s: no restart may wait for a hello"


def test_arena_match_names_a_refused_bot_and_why(tmp_path):
    out = CliRunner().invoke(arena, [
        "match", "--game", "prohis", "--games", "3", "--out", str(tmp_path), "--startup-ms", str(STARTUP_MS),
        "--bot", f"r0={' '.join(RANDOM_BOT)}", "--bot", f"sobek-fan={' '.join(MISBEHAVE)} badgames",
        "--bot", "r2=builtin:random"])
    assert out.exit_code == 0, out.output
    assert ("sobek-fan played no game: its hello was refused (protocol_version: bot plays sobek, not prohis)"
            in out.output), out.output
    assert "protocol_version x3" in out.output
