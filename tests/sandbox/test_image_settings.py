"""The profile is Arena's, whatever the image says: image settings that would add storage,
processes, ports or host work are refused by `arena bot build` and `arena bot check` with a
message naming the instruction, and overridden or refused at run time for images that never
went through them. Containers go with their volumes."""

from __future__ import annotations

import asyncio
import io
import os
from pathlib import Path

import docker.errors
import pytest
from click.testing import CliRunner

from arena.bots.build import build_bot
from arena.bots.cache import remove_bot_image
from arena.bots.config import BotError, load_bot_config
from arena.bots.images import PYTHON_BASE
from arena.cli import main as arena
from referee.match import Match, run_async, run_match
from referee.records import read_record
from referee.sandbox import LABEL, OWNER_LABEL, ContainerSeat, sweep
from referee.spec import parse_spec

from ..docker_fixtures import TEST_IMAGES
from .conftest import arena_containers
from .leftovers import MARK, new_mark
from .test_build_sandbox import bot_folder

SETTINGS = {"volume": "VOLUME /data", "healthcheck": "HEALTHCHECK --interval=1ms --timeout=1s CMD true"}


@pytest.fixture(scope="module")
def unvetted(docker_client, sample_images):
    """Images made with plain docker build, never through `arena bot build`: the random sample
    bot plus one setting each ("volume", "healthcheck"), and the Python base plus one setting
    each ("volume base", "healthcheck base": bases, not bots). Removed afterwards."""
    images = {}
    for kind, instruction in SETTINGS.items():
        for suffix, base in (("", sample_images["random"]), (" base", PYTHON_BASE.tag)):
            tag = f"{TEST_IMAGES}/unvetted:{kind}{suffix.replace(' ', '-')}"
            dockerfile = f"FROM {base}\nLABEL {MARK}={new_mark()}\n{instruction}\n"
            docker_client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=tag, rm=True, forcerm=True)
            images[kind + suffix] = tag
    yield images
    for tag in images.values():
        docker_client.images.remove(tag)


# -- build time ------------------------------------------------------------------------------
@pytest.mark.parametrize("instruction, declared", [
    ("VOLUME /data", "VOLUME ['/data']"),
    ("HEALTHCHECK --interval=1ms CMD true", "HEALTHCHECK ['CMD-SHELL', 'true']"),
    ("EXPOSE 8080", "EXPOSE ['8080/tcp']"),
    ("STOPSIGNAL SIGUSR1", "STOPSIGNAL 'SIGUSR1'"),
    ("ONBUILD RUN echo hi", "ONBUILD ['RUN echo hi']"),
])
def test_arena_bot_build_refuses_image_settings(instruction, declared, tmp_path, docker_client, mark):
    # the RUN after a VOLUME gets an anonymous volume in its build container: it must go too
    folder = bot_folder(tmp_path, mark, f"{instruction}\nRUN true\nCMD [\"python3\", \"/bot/bot.py\"]\n")
    result = CliRunner().invoke(arena, ["bot", "build", str(folder), "-q"])
    assert result.exit_code == 1, result.output
    assert f"arena-bot/t-{mark}:1 is refused: it declares what Arena's sandbox does not allow" in result.output
    assert f"  {declared}: " in result.output and "remove it" in result.output, result.output
    with pytest.raises(docker.errors.ImageNotFound):
        docker_client.images.get(f"arena-bot/t-{mark}:1")


def test_a_setting_inherited_from_an_earlier_stage_is_refused_too(tmp_path, docker_client, mark):
    folder = bot_folder(tmp_path, mark, "")
    (folder / "Dockerfile").write_text(
        f"ARG BASE\nFROM ${{BASE}} AS volume\nLABEL {MARK}={mark}\nVOLUME /data\nFROM volume\nRUN true\n")
    with pytest.raises(BotError, match=r"inherited from the base image counts too") as info:
        build_bot(docker_client, load_bot_config(folder))
    assert "VOLUME ['/data']: a volume is" in str(info.value)


def test_a_build_cannot_start_from_an_image_that_is_no_arena_base(tmp_path, docker_client, unvetted, mark):
    """Other images on the engine are not bots' but not Arena's either: a build starts from a base."""
    folder = bot_folder(tmp_path, mark, "")
    (folder / "Dockerfile").write_text(f"FROM {unvetted['volume base']}\nLABEL {MARK}={mark}\nRUN true\n")
    with pytest.raises(BotError, match=r"line 1: FROM '.*' is refused: a bot's build may start from Arena's base"):
        build_bot(docker_client, load_bot_config(folder))


def test_healthcheck_none_cancels_an_earlier_stages_check(tmp_path, docker_client, mark):
    folder = bot_folder(tmp_path, mark, "")
    (folder / "Dockerfile").write_text(f"ARG BASE\nFROM ${{BASE}} AS checked\nLABEL {MARK}={mark}\n"
                                       "HEALTHCHECK --interval=1ms CMD true\nFROM checked\nHEALTHCHECK NONE\n")
    built = build_bot(docker_client, load_bot_config(folder))
    remove_bot_image(docker_client, built.tag)


# -- check time ------------------------------------------------------------------------------
@pytest.mark.parametrize("kind, declared", [("volume", "VOLUME ['/data']"),
                                            ("healthcheck", "HEALTHCHECK ['CMD-SHELL', 'true']")])
def test_arena_bot_check_refuses_image_settings(kind, declared, unvetted, mark):
    result = CliRunner().invoke(arena, ["bot", "check", unvetted[kind]])
    assert result.exit_code == 1, result.output
    assert "FAIL  image settings: refused: it declares" in result.output and f"  {declared}: " in result.output
    assert "hello:" not in result.output  # refused before the bot was even started
    assert result.output.rstrip().endswith(f"{unvetted[kind]}: FAILED 1 of 1 checks")


# -- run time --------------------------------------------------------------------------------
def test_a_match_refuses_an_image_with_a_volume(tmp_path, docker_client, unvetted, mark):
    match_id = f"volume-{mark}"
    spec = parse_spec({"match_id": match_id, "game": "prohis", "games": 1, "max_restarts": 0, "bots": [
        {"name": "v", "image": unvetted["volume"]}, {"name": "a", "builtin": "random"},
        {"name": "b", "builtin": "random"}]})
    game = run_match(spec, tmp_path)["games"][0]
    seat = game["bots"].index(0)
    assert game["failures"][seat] == "start_failed", game
    detail = read_record(tmp_path / game["record"]).failures[0]["detail"]
    assert f"the image {unvetted['volume']} is refused: VOLUME ['/data']: a volume is" in detail, detail
    assert not arena_containers(docker_client, match_id)


def test_a_match_disables_an_images_health_check(tmp_path, docker_client, unvetted, mark):
    seen = {}

    class Spy(Match):
        async def play_game(self, g):
            await super().play_game(g)
            container = self.seats[0].container  # after a whole game of 1 ms intervals
            container.reload()
            seen.update(container.attrs)

    spec = parse_spec({"match_id": f"health-{mark}", "game": "prohis", "games": 1, "bots": [
        {"name": "h", "image": unvetted["healthcheck"]}, {"name": "a", "builtin": "random"},
        {"name": "b", "builtin": "random"}]})
    result = run_async(Spy(spec, tmp_path).run())
    assert result["games"][0]["failures"] == ["", "", ""], result["games"]
    assert seen["Config"]["Healthcheck"]["Test"] == ["NONE"]
    assert "Health" not in seen["State"], seen["State"]  # no check ever ran


# -- containers go with their volumes ----------------------------------------------------------
def volumes_of(container) -> list[str]:
    container.reload()
    return [m["Name"] for m in container.attrs["Mounts"] if m["Type"] == "volume"]


@pytest.mark.serial  # a sweep of the machine's leftovers
def test_the_sweep_removes_a_leftover_container_with_its_volume(docker_client, unvetted, mark):
    leftover = docker_client.containers.create(  # as a dead referee would leave one
        unvetted["volume"], command=["sleep", "600"],
        labels={LABEL: "1", OWNER_LABEL: f"{os.uname().nodename}:999999", "arena.match": f"dead-{mark}"})
    volumes = volumes_of(leftover)
    assert len(volumes) == 1
    sweep()
    assert not arena_containers(docker_client, f"dead-{mark}")
    with pytest.raises(docker.errors.NotFound):
        docker_client.volumes.get(volumes[0])


def test_a_seat_removes_its_container_with_its_volume(tmp_path, docker_client, unvetted, mark):
    seat = ContainerSeat("v", "", unvetted["volume"], tmp_path / "seat", tmp_path / "v.log")
    seat.container = docker_client.containers.create(unvetted["volume"], command=["sleep", "600"],
                                                     labels={LABEL: "1", "arena.match": f"seat-{mark}"})
    volumes = volumes_of(seat.container)
    asyncio.run(seat.kill())
    with pytest.raises(docker.errors.NotFound):
        docker_client.volumes.get(volumes[0])
    assert Path(tmp_path / "v.log").exists()  # the seat kept the bot's output, as always
