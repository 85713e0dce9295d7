"""``referee.launch``: the one way to run a match from another program, in a real referee process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from arena_games import get_game
from referee import RefereeFailed, launch
from referee.spec import BotSpec, MatchSpec, SpecError, TimeControl, new_secret, parse_spec

from .helpers import HEURISTIC_BOT, RANDOM_BOT, ROOT, check_records_replay
from .test_misbehaving import processes_running

BUILTINS = [{"name": n, "builtin": "random"} for n in "abc"]


def referees_of(spec_path: Path) -> list[int]:
    """The pids of the referee processes playing the spec at ``spec_path``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if argv[1:4] == ["-m", "referee", str(spec_path)]:
            found.append(int(pid))
    return found


def socket_roots_of(pid: int) -> list[Path]:
    return [p for p in Path("/tmp").glob("arena-*") if (p / "owner").exists()
            and (p / "owner").read_text().endswith(f":{pid}")]


def wait_for(condition, seconds: float, what: str) -> float:
    """Polls ``condition`` until it holds; returns the seconds it took."""
    t0 = time.monotonic()
    while not condition():
        assert time.monotonic() - t0 < seconds, f"{what}: not within {seconds} s"
        time.sleep(0.05)
    return time.monotonic() - t0


def test_launch_plays_a_spec_in_a_referee_process_and_reads_its_result(tmp_path):
    spec = parse_spec({"match_id": "launched", "game": "prohis", "games": 3, "seed": 3, "bots": [
        {"name": "h", "command": HEURISTIC_BOT}, {"name": "r", "command": RANDOM_BOT},
        {"name": "b", "builtin": "random"}]})
    before = datetime.now(UTC)
    result = launch(spec, tmp_path / "out")
    assert result.spec == spec and result.out_dir == tmp_path / "out"
    # the referee read the spec as written, and result.json keeps it as run
    written = json.loads((tmp_path / "out" / "spec.json").read_text())
    assert written == result.data["spec"] and parse_spec(written) == spec
    assert [t["bot"] for t in result.totals] == ["h", "r", "b"]
    assert [g["index"] for g in result.games] == [0, 1, 2]
    assert [g["seed"] for g in result.games] == [spec.game_seed(g) for g in range(3)]
    check_records_replay(tmp_path / "out", result.data)
    assert before <= result.started_at and 0 < result.seconds < 120, result.seconds


def secret_spec() -> MatchSpec:
    return MatchSpec(game="sobek", bots=(BotSpec("a", builtin="random"), BotSpec("b", builtin="heuristic")),
                     settings=get_game("sobek").validate(2).to_dict())


def dev_spec() -> MatchSpec:
    return parse_spec({"game": "prohis", "seed": 7, "games": 5, "duplicate": False, "bots": [
        {"name": "p", "version": "2.1", "command": "python bot.py --fast"},
        {"name": "c", "image": "arena-bot/random:1.0.0"}, {"name": "i", "builtin": "heuristic"}]})


def league_spec() -> MatchSpec:
    settings = get_game("boss").validate(3, {"first_dealer": "2", "overtime": "false"}).to_dict()
    return MatchSpec(game="boss", bots=tuple(BotSpec(f"b{i}@1", version="1", image=f"img{i}") for i in range(3)),
                     games=3, secret=new_secret(), bot_secret=new_secret(), settings=settings, match_id="l-r0-1-2-3",
                     time=TimeControl(startup_ms=15_000, decision_ms=500, bank_ms=0), max_restarts=0,
                     plan=(("c0d0", 0), ("c0d1", 1), ("c0d2", 2)))


@pytest.mark.parametrize("make", [secret_spec, dev_spec, league_spec])
def test_a_spec_round_trips_exactly(make):
    """Whatever made it (code, a file, the league), a spec reads back from its JSON unchanged:
    the referee plays exactly the match its caller meant."""
    spec = make()
    text = json.dumps(spec.to_dict())
    again = parse_spec(json.loads(text))
    assert again == spec and parse_spec(spec.to_dict()) == spec
    assert json.dumps(again.to_dict()) == text
    assert [again.game_seed(g) for g in range(spec.games)] == [spec.game_seed(g) for g in range(spec.games)]


def test_a_spec_reads_back_with_every_setting():
    """Settings left out are the game's defaults, and the spec the referee reads names them all."""
    partial = MatchSpec(game="sobek", bots=secret_spec().bots, settings={"start_tie_break": "random"})
    assert parse_spec(partial.to_dict()).settings == {**secret_spec().settings, "start_tie_break": "random"}


@pytest.mark.parametrize("bots, message", [
    ((BotSpec("a", builtin="random"),), "Prohis is played by 3 to 6 players, not 1"),
    ((BotSpec("a", builtin="genius"), BotSpec("b", builtin="random"), BotSpec("c", builtin="random")),
     "bots[0] (a): builtin must be random or heuristic or search, got 'genius'"),
    ((BotSpec("a", builtin="random"),) * 3, "bot names must be unique within a match"),
])
def test_a_spec_that_cannot_run_is_refused_before_anything_is_written(tmp_path, bots, message):
    with pytest.raises(SpecError) as info:
        launch(MatchSpec(game="prohis", bots=bots), tmp_path / "never")
    assert message in str(info.value)
    assert not (tmp_path / "never").exists()


def test_a_referee_that_fails_is_a_clear_error(tmp_path):
    spec = parse_spec({"match_id": "nocpu", "game": "prohis", "bots": BUILTINS})
    with pytest.raises(RefereeFailed) as info:
        launch(spec, tmp_path / "out", cpu="9999")
    message = str(info.value)
    assert message.startswith(f"the referee of nocpu failed (exit status 2); see {tmp_path / 'out'}\n")
    assert "CPU 9999 is not available here" in message  # the referee's own words


def test_a_referee_killed_mid_match_is_a_clear_error(tmp_path):
    out = tmp_path / "out"
    spec = parse_spec({"match_id": "killed", "game": "prohis", "games": 100_000, "bots": BUILTINS})
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["result"] = launch(spec, out)
        except RefereeFailed as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    wait_for(lambda: (out / "game-001.jsonl").exists(), 60, "the referee's first games")
    [pid] = referees_of(out / "spec.json")
    os.kill(pid, signal.SIGKILL)
    thread.join(30)
    for leftover in socket_roots_of(pid):  # nothing could remove it: kill -9
        shutil.rmtree(leftover)
    assert "result" not in outcome
    assert str(outcome["error"]).startswith("the referee of killed failed (exit status -9)")
    assert not (out / "result.json").exists()


LAUNCHER = """
import sys
from pathlib import Path
from referee import launch
from referee.spec import parse_spec
bots = [{"name": n, "command": [sys.executable, sys.argv[2]]} for n in "abc"]
launch(parse_spec({"match_id": "orphan", "game": "prohis", "games": 100_000, "bots": bots}), Path(sys.argv[1]))
"""


def test_a_referee_ends_when_its_launcher_is_killed(tmp_path):
    """A caller killed with -9 (a league runner, `arena match`) leaves no match playing: its
    referee is told to stop, stops its bots, and removes its sockets."""
    out = tmp_path / "out"
    launcher = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(out), RANDOM_BOT[1]], cwd=ROOT)
    try:
        wait_for(lambda: (out / "game-001.jsonl").exists(), 60, "the referee's first games")
        [pid] = referees_of(out / "spec.json")
        assert len(socket_roots_of(pid)) == 1 and len(processes_running(RANDOM_BOT[1])) == 3
    finally:
        launcher.kill()
        launcher.wait()
    took = wait_for(lambda: not referees_of(out / "spec.json"), 30, "the orphaned referee's end")
    assert not socket_roots_of(pid), f"the referee left its sockets (it ended {took:.2f} s after its launcher)"
    assert not processes_running(RANDOM_BOT[1]), f"the referee left its bots (it ended {took:.2f} s after)"
    assert not (out / "result.json").exists()


def test_a_result_that_cannot_be_read_is_a_referee_failure_that_says_why(tmp_path):
    """What a real referee wrote, then spoilt as a disk, a copy or another program could: each is a
    RefereeFailed naming the match and the fault, never an exception from deep in a reader."""
    spec = parse_spec({"match_id": "spoilt", "game": "prohis", "games": 2, "seed": 1, "bots": BUILTINS})
    good = launch(spec, tmp_path).data
    path = tmp_path / "result.json"
    text = path.read_text()
    game = good["games"][0]
    cases = {
        text[: len(text) // 2]: "not JSON: ",
        "": "not JSON: Expecting value at line 1 column 1",
        "[" * 100_000: "not JSON: nested too deep",
        "[]": "not a JSON object",
        json.dumps({**good, "games": good["games"][:1]}): "1 game(s), the match has 2",
        json.dumps({**good, "totals": good["totals"][:2]}): "the totals are not those of 3 bots",
        json.dumps({**good, "timings": "fast"}): "its timings are not numbers",
        json.dumps({**good, "games": [{**game, "scores": None}, game]}): "game 0 lacks one of index, seed",
        json.dumps({**good, "games": [game, {**game, "bots": [0, 1, 7]}]}): "game 1's seats, scores, ranks",
    }
    from referee.launch import read_result

    assert read_result(spec, tmp_path) == good
    for content, problem in cases.items():
        path.write_text(content)
        with pytest.raises(RefereeFailed) as info:
            read_result(spec, tmp_path)
        assert str(info.value).startswith("the referee of spoilt wrote a result.json that cannot be read ("), info.value
        assert problem in str(info.value) and str(info.value).endswith(f"; see {tmp_path}"), (problem, info.value)
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(RefereeFailed, match="it is not UTF-8 text"):
        read_result(spec, tmp_path)


def test_a_full_disk_under_the_records_is_said_in_one_line(tmp_path, small_disk):
    """A referee whose records fill their disk stops with one line naming that disk (exit status
    3), no traceback; launch() makes it a NoSpaceLeft naming the folder."""
    from referee import NoSpaceLeft

    disk = small_disk(tmp_path / "disk", size_mb=1)
    spec = parse_spec({"match_id": "full", "game": "prohis", "games": 2000, "seed": 1, "bots": BUILTINS})
    out = disk.path / "out"
    with pytest.raises(NoSpaceLeft) as info:
        launch(spec, out)
    assert str(info.value) == (f"no space left on the disk holding {out}: the referee of full could not write its "
                               f"records (see {out})")
    assert info.value.folder == out
    done = subprocess.run([sys.executable, "-m", "referee", str(out / "spec.json"), "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 3, done.stderr
    assert done.stderr.strip().splitlines() == [f"arena-referee: no space left on the disk holding {out}: the match "
                                                f"stopped (No space left on device); what was written is in {out}"]
