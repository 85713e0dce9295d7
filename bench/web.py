"""The web server under load: a league of 50 bots and 10,000 games, 20 concurrent clients.

Builds a store (rows written directly: bots of unequal skill, some flaky, realistic ranks and
failure reasons; then the ratings rebuilt as a run would), serves it with ``arena serve`` in a
subprocess on localhost, and measures, with a load generator of 20 concurrent clients (asyncio,
in this process; each client a keep-alive connection: see :class:`RawClient`), the latency of:

- ``/healthz``: the baseline, the server's own cost of a request (same server, same run);
- the leaderboard page ``/leagues/bench`` and its JSON twin;
- a bot page ``/bots/ID`` and its JSON twin;
- the crosstable page ``/leagues/bench/crosstable`` and its JSON twin (every pair's head to head:
  50 bots, 1,225 pairs); and, once, its first request on a cold server (the crosstable built).

Besides latency, the server's own CPU time per request (from /proc): on a shared machine the
latencies include waiting for a core, which that figure does not.

Each target gets ``--requests`` requests per repeat (after a warm-up), the targets interleaved
in each repeat; the figures are medians over the repeats of each repeat's p50 and p99, and each
p99 as a multiple of the baseline's.

    python -m bench.web [--bots 50] [--games 10000] [--clients 20] [--requests 1000] [--repeats 3]
                        [--client raw|httpx] [--json]
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import click
import httpx
from sqlalchemy import insert

from arena.league import create_league
from arena.league.schedule import ScheduleOptions
from arena.league.standings import rebuild_ratings
from arena.store import Bot, Entry, Game, Match, Store, open_store
from referee.spec import dev_secret

from .common import Report, free_port, median, start_server

LEAGUE = "bench"
PLAYERS = 3
LANGUAGES = ("python", "go", "javascript", "cpp", "java")
REASONS = (("timeout", 6), ("crash", 3), ("illegal", 2), ("malformed", 1), ("disconnect", 1))


def fill_store(store: Store, bots: int, games: int, seed: int = 15) -> None:
    """League :data:`LEAGUE` (Prohis, 3 a table) with ``bots`` entrants (five names of them in
    two versions) and ``games`` games in matches of 3 (every rotation), each table's 3 matches a
    whole duplicate cycle (the games a bot page shows are those of whole cycles), rated."""
    rng = random.Random(seed)
    create_league(store, LEAGUE, "prohis", PLAYERS, {}, ScheduleOptions(deals=1), secret=dev_secret(seed))
    t0 = datetime(2026, 12, 1, tzinfo=UTC)
    bot_rows, skills, flakiness = [], {}, {}
    for i in range(1, bots + 1):
        twin = i > bots - 5  # the last five are new versions of the first five names
        name = f"bot{(i - bots + 5 if twin else i):02d}"
        bot_rows.append(dict(id=i, name=name, version="2.0.0" if twin else "1.0.0", image=f"bench/{name}:{i}",
                             image_digest=f"sha256:{i:064x}", language=LANGUAGES[i % len(LANGUAGES)],
                             author=f"author{i % 17}", games=["prohis"], created_at=t0 + timedelta(minutes=i)))
        skills[i] = rng.gauss(0, 1)
        flakiness[i] = rng.choice((0.0, 0.0, 0.002, 0.01, 0.05))
    reasons, weights = [reason for reason, _ in REASONS], [weight for _, weight in REASONS]
    match_rows, game_rows = [], []
    used: set[tuple[int, str]] = set()
    match_id = game_id = 0
    per_round = 100
    slots: list[tuple[int, tuple[int, ...]]] = []  # whole duplicate cycles: a game is public once its cycle is
    while game_id < games:
        if not slots:  # the next table plays its cycle: rounds 3c to 3c+2
            cycle = (match_id // per_round) // PLAYERS
            table = tuple(sorted(rng.sample(range(1, bots + 1), PLAYERS)))
            slots = [(cycle * PLAYERS + j, table) for j in range(PLAYERS)]
        rnd, table = slots[0]
        key = ",".join(map(str, table))
        if (rnd, key) in used:
            slots = []
            continue
        slots.pop(0)
        used.add((rnd, key))
        match_id += 1
        finished = t0 + timedelta(days=1, seconds=30 * match_id)
        match_rows.append(dict(id=match_id, league_id=1, round=rnd, table=key, bots=list(table),
                               record_dir=f"runs/bench/{match_id}", restarts=[0] * PLAYERS,
                               started_at=finished - timedelta(seconds=20), finished_at=finished))
        for index in range(PLAYERS):
            if game_id >= games:
                break
            game_id += 1
            rotation = (index + rnd) % PLAYERS
            seats = list(table[rotation:] + table[:rotation])
            scores = [round(10 * skills[b] + rng.gauss(0, 12)) for b in seats]
            failures = [rng.choices(reasons, weights)[0] if rng.random() < flakiness[b] else "" for b in seats]
            # failed seats rank last; the others by score, ties sharing a rank
            keyed = [(bool(failures[s]), -scores[s]) for s in range(PLAYERS)]
            ranks = [1 + sum(k < keyed[s] for k in keyed) for s in range(PLAYERS)]
            game_rows.append(dict(id=game_id, match_id=match_id, index=index, seed=str(rng.getrandbits(128)),
                                  deal=f"c{rnd // PLAYERS}d{index}", seats=seats, scores=scores, ranks=ranks,
                                  failures=failures, record_path=f"runs/bench/{match_id}/game-{index:03d}.jsonl"))
    with store() as session, session.begin():
        session.execute(insert(Bot), bot_rows)
        session.execute(insert(Entry), [dict(league_id=1, bot_id=b["id"], joined_at=t0 + timedelta(days=1))
                                        for b in bot_rows])
        session.execute(insert(Match), match_rows)
        session.execute(insert(Game), game_rows)
    rebuild_ratings(store, LEAGUE)


def serve(db_url: str, runs: Path) -> tuple[subprocess.Popen, str]:
    """``arena serve`` on a free port, once it answers ``/healthz``."""
    port = free_port()
    return start_server([sys.executable, "-m", "arena.cli", "serve", "--db", db_url, "--port", str(port),
                         "--runs", str(runs), "--no-worker"], port, stdout=subprocess.DEVNULL)


class RawClient:
    """One keep-alive HTTP/1.1 connection, as little client as a GET needs: on two cores shared
    with the server, httpx's own CPU time (about three times the server's for /healthz) would be
    measured as the server's latency. ``--client httpx`` measures with httpx all the same."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, path: str) -> int:
        if self.reader is None or self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\n\r\n".encode())
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        length = next(int(line.split(b":", 1)[1]) for line in lines if line.lower().startswith(b"content-length:"))
        await self.reader.readexactly(length)
        return int(lines[0].split()[1])

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            await self.writer.wait_closed()


async def load(url: str, path: str, requests: int, clients: int, seconds: float, kind: str) -> list[float]:
    """Latencies (s) of ``requests`` GETs of ``path`` by ``clients`` concurrent clients, each on
    its own connection, sending its next request when its last one is answered; stops early
    after ``seconds``."""
    latencies: list[float] = []
    left = [requests]
    deadline = time.perf_counter() + seconds
    host, port = url.removeprefix("http://").split(":")

    async def one_client() -> None:
        get: Callable[[str], Awaitable[httpx.Response | int]]
        if kind == "httpx":
            client = httpx.AsyncClient(base_url=url, timeout=120)
            get = client.get
        else:
            raw = RawClient(host, int(port))
            get = raw.get
        try:
            while left[0] > 0 and time.perf_counter() < deadline:
                left[0] -= 1
                start = time.perf_counter()
                reply = await get(path)
                latencies.append(time.perf_counter() - start)
                status = reply if isinstance(reply, int) else reply.status_code
                if status != 200:
                    raise RuntimeError(f"{path} answered {status}")
        finally:
            await (client.aclose() if kind == "httpx" else raw.close())

    await asyncio.gather(*(one_client() for _ in range(clients)))
    return latencies


def cpu_seconds(pid: int) -> float:
    """The process's CPU time (user + system) so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


async def measure(url: str, pid: int, targets: dict[str, str], clients: int, requests: int, repeats: int,
                  seconds: float, kind: str) -> dict[str, dict[str, list[float]]]:
    figures: dict[str, dict[str, list[float]]] = {t: {"p50": [], "p99": [], "rate": [], "cpu": []} for t in targets}
    for path in targets.values():  # warm up: caches, the thread pool
        await load(url, path, 2 * clients, clients, seconds, kind)
    for _ in range(repeats):
        for target, path in targets.items():
            start, cpu = time.perf_counter(), cpu_seconds(pid)
            latencies = await load(url, path, requests, clients, seconds, kind)
            elapsed = time.perf_counter() - start
            figures[target]["cpu"].append(1000 * (cpu_seconds(pid) - cpu) / len(latencies))
            figures[target]["p50"].append(1000 * statistics.median(latencies))
            figures[target]["p99"].append(1000 * percentile(latencies, 99))
            figures[target]["rate"].append(len(latencies) / elapsed)
    return figures


@click.command()
@click.option("--bots", default=50, show_default=True)
@click.option("--games", default=10_000, show_default=True)
@click.option("--clients", default=20, show_default=True, help="Concurrent clients.")
@click.option("--requests", default=1000, show_default=True, help="Requests per target and repeat.")
@click.option("--seconds", default=30.0, show_default=True, help="At most this long per target and repeat.")
@click.option("--repeats", default=3, show_default=True)
@click.option("--client", "kind", type=click.Choice(["raw", "httpx"]), default="raw", show_default=True,
              help="The load generator's HTTP client: a bare keep-alive connection, or httpx.")
@click.option("--json", "as_json", is_flag=True)
def main(bots: int, games: int, clients: int, requests: int, seconds: float, repeats: int, kind: str,
         as_json: bool) -> None:
    report = Report("web", as_json)
    with tempfile.TemporaryDirectory(prefix="bench-arena-web-") as tmp:
        db_url = f"sqlite:///{tmp}/bench.db"
        start = time.perf_counter()
        fill_store(open_store(db_url), bots, games)
        report.note(f"a store of {bots} bots and {games:,} games, rated, in {time.perf_counter() - start:.1f} s")
        process, url = serve(db_url, Path(tmp) / "runs")
        try:
            bot = httpx.get(f"{url}/api/v1/leagues/{LEAGUE}/leaderboard", timeout=120).json()["rows"][bots // 2]
            cold = time.perf_counter()  # the standings are read: this is the crosstable's own first cost
            httpx.get(f"{url}/api/v1/leagues/{LEAGUE}/crosstable", timeout=120).raise_for_status()
            report.figure("crosstable_cold", 1000 * (time.perf_counter() - cold), "ms",
                          "(its first request: the crosstable built from the stored games)")
            targets = {"healthz": "/healthz", "leaderboard_page": f"/leagues/{LEAGUE}",
                       "leaderboard_json": f"/api/v1/leagues/{LEAGUE}/leaderboard",
                       "bot_page": f"/bots/{bot['bot_id']}", "bot_json": f"/api/v1/bots/{bot['bot_id']}",
                       "crosstable_page": f"/leagues/{LEAGUE}/crosstable",
                       "crosstable_json": f"/api/v1/leagues/{LEAGUE}/crosstable"}
            figures = asyncio.run(measure(url, process.pid, targets, clients, requests, repeats, seconds, kind))
        finally:
            process.terminate()
            process.wait(10)
    report.note(f"{clients} concurrent clients ({kind}), {requests} requests per target and repeat, {repeats} "
                f"repeats, {os.cpu_count()} CPU(s) shared by the server and the load generator")
    base = median(figures["healthz"]["p99"])
    for target, f in figures.items():
        report.figure(f"{target}_p50", median(f["p50"]), "ms")
        report.figure(f"{target}_p99", median(f["p99"]), "ms",
                      "" if target == "healthz" else f"({median(f['p99']) / base:.1f} x healthz)")
        report.figure(f"{target}_rate", median(f["rate"]), "req/s")
        report.figure(f"{target}_server_cpu", median(f["cpu"]), "ms/req", "(the server's CPU time per request)")


if __name__ == "__main__":
    main()
