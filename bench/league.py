"""A containerised Prohis league of the four Python sample bots, end to end.

Reports games per second (jobs=1 and jobs=2), with each match on its own core (the
default) and, interleaved, with ``ARENA_CPU=none`` (the scheduler places everything);
and where the time goes, as shares of the
time summed over matches plus the league runner's own work:

- referee process: starting and ending the referee (Python start-up, imports, teardown)
- container start: from starting the bots' containers to their hello
- protocol: the rest of the match's time: round trips over gRPC (with the bots' own
  thinking, which is small for the sample bots), encoding, records
- engine: views, legal actions and applying actions
- store: writing each match and its games
- ratings: recomputing the ratings

Needs the Docker engine and the sample images (``make images``).

    python -m bench.league [--rounds 2] [--repeats 3] [--json]
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click

from arena.bots.config import load_bot_config
from arena.bots.registry import register_bot
from arena.league import create_league
from arena.league.runner import run_league
from arena.league.schedule import ScheduleOptions
from arena.store import open_store
from referee.sandbox import docker_client
from referee.spec import dev_secret

from .common import Report, median

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ("random", "first_legal", "prohis_heuristic", "prohis_bold")


def one_run(rounds: int, jobs: int, tmp: Path) -> tuple[float, dict[str, float], int, int]:
    store = open_store(f"sqlite:///{tmp}/bench.db")
    client = docker_client()
    # the same deals on every run, so that runs compare
    create_league(store, "bench", "prohis", 3, {}, ScheduleOptions(deals=2), secret=dev_secret(3))
    for folder in SAMPLES:
        config = load_bot_config(ROOT / "sample_bots" / "python" / folder)
        image_id = client.api.inspect_image(config.tag)["Id"]  # built by `make images`
        register_bot(store, name=config.name, version=config.version, image=config.tag, image_digest=image_id,
                     language=config.language, author=config.author, games=list(config.games), league="bench")
    summary = run_league(store, "bench", rounds, jobs, tmp / "runs")
    decisions = sum(record.read_text().count('"type":"decision"') for record in (tmp / "runs").rglob("game-*.jsonl"))
    return summary.games_run / summary.seconds, summary.timings, summary.games_run, decisions


@click.command()
@click.option("--rounds", default=2, show_default=True, help="Rounds of 4 matches (6 games each).")
@click.option("--repeats", default=3, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def main(rounds: int, repeats: int, as_json: bool) -> None:
    report = Report("league", as_json)
    rates: dict[tuple[int, str], list[float]] = {}
    shares: dict[str, list[float]] = {}
    games = decisions = 0
    for _ in range(repeats):
        for jobs, placement in ((1, "auto"), (1, "none"), (2, "auto"), (2, "none")):
            os.environ["ARENA_CPU"] = placement
            with tempfile.TemporaryDirectory(prefix="bench-arena-league-") as tmp:
                rate, t, games, decisions = one_run(rounds, jobs, Path(tmp))
            rates.setdefault((jobs, placement), []).append(rate)
            if jobs == 1 and placement == "auto":  # one match at a time: the parts add up to the wall time
                parts = {
                    "referee_process": t["referee"] - t["match"],
                    "container_start": t["startup"],
                    "protocol": t["match"] - t["startup"] - t["engine"],
                    "engine": t["engine"],
                    "store": t["store"],
                    "ratings": t["ratings"],
                }
                total = sum(parts.values())
                for key, value in parts.items():
                    shares.setdefault(key, []).append(100 * value / total)
    report.figure("games_per_league_run", games, "games")
    report.figure("decisions_per_league_run", decisions, "decisions", "(games/s depends on how long its deals play)")
    for jobs in (1, 2):
        report.figure(f"games_per_s_jobs{jobs}", median(rates[jobs, "auto"]), "games/s", "(a core per match)")
        report.figure(f"games_per_s_jobs{jobs}_unpinned", median(rates[jobs, "none"]), "games/s",
                      "(ARENA_CPU=none)")
    for key, values in shares.items():
        report.figure(f"share_{key}", median(values), "%")


if __name__ == "__main__":
    main()
