"""The stdio adapter (arenabot.stdio), with local processes: a JSON-lines bot plays like any
other, sees exactly what the Python kit's bot sees, and each way it can fail gives the usual
failure reason while the match goes on."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main as arena
from arena_games import GAMES
from arenabot import stdio
from referee import limits
from referee.match import default_seat, run_match
from referee.spec import BotSpec, MatchSpec, parse_spec

from .helpers import PY, ROOT, bot, play_match
from .test_misbehaving import FAST, check_failed, processes_running
from .test_same_data import PatientSeat, differences, tape

STDIO_BOT = str(ROOT / "tests" / "bots" / "stdio_bot.py")
ADAPTER = [PY, "-m", "arenabot.stdio", "--name", "stdio-bot", "--version=2.0", "--"]
RANDOM = {"builtin": "random"}
ROOMY = {"time": {"startup_ms": 10000, "decision_ms": 3000, "bank_ms": 3000}}


def run_stdio(tmp_path: Path, kind: str, games: int = 1, **extra) -> dict:
    """A match of the stdio test bot (misbehaving once, at its second decision) between two random
    players, with time enough for a loaded machine unless ``extra`` says otherwise."""
    bots = [{"name": "r0", **RANDOM}, bot("bad", [*ADAPTER, PY, STDIO_BOT, kind, "1"]), {"name": "r2", **RANDOM}]
    return play_match(tmp_path, bots, games=games, seed=5, duplicate=False, **{**ROOMY, **extra})


def test_a_stdio_bot_plays_a_match_under_the_name_it_is_given(tmp_path):
    result = run_stdio(tmp_path, "well", games=3)
    assert [g["failures"] for g in result["games"]] == [["", "", ""]] * 3
    assert result["totals"][1]["version"] == "2.0"  # from the hello the adapter said
    assert result["totals"][1]["processes"] == 1


@pytest.mark.parametrize("kind, detail", [
    ("garbage", "'hello referee' is not one of"),
    ("huge", f"'{'x' * stdio.SHOWN}... (a line of more than {stdio.LINE_CAP} bytes)' is not one of"),
])
def test_an_answer_that_is_no_legal_action_is_illegal_and_the_bot_plays_on(tmp_path, kind, detail):
    result = run_stdio(tmp_path, kind, games=2)
    check_failed(tmp_path, result, "illegal", detail)
    assert result["games"][1]["failures"] == ["", "", ""]  # the stream and the pipes are in step again
    assert result["totals"][1]["processes"] == 1


def test_an_empty_answer_is_malformed(tmp_path):
    result = run_stdio(tmp_path, "empty", games=2)
    check_failed(tmp_path, result, "malformed", "the action is empty")
    assert result["totals"][1]["processes"] == 2  # restarted for its next game, as after any malformed reply


@pytest.mark.parametrize("kind, reason, detail", [
    ("silent", "timeout", "no reply within"),
    ("exit", "crash", "exit code 3; its last output: working hard | these are my dying words"),
    ("kill", "crash", "the stream closed mid-decision: killed by SIGKILL"),
    ("hangup", "crash", "killed by SIGKILL; its last output: arena-stdio: the bot closed its standard output but "
                        "still runs 1 s later: killed"),
])
def test_a_bot_that_stops_answering_fails_the_game(tmp_path, kind, reason, detail):
    result = run_stdio(tmp_path, kind, **(FAST if kind == "silent" else {}))
    check_failed(tmp_path, result, reason, detail)
    assert not processes_running("tests/bots/stdio_bot.py")


# Asks two decisions of a bot whose first answer is a 100 MB line; prints the answers, and the
# adapter's peak memory in MiB.
LONG_LINE = r"""
import re
from arena_protocol.proto import arena_pb2 as pb
from arenabot.stdio import StdioPlayer
request = pb.DecisionRequest(decision_id=7, view=pb.View(prohis={}), time_left_ms=20000)
request.legal_actions.add(text="pass")
player = StdioPlayer(["sh", "-c", "head -c 100000000 /dev/zero | tr '\\0' x; echo; echo pass; exec sleep 60"])
answers = [player.decide(request).text for _ in range(2)]
peak_kib = re.search(r"VmHWM:\s*(\d+)", open("/proc/self/status").read())[1]  # ru_maxrss outlives exec
print(answers[0][-40:], answers[1], int(peak_kib) // 1024)
player.proc.kill()
"""


def test_the_adapter_keeps_no_more_of_a_long_line_than_its_cap():
    """A 100 MB line goes through the adapter, which stays small, and reads the next answer in step."""
    script = LONG_LINE
    proc = subprocess.run([PY, "-c", script], capture_output=True, text=True, timeout=60)
    *first, second, max_rss_mb = proc.stdout.split()
    assert " ".join(first).endswith(f"xxx... (a line of more than {stdio.LINE_CAP} bytes)"), proc.stderr
    assert second == "pass"
    assert int(max_rss_mb) < 80, "the adapter kept the line"


def test_the_adapter_stops_a_bot_the_referee_has_given_up_on():
    """A bot that never answers is a timeout for the referee; the adapter stops it, and itself,
    a second later, saying so in the bot's log, rather than wait for the referee to kill it."""
    script = ("from arena_protocol.proto import arena_pb2 as pb\n"
              "from arenabot.stdio import StdioPlayer\n"
              "request = pb.DecisionRequest(decision_id=7, view=pb.View(prohis={}), time_left_ms=200)\n"
              "request.legal_actions.add(text='pass')\n"
              "StdioPlayer(['sleep', '60.0125']).decide(request)\n")
    t0 = time.monotonic()
    proc = subprocess.run([PY, "-c", script], capture_output=True, text=True, timeout=30)
    assert time.monotonic() - t0 < 10
    assert "arena-stdio: the bot did not answer decision 7 within its 200 ms: stopped" in proc.stderr
    assert proc.returncode == -signal.SIGKILL  # as the bot ended
    assert not processes_running("60.0125")  # the bot's sleep, by its argument


def test_a_program_that_cannot_run_is_a_crash_with_the_reason(tmp_path):
    bots = [{"name": "r0", **RANDOM}, bot("bad", [*ADAPTER, "/nonexistent/bot"]), {"name": "r2", **RANDOM}]
    result = play_match(tmp_path, bots, seed=5, max_restarts=0, time={"startup_ms": 1000})
    check_failed(tmp_path, result, "crash", "exited before saying hello (exit code 127); its last output: "
                 "arena-stdio: cannot run '/nonexistent/bot': No such file or directory")


def test_the_line_cap_is_the_referees_cap_on_a_bots_message():
    assert stdio.LINE_CAP == limits.MAX_BOT_MESSAGE


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_stdio_bot_is_sent_exactly_what_the_kit_gives_a_python_bot(game, tmp_path):
    """The same match twice: once with the kit's tape bot, once with the stdio bot, which plays as
    it does. Every decision line holds the kit's view and legal actions; the other lines hold what
    the kit tells a strategy at the start and end of a game."""
    kit = play_tape(game, tmp_path / "kit", stdio_tape=None)
    lines_file = tmp_path / "stdio.jsonl"
    play_tape(game, tmp_path / "stdio", stdio_tape=lines_file)
    raw = lines_file.read_text().splitlines()
    lines = [json.loads(line) for line in raw]
    assert [m["type"] for m in lines[:2]] == ["match_start", "game_start"] and lines[-1]["type"] == "match_end"
    assert all(line.startswith('{"type": "') for line in raw)  # "type" first, always
    decisions = [(m, line) for m, line in zip(lines, raw, strict=True) if m["type"] == "decision"]
    kit_decisions = [entry for entry in kit if entry[0] == "decide"]
    assert len(decisions) == len(kit_decisions) > 10
    found = []
    for i, ((message, line), (_, view, legal)) in enumerate(zip(decisions, kit_decisions, strict=True)):
        assert line.startswith(f'{{"type": "decision", "legal": "{" ".join(legal)}", '), line[:200]
        found += differences(view, message["view"], f"decision {i}: view")
        found += differences(legal, message["legal_actions"], f"decision {i}: legal_actions")
    starts = [m for m in lines if m["type"] == "game_start"]
    ends = [m for m in lines if m["type"] == "game_end"]
    kit_starts = [entry[1] for entry in kit if entry[0] == "start_game"]
    kit_ends = [entry[1] for entry in kit if entry[0] == "end_game"]
    assert len(starts) == len(kit_starts) == len(ends) == len(kit_ends) == 2
    for start, info in zip(starts, kit_starts, strict=True):
        assert (start["seat"], start["seed"], start["num_players"]) == (info["seat"], info["seed"], info["num_players"])
        assert [p["name"] for p in start["players"]] == info["players"]
    for end, result in zip(ends, kit_ends, strict=True):
        assert [r["score"] for r in end["results"]] == result["scores"]
        assert [r["rank"] for r in end["results"]] == result["ranks"]
        assert [r["failure"] for r in end["results"]] == result["failures"]
        found += differences(result["events"], end["events"], "game_end events")
    assert all({"time_left_ms", "bank_left_ms", "match_bank_left_ms"} <= set(m) for m, _ in decisions)
    assert lines[0]["game"] == game and set(lines[0]["time_control"]) == {
        "startup_ms", "decision_ms", "bank_ms", "increment_ms", "match_bank_ms"}
    assert not found, f"{len(found)} difference(s):\n" + "\n".join(found[:20])


def play_tape(game: str, out: Path, stdio_tape: Path | None) -> list[tuple]:
    """Two games of a tape bot (the kit's, or the stdio bot writing down its lines) against two
    built-in players; what the kit's tape was told (empty for the stdio bot)."""
    tape_file = out / "tape.pickle"
    out.mkdir(parents=True)
    if stdio_tape is None:
        command = [PY, str(ROOT / "tests" / "bots" / "tape.py"), str(tape_file)]
    else:
        command = [*ADAPTER, PY, STDIO_BOT, "well", "0", str(stdio_tape)]
    spec = parse_spec({
        "match_id": "stdio-same-data", "game": game, "games": 2, "seed": 17, "duplicate": False,
        "bots": [{"name": "tape", "command": command}, {"name": "heuristic", "builtin": "heuristic"},
                 {"name": "random", "builtin": "random"}],
        "time": {"startup_ms": 20000, "decision_ms": 10000, "bank_ms": 60000},
    })

    def seat(match: MatchSpec, bot: BotSpec, socket_dir: Path, log: Path):
        if bot.name != "tape":
            return default_seat(match, bot, socket_dir, log)
        return PatientSeat(bot.name, bot.version, bot.command, socket_dir, log)

    result = run_match(spec, out, seat_factory=seat)
    assert [g["failures"] for g in result["games"]] == [["", "", ""]] * 2
    return tape.read_tape(str(tape_file)) if stdio_tape is None else []


def test_arena_match_runs_a_stdio_command(tmp_path):
    awk_bot = ROOT / "sample_bots" / "shell" / "random" / "bot.awk"
    result = CliRunner().invoke(arena, [
        "match", "--game", "boss", "--games", "2", "--seed", "3", "--out", str(tmp_path), "--json",
        "--bot", f"me=stdio:awk -W interactive -f {awk_bot}", "--bot", "r=builtin:random",
        "--bot", "h=builtin:heuristic"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output[result.output.index("{"):])
    assert [g["failures"] for g in data["games"]] == [["", "", ""]] * 2
    # no ./bot.toml here: no version (not the adapter's "0") and every game
    assert data["spec"]["bots"][0]["command"][1:7] == ["-m", "arenabot.stdio", "--name=me", "--version=", "--games=",
                                                       "--"]
