"""The recipes of docs/writing-a-bot.md, tried for real: each bot folder is made as the docs say
(the Dockerfile is read out of the docs themselves; the host commands are the docs'), built by
`arena bot build`, and played. The host's toolchains come from Debian (`make protoc`: golang-go
is not needed here, rustc, openjdk-17-jdk-headless, lua5.4); the bots are tests/recipes/.

- Go `FROM scratch`: the binary alone, 8 MiB where the base is 605 MiB;
- Rust: a static binary (glibc linked in) on the shell base; submitted to a league, it shows
  `rust` on the leaderboard (bot.toml's language, its base a field of its own);
- Java: a jlink'd runtime of java.base, within the upload cap;
- Lua: Debian's interpreter with the shared libraries `ldd` names."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.bots.build import build_bot
from arena.bots.cache import remove_bot_image
from arena.bots.config import load_bot_config
from arena.bots.images import GO_BASE, build_base
from arena.bots.submit import submit_bot
from arena.cli import main as arena
from arena.league import create_league
from arena.league.schedule import ScheduleOptions
from arena.store import open_store
from referee import limits

from .conftest import ROOT

DOCS = ROOT / "docs" / "writing-a-bot.md"
SOURCES = ROOT / "tests" / "recipes"


def recipe(heading: str, containing: str = "") -> str:
    """The first Dockerfile of docs/writing-a-bot.md under ``heading`` (holding ``containing``)."""
    text = DOCS.read_text()
    section = text[text.index(f"\n{heading}\n"):]
    section = section[:re.search(r"\n##+ ", section[len(heading) + 2:]).end() + len(heading)]  # type: ignore[union-attr]
    blocks = re.findall(r"```dockerfile\n(.*?)```", section, re.S)
    return next(block for block in blocks if containing in block)


def toolchain(name: str) -> str:
    path = shutil.which(name)
    if path is None:  # `make test` installs it (scripts/protoc-up.sh): only a hand-run test lacks it
        pytest.skip(f"no {name} on this host: `make protoc` installs Debian's")
    return path


def folder_of(tmp_path: Path, name: str, language: str, dockerfile: str, protocol: str = "stdio") -> Path:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "1.0.0"\nlanguage = "{language}"\n'
                                     f'protocol = "{protocol}"\nauthor = "Ada"\n')
    (folder / "Dockerfile").write_text(dockerfile)
    return folder


def run(*command: str | Path, cwd: Path) -> None:
    done = subprocess.run([str(c) for c in command], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


def plays(tag: str) -> dict:
    """A short match of the image against a random player: its totals."""
    result = CliRunner().invoke(arena, ["match", "--game", "sobek", "--games", "2", "--json",
                                        "--bot", f"me=image:{tag}", "--bot", "r=builtin:random"])
    assert result.exit_code == 0, result.output
    return next(t for t in json.loads(result.output)["totals"] if t["bot"] == "me")


def test_go_from_scratch_is_the_binary_alone(tmp_path, docker_client):
    build_base(docker_client, GO_BASE, say=lambda line: None)
    folder = folder_of(tmp_path, "go-random", "go", recipe("## Go", "FROM scratch"), protocol="grpc")
    shutil.copy(ROOT / "sample_bots" / "go" / "random" / "bot.go", folder)
    built = build_bot(docker_client, load_bot_config(folder))
    try:
        assert built.size_mb < 16, built.size_mb  # the base-built sample: 605 MiB
        assert not any(t for i in docker_client.api.images(name=f"arena-bot-stages/{folder.name}")
                       for t in i["RepoTags"] or () if ":stage" in t)
        totals = plays(built.tag)
        assert totals["failures"] == 0 and totals["version"] == "1.0.0" and totals["language"] == "go"
    finally:
        remove_bot_image(docker_client, built.tag)


def test_rust_static_binary_passes_the_check_and_shows_rust_on_the_leaderboard(tmp_path, docker_client):
    rustc = toolchain("rustc")
    folder = folder_of(tmp_path, "rust-random", "rust", recipe("### Rust: a static binary"))
    run(rustc, "-O", "-C", "target-feature=+crt-static", "-C", "strip=symbols", "-o", folder / "bot",
        SOURCES / "rust_bot.rs", cwd=tmp_path)
    assert b"dynamic" not in subprocess.run(["file", "-L", str(folder / "bot")], capture_output=True).stdout
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    store = open_store(db)
    create_league(store, "recipes", "sobek", 2, {}, ScheduleOptions())
    bot = submit_bot(store, folder, "recipes")  # built, and every game of the check passed
    try:
        assert (bot.language, bot.version) == ("rust", "1.0.0")
        board = CliRunner().invoke(arena, ["leaderboard", "recipes", "--db", db])
        [row] = [line for line in board.output.splitlines() if line.split()[:1] == ["1"]]
        assert row.split()[:4] == ["1", "rust-random", "1.0.0", "rust"], row
        assert plays("arena-bot/rust-random:1.0.0")["language"] == "rust"
    finally:
        remove_bot_image(docker_client, "arena-bot/rust-random:1.0.0")


def test_java_jlinked_runtime_fits_the_upload_cap_and_plays(tmp_path, docker_client):
    javac, jlink = toolchain("javac"), toolchain("jlink")
    folder = folder_of(tmp_path, "java-random", "java", recipe("### Java: a jlink'd runtime"))
    run(javac, "--release", "17", "-d", "classes", SOURCES / "Bot.java", cwd=folder)
    run(jlink, "--add-modules", "java.base", "--strip-debug", "--no-man-pages", "--no-header-files",
        "--compress=2", "--output", "jre", cwd=folder)
    with tarfile.open(tmp_path / "upload.tar.gz", "w:gz") as tar:  # as `arena bot submit` packs it
        tar.add(folder, arcname=folder.name)
    assert (tmp_path / "upload.tar.gz").stat().st_size < limits.UPLOAD_MB * 1_000_000
    built = build_bot(docker_client, load_bot_config(folder))
    try:
        totals = plays(built.tag)
        assert totals["failures"] == 0 and totals["version"] == "1.0.0" and totals["language"] == "java"
    finally:
        remove_bot_image(docker_client, built.tag)


def test_lua_interpreter_with_its_shared_libraries_plays(tmp_path, docker_client):
    lua = toolchain("lua5.4")
    folder = folder_of(tmp_path, "lua-random", "lua", recipe("### Lua: an interpreter with its shared libraries"))
    shutil.copy(SOURCES / "bot.lua", folder)
    (folder / "lua").mkdir()
    shutil.copy(lua, folder / "lua" / "lua5.4")
    ldd = subprocess.run(["ldd", lua], capture_output=True, text=True, check=True).stdout
    for name, path in re.findall(r"^\s*(\S+) => (/\S+)", ldd, re.M):  # every library but glibc's
        if not re.match(r"lib(c|m)\.so", name):
            shutil.copy(path, folder / "lua")
    assert (folder / "lua" / "libreadline.so.8").is_file()  # what the base lacks
    built = build_bot(docker_client, load_bot_config(folder))
    try:
        totals = plays(built.tag)
        assert totals["failures"] == 0 and totals["language"] == "lua"
    finally:
        remove_bot_image(docker_client, built.tag)
