"""`arena bot build`, `arena doctor`, `make images`, and cleanup (`arena bot check`: test_check.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import docker.errors
import pytest
from click.testing import CliRunner

from arena.bots.build import build_bot
from arena.bots.config import BotError, load_bot_config
from arena.bots.images import PYTHON_BASE, build_base
from arena.cli import main as arena
from referee.sandbox import LABEL, OWNER_LABEL

from .conftest import ROOT, arena_containers

GOOD_TOML = 'name = "t"\nversion = "1"\nlanguage = "python"\nauthor = "me"\n'


def bot_folder(tmp_path: Path, toml: str | None = GOOD_TOML,
               dockerfile: str | None = "FROM scratch\n") -> Path:
    """A bot folder; its image tag is unique to the test, so no test sees another's image."""
    folder = tmp_path / "bot"
    folder.mkdir()
    if toml is not None:
        unique = f"t-{time.time_ns()}"
        (folder / "bot.toml").write_text(toml.replace('name = "t"', f'name = "{unique}"'))
    if dockerfile is not None:
        (folder / "Dockerfile").write_text(dockerfile)
    return folder


@pytest.mark.parametrize("toml, dockerfile, message", [
    (None, "FROM scratch\n", "no bot.toml in"),
    (GOOD_TOML, None, "no Dockerfile:"),
    ('name = "t"\nversion = \n', "FROM scratch\n", "is not valid TOML"),
    ('name = "t"\nversion = "1"\nlanguage = "python"\n', "FROM scratch\n", "'author' is missing"),
    ('name = "T T"\nversion = "1"\nlanguage = "python"\nauthor = "a"\n', "FROM scratch\n",
     "must be lower case"),
    (GOOD_TOML + 'colour = "red"\n', "FROM scratch\n", "unknown key(s) 'colour'"),
    (GOOD_TOML + 'games = ["chess"]\n', "FROM scratch\n", "unknown game(s) 'chess'"),
    (GOOD_TOML + '[build]\ncontext = "sub"\n', "FROM scratch\n", "must be inside the build context"),
])
def test_bad_bot_folders_are_named(tmp_path, toml, dockerfile, message):
    folder = bot_folder(tmp_path, toml, dockerfile)
    (folder / "sub").mkdir()
    with pytest.raises(BotError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_bot_config(folder)


def test_a_broken_dockerfile_names_the_line(tmp_path, docker_client):
    config = load_bot_config(bot_folder(tmp_path, dockerfile="FROM arena/python-base:latest\nFORM x\n"))
    with pytest.raises(BotError, match="unknown instruction: FORM"):
        build_bot(docker_client, config)


def test_a_failing_build_step_is_reported_with_its_output(tmp_path, docker_client):
    config = load_bot_config(bot_folder(tmp_path, dockerfile=(
        "ARG BASE\nFROM ${BASE}\nRUN echo about to fail && exit 3\n")))
    with pytest.raises(BotError, match="returned a non-zero code: 3") as info:
        build_bot(docker_client, config)
    assert "about to fail" in str(info.value)
    with pytest.raises(docker.errors.ImageNotFound):
        docker_client.images.get(config.tag)


def test_a_build_over_its_time_is_stopped(tmp_path, docker_client):
    unique = time.time_ns()  # never a cached step
    dockerfile = f"ARG BASE\nFROM ${{BASE}}\nRUN sleep 60 # {unique}\n"
    config = load_bot_config(bot_folder(tmp_path, dockerfile=dockerfile))
    t0 = time.monotonic()
    with pytest.raises(BotError, match="ran longer than 3 s"):
        build_bot(docker_client, config, timeout=3)
    assert time.monotonic() - t0 < 20
    # the cancelled step's container does not linger
    def sleeping() -> bool:
        return any(f"sleep 60 # {unique}" in " ".join(c.attrs["Config"]["Cmd"] or [])
                   for c in docker_client.containers.list(all=True, ignore_removed=True))

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and sleeping():
        time.sleep(0.5)
    assert not sleeping()


def test_an_image_over_the_size_cap_is_refused_and_removed(tmp_path, docker_client):
    config = load_bot_config(bot_folder(tmp_path, dockerfile="ARG BASE\nFROM ${BASE}\n"))
    with pytest.raises(BotError, match=r"over the cap of 10 MiB"):
        build_bot(docker_client, config, max_size_mb=10)
    with pytest.raises(docker.errors.ImageNotFound):
        docker_client.images.get(config.tag)


def test_arena_bot_build_tags_by_name_and_version(docker_client):
    result = CliRunner().invoke(arena, ["bot", "build", str(ROOT / "sample_bots/python/random"), "-q"])
    assert result.exit_code == 0, result.output
    assert "built arena-bot/random:1.0.0" in result.output
    labels = docker_client.images.get("arena-bot/random:1.0.0").labels
    assert labels["arena.bot.language"] == "python" and labels["arena.bot.author"] == "Arena"
    bad = CliRunner().invoke(arena, ["bot", "build", str(ROOT / "nowhere")])
    assert bad.exit_code == 1 and "is not a folder" in bad.output


def test_make_images_twice_reuses_what_exists(docker_client):
    t0 = time.monotonic()
    assert build_base(docker_client, PYTHON_BASE, say=lambda line: None) == PYTHON_BASE.tag
    assert time.monotonic() - t0 < 5


@pytest.mark.serial  # any referee starting meanwhile sweeps the leftovers this plants
def test_doctor_reports_and_sweeps_leftovers_of_dead_referees(docker_client, tmp_path):
    host = os.uname().nodename
    leftover = docker_client.containers.create(
        PYTHON_BASE.tag, command=["sleep", "600"],
        labels={LABEL: "1", OWNER_LABEL: f"{host}:999999", "arena.match": "dead"})
    leftover.start()
    socket_root = Path("/tmp/arena-deadbeef")
    socket_root.mkdir(exist_ok=True)
    (socket_root / "owner").write_text(f"{host}:999999")
    alive = docker_client.containers.create(
        PYTHON_BASE.tag, command=["sleep", "600"],
        labels={LABEL: "1", OWNER_LABEL: f"{host}:{os.getpid()}", "arena.match": "alive"})
    try:
        result = CliRunner().invoke(arena, ["doctor"])
        assert result.exit_code == 0, result.output
        assert "docker engine: up" in result.output
        assert f"base image {PYTHON_BASE.tag}: present" in result.output
        assert "swept: 1 leftover container(s), 1 leftover socket folder(s)" in result.output
        assert not arena_containers(docker_client, "dead")
        assert not socket_root.exists()
        assert arena_containers(docker_client, "alive")  # a live referee's containers are left alone
    finally:
        alive.remove(force=True)


def _spec(tmp_path, image: str, **fields) -> str:
    spec = {"match_id": "killed", "game": "prohis", "games": 50, "seed": 1,
            "bots": [{"name": "s1", "image": image}, {"name": "s2", "image": image},
                     {"name": "r", "builtin": "random"}],
            "time": {"decision_ms": 60000, "bank_ms": 0}, **fields}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    return str(path)


def _start_referee(tmp_path, spec: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "referee", spec, "--out", str(tmp_path / "out")],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc


def _wait_for_containers(client, match_id: str, count: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(arena_containers(client, match_id)) < count:
        time.sleep(0.2)
    assert len(arena_containers(client, match_id)) == count


def test_sigterm_removes_containers_and_sockets(tmp_path, docker_client, misbehaving_images):
    proc = _start_referee(tmp_path, _spec(tmp_path, misbehaving_images["sleep"]))
    _wait_for_containers(docker_client, "killed", 2)
    time.sleep(1)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert not arena_containers(docker_client, "killed")
    assert not [p for p in Path("/tmp").glob("arena-*") if (p / "owner").exists()
                and (p / "owner").read_text().endswith(f":{proc.pid}")]
    assert not list(Path("/sys/fs/cgroup/memory").glob(f"arena-seat-{proc.pid}-*"))  # the seats closed theirs


def test_after_kill_9_the_next_referee_sweeps_the_leftovers(tmp_path, docker_client, misbehaving_images):
    proc = _start_referee(tmp_path, _spec(tmp_path, misbehaving_images["sleep"]))
    _wait_for_containers(docker_client, "killed", 2)
    deadline = time.monotonic() + 30  # each seat's cgroup (referee/isolation.py) is made as its container starts
    while len(seats := list(Path("/sys/fs/cgroup/memory").glob(f"arena-seat-{proc.pid}-*"))) < 2:
        assert time.monotonic() < deadline, seats
        time.sleep(0.1)
    proc.kill()
    proc.communicate(timeout=30)
    assert len(arena_containers(docker_client, "killed")) == 2  # nothing could clean up
    deadline = time.monotonic() + 2  # but the referee's socket folder is gone with it (its watchdog)
    while time.monotonic() < deadline and [p for p in Path("/tmp").glob("arena-*") if (p / "owner").exists()
                                           and (p / "owner").read_text().endswith(f":{proc.pid}")]:
        time.sleep(0.02)
    assert not [p for p in Path("/tmp").glob("arena-*") if (p / "owner").exists()
                and (p / "owner").read_text().endswith(f":{proc.pid}")]
    again = subprocess.run([sys.executable, "-m", "referee",
                            _spec(tmp_path, misbehaving_images["sleep"], match_id="next", games=1,
                                  time={"decision_ms": 300, "bank_ms": 0}),
                            "--out", str(tmp_path / "next")], cwd=ROOT, capture_output=True, text=True,
                           timeout=120)
    assert again.returncode == 0, again.stderr
    assert not arena_containers(docker_client, "killed")
    assert not arena_containers(docker_client, "next")
    assert not [p for p in Path("/tmp").glob("arena-*") if (p / "owner").exists()
                and (p / "owner").read_text().endswith(f":{proc.pid}")]
    assert not any(seat.exists() for seat in seats)  # reclaimed, then removed
