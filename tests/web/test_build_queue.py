"""The build queue, for real: uploads over HTTP to a real server whose workers build them on
the Docker engine and check them. A build that never ends (``RUN sleep 100000``) by alice does
not hold bob's bot: with two builders his is built beside it, and with one the time cap stops
alice's (whether or not it keeps printing) and bob's goes next. Nothing of the stopped build
is left running."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import docker.errors
import pytest

from arena.store import open_store
from arena.web import WebSettings, create_app

from .conftest import Site, add_users, live_server
from .test_submissions import bot_folder, remove_images, upload

NEVER_ENDS = "ARG BASE\nFROM ${BASE}\nCOPY bot.py /bot/bot.py\nRUN sleep 100000\n"
# prints a line now and then: each holds off the stream's read timeout (10 s), not the deadline
TICKS = "ARG BASE\nFROM ${BASE}\nCOPY bot.py /bot/bot.py\nRUN echo start && sleep 5 && echo one && sleep 9 && " \
        "echo two && sleep 100000\n"


@contextmanager
def server(tmp_path: Path, **settings) -> Iterator[Site]:
    store = open_store(f"sqlite:///{tmp_path}/arena.db")
    tokens = add_users(store)
    app = create_app(store, WebSettings(runs_dir=tmp_path / "runs", uploads_dir=tmp_path / "uploads", **settings))
    with live_server(app) as url:
        yield Site(url, store, tmp_path / "runs", tokens)


def watch(site: Site, submissions: dict[str, tuple[str, dict]], seconds: float) -> dict[str, dict]:
    """Polls each submission (name -> (user, submission)) until all are finished; returns, by
    name, its last state and when (seconds from now) it was first seen in each status."""
    start = time.monotonic()
    seen: dict[str, dict] = {name: {"times": {}} for name in submissions}
    clients = {user: site.client(user) for user, _ in submissions.values()}
    try:
        while True:
            for name, (user, submission) in submissions.items():
                state = clients[user].get(submission["api_url"]).json()
                seen[name]["times"].setdefault(state["status"], time.monotonic() - start)
                seen[name]["state"] = state
            if all(s["state"]["finished"] for s in seen.values()):
                return seen
            assert time.monotonic() - start < seconds, {n: s["state"]["status"] for n, s in seen.items()}
            time.sleep(0.2)
    finally:
        for client in clients.values():
            client.close()


def build_containers(client) -> list:
    """Containers of this process's builds (each RUN step runs under its build's cgroup)."""
    prefix = f"/arena-build-{os.getpid()}-"
    found = []
    for container in client.api.containers(all=True, quiet=True):
        try:  # other tests' containers come and go meanwhile
            parent = client.api.inspect_container(container["Id"])["HostConfig"].get("CgroupParent") or ""
        except docker.errors.NotFound:
            continue
        if parent.startswith(prefix):
            found.append(container["Id"])
    return found


@pytest.fixture
def cleanup(docker_client) -> Iterator[None]:
    yield
    for name in ("queue-sleeper", "queue-ticker", "queue-bob", "queue-bob2"):
        remove_images(docker_client, name)


def test_with_two_builders_a_build_that_never_ends_does_not_hold_another_authors(
        docker_client, sample_images, tmp_path, cleanup):
    with server(tmp_path, builds_at_once=2, build_seconds=45) as site:
        alice = upload(site, "alice", bot_folder(tmp_path, "queue-sleeper", "1", dockerfile=NEVER_ENDS), leagues=())
        bob = upload(site, "bob", bot_folder(tmp_path, "queue-bob", "1"), leagues=())
        assert alice.status_code == bob.status_code == 201, (alice.text, bob.text)
        seen = watch(site, {"alice": ("alice", alice.json()), "bob": ("bob", bob.json())}, 120)
    assert seen["bob"]["state"]["status"] == "entered", seen["bob"]["state"]["error"]
    assert seen["bob"]["times"]["entered"] < seen["alice"]["times"]["refused"], seen
    assert "ran longer than 45 s (its time cap)" in seen["alice"]["state"]["error"]
    assert build_containers(docker_client) == [], "the stopped build left a container"
    print(f"bob's bot entered {seen['bob']['times']['entered']:.1f} s after upload, beside alice's endless build "
          f"(stopped at {seen['alice']['times']['refused']:.1f} s)")


def test_with_one_builder_the_time_cap_stops_a_build_that_keeps_printing_and_the_next_author_goes(
        docker_client, sample_images, tmp_path, cleanup):
    cap = 10
    with server(tmp_path, builds_at_once=1, build_seconds=cap) as site:
        alice = upload(site, "alice", bot_folder(tmp_path, "queue-ticker", "1", dockerfile=TICKS), leagues=())
        bob = upload(site, "bob", bot_folder(tmp_path, "queue-bob2", "1"), leagues=())
        assert alice.status_code == bob.status_code == 201, (alice.text, bob.text)
        seen = watch(site, {"alice": ("alice", alice.json()), "bob": ("bob", bob.json())}, 120)
    ticker, times = seen["alice"]["state"], seen["alice"]["times"]
    assert ticker["status"] == "refused", ticker
    assert f"ran longer than {cap} s (its time cap)" in ticker["error"], ticker["error"]
    building = times.get("building", 0.0)
    assert times["refused"] - building < cap + 3.5, times  # the deadline, not the line at 15 s
    lines = ticker["log"].splitlines()
    assert "one" in lines and "two" not in lines, ticker["log"]
    assert seen["bob"]["state"]["status"] == "entered", seen["bob"]["state"]["error"]
    assert seen["bob"]["times"].get("building", 0) >= times["refused"] - 0.5, seen  # bob's waited for the slot
    assert build_containers(docker_client) == [], "the stopped build left a container"
    print(f"alice's build stopped {times['refused'] - building:.1f} s after it began (cap {cap} s); bob's bot "
          f"entered {seen['bob']['times']['entered']:.1f} s after upload")
