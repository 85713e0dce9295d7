"""Who may import whom: the trusted side (referee/, arena/) never imports from sample_bots/; the
protocol package, the engines and the Python bot kit import nothing of Arena's beyond themselves
(the engines nothing at all but the standard library)."""

from __future__ import annotations

import ast
import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KIT = ROOT / "kits" / "python" / "arenabot"
PROTOCOL = ROOT / "protos" / "python" / "arena_protocol"
ENGINES = ROOT / "games" / "arena_games"
# what the kit's distributions declare (grpcio, protobuf; uvloop when present), and themselves
KIT_IMPORTS = {"grpc", "google", "uvloop", "arena_protocol", "arena_games", "arenabot"}

IMPORT_ALL = """
import importlib, json, pkgutil, sys
for name in sys.argv[1:]:
    package = importlib.import_module(name)
    for module in pkgutil.walk_packages(package.__path__, name + "."):
        # Alembic's scripts run only inside Alembic; a __main__ runs its command
        if ".migrations" not in module.name and not module.name.endswith(".__main__"):
            importlib.import_module(module.name)
print(json.dumps({name: getattr(module, "__file__", None) or "" for name, module in sys.modules.items()}))
"""


def import_all(packages: list[str], cwd: Path) -> dict[str, str]:
    """Every module loaded by importing every module of ``packages`` in a fresh interpreter
    (run from ``cwd``, so the checkout is not on its path unless installed), with its file."""
    proc = subprocess.run([sys.executable, "-c", IMPORT_ALL, *packages], cwd=cwd, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def imports(folder: Path) -> set[str]:
    """The top-level names of every absolute import in the Python files under ``folder``,
    those inside functions included."""
    names = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


def test_the_trusted_side_never_imports_from_sample_bots(tmp_path):
    loaded = import_all(["referee", "arena"], tmp_path)
    assert "referee.match" in loaded and "arena.cli" in loaded and "arena.league.executor" in loaded
    samples = str(ROOT / "sample_bots")
    assert [name for name, file in loaded.items() if file.startswith(samples)] == []
    # the kit and the protocol it does import are the installed distributions, from their own folders
    assert loaded["arenabot"] == str(KIT / "__init__.py")
    assert loaded["arena_protocol"] == str(PROTOCOL / "__init__.py")
    assert loaded["arena_games"] == str(ENGINES / "__init__.py")
    assert "sample_bots" not in imports(ROOT / "referee") | imports(ROOT / "arena")


def test_the_kit_imports_nothing_of_the_referee_or_arena(tmp_path):
    for folder in (KIT, PROTOCOL):
        outside = imports(folder) - KIT_IMPORTS - set(sys.stdlib_module_names)
        assert outside == set(), f"{folder.relative_to(ROOT)} imports {', '.join(sorted(outside))}"
    assert imports(ENGINES) - {"arena_games"} - set(sys.stdlib_module_names) == set()
    loaded = import_all(["arenabot", "arena_protocol", "arena_games"], tmp_path)
    assert "arenabot.strategies.sobek_heuristic" in loaded and "arena_protocol.codec" in loaded
    assert "arenabot.search.ismcts" in loaded and "arena_games.determinise" in loaded
    arena = {name for name in loaded if name.split(".")[0] in ("referee", "arena", "tests", "bench")}
    assert arena == set()


def test_the_kit_depends_on_the_protocol_and_the_engines_and_the_protocol_on_grpc_and_protobuf():
    def names(distribution: str) -> list[str]:
        return sorted(r.split("<")[0].split(">")[0].split("=")[0].strip()
                      for r in importlib.metadata.requires(distribution) or [])

    assert names("arenabot") == ["arena-games", "arena-protocol"]
    assert names("arena-protocol") == ["grpcio", "protobuf"]
    assert names("arena-games") == []
    assert {"arenabot", "arena-protocol", "arena-games"} <= set(names("arena"))
