"""Each game's page in docs/games/ is its whole rulebook as implemented: it names the engine's
version, and documents every setting the engine accepts, with its default, and no other."""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

import pytest

from arena_games import GAMES, GameSpec

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"
# A row of the Settings table: | `name` | `default` or (empty) | meaning |
ROW = re.compile(r"^\| `(\w+)` \| (`[^`]*`|\(empty\)) \|", re.MULTILINE)
# A rule the project decided, where the rules text gives it: [house: `name` = `default` ...]
HOUSE = re.compile(r"\[house:\s+`(\w+)`\s+=\s+(`[^`]*`|\(empty\))")


def value(cell: str) -> str:
    """A default as the doc writes it, as ``--set`` would take it."""
    return "" if cell == "(empty)" else cell.strip("`")


def page(spec: GameSpec) -> str:
    return (DOCS / f"{spec.name}.md").read_text(encoding="utf-8")


def settings_table(text: str) -> list[tuple[str, str]]:
    section = text.split("\n## Settings", 1)[1].split("\n## ", 1)[0]
    return [(name, value(cell)) for name, cell in ROW.findall(section)]


@pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))
def test_the_page_names_the_engine_and_its_version_and_the_engine_cites_the_page(spec: GameSpec):
    text = page(spec)
    assert f"Engine: `games/arena_games/{spec.name}/` (version {spec.version})" in text
    module = sys.modules[spec.state.__module__]
    assert module.__doc__ is not None
    assert f"docs/games/{spec.name}.md" in module.__doc__


@pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))
def test_the_settings_table_lists_every_setting_once_with_its_default(spec: GameSpec):
    rows = settings_table(page(spec))
    names = [name for name, _ in rows]
    declared = [field.name for field in dataclasses.fields(spec.settings)]
    assert sorted(names) == sorted(declared), (
        f"documented but not a setting: {sorted(set(names) - set(declared))}; "
        f"a setting not documented: {sorted(set(declared) - set(names))}; listed twice: "
        f"{sorted({n for n in names if names.count(n) > 1})}")
    documented = spec.settings.from_mapping(dict(rows))
    assert documented == spec.settings(), f"the documented defaults {rows} are not the defaults {spec.settings()}"


@pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))
def test_every_house_rule_names_its_setting_and_every_setting_is_a_house_rule(spec: GameSpec):
    text = page(spec)
    table = dict(settings_table(text))
    marks = [(name, value(cell)) for name, cell in HOUSE.findall(text)]
    for name, default in marks:
        assert name in table, f"[house: `{name}` ...] names no setting"
        assert default == table[name], f"[house: `{name}` = {default!r}], but the table says {table[name]!r}"
    unmarked = sorted(set(table) - {name for name, _ in marks})
    assert not unmarked, f"settings that no [house: ...] rule of the text names: {unmarked}"
