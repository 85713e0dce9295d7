"""The time from "scrimmage" to its first replay, on this machine.

Builds a store with a Prohis league of three sample bots (their images must be built: `make
images`), an author who owns one of them, and serves it with ``arena serve`` in a subprocess on
localhost (its own scrimmage player, one at a time, as deployed). Then, ``--repeats`` times, as
an author's client would: POST /api/v1/scrimmages (the author's bot against the two others), poll
its state every 50 ms until its first game is stored, and GET that game's replay of the author's
seat. It reports, per repeat and as the median:

- ``first replay``: from sending the POST to having the replay's bytes (what an author waits);
- ``first game stored``: from the POST to the poll that shows a game (the rest is the replay);
- ``whole scrimmage``: until it is done (``--games`` games, one match of 3 at a time).

    python -m bench.scrimmage [--repeats 3] [--games 3] [--json]
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click
import docker
import httpx

from arena.accounts import add_user
from arena.bots.config import load_bot_config
from arena.bots.registry import register_bot
from arena.league import create_league
from arena.league.schedule import ScheduleOptions
from arena.store import Bot, User, open_store

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ("random", "first_legal", "prohis_heuristic")


def prepare(folder: Path) -> tuple[str, str, list[str]]:
    """The store's URL, the author's token, and the sample bots' names (the author's first)."""
    url = f"sqlite:///{folder}/arena.db"
    store = open_store(url)
    client = docker.from_env()
    create_league(store, "bench", "prohis", 3, {}, ScheduleOptions())
    author, token = add_user(store, "author", password="author-password-1")
    names = []
    for folder_name in SAMPLES:
        config = load_bot_config(ROOT / "sample_bots" / "python" / folder_name)
        try:
            digest = client.images.get(config.tag).id or ""
        except docker.errors.ImageNotFound:
            raise click.ClickException(f"{config.tag} is not built: run `make images`") from None
        register_bot(store, name=config.name, version=config.version, image=config.tag, image_digest=digest,
                     language=config.language, author=config.author, games=list(config.games), league="bench")
        names.append(config.name)
    with store() as session, session.begin():
        bot = session.query(Bot).filter(Bot.name == names[0]).one()
        bot.owner_id = session.query(User.id).filter(User.name == "author").scalar()
    return url, token, names


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def measure(base: str, token: str, names: list[str], games: int) -> dict[str, float]:
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=120) as client:
        t0 = time.perf_counter()
        reply = client.post("/api/v1/scrimmages", json={"bot": names[0], "opponents": names[1:], "games": games})
        reply.raise_for_status()
        scrimmage = reply.json()
        while not scrimmage["results"]:
            if scrimmage["status"] == "failed":
                raise click.ClickException(f"the scrimmage failed: {scrimmage['error']}")
            time.sleep(0.05)
            scrimmage = client.get(scrimmage["api_url"]).json()
        stored = time.perf_counter() - t0
        first = scrimmage["results"][0]
        mine = first["seats"].index(scrimmage["bots"][0]["bot_id"])
        replay = client.get(f"{scrimmage['api_url']}/games/{first['number']}/replay", params={"seat": mine})
        replay.raise_for_status()
        first_replay = time.perf_counter() - t0
        while scrimmage["status"] not in ("done", "failed"):
            time.sleep(0.05)
            scrimmage = client.get(scrimmage["api_url"]).json()
        return {"first_replay_s": first_replay, "first_game_stored_s": stored,
                "whole_s": time.perf_counter() - t0, "replay_bytes": len(replay.content)}


@click.command()
@click.option("--repeats", default=3, show_default=True, type=click.IntRange(1))
@click.option("--games", default=3, show_default=True, type=click.IntRange(3), help="A multiple of 3.")
@click.option("--json", "as_json", is_flag=True)
def main(repeats: int, games: int, as_json: bool) -> None:
    """Measures the time from asking for a scrimmage to its first replay (see the module)."""
    with tempfile.TemporaryDirectory(prefix="bench-scrimmage-") as tmp:
        folder = Path(tmp)
        url, token, names = prepare(folder)
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--port", str(port), "--db", url,
                                   "--runs", str(folder / "runs"), "--no-worker",
                                   "--scrimmages-per-author", str(repeats + 1)],
                                  env={**os.environ}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    if httpx.get(f"{base}/healthz").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise click.ClickException("the server did not start")
                time.sleep(0.1)
            runs = [measure(base, token, names, games) for _ in range(repeats)]
        finally:
            server.terminate()
            server.wait(10)
    summary = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    if as_json:
        click.echo(json.dumps({"runs": runs, "median": summary, "games": games}, indent=2))
        return
    for i, r in enumerate(runs):
        click.echo(f"run {i}: first replay {r['first_replay_s']:.2f} s (first game stored "
                   f"{r['first_game_stored_s']:.2f} s), whole scrimmage of {games} games {r['whole_s']:.2f} s")
    click.echo(f"median: first replay {summary['first_replay_s']:.2f} s, first game stored "
               f"{summary['first_game_stored_s']:.2f} s, whole {summary['whole_s']:.2f} s")


if __name__ == "__main__":
    main()
