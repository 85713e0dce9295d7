"""Who may import whom, so that layers only point down: the trusted side (referee/, arena/) never
imports from sample_bots/; the protocol package, the engines and the Python bot kit import nothing
of Arena's beyond themselves (the engines nothing at all but the standard library); the referee
imports nothing of arena/; nothing of arena/ outside arena/web imports the web server, nor does
arena/schemas (the answers' models) import the command line; and no module of arena/ imports
itself through others (no import circle)."""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import json
import subprocess
import sys
from collections.abc import Iterator
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
    names: set[str] = set()
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


def test_the_referee_imports_nothing_of_arena(tmp_path):
    assert "arena" not in imports(ROOT / "referee")
    loaded = import_all(["referee"], tmp_path)
    assert "referee.match" in loaded and "referee.sandbox" in loaded
    assert [name for name in loaded if name.split(".")[0] == "arena"] == []


# -- the graph of arena's own modules -------------------------------------------------------------
ARENA = ROOT / "arena"
# The top layer that starts the server: `arena serve` (arena/cli/serve.py) imports the web app, its
# settings and its uvicorn runner. Nothing else outside arena/web may.
STARTS_THE_SERVER = {"arena.cli.serve"}
# Import circles known and not broken yet, each as its sorted modules: none.
KNOWN_CIRCLES: list[list[str]] = []


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def import_graph(package: Path = ARENA) -> dict[str, set[str]]:
    """Each module of ``package`` -> the modules of it that it imports: at module level or in a
    function alike (under ``if TYPE_CHECKING:`` too), relative imports resolved, and ``from pkg
    import name`` counted as importing ``pkg.name`` when that is a module (else ``pkg``). Importing
    ``pkg.mod`` counts as importing that module only, not ``pkg/__init__.py`` that Python runs first."""
    files = {module_name(path): path for path in package.rglob("*.py")}
    top = package.name
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = ".".join(here[:len(here) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                for alias in node.names:
                    targets.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base)
        graph[name] = {t for t in targets if t in files and t != name and t.split(".")[0] == top}
    return graph


def circles(graph: dict[str, set[str]]) -> Iterator[list[str]]:
    """Each import circle: a strongly connected component of more than one module (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(module: str) -> Iterator[list[str]]:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph[module]):
            if target not in index:
                yield from visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                yield sorted(component)

    for module in sorted(graph):
        if module not in index:
            yield from visit(module)


def a_circle(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """One path around ``component``, from its first module back to it: a -> b -> ... -> a."""
    start, members = component[0], set(component)
    paths = {start: [start]}
    queue = [start]
    while queue:  # breadth first: the shortest way back
        module = queue.pop(0)
        for target in sorted(graph[module] & members):
            if target == start:
                return [*paths[module], start]
            if target not in paths:
                paths[target] = [*paths[module], target]
                queue.append(target)
    raise AssertionError(f"{component} is no circle")


def test_the_import_graph_is_read_as_python_resolves_it():
    graph = import_graph()
    assert "arena.web.games" in graph["arena.web.app"]  # from . import bots, games, ...
    assert "arena.league.cycles" in graph["arena.web.games"]  # from ..league import cycles, get_league, live
    assert "arena.league" in graph["arena.web.games"]  # get_league is the package's
    assert "arena.store" in graph["arena.league"]  # from ..store import League, Store, in an __init__.py
    assert "arena.access" in graph["arena.bots.registry"]  # from .. import access
    assert "arena.bots.upload" in graph["arena.remote"]  # inside a function
    circle = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert list(circles(circle)) == [["a", "b", "c"]]
    assert a_circle(circle, ["a", "b", "c"]) == ["a", "b", "c", "a"]


def test_arena_has_no_import_circle():
    graph = import_graph()
    found = [component for component in circles(graph) if component not in KNOWN_CIRCLES]
    assert found == [], "import circles: " + "; ".join(
        f"{' -> '.join(a_circle(graph, c))} (the circle holds {', '.join(c)})" for c in found)


def test_nothing_outside_the_web_server_imports_it():
    graph = import_graph()
    outside = {f"{module} -> {', '.join(sorted(t for t in targets if t.split('.')[:2] == ['arena', 'web']))}"
               for module, targets in graph.items()
               if module.split(".")[:2] != ["arena", "web"] and module not in STARTS_THE_SERVER
               and any(t.split(".")[:2] == ["arena", "web"] for t in targets)}
    assert outside == set()
    assert "arena.web" in graph["arena.cli.serve"]  # the one that may, and does
    for folder in ("referee", "games", "kits", "protos"):
        assert "arena" not in imports(ROOT / folder)


def test_the_answers_models_import_neither_the_web_nor_the_command_line():
    """arena/schemas describes what the API and the CLI's --json answer: both import it, never the reverse."""
    graph = import_graph()
    schemas = {module: targets for module, targets in graph.items() if module.split(".")[:2] == ["arena", "schemas"]}
    assert "arena.schemas.leagues" in schemas and "arena.schemas.leagues" in graph["arena.web.leagues"]
    above = {f"{module} -> {target}" for module, targets in schemas.items() for target in targets
             if target.split(".")[:2] in (["arena", "web"], ["arena", "cli"])}
    assert above == set()
