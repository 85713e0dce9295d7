"""`arena bot new`: the starter of every language builds offline and passes `arena bot check` as it
is written; odd input is refused and writes nothing; and each sample_bots/<language>/random is
exactly what `arena bot new` writes (one copy of the code: the starter, arena/bots/starters/)."""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.bots.cache import remove_bot_image
from arena.bots.config import load_bot_config
from arena.bots.images import LANGUAGES as BASES
from arena.bots.images import build_base
from arena.cli import main as arena

from ..docker_fixtures import ROOT, TEST_IMAGES, docker_client  # noqa: F401 - the fixture

LANGUAGES = {"python": "grpc", "javascript": "grpc", "go": "grpc", "cpp": "grpc", "shell": "stdio"}
STARTERS = ROOT / "arena" / "bots" / "starters"
PREFIX = TEST_IMAGES.replace("/", "-")  # bot names: the images are arena-bot/<name>:0.1.0


def new(*args: str, cwd: Path | None = None) -> tuple[int, str]:
    """`arena bot new ARGS` (run in ``cwd``): its exit status and output."""
    old = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        result = CliRunner().invoke(arena, ["bot", "new", *args], prog_name="arena")
    finally:
        os.chdir(old)
    return result.exit_code, result.output


# The samples are the starters' output -------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_random_sample_is_what_arena_bot_new_writes(language, tmp_path):
    sample = ROOT / "sample_bots" / language / "random"
    toml = tomllib.loads((sample / "bot.toml").read_text())
    code, output = new(toml["name"], "--language", language, "--version", toml["version"], "--author",
                       toml["author"], "--out", str(tmp_path / "out"))
    assert code == 0, output
    written = {p.name: p.read_text() for p in (tmp_path / "out").iterdir()}
    kept = {p.name: p.read_text() for p in sample.iterdir()}
    assert written == kept, (
        f"{sample.relative_to(ROOT)} is no longer arena/bots/starters/{language} written as its bot: change the "
        f"starter, then empty the sample's folder and run `arena bot new {toml['name']} -l {language} --version "
        f"{toml['version']} --author {toml['author']} --out {sample.relative_to(ROOT)}`")


def test_every_starter_is_package_data_for_a_known_base_and_the_listing_says_its_protocol():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = pyproject["tool"]["setuptools"]["package-data"]["arena.bots.starters"]
    shipped = {path for glob in globs for path in STARTERS.glob(glob)}
    files = {path for path in STARTERS.glob("*/**/*") if path.is_file()}
    assert files and files <= shipped, f"not in a wheel of arena: {sorted(map(str, files - shipped))}"
    assert {p.name for p in STARTERS.iterdir() if p.is_dir() and p.name != "__pycache__"} == set(LANGUAGES)
    assert set(LANGUAGES) <= set(BASES)
    code, output = new("--list-languages")
    assert code == 0, output
    listed = [line.split()[:2] for line in output.splitlines()]
    assert listed == [["language", "protocol"]] + [[language, protocol] for language, protocol in LANGUAGES.items()]


def test_games_and_an_empty_folder(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    umask = os.umask(0o077)
    try:
        code, output = new("b2", "-l", "go", "--game", "sobek", "--game", "boss", "--game", "sobek",
                           "--out", str(folder))
    finally:
        os.umask(umask)
    assert code == 0, output
    assert "arena bot check arena-bot/b2:0.1.0" in output
    config = load_bot_config(folder)
    assert (config.name, config.version, config.language, config.games) == ("b2", "0.1.0", "go", ("sobek", "boss"))
    # readable by the image's bot user whatever the umask: COPY keeps the modes
    assert {stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir()} == {0o644}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]  # no scratch folder left


# Refusals: nothing is written ----------------------------------------------------------------


def test_an_existing_folder_or_file_is_never_written_to(tmp_path):
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "mine.py").write_text("keep me")
    (tmp_path / "file").write_text("keep me")
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    for name, why in [("taken", "exists and is not empty"), ("file", "exists and is not a folder"),
                      ("link", "exists and is not a folder")]:
        code, output = new(name, "-l", "python", cwd=tmp_path)
        assert code == 1 and f"{name} {why}" in output and "nothing was written" in output, output
    code, output = new("x", "-l", "python", "--out", "file", cwd=tmp_path)
    assert code == 2 and "'file' is a file" in output, output  # click's own check of --out
    assert (tmp_path / "taken" / "mine.py").read_text() == "keep me" and len(list((tmp_path / "taken").iterdir())) == 1
    assert (tmp_path / "file").read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "link", "taken"]


@pytest.mark.parametrize("name", ["My-Bot", "my bot", "-x", "a/b", "../up", ".hidden", "a" * 64, "bot\n", "é"])
def test_a_name_that_bot_toml_would_refuse_is_refused(name, tmp_path):
    code, output = new("-l", "python", "--", name, cwd=tmp_path)
    assert code == 1 and "must be lower case letters, digits" in output, output
    assert list(tmp_path.iterdir()) == []


def test_unknown_language_game_or_a_bad_version_or_author_is_refused_with_the_known_ones(tmp_path):
    code, output = new("x", "-l", "rust", cwd=tmp_path)
    assert code == 2 and "no starter for 'rust'" in output
    assert "python (grpc), javascript (grpc), go (grpc), cpp (grpc), shell (stdio)" in output
    code, output = new("x", "-l", "go", "--game", "chess", cwd=tmp_path)
    assert code == 2 and "unknown game 'chess'" in output and "bandits, boss, prohis, sobek" in output
    code, output = new("x", cwd=tmp_path)
    assert code == 2 and "give --language (one of: python, javascript, go, cpp, shell)" in output
    code, output = new("x", "-l", "go", "--version", "1 0", cwd=tmp_path)
    assert code == 1 and "version '1 0' may hold only" in output
    code, output = new("x", "-l", "go", "--author", "Ada\x1b[2J", cwd=tmp_path)
    assert code == 1 and "author 'Ada\\x1b[2J' must be printable" in output
    assert list(tmp_path.iterdir()) == []


# Build and check: real Docker, every language -------------------------------------------------


@pytest.fixture(scope="module")
def built(docker_client, tmp_path_factory) -> Iterator[dict[str, tuple[str, int, str]]]:  # noqa: F811 - the fixture
    """Each language's starter, written by `arena bot new --game sobek` and built by `arena bot
    build` (the Go and C++ ones compile): by language, its image tag, and the build's exit status
    and output. Sobek alone keeps the check to three games."""
    parent = tmp_path_factory.mktemp("starters")
    out = {}
    for language in LANGUAGES:
        build_base(docker_client, BASES[language], say=lambda line: None)  # present already: seconds
        name = f"{PREFIX}-new-{language}"
        code, output = new(name, "-l", language, "--game", "sobek", "--out", str(parent / language))
        assert code == 0, output
        result = CliRunner().invoke(arena, ["bot", "build", str(parent / language), "-q"])
        out[language] = (f"arena-bot/{name}:0.1.0", result.exit_code, result.output)
    yield out
    for tag, _, _ in out.values():
        remove_bot_image(docker_client, tag)  # (a failed build made none)


@pytest.mark.slow  # about 95 s here: the five builds (Go and C++ compile) 40 s, each check 10 to 30 s
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_new_bot_builds_and_passes_the_check_as_it_is(language, built):
    tag, code, output = built[language]
    assert code == 0 and f"built {tag}" in output, output
    result = CliRunner().invoke(arena, ["bot", "check", tag])
    assert result.exit_code == 0, result.output
    assert "sobek, 2 players, under load" in result.output and "sobek, 4 players" in result.output
    assert "prohis" not in result.output  # --game keeps the check to the bot.toml's games
    assert f"{tag}: passes every check" in result.output
