"""bot.toml is hostile input: each hostile one is refused by `arena bot build` with a clear
message naming its key (no traceback), before anything is built. Reproduced crashes: a
5,000-digit integer in ``games`` (Python's int-from-str limit), 100,000 nested arrays
(recursion), a NUL byte in ``dockerfile``, a 4 MiB build argument (the engine reset the
connection that carried it)."""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.bots.config import BotError, load_bot_config
from arena.cli import main as arena
from referee import limits

GOOD = {"name": '"t"', "version": '"1"', "language": '"python"', "author": '"me"'}


def toml(build: str = "", **keys: str) -> str:
    """A bot.toml of the good keys, with ``keys`` instead (as TOML values), then a [build] table."""
    return "".join(f"{key} = {value}\n" for key, value in {**GOOD, **keys}.items()) + (
        f"[build]\n{build}\n" if build else "")


def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


HOSTILE = {
    "a 5,000-digit integer in games": (toml(games=f"[{'9' * 5000}]"), "games", "an integer of 5000 digits"),
    "100,000 nested arrays": (toml(games=deep(100_000)), "bot.toml is", f"over the {limits.BOT_TOML_KB} KiB"),
    "20,000 nested arrays": (toml(games=deep(20_000)), "games", "nested more than"),
    "nested inline tables": (toml(build="args = " + "{ a = " * 5000 + "1" + " }" * 5000), "[build] args",
                             "nested more than"),
    "a NUL byte in dockerfile": (toml(build='dockerfile = "Docker\\u0000file"'), "[build] dockerfile",
                                 "a control character (U+0000)"),
    "a 4 MiB build argument": (toml(build=f'args = {{ X = "{"x" * 4 * 2**20}" }}'), "bot.toml is",
                               f"over the {limits.BOT_TOML_KB} KiB"),
    "a long build argument": (toml(build=f'args = {{ X = "{"x" * (limits.BUILD_ARG_CHARS + 1)}" }}'),
                              "[build] args 'X'", f"over {limits.BUILD_ARG_CHARS} characters"),
    "many build arguments": (toml(build="args = { " + ", ".join(f"A{i} = '1'" for i in range(100)) + " }"),
                             "[build] args", f"over {limits.BUILD_ARGS}"),
    "a build argument named BASE": (toml(build='args = { BASE = "arena-bot/theirs:1" }'), "[build] args 'BASE'",
                                    "Arena's"),
    "a build argument named A=B": (toml(build='args = { "A=B" = "x" }'), "[build] args 'A=B'", "cannot name"),
    "a control character in a build argument": (toml(build='args = { A = "x\\u001b[2J" }'), "[build] args 'A'",
                                                "control character"),
    "a control character in author": (toml(author='"Ada\\u001b[2J"'), "'author'", "a control character (U+001B)"),
    "a bidi override in author": (toml(author='"Ada\\u202e"'), "'author'", "(U+202E)"),
    "a long author": (toml(author=f'"{"A" * 65}"'), "'author'", "over 64 characters"),
    "a newline in context": (toml(build='context = "a\\nb"'), "[build] context", "a control character (U+000A)"),
    "a long file name": (toml(build=f'dockerfile = "{"D" * 300}"'), "[build] dockerfile", "over 255 bytes"),
    "a long path": (toml(build=f'dockerfile = "{"d/" * 600}D"'), "[build] dockerfile",
                    f"over {limits.UPLOAD_PATH_CHARS} characters"),
    "a long language": (toml(language=f'"{"x" * 50_000}"'), "language", "is not one Arena has"),
    "a long language on a base": (toml(language=f'"{"x" * 50_000}"', base='"cpp"'), "language",
                                  "at most 16 characters"),
    "a language of no base, over gRPC": (toml(language='"rust"'), "language 'rust'", "name its base image"),
    "an unknown base": (toml(language='"rust"', base='"rust"'), "base 'rust'", "not one of Arena's base images"),
    "a base that is a list": (toml(language='"rust"', base='["cpp"]'), "base", "not one of Arena's base images"),
    "a control character in a language": (toml(language='"rust\\u001b[2J"', protocol='"stdio"'), "language",
                                          "is not one Arena has"),
    "a thousand games": (toml(games="[" + ", ".join(['"prohis"'] * 1000) + "]"), "games", "over"),
    "a date": (toml(games="1979-05-27"), "games", "must be a list"),
    "a thousand unknown keys": ("".join(f"k{i} = 1\n" for i in range(1000)) + toml(), "unknown key(s)", "and 992 more"),
    "dotted keys 5,000 deep": (toml() + "a" + ".a" * 5000 + " = 1\n", "unknown key(s)", "'a'"),
}


def bot_folder(tmp_path: Path, text: str | bytes) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.toml").write_bytes(text if isinstance(text, bytes) else text.encode())
    (folder / "Dockerfile").write_text("ARG BASE\nFROM ${BASE}\n")
    return folder


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_bot_toml_is_refused_naming_its_key(case, tmp_path):
    text, key, why = HOSTILE[case]
    result = CliRunner().invoke(arena, ["bot", "build", str(bot_folder(tmp_path, text)), "-q"])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output or result.exception
    assert key in result.output and why in result.output, result.output
    assert len(result.output) < 1500, f"{len(result.output)} characters: {result.output[:300]}"


def test_a_bot_toml_that_is_not_utf8_is_refused(tmp_path):
    with pytest.raises(BotError, match=r"bot.toml is not UTF-8 text \(invalid start byte at byte 9\)"):
        load_bot_config(bot_folder(tmp_path, b'name = "t\xff"\n'))


def test_a_path_that_the_system_refuses_is_a_clear_refusal(tmp_path):
    """A name of 255 bytes is legal, but a path through it (or a folder of that name) is not there."""
    folder = bot_folder(tmp_path, toml(build=f'dockerfile = "{"D" * 255}/{"E" * 255}"'))
    with pytest.raises(BotError, match="no Dockerfile"):
        load_bot_config(folder)


@pytest.mark.parametrize("keys, language, base", [
    ({}, "python", "python"),
    ({"language": '"rust"', "protocol": '"stdio"'}, "rust", "shell"),  # a stdio bot runs on the smallest base
    ({"language": '"rust"', "base": '"cpp"'}, "rust", "cpp"),  # a prebuilt gRPC binary, on the C++ base
    ({"language": '"c#"', "base": '"shell"', "protocol": '"stdio"'}, "c#", "shell"),
])
def test_the_language_is_a_label_and_the_base_a_field_of_its_own(keys, language, base, tmp_path):
    config = load_bot_config(bot_folder(tmp_path, toml(**keys)))
    assert (config.language, config.base) == (language, base)


# -- a little fuzzing: whatever the values, a refusal or a config, never another exception ---------
KEYS = st.sampled_from(["name", "version", "language", "base", "author", "games", "protocol", "build", "context",
                        "dockerfile", "args", "BASE", "x"]) | st.text(string.printable, max_size=8)
SCALARS = (st.text(st.characters(exclude_categories=["Cs"]), max_size=40) | st.integers(-(10**30), 10**30)
           | st.booleans() | st.sampled_from(["python", "prohis", "Dockerfile", ".", "..", "/", "\0", "a" * 300]))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
                      max_leaves=12)


def inline(value: object) -> str:
    """``value`` as a TOML value: JSON's strings are TOML's basic strings."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {inline(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(inline(v) for v in value) + "]"
    return json.dumps(value) if isinstance(value, str) else str(value)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=6), st.booleans())
def test_fuzzed_bot_tomls_are_refused_or_read(tmp_path_factory, keys, start_good):
    values = {**GOOD} if start_good else {}  # GOOD's values are TOML already
    values.update({key: inline(value) for key, value in keys.items()})
    folder = bot_folder(tmp_path_factory.mktemp("fuzz"), "".join(f"{json.dumps(k)} = {v}\n" for k, v in values.items()))
    try:
        load_bot_config(folder)
    except BotError as exc:
        assert len(str(exc)) < 1500, str(exc)[:300]
