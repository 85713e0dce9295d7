"""A Swiss played in containers: three bots of Sobek, two a table (a bye a round), two rounds of
one deal; a run
killed with -9 at a random moment and run again ends with the games and the standings of an
uninterrupted run. The pairing's properties are test_swiss.py's (pure Python)."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time

from click.testing import CliRunner

from arena.bots.config import load_bot_config
from arena.bots.registry import register_bot
from arena.cli import main as arena
from arena.league import create_league
from arena.league.formats import standings_of
from arena.league.runner import run_league
from arena.league.schedule import ScheduleOptions
from arena.store import open_store

from ..docker_fixtures import ROOT, left_behind
from .helpers import SECRET, stored_games

NAMES = ("ra", "rb", "rc")


def swiss_of_randoms(store, client, image: str, names: tuple[str, ...] = NAMES) -> None:
    """League "s": a Swiss of Sobek, 2 a table, 1 deal, of the random sample bot under ``names``."""
    create_league(store, "s", "sobek", 2, {}, ScheduleOptions(deals=1, format="swiss"), secret=SECRET)
    config = load_bot_config(ROOT / "sample_bots" / "python" / "random")
    for name in names:
        register_bot(store, name=name, version="1", image=image, image_digest=client.images.get(image).id,
                     language=config.language, author=config.author, games=["sobek"], league="s")


def test_a_swiss_killed_at_a_random_moment_resumes_to_the_same_standings(tmp_path, docker_client, sample_images):
    image = sample_images["random"]
    reference = open_store(f"sqlite:///{tmp_path}/reference.db")
    swiss_of_randoms(reference, docker_client, image)
    took = time.monotonic()
    run_league(reference, "s", rounds=2, jobs=2, runs_dir=tmp_path / "reference-runs")
    took = time.monotonic() - took
    expected, board = stored_games(reference), standings_of(reference, "s")["board"]
    assert len(expected) == 2 * 1 * 2 * 2  # rounds x tables x matches a cycle x games a match
    assert board["rounds_done"] == 2 and board["current"] is None
    assert all(row["rounds"] + row["byes"] == 2 and row["byes"] <= 1 for row in board["rows"])
    assert sum(row["points"] for row in board["rows"]) == 2 * (1 + 0.5)  # a point a table and a bye a round
    first, second = ({tuple(t["table"]) for row in board["rows"] for t in row["tables"]
                      if t["round"] == r and t["table"] is not None}
                     for r in (0, 1))
    assert not first & second, "no table repeats while another pairing exists"

    url = f"sqlite:///{tmp_path}/killed.db"
    store = open_store(url)
    swiss_of_randoms(store, docker_client, image)
    command = [sys.executable, "-m", "arena.cli", "league", "run", "s", "--rounds", "2", "--jobs", "2", "--db", url,
               "--runs-dir", str(tmp_path / "runs")]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # a moment within the run (its start-up, about a second, then what the uninterrupted run took)
    time.sleep(1.0 + random.Random(20261207).uniform(0.1, 0.9) * took)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = stored_games(store)
    assert set(partial) <= set(expected)
    status = CliRunner().invoke(arena, ["league", "status", "s", "--db", url])
    assert status.exit_code == 0, status.output
    assert "league s (swiss)" in status.output and "target: 2 rounds" in status.output
    finished = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    assert stored_games(store) == expected, f"{len(partial)} games stored before the kill"
    print(f"killed after {len(partial)} of {len(expected)} games stored; the whole run takes {took:.1f} s")
    assert standings_of(store, "s")["board"] == board

    runner = CliRunner()
    status = runner.invoke(arena, ["league", "status", "s", "--db", url])
    assert "rounds: 2 of 2 complete, 0 with matches left" in status.output, status.output
    shown = runner.invoke(arena, ["league", "standings", "s", "--db", url])
    assert shown.exit_code == 0 and all(f"{name}@1" in shown.output for name in NAMES), shown.output
    assert shown.output.splitlines()[0].startswith("Swiss: 2 round(s) done")
    register_bot(store, name="late", version="1", image=image, image_digest="sha256:0", language="python",
                 author="a", games=["sobek"], league=None)
    refused = runner.invoke(arena, ["league", "join", "s", "late", "--db", url])
    assert refused.exit_code != 0 and "its field was fixed at its first round" in refused.output, refused.output
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and left_behind(docker_client, "s"):
        time.sleep(0.5)
    assert not left_behind(docker_client, "s")
