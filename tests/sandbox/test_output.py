"""A bot's output costs the host nothing beyond its cap (referee/output.py): it reaches the
referee through a FIFO, not through the Docker engine, and past the cap the bot waits."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from referee.limits import LOG_CAP
from referee.match import run_match
from referee.output import TRUNCATED
from referee.records import read_record
from referee.spec import parse_spec

from .conftest import arena_containers

pytestmark = pytest.mark.serial  # the host daemons' CPU time: nothing else of ours beside it

DAEMONS = ("dockerd", "containerd")  # and every containerd-shim


def daemons_cpu() -> float:
    """CPU seconds used so far by the Docker engine's processes on this host (dockerd,
    containerd and every containerd-shim), from /proc/<pid>/stat."""
    tick, total = os.sysconf("SC_CLK_TCK"), 0.0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
            if comm in DAEMONS or comm.startswith("containerd-shim"):
                stat = Path(f"/proc/{pid}/stat").read_text()
                fields = stat[stat.rindex(")") + 2:].split()
                total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
        except (OSError, ValueError):
            continue  # gone meanwhile
    return total


def timed_match(tmp_path: Path, image: str, match_id: str) -> tuple[dict, float, float]:
    """One game of ``image`` against two in-process players; the result, and the daemons' CPU
    seconds and the wall seconds it took."""
    spec = parse_spec({"match_id": match_id, "game": "prohis", "games": 3, "seed": 3, "max_restarts": 0,
                       "bots": [{"name": "bot", "image": image}, {"name": "a", "builtin": "random"},
                                {"name": "b", "builtin": "random"}],
                       "time": {"startup_ms": 20000, "decision_ms": 3000, "bank_ms": 1000}})
    cpu0, t0 = daemons_cpu(), time.monotonic()
    result = run_match(spec, tmp_path)
    return result, daemons_cpu() - cpu0, time.monotonic() - t0


def test_a_log_flood_costs_the_host_nothing_and_the_log_keeps_its_start(tmp_path, docker_client, adversary_images,
                                                                       sample_images):
    quiet, quiet_cpu, quiet_s = timed_match(tmp_path / "quiet", sample_images["random"], "output-quiet")
    flood, flood_cpu, flood_s = timed_match(tmp_path / "flood", adversary_images["logflood"], "output-flood")
    figures = (f"Docker engine CPU: {quiet_cpu:.2f} s in a {quiet_s:.1f} s match of a quiet bot, {flood_cpu:.2f} s in "
               f"a {flood_s:.1f} s match of a bot writing 8 MiB to stdout and to stderr before each reply")
    print(figures)
    # through the engine's log driver (json-file, before referee/output.py) the same match took 6.96 s of the
    # daemons' CPU in 17 s (0.41 s a second; its quiet baseline 0.83 s in 5.1 s): this fails it
    assert flood_cpu / flood_s <= quiet_cpu / quiet_s + 0.1, figures
    game = flood["games"][0]
    seat = game["bots"].index(0)
    detail = read_record(tmp_path / "flood" / game["record"]).failures[0]["detail"]
    assert game["failures"][seat] == "timeout" and "waits in its writes" in detail, detail  # the bot pays
    log = (tmp_path / "flood" / "bot0-bot.log").read_bytes()
    assert log.startswith(b"y" * 100_000) and log.endswith(TRUNCATED) and len(log) == LOG_CAP + len(TRUNCATED)
    assert not any(quiet["games"][0]["failures"]), quiet["games"]
    assert not arena_containers(docker_client, "output-flood")
