"""A league on Celery workers against the same league on the local pool, side by side.

The containerised Prohis league of ``bench.league`` (the four Python sample bots), played in
turn, each repeat interleaving the configurations so that the machine's noise falls on all:

- local pool, ``--jobs 1`` and ``--jobs 2``;
- ``--executor celery`` with 1 worker and with 2 workers (``arena worker --concurrency 1``
  each, on this machine): once with the runner keeping twice as many matches in flight as the
  workers play (``--jobs 2N``: a match waits for each slot, as with the default ``--jobs 16``),
  for games/s; once with exactly as many (``--jobs N``: nothing waits in the queue), for the
  overhead per match.

Figures: games/s of each (medians) and their ratios to the local pool with the same number of
matches at once; and Celery's overhead per match: the time from handing a match to the broker
to its result in the store, past the referee's own wall time, as a share of that time (median
over matches; the target is under 5%), split into the worker's own work before and after the
referee (images checked, live row, packing and writing the result) and the rest (the broker,
the runner's polling, the store).

Needs the Docker engine, the sample images (``make images``) and a Redis (``scripts/redis-up.sh``;
``--broker`` or ``$ARENA_BROKER``, default redis://127.0.0.1:6379/0).

    python -m bench.workers [--rounds 2] [--repeats 3] [--json]
"""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import click

from arena.bots.config import load_bot_config
from arena.bots.registry import register_bot
from arena.league import create_league
from arena.league.runner import run_league
from arena.league.schedule import ScheduleOptions
from arena.league.workers import CeleryExecutor, broker_url
from arena.store import Store, open_store
from referee.sandbox import docker_client
from referee.spec import dev_secret

from .common import Report, median

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ("random", "first_legal", "prohis_heuristic", "prohis_bold")


def new_league(tmp: Path) -> tuple[str, Store]:
    db = f"sqlite:///{tmp}/bench.db"
    store = open_store(db)
    client = docker_client()
    create_league(store, "bench", "prohis", 3, {}, ScheduleOptions(deals=2), secret=dev_secret(3))
    for folder in SAMPLES:
        config = load_bot_config(ROOT / "sample_bots" / "python" / folder)
        register_bot(store, name=config.name, version=config.version, image=config.tag,
                     image_digest=client.api.inspect_image(config.tag)["Id"], language=config.language,
                     author=config.author, games=list(config.games), league="bench")
    return db, store


def start_workers(n: int, broker: str, db: str, queue: str, tmp: Path) -> list[subprocess.Popen]:
    procs = []
    for i in range(n):
        log = tmp / f"worker{i}.log"
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "worker", "--concurrency", "1", "--broker", broker, "--db", db,
             "--queue", queue, "--runs-dir", str(tmp / f"w{i}")],
            stdout=log.open("w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
        deadline = time.monotonic() + 60
        while "ready" not in log.read_text():
            if procs[-1].poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"bench.workers: a worker did not start:\n{log.read_text()}")
            time.sleep(0.1)
    return procs


def one_run(kind: str, n: int, rounds: int, broker: str,
            jobs: int) -> tuple[float, list[tuple[float, float, float, float]]]:
    with tempfile.TemporaryDirectory(prefix="bench-arena-workers-") as name:
        tmp = Path(name)
        db, store = new_league(tmp)
        if kind == "local":
            summary = run_league(store, "bench", rounds, n, tmp / "runs")
            return summary.games_run / summary.seconds, []
        queue = f"bench-{uuid.uuid4().hex}"
        procs = start_workers(n, broker, db, queue, tmp)
        executor = CeleryExecutor(store, broker, queue)
        try:
            summary = run_league(store, "bench", rounds, jobs, tmp / "runs", executor=executor)
        finally:
            executor.close()
            for proc in procs:
                proc.send_signal(signal.SIGTERM)
            for proc in procs:
                proc.wait(30)
        return summary.games_run / summary.seconds, executor.latency


@click.command()
@click.option("--rounds", default=2, show_default=True, help="Rounds of 4 matches (6 games each).")
@click.option("--repeats", default=3, show_default=True)
@click.option("--broker", envvar="ARENA_BROKER", help="default $ARENA_BROKER or redis://127.0.0.1:6379/0")
@click.option("--json", "as_json", is_flag=True)
def main(rounds: int, repeats: int, broker: str | None, as_json: bool) -> None:
    report = Report("workers", as_json)
    broker = broker_url(broker)
    rates: dict[tuple[str, int], list[float]] = {}
    overhead: list[float] = []
    parts: dict[str, list[float]] = {"worker_before": [], "worker_after": [], "transit": []}
    for _ in range(repeats):
        for kind, n, jobs in (("local", 1, 1), ("celery", 1, 2), ("celery", 1, 1), ("local", 2, 2), ("celery", 2, 4),
                              ("celery", 2, 2)):
            rate, latency = one_run(kind, n, rounds, broker, jobs)
            if kind == "local" or jobs == 2 * n:
                rates.setdefault((kind, n), []).append(rate)
                continue
            for total, referee, before, after in latency:
                overhead.append(100 * (total - referee) / total)
                parts["worker_before"].append(1000 * before)
                parts["worker_after"].append(1000 * after)
                parts["transit"].append(1000 * (total - referee - before - after))
    for n in (1, 2):
        local, celery = median(rates["local", n]), median(rates["celery", n])
        report.figure(f"games_per_s_local_jobs{n}", local, "games/s")
        report.figure(f"games_per_s_celery_{n}_worker{'s' if n > 1 else ''}", celery, "games/s", f"(--jobs {2 * n})")
        report.figure(f"celery_{n}_vs_local_jobs{n}", celery / local, "x", "(1.00 = no cost)")
    report.figure("celery_overhead_per_match", median(overhead), "% of match wall", "(target < 5%)")
    for key, values in parts.items():
        report.figure(f"overhead_{key}", median(values), "ms")


if __name__ == "__main__":
    main()
