"""The HTTP server against huge and slow request heads: ``arena serve``'s protocol
(``arena/web/server.py``) and, as the baseline, uvicorn's own httptools protocol, each serving
the app in a subprocess of its own, in one run.

- **64 MB header**: one request whose one header is 64 MB, sent as fast as the server takes it
  (reading its answer as it goes): how many bytes the server took, how long until it stopped
  taking them (an answer, a close, or the whole 64 MB taken), and its answer;
- **8 at once**: eight connections with a 16 MB header each, together: the server's resident
  memory, before and at its peak (sampled every 20 ms);
- **a byte at a time**: a head sent one byte every 100 ms: how long until the server cuts it off
  (at most ``--slow-seconds``, then the client gives up).

    python -m bench.headers [--slow-seconds 20] [--json]
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import click

from .common import Report, free_port, start_server
from .signin import rss_mib

MB64 = 64 * 2**20


@click.command(hidden=True)
@click.option("--db", "db_url", required=True)
@click.option("--port", type=int, required=True)
@click.option("--plain", is_flag=True, help="uvicorn's own protocol (the baseline)")
def serve(db_url: str, port: int, plain: bool) -> None:
    import uvicorn

    from arena.store import open_store
    from arena.web import WebSettings, create_app
    from arena.web.server import serve as run

    tmp = Path(db_url.removeprefix("sqlite:///")).parent
    app = create_app(open_store(db_url), WebSettings(runs_dir=tmp / "runs", uploads_dir=tmp / "uploads",
                                                     worker=False))
    if plain:
        uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
    else:
        run(app, "127.0.0.1", port)


def start(tmp: Path, plain: bool) -> tuple[subprocess.Popen, int]:
    from arena.store import open_store

    db_url = f"sqlite:///{tmp}/{'plain' if plain else 'arena'}.db"
    open_store(db_url)
    port = free_port()
    process, _ = start_server([sys.executable, "-m", "bench.headers", "serve", "--db", db_url, "--port", str(port),
                               *(["--plain"] if plain else [])], port)
    return process, port


def huge_head(port: int, total: int = MB64) -> tuple[int, float, bytes]:
    chunk = b"a" * 65536
    sent, answer = 0, b""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ")
        sock.settimeout(0.05)
        while sent < total:
            try:
                sent += sock.send(chunk)
            except TimeoutError:
                pass
            except OSError:
                break
            try:
                data = sock.recv(65536)
                if not data:
                    break
                answer += data
            except TimeoutError:
                pass
            except OSError:
                break
    return sent, time.monotonic() - start, answer.split(b"\r\n", 1)[0]


def slow_head(port: int, give_up: float) -> float:
    """Seconds until the server closes a head sent a byte every 100 ms (``give_up`` if it never does)."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.settimeout(0.1)
        head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100_000
        for byte in head:
            if time.monotonic() - start > give_up:
                return give_up
            try:
                sock.send(bytes([byte]))
                if sock.recv(65536) == b"":
                    break
            except TimeoutError:
                continue
            except OSError:
                break
    return time.monotonic() - start


def figures(tmp: Path, plain: bool, slow_seconds: float) -> dict[str, float]:
    process, port = start(tmp, plain)
    try:
        before = rss_mib(process.pid)
        sent, took, answer = huge_head(port)
        out = {"huge_taken_mib": sent / 2**20, "huge_seconds": took,
               "huge_refused": float(answer.startswith(b"HTTP/1.1 431")), "huge_rss_growth_mib": 0.0}
        out["huge_rss_growth_mib"] = rss_mib(process.pid) - before
        before, peak, done = rss_mib(process.pid), [0.0], threading.Event()

        def sample() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], rss_mib(process.pid))
                time.sleep(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        threads = [threading.Thread(target=huge_head, args=(port, MB64 // 4)) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        done.set()
        sampler.join()
        out.update(eight_rss_before=before, eight_rss_peak=peak[0])
        out["slow_cut_after"] = slow_head(port, slow_seconds)
    finally:
        process.terminate()
        process.wait(10)
    return out


@click.group(invoke_without_command=True)
@click.option("--slow-seconds", default=20.0, show_default=True, help="How long the slow client keeps sending.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def main(ctx: click.Context, slow_seconds: float, as_json: bool) -> None:
    if ctx.invoked_subcommand is not None:
        return
    report = Report("headers", as_json)
    units = {"mib": "MiB", "seconds": "s", "refused": "(1: a 431)", "before": "MiB", "peak": "MiB", "after": "s"}
    report.note("uvicorn's own protocol takes about a minute to read each 64 MB head")
    with tempfile.TemporaryDirectory(prefix="bench-arena-headers-") as tmp:
        for name, plain in (("uvicorn", True), ("arena", False)):
            for figure, value in figures(Path(tmp), plain, slow_seconds).items():
                report.figure(f"{name}_{figure}", value, units[figure.rsplit("_", 1)[1]])


main.add_command(serve)


if __name__ == "__main__":
    main()
