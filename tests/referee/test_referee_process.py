"""The referee as its own process, and the commands around it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main as arena
from arena_games import GAMES
from referee.spec import dev_secret

from .helpers import HEURISTIC_BOT, MISBEHAVE, RANDOM_BOT, ROOT

KNOWN_GAMES = ", ".join(sorted(GAMES))  # as unknown-game errors list them


def referee(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee", *args], capture_output=True, text=True,
                          cwd=ROOT, **kw)


def write_spec(tmp_path, **fields) -> str:
    spec = {"match_id": "proc", "game": "prohis", "games": 3, "seed": 3,
            "bots": [{"name": "h", "command": HEURISTIC_BOT}, {"name": "r", "command": RANDOM_BOT},
                     {"name": "b", "builtin": "random"}], **fields}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    return str(path)


def test_referee_process_runs_a_spec_and_writes_records(tmp_path):
    out = tmp_path / "out"
    proc = referee(write_spec(tmp_path), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("game ") == 3
    result = json.loads((out / "result.json").read_text())
    assert [t["bot"] for t in result["totals"]] == ["h", "r", "b"]
    assert sorted(p.name for p in out.glob("game-*.jsonl")) == ["game-000.jsonl", "game-001.jsonl",
                                                              "game-002.jsonl"]


def test_toml_spec(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text('game = "prohis"\nmatch_id = "t"\ngames = 1\n'
                    '[[bots]]\nname = "a"\nbuiltin = "random"\n[[bots]]\nname = "b"\nbuiltin = "random"\n'
                    '[[bots]]\nname = "c"\nbuiltin = "heuristic"\n')
    proc = referee(str(path), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr


def test_bad_specs_are_named_and_write_nothing(tmp_path):
    cases = {
        '{"game": "chess", "bots": []}': f"unknown game 'chess'; known games: {KNOWN_GAMES}",
        '{"game": "prohis", "bots": [{"name": "a", "builtin": "random"}]}': "3 to 6 players, not 1",
        '{"game": "prohis"': "not valid JSON",
        '{"game": "prohis", "bots": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}':
            "bots[0] (a) needs exactly one of command, builtin, image",
        '{"game": "prohis", "settings": {"bribes": 2}, "bots": [{"name": "a", "builtin": "random"}, '
        '{"name": "b", "builtin": "random"}, {"name": "c", "builtin": "random"}]}':
            "unknown setting(s) bribes",
        '{"game": "prohis", "gmaes": 3}': "unknown field(s) in match spec: gmaes",
    }
    for text, message in cases.items():
        path = tmp_path / "bad.json"
        path.write_text(text)
        proc = referee(str(path), "--out", str(tmp_path / "never"))
        assert proc.returncode == 2, (text, proc.stderr)
        assert message in proc.stderr, (text, proc.stderr)
        assert not (tmp_path / "never").exists()
    proc = referee(str(tmp_path / "missing.json"))
    assert proc.returncode == 2 and "cannot read match spec" in proc.stderr


# a random bot that first prints the CPUs it may run on
AFFINITY_BOT = [sys.executable, "-c", "import os, runpy, sys; print('cpus', sorted(os.sched_getaffinity(0)), "
                "flush=True); runpy.run_path(sys.argv[1], run_name='__main__')", RANDOM_BOT[1]]


def test_the_match_runs_on_one_core_with_its_bots(tmp_path):
    """By default the referee pins itself and its bots to the core it starts on; --cpu
    chooses the core, and --cpu none leaves the scheduler free."""
    allowed = sorted(os.sched_getaffinity(0))
    spec = write_spec(tmp_path, games=1, bots=[{"name": "a", "command": AFFINITY_BOT},
                                               {"name": "b", "command": AFFINITY_BOT},
                                               {"name": "c", "builtin": "random"}])
    for option, expected in ([], None), (["--cpu", str(allowed[-1])], [allowed[-1]]), (["--cpu", "none"], allowed):
        out = tmp_path / f"out{len(option)}{option[-1] if option else ''}"
        proc = referee(spec, "--out", str(out), *option)
        assert proc.returncode == 0, proc.stderr
        cpus = json.loads((out / "result.json").read_text())["cpus"]
        logs = [(out / f"bot{i}-{name}.log").read_text() for i, name in enumerate("ab")]
        if expected is None:  # auto: one core, whichever the referee started on
            assert len(cpus.split(",")) == 1 and int(cpus) in allowed
            expected = [int(cpus)]
        assert cpus == ",".join(map(str, expected))
        assert all(f"cpus {expected}" in log for log in logs), logs


def test_a_bad_cpu_option_is_refused(tmp_path):
    spec = write_spec(tmp_path, games=1)
    for value, message in ("9999", "CPU 9999 is not available here"), ("fast", "--cpu takes auto, none or"):
        proc = referee(spec, "--out", str(tmp_path / "never"), "--cpu", value)
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr
        assert not (tmp_path / "never").exists()
    env = {**os.environ, "ARENA_CPU": "9999"}
    proc = referee(spec, "--out", str(tmp_path / "never"), env=env)
    assert proc.returncode == 2 and "CPU 9999 is not available here" in proc.stderr


def test_sigterm_stops_the_match_and_its_bots(tmp_path):
    spec = write_spec(tmp_path, games=200, bots=[
        {"name": "s1", "command": [*MISBEHAVE, "sleep", "5"]},
        {"name": "s2", "command": [*MISBEHAVE, "sleep", "5"]},
        {"name": "r", "command": RANDOM_BOT}], time={"decision_ms": 60000, "bank_ms": 0})
    proc = subprocess.Popen([sys.executable, "-m", "referee", spec, "--out", str(tmp_path / "out")],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not list(tmp_path.glob("out/game-000.jsonl")):
        time.sleep(0.1)
    time.sleep(1.0)  # the bots are now sleeping inside a decision
    own = [p for p in Path("/tmp").glob("arena-*") if (p / "owner").exists()
           and (p / "owner").read_text().endswith(f":{proc.pid}")]
    assert len(own) == 1  # this referee's socket folder
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "stopped by a signal" in err
    assert not own[0].exists()
    from .test_misbehaving import processes_running

    assert not processes_running("tests/bots/misbehave.py")


def test_sigterm_stops_a_match_of_builtin_bots(tmp_path):
    """Built-in bots never make the match wait, so only a yield between games lets a stop in."""
    spec = write_spec(tmp_path, games=100_000, bots=[{"name": f"b{i}", "builtin": "random"} for i in range(3)])
    proc = subprocess.Popen([sys.executable, "-m", "referee", spec, "--out", str(tmp_path / "out")],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not list(tmp_path.glob("out/game-001.jsonl")):
        time.sleep(0.05)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    waited = time.monotonic() - t0
    assert proc.returncode == 130 and "stopped by a signal" in err, (proc.returncode, err[-500:])
    assert waited < 5, f"the referee took {waited:.1f} s to stop"


def test_arena_match_prints_a_results_table(tmp_path):
    result = CliRunner().invoke(arena, [
        "match", "--game", "prohis", "--games", "3", "--seed", "4", "--out", str(tmp_path),
        "--bot", f"heur={' '.join(HEURISTIC_BOT)}", "--bot", f"rand={' '.join(RANDOM_BOT)}",
        "--bot", "inproc=builtin:random"])
    assert result.exit_code == 0, result.output
    table = result.output.split("bot ", 1)[1]
    assert "heur" in table and "rand" in table and "inproc" in table
    assert "mean rank" in result.output and "failures" in result.output
    spec = json.loads((tmp_path / "result.json").read_text())["spec"]
    assert (spec["seed"], spec["secret"]) == (4, dev_secret(4))  # --seed: a public, development-only secret
    assert "Development only" in CliRunner().invoke(arena, ["match", "--help"]).output


def test_arena_match_bad_input(tmp_path):
    runner = CliRunner()
    result = runner.invoke(arena, ["match", "--game", "prohis", "--bot", "a=builtin:random",
                                   "--out", str(tmp_path)])
    assert result.exit_code == 2 and "3 to 6 players, not 1" in result.output
    result = runner.invoke(arena, ["match", "--game", "prohis", "--bot", "nonsense"])
    assert result.exit_code == 2 and "expected NAME=COMMAND" in result.output
    result = runner.invoke(arena, ["match", "--game", "go", "--bot", "a=x"])
    assert result.exit_code == 2 and f"unknown game 'go'; known games: {KNOWN_GAMES}" in result.output


def test_arena_replay_prints_the_game_and_checks_it(tmp_path):
    runner = CliRunner()
    runner.invoke(arena, ["match", "--game", "prohis", "--games", "1", "--out", str(tmp_path),
                          "--bot", "a=builtin:heuristic", "--bot", "b=builtin:random",
                          "--bot", "c=builtin:random"])
    record = tmp_path / "game-000.jsonl"
    full = runner.invoke(arena, ["replay", str(record)])
    assert full.exit_code == 0, full.output
    assert "Final scores:" in full.output and "replay check: the engine reproduces" in full.output
    seat_view = runner.invoke(arena, ["replay", str(record), "--seat", "1"])
    assert seat_view.exit_code == 0
    # a seat's replay hides what that seat could not see: fewer pile cards are named
    assert seat_view.output.count("draws from the pile (") <= full.output.count("draws from the pile (")

    tampered = tmp_path / "tampered.jsonl"
    lines = record.read_text().splitlines()
    result = json.loads(lines[-1])
    result["scores"][0] += 1000
    tampered.write_text("\n".join([*lines[:-1], json.dumps(result)]) + "\n")
    bad = runner.invoke(arena, ["replay", str(tampered)])
    assert bad.exit_code == 1 and "the record says" in bad.output

    junk = tmp_path / "junk.jsonl"
    junk.write_text("hello\n")
    bad = runner.invoke(arena, ["replay", str(junk)])
    assert bad.exit_code == 1 and "not JSON" in bad.output


def test_arena_replay_check_fails_a_record_cut_at_a_line_end(tmp_path):
    """A record cut after any whole line is not a game record that checks: its last line, the
    result, is missing (or decisions are, before it). --no-check prints what is there."""
    runner = CliRunner()
    played = runner.invoke(arena, ["match", "--game", "prohis", "--games", "1", "--out", str(tmp_path),
                                   "--bot", "a=builtin:heuristic", "--bot", "b=builtin:random",
                                   "--bot", "c=builtin:random"])
    assert played.exit_code == 0, played.output
    lines = (tmp_path / "game-000.jsonl").read_text().splitlines(keepends=True)
    for keep in (len(lines) - 1, len(lines) // 2, 1):  # before the result, mid-game, the header alone
        cut = tmp_path / f"cut-{keep}.jsonl"
        cut.write_text("".join(lines[:keep]))
        checked = runner.invoke(arena, ["replay", str(cut)])
        assert checked.exit_code == 1, (keep, checked.output)
        assert f"the record ends after {keep - 1} decision(s) without its result line: it was cut short" \
            in checked.output, checked.output
        unchecked = runner.invoke(arena, ["replay", str(cut), "--no-check"])
        assert unchecked.exit_code == 0 and "(the record ends before the game did)" in unchecked.output
    # decisions cut from before the result line: the game does not end where the record says it does
    holed = tmp_path / "holed.jsonl"
    holed.write_text("".join([*lines[:-3], lines[-1]]))
    checked = runner.invoke(arena, ["replay", str(holed)])
    assert checked.exit_code == 1 and "replaying them does not end the game: decisions are missing" \
        in checked.output, checked.output


def socket_folders(pid: int) -> list[Path]:
    """The socket folders (/tmp/arena-*/) whose owner is process ``pid`` of this host."""
    owner = f"{os.uname().nodename}:{pid}"
    return [p for p in Path("/tmp").glob("arena-*") if (p / "owner").is_file() and (p / "owner").read_text() == owner]


def wait_for(check, seconds: float = 10.0):
    deadline = time.monotonic() + seconds
    while not (found := check()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return found


def test_a_referee_killed_with_sigkill_leaves_no_socket_folder(tmp_path):
    """kill -9 of the referee alone, then of its whole process group: its socket folder goes with
    it (its watchdog removes it), without waiting for another referee to sweep it. Local bots: a
    process bot's socket is in that folder too."""
    bots = [{"name": "r", "command": RANDOM_BOT}, *({"name": n, "builtin": "random"} for n in "bc")]
    spec = write_spec(tmp_path, games=5000, bots=bots)
    for whole_group in (False, True):
        out = tmp_path / f"out-{whole_group}"
        proc = subprocess.Popen([sys.executable, "-m", "referee", spec, "--out", str(out)], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            folders = wait_for(lambda proc=proc: socket_folders(proc.pid), 30)
            assert folders, "the referee made no socket folder"
            assert wait_for(lambda out=out: (out / "game-001.jsonl").exists(), 30)  # playing, its bot connected
            os.killpg(proc.pid, signal.SIGKILL) if whole_group else proc.kill()
            proc.wait(timeout=10)
            assert wait_for(lambda folders=folders: not any(f.exists() for f in folders), 2), \
                f"left behind by a referee killed with -9{' with its process group' if whole_group else ''}: {folders}"
        finally:
            if proc.poll() is None:
                proc.kill()


def test_a_referee_sweeps_the_socket_folders_of_dead_referees(tmp_path):
    """The net under the watchdog (a whole cgroup killed): any referee that starts, of local bots
    too, removes the socket folders whose owner is gone, and no other /tmp/arena-* folder."""
    dead = Path(f"/tmp/arena-dead{os.getpid()}")
    dead.mkdir()
    (dead / "owner").write_text(f"{os.uname().nodename}:999999")
    alive, foreign = Path(f"/tmp/arena-alive{os.getpid()}"), Path(f"/tmp/arena-other{os.getpid()}")
    alive.mkdir()
    (alive / "owner").write_text(f"{os.uname().nodename}:{os.getpid()}")
    foreign.mkdir()  # no owner file: not a socket folder
    try:
        done = referee(write_spec(tmp_path, games=1, bots=[{"name": n, "builtin": "random"} for n in "abc"]),
                       "--out", str(tmp_path / "out"))
        assert done.returncode == 0, done.stderr
        assert not dead.exists() and alive.exists() and foreign.exists()
    finally:
        for folder in (dead, alive, foreign):
            subprocess.run(["rm", "-rf", str(folder)], check=True)
