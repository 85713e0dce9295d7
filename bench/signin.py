"""The web server under a flood of sign-ins: what 40 anonymous clients posting wrong passwords
for 15 s do to everyone else.

Each scenario starts a server of its own (``arena serve``'s app and HTTP server, in a
subprocess, on a new store), then for ``--seconds`` a flood process runs ``--clients`` clients,
each on its own keep-alive connection, posting wrong passwords to ``/login`` (the sign-in
page's token and cookie included, as a browser would) as fast as they are answered, while this
process asks ``/healthz`` every 20 ms on a connection of its own and samples the server's
resident memory every 50 ms. Figures: ``/healthz`` p50, p99 and max during the flood (and before
it, for the baseline), the server's RSS before and at its peak, and the flood's answers by status.

Scenarios, in one run on the same machine:

- ``before``: the throttles and the cap on password checks off (the server as it was: every
  sign-in checked, up to the thread pool's 40 at once);
- ``after``: the defaults, the flood from one address (the address's throttle stops it after 20
  failures; its names are random, so the names' throttles do not);
- ``after-spread``: the defaults, each request from another address (``X-Forwarded-For`` from a
  trusted proxy, ``--proxy 127.0.0.1``): only the cap of 2 password checks at once holds.

    python -m bench.signin [--clients 40] [--seconds 15] [--scenario before --scenario after ...] [--json]
"""

from __future__ import annotations

import asyncio
import dataclasses
import multiprocessing
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import click
import httpx

from .common import Report, free_port, start_server
from .web import RawClient, percentile

SCENARIOS = ("before", "after", "after-spread")
PASSWORD = "the-right-password-1"


def rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    assert found is not None, f"no VmRSS in /proc/{pid}/status"
    return int(found[1]) / 1024


# -- the server, in a process of its own ---------------------------------------------------------
@click.command(hidden=True)
@click.option("--db", "db_url", required=True)
@click.option("--port", type=int, required=True)
@click.option("--scenario", type=click.Choice(SCENARIOS), required=True)
@click.option("--concurrency", type=int, default=None)
def serve(db_url: str, port: int, scenario: str, concurrency: int | None) -> None:
    """The server of one scenario (run by :func:`start`)."""
    from arena.store import open_store
    from arena.web import WebSettings, create_app
    from arena.web.server import serve as run
    from arena.web.throttle import Throttles

    tmp = Path(db_url.removeprefix("sqlite:///")).parent
    settings = WebSettings(runs_dir=tmp / "runs", uploads_dir=tmp / "uploads", worker=False)
    if scenario == "before":
        settings = WebSettings(runs_dir=tmp / "runs", uploads_dir=tmp / "uploads", worker=False,
                               sign_in_concurrency=0, throttles=Throttles(enabled=False))
    elif scenario == "after-spread":
        settings = WebSettings(runs_dir=tmp / "runs", uploads_dir=tmp / "uploads", worker=False,
                               proxies=("127.0.0.1",))
    if concurrency is not None:
        settings = dataclasses.replace(settings, sign_in_concurrency=concurrency)
    run(create_app(open_store(db_url), settings), "127.0.0.1", port)


def start(tmp: Path, scenario: str, concurrency: int | None = None) -> tuple[subprocess.Popen, str]:
    from arena.accounts import add_user
    from arena.store import open_store

    db_url = f"sqlite:///{tmp}/{scenario}.db"
    add_user(open_store(db_url), "alice", password=PASSWORD)
    port = free_port()
    return start_server([sys.executable, "-m", "bench.signin", "serve", "--db", db_url, "--port", str(port),
                         "--scenario", scenario, *(["--concurrency", str(concurrency)] if concurrency else [])], port)


# -- the flood, in a process of its own ----------------------------------------------------------
async def _post(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: bytes, body: bytes) -> int:
    writer.write(head + str(len(body)).encode() + b"\r\n\r\n" + body)
    answer = await reader.readuntil(b"\r\n\r\n")
    lines = answer.split(b"\r\n")
    length = next((int(line.split(b":", 1)[1]) for line in lines if line.lower().startswith(b"content-length:")), 0)
    await reader.readexactly(length)
    return int(lines[0].split()[1])


async def _flood(url: str, clients: int, seconds: float, spread: bool) -> Counter:
    with httpx.Client(base_url=url) as client:
        page = client.get("/login")
        found = re.search(r'id="login-csrf" value="([^"]+)"', page.text)
        assert found is not None, "the sign-in page has no login-csrf field"
        token = found[1]
        cookie = page.cookies["arena_login"]
    host, port = url.removeprefix("http://").split(":")
    statuses: Counter = Counter()
    deadline = time.monotonic() + seconds
    rng = random.Random(7)

    async def one() -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            while time.monotonic() < deadline:
                name = f"guess{rng.getrandbits(32)}"
                forwarded = f"X-Forwarded-For: 10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(256)}\r\n"
                head = (f"POST /login HTTP/1.1\r\nHost: {host}:{port}\r\nOrigin: {url}\r\n"
                        f"Cookie: arena_login={cookie}\r\n{forwarded if spread else ''}"
                        "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ").encode()
                body = f"name={name}&password=wrong-guess&next=/&csrf={token}".encode()
                try:
                    statuses[await _post(reader, writer, head, body)] += 1
                except (asyncio.IncompleteReadError, ConnectionError):  # the server closed it: a new one
                    statuses["closed"] += 1
                    writer.close()
                    reader, writer = await asyncio.open_connection(host, int(port))
        finally:
            writer.close()

    await asyncio.gather(*(one() for _ in range(clients)))
    return statuses


def flood(url: str, clients: int, seconds: float, spread: bool, out: multiprocessing.Queue) -> None:
    out.put(dict(asyncio.run(_flood(url, clients, seconds, spread))))


# -- the measurement ------------------------------------------------------------------------------
async def probe(url: str, seconds: float) -> list[float]:
    """``/healthz`` latencies (s), one request every 20 ms (after the last answer) for ``seconds``."""
    host, port = url.removeprefix("http://").split(":")
    client = RawClient(host, int(port))
    latencies: list[float] = []
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            start = time.perf_counter()
            if await client.get("/healthz") != 200:
                raise RuntimeError("/healthz did not answer 200")
            latencies.append(time.perf_counter() - start)
            await asyncio.sleep(0.02)
    finally:
        await client.close()
    return latencies


def scenario_figures(tmp: Path, scenario: str, clients: int, seconds: float,
                     concurrency: int | None = None) -> dict[str, float]:
    process, url = start(tmp, scenario, concurrency)
    try:
        quiet = asyncio.run(probe(url, 3.0))
        rss_before = rss_mib(process.pid)
        peak = [rss_before]
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], rss_mib(process.pid))
                time.sleep(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        answers: multiprocessing.Queue = multiprocessing.Queue()
        flooder = multiprocessing.Process(target=flood, args=(url, clients, seconds, scenario == "after-spread",
                                                              answers))
        flooder.start()
        time.sleep(0.5)  # the flood under way
        loaded = asyncio.run(probe(url, seconds - 1.0))
        statuses = answers.get(timeout=seconds + 120)
        flooder.join(30)
        done.set()
        sampler.join()
    finally:
        process.terminate()
        process.wait(10)
    ms = [1000 * t for t in loaded]
    figures = {"healthz_quiet_p50": 1000 * statistics.median(quiet), "healthz_quiet_p99": 1000 * percentile(quiet, 99),
               "healthz_p50": statistics.median(ms),
               "healthz_p99": percentile(ms, 99), "healthz_max": max(ms), "rss_before": rss_before,
               "rss_peak": peak[0], "flood_requests": sum(statuses.values())}
    for status, count in sorted(statuses.items(), key=str):
        figures[f"flood_{status}"] = count
    return figures


@click.group(invoke_without_command=True)
@click.option("--clients", default=40, show_default=True, help="Concurrent flooding clients.")
@click.option("--seconds", default=15.0, show_default=True, help="How long the flood lasts.")
@click.option("--scenario", "scenarios", multiple=True, type=click.Choice(SCENARIOS),
              help="Scenarios to run (default: all, in this order).")
@click.option("--concurrency", type=click.IntRange(1), default=None,
              help="The after scenarios' --sign-in-concurrency (default: the server's default).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def main(ctx: click.Context, clients: int, seconds: float, scenarios: tuple[str, ...], concurrency: int | None,
         as_json: bool) -> None:
    if ctx.invoked_subcommand is not None:
        return
    report = Report("signin", as_json)
    report.note(f"{clients} clients posting wrong passwords for {seconds:g} s; /healthz every 20 ms; the server "
                f"and both load processes share the machine's {multiprocessing.cpu_count()} CPU(s)")
    with tempfile.TemporaryDirectory(prefix="bench-arena-signin-") as tmp:
        for scenario in scenarios or SCENARIOS:
            figures = scenario_figures(Path(tmp), scenario, clients, seconds,
                                       None if scenario == "before" else concurrency)
            for name, value in figures.items():
                unit = "ms" if name.startswith("healthz") else "MiB" if name.startswith("rss") else "requests"
                report.figure(f"{scenario}_{name}", value, unit)


main.add_command(serve)


if __name__ == "__main__":
    main()
