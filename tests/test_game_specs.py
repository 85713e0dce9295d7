"""A game is declared once, by its GameSpec (games/arena_games/<game>/__init__.py); every other place
that knows a game is held to it here. Each test names the step of docs/adding-a-game.md that is
missing when it fails: the engine's actions against the spec, the .proto and the codec, the view
fields the web reads, the kit's heuristic and search tuning, the page, the sample bots, the tests.

The engines import only the standard library and the protocol package nothing of the engines
(tests/test_layers.py), so the codec's ACTION_ARGS cannot be built from the specs: it is checked
against them.
"""

from __future__ import annotations

import importlib.util
import pkgutil
import random
import tomllib
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

import arena_games
from arena_games import GAMES, GameSpec
from arena_protocol import codec
from arena_protocol.proto import arena_pb2 as pb
from arenabot.search import SearchConfig, config_for
from arenabot.strategies import HEURISTICS

ROOT = Path(__file__).resolve().parents[1]
SPECS = list(GAMES.values())
CHECKLIST = "docs/adding-a-game.md"


def played(spec: GameSpec, games: int = 12) -> tuple[dict[str, set[int]], list[tuple[int, dict[str, Any]]]]:
    """Random games at every player count: each action verb listed, with its numbers of
    arguments; and some views, with their player counts."""
    verbs: dict[str, set[int]] = defaultdict(set)
    views: list[tuple[int, dict[str, Any]]] = []
    for n in range(spec.min_players, spec.max_players + 1):
        for seed in range(games):
            rng, state = random.Random(seed), spec.new_game(n, seed)
            while not state.is_terminal():
                legal = state.legal_actions()
                for action in legal:
                    verb, *args = action.split(":")
                    verbs[verb].add(len(args))
                if rng.random() < 0.1:
                    views.append((n, state.view(state.current_player())))
                state.apply(rng.choice(legal))
    return verbs, views


@pytest.fixture(scope="module", params=SPECS, ids=list(GAMES))
def game(request: pytest.FixtureRequest) -> tuple[GameSpec, dict[str, set[int]], list[tuple[int, dict[str, Any]]]]:
    spec = request.param
    return (spec, *played(spec))


def test_every_game_package_is_registered():
    packages = {m.name for m in pkgutil.iter_modules(arena_games.__path__) if m.ispkg}
    assert packages == set(GAMES), (
        f"game packages {sorted(packages)}, registered games {sorted(GAMES)}: list each package's GAME in "
        f"GAMES (games/arena_games/__init__.py), step 'Register it' of {CHECKLIST}")
    for name, spec in GAMES.items():
        assert spec.name == name and importlib.import_module(f"arena_games.{name}").GAME is spec


def test_the_engine_lists_the_actions_its_spec_declares(game):
    spec, verbs, _ = game
    assert spec.actions, f"{spec.name}: GameSpec.actions is empty; declare every verb ({CHECKLIST}, 'The header')"
    undeclared = sorted(set(verbs) - set(spec.actions))
    assert not undeclared, f"{spec.name} lists actions of verbs its GameSpec.actions does not declare: {undeclared}"
    unplayed = sorted(set(spec.actions) - set(verbs))
    assert not unplayed, f"{spec.name}: GameSpec.actions declares verbs no random game listed: {unplayed}"
    arity = {verb: sorted(counts) for verb, counts in verbs.items() if counts != {len(spec.actions[verb])}}
    assert not arity, (f"{spec.name}: these verbs take other numbers of arguments than GameSpec.actions names "
                       f"(verb: numbers seen): {arity}")


def test_the_protocol_carries_the_game_and_its_actions(game):
    spec = game[0]
    step = f"write its messages in protos/arena/v1/{spec.name}.proto and run protos/generate.py ({CHECKLIST})"
    for container in (pb.View, pb.Event, pb.Action):
        fields = container.DESCRIPTOR.oneofs_by_name["game"].fields
        assert spec.name in [f.name for f in fields], f"arena.proto's {container.__name__} has no {spec.name}: {step}"
    message = pb.Action.DESCRIPTOR.fields_by_name[spec.name].message_type
    kind = message.fields_by_name["kind"].enum_type
    kinds = {v.name.split("_ACTION_KIND_", 1)[1].lower() for v in kind.values if v.number}  # PROHIS_ACTION_KIND_TAKE
    assert kinds == set(spec.actions), (
        f"{message.name}'s kinds {sorted(kinds)} are not GameSpec.actions' verbs {sorted(spec.actions)}: {step}")
    fields = set(message.fields_by_name) - {"kind"}
    for verb, args in spec.actions.items():
        missing = [a for a in args if a not in fields]
        assert not missing, f"{message.name} has no field {missing} for the arguments of {verb!r}: {step}"


def test_the_codec_reads_each_action_as_the_spec_declares(game):
    spec, verbs, _ = game
    declared = {verb: args for verb, args in spec.actions.items() if args}
    assert codec.ACTION_ARGS.get(spec.name) == declared, (
        f"codec.ACTION_ARGS[{spec.name!r}] (protos/python/arena_protocol/codec.py) must be {declared} "
        f"({CHECKLIST}, 'The codec')")
    state, rng = spec.new_game(spec.min_players, 1), random.Random(1)
    while not state.is_terminal():  # each action, sent as its typed message alone, reads back as its text
        for text in state.legal_actions():
            typed = pb.Action()
            typed.CopyFrom(codec.encode_action(spec.name, text))
            typed.text = ""
            assert codec.decode_action(spec.name, typed) == text
        state.apply(rng.choice(state.legal_actions()))


def fields_of(value: Any, out: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """Every field of a view at any depth (in lists and mappings too), with its values."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key != "events":
                out.setdefault(key, []).append(item)
                fields_of(item, out)
    elif isinstance(value, list):
        for item in value:
            fields_of(item, out)
    return out


def test_the_view_fields_the_spec_names_are_in_the_views(game):
    spec, _, views = game
    top = {key for _, view in views for key in view}
    assert spec.view_first, f"{spec.name}: GameSpec.view_first is empty ({CHECKLIST}, 'The header')"
    assert not set(spec.view_first) - top, (
        f"{spec.name}: GameSpec.view_first names fields no view has: {sorted(set(spec.view_first) - top)}")
    for n, view in views:
        values = fields_of(view, {})
        for name in spec.seat_fields:
            for value in values.get(name, ()):
                seats = value if isinstance(value, list) else [value]
                assert all(isinstance(s, int) and -1 <= s < n for s in seats), (
                    f"{spec.name}: GameSpec.seat_fields names {name!r}, which holds {value!r}, not a seat")
    every = set().union(*(fields_of(view, {}) for _, view in views))
    assert not set(spec.seat_fields) - every, (
        f"{spec.name}: GameSpec.seat_fields names fields no view has: {sorted(set(spec.seat_fields) - every)}")
    assert {"seat", "to_act"} <= set(spec.seat_fields), f"{spec.name}: every view's seat and to_act name seats"


def test_the_web_reads_the_view_fields_from_the_spec(game):
    from arena.web.games import ordered

    spec, _, views = game
    keys = list(views[-1][1])
    first = [k for k in spec.view_first if k in keys]
    assert ordered(spec.name, keys)[: len(first)] == first


def test_the_game_has_a_drawn_table_and_its_actions_in_words(game):
    spec, _, views = game
    step = f"({CHECKLIST}, 'The drawn table')"
    assert spec.table is not None, f"{spec.name}: no GameSpec.table: write arena_games/{spec.name}/table.py {step}"
    n, view = views[-1]
    assert len(spec.table([view]).seats) == n, f"{spec.name}: the table has not a seat area for each seat {step}"
    default = GameSpec.__dataclass_fields__["describe_action"].default
    assert spec.describe_action is not default, f"{spec.name}: no GameSpec.describe_action {step}"


def test_the_kit_has_a_heuristic_and_a_search_tuning(game):
    spec = game[0]
    assert spec.name in HEURISTICS, (
        f"no heuristic for {spec.name}: write kits/python/arenabot/strategies/{spec.name}_heuristic.py and list "
        f"it in HEURISTICS (kits/python/arenabot/strategies/__init__.py; {CHECKLIST}, 'The heuristic')")
    assert importlib.util.find_spec(f"arenabot.search.{spec.name}") is not None, (
        f"no search tuning for {spec.name}: write kits/python/arenabot/search/{spec.name}.py with its CONFIG "
        f"({CHECKLIST}, 'The search tuning')")
    assert isinstance(config_for(spec.name), SearchConfig)
    assert config_for(spec.name) is importlib.import_module(f"arenabot.search.{spec.name}").CONFIG


def test_the_game_has_its_page_and_its_sample_bots(game):
    spec = game[0]
    page = ROOT / "docs" / "games" / f"{spec.name}.md"
    assert page.is_file(), f"no {page.relative_to(ROOT)}: the rules as implemented ({CHECKLIST}, 'The page')"
    assert f"(docs/games/{spec.name}.md)" in (ROOT / "README.md").read_text(), (
        f"README.md's table of the games does not link docs/games/{spec.name}.md")
    for kind in ("heuristic", "search"):  # the game's reference league: arena demo --reference
        folder = ROOT / "sample_bots" / "python" / f"{spec.name}_{kind}"
        assert (folder / "bot.toml").is_file(), (
            f"no sample bot {folder.relative_to(ROOT)} ({CHECKLIST}, 'The sample bots')")
        config = tomllib.loads((folder / "bot.toml").read_text())
        assert config["name"] == f"{spec.name}-{kind}" and config["games"] == [spec.name]


def test_the_tests_of_every_game_know_the_game(game):
    """The tests' own tables of each game: without its row, a test fails on a KeyError or, worse,
    leaves the game out."""
    from tests.games.test_properties import PLAYED
    from tests.games.test_views import SECRET_EVENTS
    from tests.games.visibility import FACE_DOWN_PLAYS, SIGHTS
    from tests.referee.test_match import DOCUMENTED_DEFAULT, SETTINGS
    from tests.search.test_reference import GAMES_PLAYED, ITERATIONS

    spec = game[0]
    tables = {"tests/games/test_properties.py's PLAYED (its fingerprints)": PLAYED,
              "tests/games/visibility.py's SIGHTS (its 'Who knows what')": SIGHTS,
              "tests/games/visibility.py's FACE_DOWN_PLAYS": FACE_DOWN_PLAYS,
              "tests/games/test_views.py's SECRET_EVENTS": SECRET_EVENTS,
              "tests/referee/test_match.py's DOCUMENTED_DEFAULT": DOCUMENTED_DEFAULT,
              "tests/referee/test_match.py's SETTINGS": SETTINGS,
              "tests/search/test_reference.py's GAMES_PLAYED": GAMES_PLAYED,
              "tests/search/test_reference.py's ITERATIONS": ITERATIONS}
    missing = [name for name, table in tables.items() if spec.name not in table]
    assert not missing, f"{spec.name} has no row in {'; '.join(missing)} ({CHECKLIST}, 'The tests')"
    for test in (f"test_{spec.name}.py", f"test_determinise_{spec.name}.py"):
        assert (ROOT / "tests" / "games" / test).is_file(), f"no tests/games/{test} ({CHECKLIST}, 'The tests')"
