"""The Python base image holds the protocol package and the bot kit of this checkout, built into
wheels; its tag changes with them; a Python bot's image is the base plus its own folder."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import zipfile
from pathlib import Path

from click.testing import CliRunner

from arena.bots.images import PYTHON_BASE, build_wheels
from arena.cli import main as arena

from .conftest import ROOT

PACKAGES = {"arena_protocol": ROOT / "protos/python/arena_protocol", "arena_games": ROOT / "games/arena_games",
            "arenabot": ROOT / "kits/python/arenabot"}
# prints {path relative to site-packages: sha256} of every file of the three packages, as installed
INSTALLED = """
import hashlib, json, pathlib, arena_protocol, arena_games, arenabot
out = {}
for package in (arena_protocol, arena_games, arenabot):
    root = pathlib.Path(package.__file__).parent
    for path in root.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            out[str(path.relative_to(root.parent))] = hashlib.sha256(path.read_bytes()).hexdigest()
print(json.dumps(out))
"""


def checkout_files() -> dict[str, str]:
    """The same for this checkout's sources."""
    return {str(path.relative_to(folder.parent)): hashlib.sha256(path.read_bytes()).hexdigest()
            for folder in PACKAGES.values() for path in folder.rglob("*")
            if path.is_file() and "__pycache__" not in path.parts}


def test_the_base_digest_follows_the_kit_and_nothing_else(tmp_path):
    copies = []
    for project in PYTHON_BASE.projects:
        copy = tmp_path / project.parent.name
        shutil.copytree(project, copy, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
        copies.append(copy)
    base = dataclasses.replace(PYTHON_BASE, projects=tuple(copies))
    first = base.digest()
    strategy = tmp_path / "kits" / "arenabot" / "strategies" / "random_choice.py"
    # build leftovers go into no wheel, so they change nothing
    (strategy.parent / "__pycache__").mkdir(exist_ok=True)
    (strategy.parent / "__pycache__" / "random_choice.cpython-311.pyc").write_bytes(b"\0")
    (tmp_path / "kits" / "build" / "lib").mkdir(parents=True)
    (tmp_path / "kits" / "arenabot.egg-info").mkdir()
    assert base.digest() == first
    strategy.write_text(strategy.read_text() + "\n")  # one byte of the kit
    second = base.digest()
    assert second != first
    (tmp_path / "protos" / "arena_protocol" / "extra.py").write_text("")  # a new module of the protocol
    assert base.digest() not in (first, second)


def test_the_wheels_hold_the_sources_and_nothing_left_from_earlier_builds(tmp_path):
    projects = []
    for project in PYTHON_BASE.projects:  # copies whose build/ holds a module deleted since
        copy = tmp_path / "src" / project.relative_to(ROOT).parts[0]
        shutil.copytree(project, copy, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
        package = next(p.name for p in copy.iterdir() if p.name in PACKAGES)
        (copy / "build" / "lib" / package).mkdir(parents=True)
        (copy / "build" / "lib" / package / "deleted.py").write_text("raise SystemExit('stale')\n")
        projects.append(copy)
    wheels = build_wheels(projects, tmp_path / "dist")
    assert sorted(w.name.split("-")[0] for w in wheels) == ["arena_games", "arena_protocol", "arenabot"]
    inside = {}
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as z:
            inside |= {name: hashlib.sha256(z.read(name)).hexdigest() for name in z.namelist()
                       if name.split("/")[0] in PACKAGES}
    assert inside == checkout_files()


def test_arena_images_wheels_builds_what_make_wheels_promises(tmp_path):
    result = CliRunner().invoke(arena, ["images", "wheels", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    built = sorted(Path(line).name for line in result.output.split())
    assert [name.split("-")[0] for name in built] == ["arena_games", "arena_protocol", "arenabot"]
    assert all(name.endswith("-py3-none-any.whl") for name in built)
    assert sorted(p.name for p in tmp_path.iterdir()) == built


def test_the_python_base_holds_this_checkouts_kit(docker_client):
    out = docker_client.containers.run(PYTHON_BASE.tag, ["python3", "-c", INSTALLED], network_mode="none",
                                       remove=True)
    assert json.loads(out) == checkout_files()


def test_a_sample_bots_image_is_the_base_plus_its_bot(docker_client, sample_images):
    script = "import arenabot, os; print(arenabot.__file__); print(sorted(os.listdir('/bot')))"
    out = docker_client.containers.run(sample_images["random"], ["python3", "-c", script], network_mode="none",
                                       remove=True).decode().split("\n")
    assert out[0].startswith("/usr/local/lib/python3") and out[0].endswith("-packages/arenabot/__init__.py")
    assert out[1] == "['bot.py']"
