"""The local loop of a JavaScript or Go kit bot, from a clean folder as its author starts: one
set-up step (`arena kit install LANGUAGE DIR`, offline, out of the base image), then the bot
runs on the host under `arena match --bot me=CMD` and `arena bot check --command CMD`, with no
image built. The host's node and go come from Debian (`make protoc`: nodejs, golang-go)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.bots.images import GO_BASE, NODE_BASE, build_base
from arena.cli import main as arena

from ..docker_fixtures import ROOT, docker_client  # noqa: F401


def host_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:  # `make test` installs it (scripts/protoc-up.sh): only a hand-run test lacks it
        pytest.skip(f"no {name} on this host: `make protoc` installs Debian's")
    return path


def install(language: str, folder: Path) -> str:
    result = CliRunner().invoke(arena, ["kit", "install", language, str(folder)])
    assert result.exit_code == 0, result.output
    return result.output


def play(folder: Path, command: str, monkeypatch: pytest.MonkeyPatch) -> dict:
    monkeypatch.chdir(folder)
    result = CliRunner().invoke(arena, ["match", "--game", "sobek", "--games", "2", "--json",
                                        "--bot", f"me={command}", "--bot", "r=builtin:random"])
    assert result.exit_code == 0, result.output
    return {t["bot"]: t for t in json.loads(result.output)["totals"]}


def test_a_javascript_kit_bot_plays_and_passes_the_check_on_the_host(tmp_path, docker_client, monkeypatch):  # noqa: F811
    node = host_tool("node")
    build_base(docker_client, NODE_BASE, say=lambda line: None)
    folder = tmp_path / "my-js-bot"
    said = install("javascript", folder)
    assert "require('arenabot') works for a bot in" in said
    shutil.copy(ROOT / "sample_bots" / "javascript" / "random" / "bot.js", folder / "bot.js")
    totals = play(folder, f"{node} bot.js", monkeypatch)
    assert totals["me"]["failures"] == 0 and totals["me"]["version"] == "1.0.0"
    check = CliRunner().invoke(arena, ["bot", "check", "--quiet", "--decision-ms", "500", "--command", node,
                                       "bot.js"])
    assert check.exit_code == 0, check.output
    assert check.output.rstrip().endswith(f"{node} bot.js: passes every check")


def test_a_go_kit_bot_builds_and_plays_on_the_host(tmp_path, docker_client, monkeypatch):  # noqa: F811
    go = host_tool("go")
    build_base(docker_client, GO_BASE, say=lambda line: None)
    gopath = tmp_path / "arena-go"
    said = install("go", gopath)
    assert f"GOPATH={gopath} GO111MODULE=off CGO_ENABLED=0 go build -o bot ." in said
    assert (gopath / "src" / "arena" / "arenabot" / "arenabot.go").is_file()
    folder = tmp_path / "my-go-bot"
    folder.mkdir()
    shutil.copy(ROOT / "sample_bots" / "go" / "random" / "bot.go", folder / "bot.go")
    # the documented command, with the host's default build cache (a rebuild compiles only the bot)
    env = {**os.environ, "GOPATH": str(gopath), "GO111MODULE": "off", "CGO_ENABLED": "0"}
    built = subprocess.run([go, "build", "-o", "bot", "."], cwd=folder, env=env, capture_output=True, text=True,
                           timeout=600)
    assert built.returncode == 0, built.stderr
    totals = play(folder, "./bot", monkeypatch)
    assert totals["me"]["failures"] == 0 and totals["me"]["version"] == "1.0.0"
