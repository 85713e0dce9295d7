"""Fixtures for tests that need a real Docker engine: the base image and bot images.

The engine is started by `make test` (scripts/docker-up.sh); these fixtures build what
is missing (a second run finds everything and takes seconds).
"""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import docker
import docker.errors
import pytest

from arena.bots.build import build_bot
from arena.bots.config import load_bot_config
from arena.bots.images import CPP_BASE, PYTHON_BASE, build_base
from referee import sandbox
from referee.sandbox import LABEL, OWNER_LABEL
from referee.sockets import owner_alive

ROOT = Path(__file__).resolve().parents[1]

# every Python sample bot folder with a bot.toml
SAMPLES = tuple(sorted(p.parent.name for p in (ROOT / "sample_bots" / "python").glob("*/bot.toml")))
ATTACKS = ("forkbomb", "membomb", "busyloop", "sleep", "filltmp", "writeroot", "writesocket",
           "egress", "hostsnoop", "daemon", "flood", "logflood", "exit", "spin", "credit")
# The test images' repository prefix: set ARENA_TEST_IMAGES to keep two checkouts that run
# their tests on one Docker engine at the same time from retagging each other's images.
TEST_IMAGES = os.environ.get("ARENA_TEST_IMAGES", "arena-test")
ADVERSARY_BASE = f"{TEST_IMAGES}/adversary:base"


@pytest.fixture(scope="session")
def docker_client() -> docker.DockerClient:
    try:
        client = sandbox.docker_client(timeout=120)
    except sandbox.NoDockerEngine as exc:
        pytest.fail(f"these tests need a Docker engine: {exc}")
    build_base(client, PYTHON_BASE, say=lambda line: None)
    return client


@pytest.fixture(scope="session")
def sample_images(docker_client) -> dict[str, str]:
    """The sample bots, built by the same path as `arena bot build`, each from its own folder."""
    samples = ROOT / "sample_bots" / "python"
    return {name: build_bot(docker_client, load_bot_config(samples / name)).tag for name in SAMPLES}


@pytest.fixture(scope="session")
def adversary_images(docker_client, tmp_path_factory) -> dict[str, str]:
    """One image per attack of tests/bots/adversary.py (the kit comes with the base)."""
    context = tmp_path_factory.mktemp("adversary")
    shutil.copy(ROOT / "tests" / "bots" / "adversary.py", context / "adversary.py")
    (context / "Dockerfile").write_text(
        "ARG BASE\nFROM ${BASE}\nCOPY adversary.py /bot/adversary.py\nENV PYTHONDONTWRITEBYTECODE=1\n")
    docker_client.images.build(path=str(context), tag=ADVERSARY_BASE, buildargs={"BASE": PYTHON_BASE.tag},
                               rm=True, forcerm=True)
    images = {}
    for attack in ATTACKS:
        tag = f"{TEST_IMAGES}/adversary:{attack}"
        dockerfile = f'FROM {ADVERSARY_BASE}\nCMD ["python3", "/bot/adversary.py", "{attack}"]\n'
        docker_client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=tag, rm=True, forcerm=True)
        images[attack] = tag
    return images


@pytest.fixture(scope="session")
def test_bot_images(docker_client, adversary_images, tmp_path_factory) -> dict[str, str]:
    """tests/bots/thinker.py (the same CPU work for every decision) and tests/bots/recorder.py
    (prints every game it is dealt)."""
    context = tmp_path_factory.mktemp("test-bots")
    images = {}
    for name in ("thinker", "recorder"):
        shutil.copy(ROOT / "tests" / "bots" / f"{name}.py", context / f"{name}.py")
        (context / "Dockerfile").write_text(
            f'FROM {ADVERSARY_BASE}\nCOPY {name}.py /bot/{name}.py\nCMD ["python3", "/bot/{name}.py"]\n')
        images[name] = f"{TEST_IMAGES}/{name}:1"
        docker_client.images.build(path=str(context), tag=images[name], rm=True, forcerm=True)
    return images


@pytest.fixture(scope="session")
def cpp_base(docker_client) -> str:
    """The C++ base image, with the C++ kit built into it; its tag."""
    return build_base(docker_client, CPP_BASE, say=lambda line: None)


CPP_KINDS = ("first", "record", "throw", "illegal", "debug")  # of tests/bots/cpp_bot.cpp


@pytest.fixture(scope="session")
def cpp_images(docker_client, cpp_base, tmp_path_factory) -> dict[str, str]:
    """The C++ sample bot, built as `arena bot build` builds it (linked statically, FROM scratch),
    and tests/bots/cpp_bot.cpp linked dynamically on the C++ base, one image per kind."""
    images = {"random": build_bot(docker_client, load_bot_config(ROOT / "sample_bots" / "cpp" / "random")).tag}
    context = tmp_path_factory.mktemp("cpp-bot")
    shutil.copy(ROOT / "tests" / "bots" / "cpp_bot.cpp", context / "cpp_bot.cpp")
    (context / "Dockerfile").write_text(
        "ARG BASE\nFROM ${BASE}\nCOPY cpp_bot.cpp /bot/\nUSER root\n"
        "RUN g++ -O2 -o /bot/cpp_bot /bot/cpp_bot.cpp $(pkg-config --cflags --libs arenabot)\nUSER 10001:10001\n")
    base = f"{TEST_IMAGES}/cpp-bot:base"
    docker_client.images.build(path=str(context), tag=base, buildargs={"BASE": cpp_base}, rm=True, forcerm=True)
    for kind in CPP_KINDS:
        images[kind] = f"{TEST_IMAGES}/cpp-bot:{kind}"
        dockerfile = f'FROM {base}\nCMD ["/bot/cpp_bot", "{kind}"]\n'
        docker_client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=images[kind], rm=True, forcerm=True)
    return images


def arena_containers(client: docker.DockerClient, match_id: str | None = None) -> list:
    labels = [LABEL] + ([f"arena.match={match_id}"] if match_id else [])
    return client.containers.list(all=True, filters={"label": labels})


def left_behind(client: docker.DockerClient, league: str) -> list[str]:
    """The containers of ``league``'s matches (``<league>-r<round>-...``) whose referee has ended:
    what its runs left on the host. Not every Arena container on the machine: the other test
    process may be playing matches of its own meanwhile. Each as its labels, for the message."""
    return [f"{c.short_id} {c.labels}" for c in arena_containers(client)
            if c.labels.get("arena.match", "").startswith(f"{league}-r")
            and not owner_alive(c.labels.get(OWNER_LABEL, ""))]


@pytest.fixture(scope="session")
def misbehaving_images(docker_client, tmp_path_factory) -> dict[str, str]:
    """tests/bots/misbehave.py in a container, one image per kind; and a bot that never speaks."""
    context = tmp_path_factory.mktemp("misbehave")
    shutil.copy(ROOT / "tests/bots/misbehave.py", context / "misbehave.py")
    (context / "Dockerfile").write_text("ARG BASE\nFROM ${BASE}\nCOPY . /bot/\n")
    docker_client.images.build(path=str(context), tag=f"{TEST_IMAGES}/misbehave:base",
                               buildargs={"BASE": PYTHON_BASE.tag}, rm=True)
    images = {}
    for kind in ("illegal", "badversion", "exit", "sleep", "noconnect", "evilname", "evilgames"):
        tag = f"{TEST_IMAGES}/misbehave:{kind}"
        dockerfile = f'FROM {TEST_IMAGES}/misbehave:base\nCMD ["python3", "/bot/misbehave.py", "{kind}", "2"]\n'
        docker_client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=tag, rm=True)
        images[kind] = tag
    return images
