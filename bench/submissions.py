"""A long build's effect on another author's wait: author A uploads a bot whose build runs
``RUN sleep S`` (a build that takes S seconds), and author B a normal bot (the random sample,
renamed) right after; B's wait is from B's upload to B's bot entered (built, checked,
registered). Real uploads over HTTP to a real server (in this process) on a fresh store, real
builds on the Docker engine, real checks.

Configurations, interleaved in each repeat (same run, same machine):

- ``one at a time``: ``--builds 1``, as the server was before (one worker thread, oldest
  first: A's build, then B's; the fair queue takes A's first too, it came first);
- ``default``: this machine's default ``--builds`` (half the cores, at least 2), fair across
  authors, an author's builds at most all but one of the slots;
- ``one, capped``: ``--builds 1 --build-seconds CAP`` (the cap below S): A's build is stopped.

    python -m bench.submissions [--sleep 60] [--cap 20] [--repeats 3] [--json]

Needs the Docker engine and the base images (``make images``).
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import click
import httpx
import uvicorn

from arena.accounts import add_user
from arena.store import open_store
from arena.uploads import pack_folder
from arena.web import WebSettings, create_app
from referee import limits

from .common import Report, median

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_bots" / "python" / "random"


@contextlib.contextmanager
def serving(app) -> Iterator[str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


def bot_folder(parent: Path, name: str, sleep: int | None = None) -> Path:
    """The random sample as ``name``, playing Prohis; with ``sleep``, its build takes that long
    (a step of its own, never cached: its command holds a fresh nonce)."""
    folder = parent / name
    shutil.copytree(SAMPLE, folder)
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "1"\nlanguage = "python"\nauthor = "bench"\n'
                                     'games = ["prohis"]\n')
    bot = (folder / "bot.py").read_text()
    (folder / "bot.py").write_text(bot.replace('name="random", version="1.0.0"',
                                               f'name="{name}", version="1", games=["prohis"]'))
    if sleep is not None:
        dockerfile = (folder / "Dockerfile").read_text()
        (folder / "Dockerfile").write_text(dockerfile + f"RUN echo {secrets.token_hex(4)} && sleep {sleep}\n")
    return folder


def one_run(work: Path, settings: dict, sleep: int, tag: str) -> tuple[float, float, str]:
    """B's wait (s), A's time to finish (s), and how A's submission ended."""
    root = work / tag
    root.mkdir()
    store = open_store(f"sqlite:///{root}/arena.db")
    tokens = {name: add_user(store, name)[1] for name in ("alice", "bob")}
    app = create_app(store, WebSettings(runs_dir=root / "runs", uploads_dir=root / "uploads", **settings))
    a_folder = bot_folder(root, f"bench-a-{tag}", sleep)
    b_folder = bot_folder(root, f"bench-b-{tag}")
    with serving(app) as url:
        clients = {n: httpx.Client(base_url=url, headers={"Authorization": f"Bearer {t}"}, timeout=60)
                   for n, t in tokens.items()}
        try:
            start = time.monotonic()
            a = clients["alice"].post("/api/v1/submissions", files={"archive": ("a.tar.gz", pack_folder(a_folder))})
            b_sent = time.monotonic()
            b = clients["bob"].post("/api/v1/submissions", files={"archive": ("b.tar.gz", pack_folder(b_folder))})
            assert a.status_code == b.status_code == 201, (a.text, b.text)
            done: dict[str, tuple[float, str]] = {}
            while len(done) < 2:
                for who, reply in (("alice", a), ("bob", b)):
                    if who not in done:
                        state = clients[who].get(reply.json()["api_url"]).json()
                        if state["finished"]:
                            done[who] = (time.monotonic(), state["status"])
                assert time.monotonic() - start < sleep + 600, "a submission did not finish"
                time.sleep(0.2)
        finally:
            for client in clients.values():
                client.close()
    assert done["bob"][1] == "entered", done
    return done["bob"][0] - b_sent, done["alice"][0] - start, done["alice"][1]


@click.command()
@click.option("--sleep", default=60, show_default=True, help="Seconds author A's build takes (RUN sleep).")
@click.option("--cap", default=20, show_default=True, help="--build-seconds of the capped configuration.")
@click.option("--repeats", default=3, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def main(sleep: int, cap: int, repeats: int, as_json: bool) -> None:
    report = Report("submissions", as_json)
    configs = {"one at a time": {"builds_at_once": 1},
               "default": {"builds_at_once": limits.BUILDS_AT_ONCE},
               "one, capped": {"builds_at_once": 1, "build_seconds": cap}}
    report.note(f"A's build sleeps {sleep} s; default --builds here is {limits.BUILDS_AT_ONCE}; cap {cap} s")
    waits: dict[str, list[float]] = {name: [] for name in configs}
    import docker

    engine = docker.from_env()
    with tempfile.TemporaryDirectory(prefix="arena-bench-submissions-") as work:
        try:
            for repeat in range(repeats):
                for i, (name, settings) in enumerate(configs.items()):
                    b_wait, a_time, a_status = one_run(Path(work), settings, sleep, f"{repeat}{i}")
                    waits[name].append(b_wait)
                    report.note(f"repeat {repeat + 1}, {name}: B waited {b_wait:.1f} s; A {a_status} after "
                                f"{a_time:.1f} s")
        finally:
            for image in engine.images.list(name="arena-bot/bench-*"):
                for tag in image.tags:
                    with contextlib.suppress(docker.errors.APIError):
                        engine.images.remove(tag)
    for name in configs:
        report.figure(f"B's wait, {name}", median(waits[name]), "s", f"median of {repeats}")
    base = median(waits["one at a time"])
    report.figure("B's wait, default vs one at a time", median(waits["default"]) / base, "x")


if __name__ == "__main__":
    main()
