"""Without a Docker engine: the one client factory says so in a sentence, every command that
needs one repeats it, and a match marks its container seats as not started."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from arena.cli import main as arena
from referee import sandbox
from referee.records import read_record

from .conftest import ROOT

NOWHERE = {"DOCKER_HOST": "unix:///nonexistent/docker.sock"}
KIT = ROOT / "sample_bots" / "python"


@pytest.fixture
def no_engine(monkeypatch):
    for key, value in NOWHERE.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(sandbox, "_CLIENT", None)  # forget the engine an earlier test reached


def test_the_factory_names_the_missing_engine(no_engine):
    with pytest.raises(sandbox.NoDockerEngine) as info:
        sandbox.docker_client(timeout=5)
    message = str(info.value)
    assert message.startswith("no Docker engine answers at unix:///nonexistent/docker.sock (")
    assert message.endswith("; start one with scripts/docker-up.sh (as root)")


@pytest.mark.parametrize("args", [
    ["images", "list"],
    ["images", "build"],
    ["bot", "build", str(KIT / "random"), "--root", str(KIT)],
    ["bot", "check", "arena-bot/random:1.0.0"],
    ["bot", "submit", str(KIT / "random"), "--root", str(KIT)],
], ids=" ".join)
def test_commands_that_need_docker_say_so(no_engine, args, tmp_path):
    db = ["--db", f"sqlite:///{tmp_path}/arena.db"] if args[1] == "submit" else []
    result = CliRunner().invoke(arena, [*args, *db])
    assert result.exit_code == 1, result.output
    assert result.output.startswith("Error: no Docker engine answers at unix:///nonexistent/docker.sock (")
    assert "start one with scripts/docker-up.sh (as root)" in result.output
    assert not any(isinstance(result.exception, t) for t in (AttributeError, TypeError)), result.exception


def test_a_match_marks_a_container_seat_not_started(no_engine, tmp_path):
    result = CliRunner().invoke(arena, [
        "match", "--game", "prohis", "--games", "1", "--out", str(tmp_path), "--json",
        "--bot", "c=image:arena-bot/random:1.0.0", "--bot", "r1=builtin:random", "--bot", "r2=builtin:random"])
    assert result.exit_code == 0, result.output
    game = json.loads(result.output)["games"][0]
    assert game["failures"][game["bots"].index(0)] == "start_failed"
    [failure] = read_record(tmp_path / game["record"]).failures
    assert failure["detail"].startswith("no Docker engine answers at unix:///nonexistent/docker.sock"), failure
