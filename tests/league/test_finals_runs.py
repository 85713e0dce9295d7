"""A gauntlet and finals on fresh deals, played in containers (Sobek, two players, one deal).

Both use tests/bots/recorder.py (it plays random legal actions, seeded by the match as any bot,
and prints every game it is dealt)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

from arena.bots.registry import register_bot
from arena.league import create_league
from arena.league.finals import create_finals
from arena.league.formats import standings_of
from arena.league.runner import run_league
from arena.league.schedule import ScheduleOptions
from arena.store import open_store

from ..docker_fixtures import ROOT, left_behind
from ..referee.test_duplicate import dealt
from .helpers import SECRET, stored_games


def gauntlet(store, image: str) -> None:
    """Two versions of ``champ`` against a field of two: four tables of two."""
    create_league(store, "gx", "sobek", 2, {}, ScheduleOptions(format="gauntlet", challenger="champ", deals=1),
                  secret=SECRET)
    for name, version in (("champ", "1"), ("champ", "2"), ("fa", "1"), ("fb", "1")):
        register_bot(store, name=name, version=version, image=image, image_digest="", language="python",
                     author="tests", games=[], league="gx")


def test_a_gauntlet_killed_with_9_resumes_to_the_results_of_an_uninterrupted_run(tmp_path, test_bot_images,
                                                                                  docker_client):
    """The reference run plays in a thread meanwhile (its matches mostly wait on containers)."""
    reference = open_store(f"sqlite:///{tmp_path}/reference.db")
    gauntlet(reference, test_bot_images["recorder"])
    summaries = []
    played = threading.Thread(target=lambda: summaries.append(
        run_league(reference, "gx", rounds=2, jobs=2, runs_dir=tmp_path / "reference")))
    played.start()

    url = f"sqlite:///{tmp_path}/killed.db"
    store = open_store(url)
    gauntlet(store, test_bot_images["recorder"])
    command = [sys.executable, "-m", "arena.cli", "league", "run", "gx", "--rounds", "2", "--jobs", "2", "--db", url,
               "--runs-dir", str(tmp_path / "killed")]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not stored_games(store) and time.monotonic() < deadline:  # killed once a match is stored, others playing
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = stored_games(store)
    finished = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    played.join()
    assert [(s.matches_run, s.games_run, s.failures) for s in summaries] == [(8, 16, 0)]  # 4 tables x a cycle of 2
    expected = stored_games(reference)
    assert {tuple(sorted(g[4])) for g in expected} == {(1, 3), (1, 4), (2, 3), (2, 4)}  # versions 1, 2; field 3, 4
    assert 0 < len(partial) < len(expected) and set(partial) <= set(expected)
    assert stored_games(store) == expected, f"{len(partial)} games stored before the kill"
    board = standings_of(store, "gx")
    assert board == standings_of(reference, "gx")
    assert board["board"]["field"] == [3, 4] and sorted(v["bot_id"] for v in board["board"]["versions"]) == [1, 2]
    for version in board["board"]["versions"]:
        assert [(a["bot_id"], a["games"]) for a in version["against"]] == [(3, 4), (4, 4)]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and left_behind(docker_client, "gx"):
        time.sleep(0.5)
    assert not left_behind(docker_client, "gx")


def deals_seen(runs: Path) -> tuple[dict[str, set[int]], list[list[int]]]:
    """From a league's records: the deal seeds each bot (name@version) was dealt, and each
    bot process's deals (the recorder prints every game it is dealt)."""
    by_bot: dict[str, set[int]] = defaultdict(set)
    containers: list[list[int]] = []
    for result_path in runs.rglob("result.json"):
        result = json.loads(result_path.read_text())
        seeds = {g["deal"]: g["seed"] for g in result["games"]}
        for b, totals in enumerate(result["totals"]):
            log = next(result_path.parent.glob(f"bot{b}-*.log"))
            for deals in dealt(log, result).values():
                containers.append([seeds[d] for d in deals])
                by_bot[totals["bot"]].update(seeds[d] for d in deals)
    return by_bot, containers


def test_the_finals_deal_nothing_a_bot_was_dealt_before(store, tmp_path, test_bot_images, docker_client):
    """A round robin of two recorders (one cycle of two deals), closed, then its finals: no bot is
    dealt in the finals a deal it was dealt in the league, and no process of it sees a deal twice."""
    create_league(store, "p", "sobek", 2, {}, ScheduleOptions(deals=2), secret=SECRET)
    for name in ("rec0", "rec1"):
        register_bot(store, name=name, version="1", image=test_bot_images["recorder"], image_digest="",
                     language="python", author="tests", games=[], league="p")
    assert run_league(store, "p", rounds=2, jobs=2, runs_dir=tmp_path / "runs").games_run == 8
    assert create_finals(store, "p").name == "p-finals"
    assert run_league(store, "p-finals", rounds=2, jobs=2, runs_dir=tmp_path / "runs").games_run == 8
    again = run_league(store, "p", rounds=2, jobs=2, runs_dir=tmp_path / "runs")  # closed, it still runs
    assert (again.matches_run, again.matches_skipped) == (0, 2)
    league, league_containers = deals_seen(tmp_path / "runs" / "p")
    finals, finals_containers = deals_seen(tmp_path / "runs" / "p-finals")
    assert set(league) == set(finals) == {"rec0@1", "rec1@1"}
    for bot in league:
        assert len(league[bot]) == len(finals[bot]) == 4  # a match's four deals, each in both seats over the cycle
        assert not league[bot] & finals[bot], bot
    for containers in (league_containers, finals_containers):  # 2 matches x 2 bots x 4 games a league
        assert sum(map(len, containers)) == 16 and all(len(c) == len(set(c)) for c in containers), containers
    assert len({g[3] for g in stored_games(store)}) == 8  # four deals a league, none shared
    assert not left_behind(docker_client, "p") and not left_behind(docker_client, "p-finals")
