"""Stdio bots in containers: the sample bots build offline and play every game they claim
against the Python sample bots; an image that the adapter cannot run is a clear start failure,
and a bot's crash names its exit code and its last words."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from arena.bots.build import build_bot
from arena.bots.config import load_bot_config
from arena.bots.images import PYTHON_BASE
from arena_games import GAMES
from referee.records import read_record
from referee.sandbox import STDIO_ADAPTER

from ..docker_fixtures import TEST_IMAGES
from ..referee.helpers import check_records_replay
from .conftest import ROOT, arena_containers
from .test_containers import match

STDIO_SAMPLES = sorted((ROOT / "sample_bots" / "shell").glob("*/bot.toml"))


@pytest.fixture(scope="module")
def stdio_samples(docker_client) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Each stdio sample bot, built as `arena bot build` builds it (offline, sandboxed): its tag
    and the games it claims (every game, when it names none)."""
    configs = [load_bot_config(toml.parent) for toml in STDIO_SAMPLES]
    assert {c.protocol for c in configs} == {"stdio"} and len(configs) >= 2
    return {c.name: (build_bot(docker_client, c).tag, c.games or tuple(sorted(GAMES))) for c in configs}


@pytest.fixture(scope="module")
def broken_stdio_images(docker_client) -> dict[str, str]:
    """Images labelled as stdio bots that the adapter cannot run, and one whose bot dies at once."""
    dockerfiles = {
        "nocmd": f"FROM {PYTHON_BASE.tag}\nLABEL arena.bot.protocol=stdio\n",
        "scratch": 'FROM scratch\nLABEL arena.bot.protocol=stdio\nCMD ["/bot/bot"]\n',
        "dies": f"FROM {PYTHON_BASE.tag}\nLABEL arena.bot.protocol=stdio arena.bot.name=dies arena.bot.version=1\n"
                'CMD ["sh", "-c", "echo these are my dying words >&2; exit 4"]\n',
    }
    images = {}
    for kind, dockerfile in dockerfiles.items():
        images[kind] = f"{TEST_IMAGES}/stdio:{kind}"
        docker_client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=images[kind], rm=True, forcerm=True)
    return images


def sample_cases() -> list[tuple[str, str]]:
    """(sample bot, game) for every game each stdio sample bot claims."""
    cases = []
    for toml in STDIO_SAMPLES:
        config = load_bot_config(toml.parent)
        cases += [(config.name, game) for game in config.games or sorted(GAMES)]
    return cases


@pytest.mark.parametrize("name, game", sample_cases())
def test_a_stdio_sample_bot_plays_the_python_sample_bots(name, game, tmp_path, docker_client, stdio_samples,
                                                         sample_images):
    image, claimed = stdio_samples[name]
    assert game in claimed
    heuristic = sample_images[f"{game}_heuristic"]
    match_id = f"stdio-{name}-{game}"
    result = match(tmp_path, match_id=match_id, game=game, games=2, duplicate=False, bots=[
        {"name": name, "image": image}, {"name": "random", "image": sample_images["random"]},
        {"name": "heuristic", "image": heuristic}])
    assert [g["failures"] for g in result["games"]] == [["", "", ""]] * 2, (tmp_path / f"bot0-{name}.log").read_text()
    assert result["totals"][0]["version"] == "1.0.0"  # its hello, from the image's labels
    header = read_record(tmp_path / "game-000.jsonl").header
    assert {(s["bot"], s["version"]) for s in header["seats"]} >= {(name, "1.0.0")}
    check_records_replay(tmp_path, result)
    assert not arena_containers(docker_client, match_id)


@pytest.mark.parametrize("kind, detail", [
    ("nocmd", "speaks stdio, but has neither ENTRYPOINT nor CMD: the stdio adapter has no program to run"),
    ("scratch", f"is not built on an Arena base image, so it has no stdio adapter ({STDIO_ADAPTER})"),
])
def test_a_stdio_image_the_adapter_cannot_run_fails_to_start(kind, detail, tmp_path, broken_stdio_images):
    result = match(tmp_path, match_id=f"stdio-{kind}", bots=[
        {"name": "broken", "image": broken_stdio_images[kind]},
        {"name": "r1", "builtin": "random"}, {"name": "r2", "builtin": "random"}])
    game = result["games"][0]
    assert game["failures"] == ["start_failed", "", ""]
    failure = read_record(tmp_path / game["record"]).failures[0]
    assert f"the image {broken_stdio_images[kind]} " in failure["detail"] and detail in failure["detail"], failure


def test_a_stdio_bot_that_dies_is_a_crash_with_its_exit_code_and_last_words(tmp_path, broken_stdio_images):
    result = match(tmp_path, match_id="stdio-dies", bots=[
        {"name": "dies", "image": broken_stdio_images["dies"]},
        {"name": "r1", "builtin": "random"}, {"name": "r2", "builtin": "random"}])
    game = result["games"][0]
    assert game["failures"] == ["crash", "", ""]
    failure = read_record(tmp_path / game["record"]).failures[0]
    assert "exit code 4; its last output: these are my dying words" in failure["detail"], failure
    assert "these are my dying words" in Path(tmp_path / "bot0-dies.log").read_text()
