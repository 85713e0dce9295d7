"""What a test may leave on the host: nothing. Other checkouts run their tests on the same
engine at the same time, so a test marks what it builds (a label after FROM, inherited by
every later step's image and container) and is judged on what carries its mark; volumes are
anonymous and cannot be marked, so they are compared as a whole. Build cgroups and socket
folders name their process: only this process's count (the other test process builds bots too)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import cast

import docker
import pytest

MARK = "arena.test.mark"


def new_mark() -> str:
    return f"m{time.time_ns()}"


def host_state(client: docker.DockerClient, mark: str) -> dict[str, set[str]]:
    label: dict[str, str | list[str] | bool] = {"label": f"{MARK}={mark}"}  # docker's type of filters
    own = f":{os.getpid()}"
    return {
        "containers": {cast(str, c.id) for c in client.containers.list(all=True, filters=label)},  # listed: has one
        "images": set(client.api.images(all=True, quiet=True, filters=label)),
        "volumes": {v.name for v in client.volumes.list()},
        "build cgroups": {p.name for p in Path("/sys/fs/cgroup/pids").glob(f"arena-build-{os.getpid()}-*")},
        "socket folders": {str(p) for p in Path("/tmp").glob("arena-*")
                           if (p / "owner").is_file() and (p / "owner").read_text().endswith(own)},
    }


def left_behind(client: docker.DockerClient, mark: str, before: dict[str, set[str]]) -> dict[str, set[str]]:
    """What is on the host now that was not before, of each kind (empty when nothing)."""
    after = host_state(client, mark)
    return {kind: after[kind] - before[kind] for kind in after if after[kind] - before[kind]}


@pytest.fixture
def mark(docker_client):
    """A mark for what the test builds; after the test, nothing marked is left, nor a new
    volume, build cgroup or socket folder of this process."""
    mark = new_mark()
    before = host_state(docker_client, mark)
    yield mark
    leftovers = left_behind(docker_client, mark, before)
    assert not leftovers, f"left on the host: {leftovers}"
