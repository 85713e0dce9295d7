"""Debug text per decision (``Reply.debug``): kept with its decision in the record, made safe,
capped per decision and per seat's game, never a failure; a bot that never sends one (a bot of
before) plays as it always did; more than the wire takes costs the referee nothing."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from arenabot import debugtext
from referee import debug
from referee.limits import DEBUG_BYTES, DEBUG_GAME_BYTES, DEBUG_SEND_BYTES
from referee.records import read_record, without_debug

from .helpers import PY, ROOT, check_records_replay, play_match

DEBUGGER = [PY, str(ROOT / "tests/bots/debugger.py")]


def debugger(kind: str, name: str = "") -> dict:
    return {"name": name or kind, "command": [*DEBUGGER, kind]}


def test_clean_escapes_every_control_but_newline_and_tab():
    text = "a\tb\nc\x1b[2J\rd\x07\x7f\x9b\x85\u2028\u202e\u2066\ud800\x00é✓"
    assert debug.clean(text) == "a\tb\nc\\x1b[2J\\rd\\x07\\x7f\\x9b\\x85\\u2028\\u202e\\u2066\\ud800\\x00é✓"


def test_a_long_text_is_cut_at_a_character_and_says_so():
    kept, left = debug.keep("é" * 1000, DEBUG_GAME_BYTES)  # 2000 bytes of UTF-8
    assert kept == "é" * (DEBUG_BYTES // 2) + debug.CUT
    assert left == DEBUG_GAME_BYTES - DEBUG_BYTES
    kept, _ = debug.keep("✓" * 400, DEBUG_GAME_BYTES)  # 3 bytes each: the cut falls inside one
    assert kept == "✓" * (DEBUG_BYTES // 3) + debug.CUT
    assert debug.keep("short", 100) == ("short", 95)


def test_the_games_allowance_ends_with_a_marker_then_nothing():
    kept, left = debug.keep("x" * 1000, 300)
    assert (kept, left) == ("x" * 300 + debug.SPENT, 0)
    assert debug.keep("more", 0) == ("", 0)


def test_the_kit_sends_what_was_said_since_the_last_reply_cut_to_its_cap():
    debugtext.debug("a", 1, ["x"])
    debugtext.debug("b", "c", sep="-")
    assert debugtext.take() == "a 1 ['x']\nb-c"
    assert debugtext.take() == ""
    debugtext.debug("é" * 3000, "\ud800")  # 6000 bytes, and a surrogate no UTF-8 holds
    assert debugtext.take() == "é" * (debugtext.SEND_BYTES // 2)
    debugtext.debug("\ud800 ✓")
    assert debugtext.take() == "? ✓"
    for _ in range(100_000):  # a call in a loop keeps no more than the cap
        debugtext.debug("x" * 100)
    assert len(debugtext._lines) < debugtext.SEND_BYTES // 100 + 2
    assert len(debugtext.take()) == debugtext.SEND_BYTES == DEBUG_SEND_BYTES


def test_kit_debug_text_is_kept_with_its_decision_safe_and_its_seats_only(tmp_path):
    result = play_match(tmp_path, [debugger("kit", "a"), {"name": "r", "builtin": "random"},
                                   debugger("old")], games=3)
    check_records_replay(tmp_path, result)
    assert all(f == ["", "", ""] for f in (g["failures"] for g in result["games"]))
    for game in result["games"]:
        seat = game["bots"].index(0)  # where the debugging bot sat in this game
        lines = (tmp_path / game["record"]).read_text().splitlines()
        assert all(line.isascii() for line in lines)
        record = read_record(tmp_path / game["record"])
        mine = [d for d in record.decisions if d["seat"] == seat]
        assert mine and all("debug" not in d for d in record.decisions if d["seat"] != seat)
        for n, d in enumerate(mine, 1):
            text = d["debug"]
            assert text.startswith(f"seat {seat} decision {n}: {d['action']}\tok")
            assert not any(c in text for c in "\x1b\r\x07\x7f\x9b\u202e")  # escaped, as \x1b ...
            if n % 3 == 0:
                # escaped; and the kit sent ? for the lone surrogate
                assert "\\x1b[2J\\rforged\\x07\\x7f\\x9b2J\\u202eevil<i>html</i>?" in text
            if n % 5 == 0:
                assert text.endswith(debug.CUT) and len(text.encode()) == DEBUG_BYTES + len(debug.CUT)
        # a bundle's copy: exactly the bytes a record without any debug text has
        stripped = without_debug((tmp_path / game["record"]).read_bytes())
        assert b"debug" not in stripped
        assert [json.loads(line) for line in stripped.decode().splitlines()] == \
            [{k: v for k, v in json.loads(line).items() if k != "debug"} for line in lines]


def test_a_flood_of_debug_text_is_cut_at_the_games_allowance_never_a_failure(tmp_path, monkeypatch):
    """No game of the four has the 256 decisions of one seat that 1 KiB each takes to spend
    256 KiB: the allowance is made 20 KiB here, so that a game spends it; each game has its own."""
    monkeypatch.setattr("referee.match.DEBUG_GAME_BYTES", 20 * 1024)
    result = play_match(tmp_path, [debugger("flood"), {"name": "r", "builtin": "random"},
                                   {"name": "s", "builtin": "random"}], games=2)
    for game in result["games"]:
        assert game["failures"] == ["", "", ""]
        record = read_record(tmp_path / game["record"])
        texts = [d.get("debug", "") for d in record.decisions if d["seat"] == game["bots"].index(0)]
        kept = sum(len(t.replace(debug.CUT, "").replace(debug.SPENT, "")) for t in texts)
        assert kept == 20 * 1024  # 5000 bytes sent a decision, 1024 kept, until the allowance is spent
        assert all(t.endswith(debug.CUT) for t in texts[:19])
        spent = [i for i, t in enumerate(texts) if t.endswith(debug.SPENT)]
        assert spent == [19] and texts[20:] and all(t == "" for t in texts[20:])


MEASURE = """
import resource, sys
from pathlib import Path
from referee.match import run_match
from referee.spec import parse_spec
spec = parse_spec({"match_id": "m", "game": "prohis", "games": 1, "seed": 3, "bots": [
    {"name": "b", "command": [sys.executable, sys.argv[1], sys.argv[2]]},
    {"name": "r", "builtin": "random"}, {"name": "s", "builtin": "random"}]})
result = run_match(spec, Path(sys.argv[3]))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, result["games"][0]["failures"][0])
"""


def test_ten_megabytes_of_debug_text_are_refused_by_the_wire_and_cost_the_referee_nothing(tmp_path):
    """The reply is over the transport's cap (MAX_BOT_MESSAGE): gRPC refuses it from its
    length, before reading it, and the bot's stream ends (it exits). The referee's
    peak memory is that of a match whose bot sends nothing."""
    peaks = {}
    for kind in ("old", "huge"):
        out = subprocess.run([sys.executable, "-c", MEASURE, DEBUGGER[1], kind, str(tmp_path / kind)],
                             capture_output=True, text=True, check=True, cwd=ROOT).stdout.split()
        peaks[kind] = int(out[0]) * 1024
        # the bot's stream ends as gRPC refuses its reply, and the bot exits: as the referee sees
        # first (its exit, or its stream's end)
        assert out[1:] == [] if kind == "old" else out[1] in ("crash", "disconnect")
    assert peaks["huge"] - peaks["old"] < 4 * 2**20, peaks
    assert all("debug" not in d for d in read_record(tmp_path / "huge" / "game-000.jsonl").decisions)


@pytest.mark.parametrize("answer, action, said", [
    ('{"action": "take:0", "debug": "why\\u001b\\n"}', "take:0", "why\\x1b\n"),
    ('{"action": "take:0", "debug": "raw\ttab \x1b[2J and \udcff"}', "take:0", "raw\ttab \\x1b[2J and \ufffd"),
    ('{"debug": "' + "d" * 70000 + '", "action": "take:0"}', "", ""),  # the action past the cap: illegal
    ('{"action": "take:0", "debug": "' + "d" * 10_000_000 + '"}', "take:0", "d" * DEBUG_BYTES + debug.CUT),
])
def test_the_stdio_adapter_passes_the_debug_key_on(tmp_path, answer, action, said):
    """A stdio bot answering with a JSON object: its debug text reaches the record, escaped and
    cut; a line of megabytes is cut too (the adapter keeps its first 64 KiB), never a failure,
    so long as the action comes first."""
    script = tmp_path / "bot.py"
    script.write_text("import sys\nfor line in sys.stdin:\n    if line.startswith('{\"type\": \"decision\"'):\n"
                      f"        legal = line.split('\"legal\": \"')[1].split('\"')[0].split()\n"
                      f"        answer = {answer!r}.replace('take:0', legal[0]) + '\\n'\n"
                      # \udcff: a raw 0xff
                      "        sys.stdout.buffer.write(answer.encode('utf-8', 'surrogateescape'))\n"
                      "        sys.stdout.flush()\n")
    bot = {"name": "s", "command": [PY, "-m", "arenabot.stdio", "--name", "s", "--", PY, str(script)]}
    result = play_match(tmp_path / "out", [bot, {"name": "r", "builtin": "random"},
                                           {"name": "t", "builtin": "random"}], games=1)
    record = read_record(tmp_path / "out" / "game-000.jsonl")
    first = next(d for d in record.decisions if d["seat"] == 0)
    if action:
        assert result["games"][0]["failures"][0] == ""
        assert first["debug"] == said
    else:
        assert result["games"][0]["failures"][0] == "illegal"
        assert "debug" not in first


def test_arena_replay_prints_each_decisions_debug_text_escaped_again(tmp_path):
    """The operator's terminal: every seat's debug texts by decision (``--seat``: that seat's only;
    ``--no-debug``: none), each line escaped again, since a record file is hostile input too."""
    from click.testing import CliRunner

    from arena.cli import main as arena

    bots = [{"name": "a", "command": [*DEBUGGER, "kit", "a"]}, {"name": "r", "builtin": "random"},
            {"name": "b", "command": [*DEBUGGER, "kit", "b"]}]
    result = play_match(tmp_path, bots, games=1)
    a, b = (result["games"][0]["bots"].index(bot) for bot in (0, 2))  # the debuggers' seats
    path = tmp_path / "game-000.jsonl"
    lines = path.read_text().splitlines()
    forged = json.loads(lines[1])
    forged["debug"] = "raw \x1b[2J\rforged"  # as a record edited by hand: the referee never writes raw ESC
    path.write_text("\n".join([lines[0], json.dumps(forged), *lines[2:]]) + "\n")
    everything = CliRunner().invoke(arena, ["replay", str(path)])
    assert everything.exit_code == 0, everything.output
    assert "\x1b" not in everything.output and "\r" not in everything.output
    assert "    | raw \\x1b[2J\\rforged" in everything.output
    record = read_record(path)
    said = [d for d in record.decisions if "debug" in d]
    assert {d["seat"] for d in said} == {a, b, forged["seat"]}
    assert everything.output.count("  decision ") == len(said)
    only_b = CliRunner().invoke(arena, ["replay", str(path), "--seat", str(b)]).output
    assert "| a seat" not in only_b and "| b seat" in only_b
    assert only_b.count("  decision ") == sum(d["seat"] == b for d in said)
    assert "Debug output" not in CliRunner().invoke(arena, ["replay", str(path), "--no-debug"]).output
