"""Every sample bot, in every language (the folders of sample_bots/<language>/<bot>/ are found
when the tests are collected, so a bot added in any language is covered), is submitted as an
author would: built offline, passing `arena bot check`, registered in a league; and the
leaderboard shows it with bot.toml's name, version and language. The Python bots `arena demo`
enters (tests/league/helpers.py DEMO_FOLDERS) are left to test_league_runs' demo test, which
submits them the same way and checks the same."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.bots.config import load_bot_config
from arena.bots.submit import submit_bot
from arena.cli import main as arena
from arena.league import create_league
from arena.league.schedule import ScheduleOptions
from arena_games import GAMES

from .conftest import ROOT
from .helpers import DEMO_FOLDERS

SAMPLES = sorted(toml.parent for toml in (ROOT / "sample_bots").glob("*/*/bot.toml")
                 if not (toml.parent.parent.name == "python" and toml.parent.name in DEMO_FOLDERS))


@pytest.mark.parametrize("folder", SAMPLES, ids=lambda folder: f"{folder.parent.name}/{folder.name}")
def test_a_sample_bot_passes_the_check_and_shows_with_its_language(folder: Path, store, db_url, docker_client):
    config = load_bot_config(folder)
    game = config.games[0] if config.games else "prohis"
    create_league(store, "samples", game, GAMES[game].min_players, {}, ScheduleOptions())
    report: list[str] = []
    bot = submit_bot(store, folder, "samples", check_say=report.append)
    assert report[-1] == f"{config.tag}: passes every check", "\n".join(report)
    assert (bot.name, bot.version, bot.language) == (config.name, config.version, config.language)
    board = CliRunner().invoke(arena, ["leaderboard", "samples", "--db", db_url])
    assert board.exit_code == 0, board.output
    # entered, not yet rated: shown at the prior rating (the header may take two lines)
    [row] = [line for line in board.output.splitlines() if line.split()[:1] == ["1"]]
    assert row.split()[:4] == ["1", config.name, config.version, config.language], row


def test_a_stdio_bot_in_a_language_of_no_base_shows_its_own_language(tmp_path, store, db_url, docker_client):
    """bot.toml's language is the bot's label everywhere (`language = "rust"`), its base a field of
    its own (a stdio bot's default: the smallest base). The program here is the awk sample's:
    what is checked is the label, which no part of Arena reads the program for."""
    folder = tmp_path / "rusty"
    shutil.copytree(ROOT / "sample_bots" / "shell" / "random", folder)
    (folder / "bot.toml").write_text('name = "rusty-random"\nversion = "2.0.1"\nlanguage = "rust"\n'
                                     'protocol = "stdio"\nauthor = "Ferris"\ngames = ["sobek"]\n')
    create_league(store, "labels", "sobek", 2, {}, ScheduleOptions())
    bot = submit_bot(store, folder, "labels")
    assert (bot.name, bot.version, bot.language) == ("rusty-random", "2.0.1", "rust")
    labels = docker_client.api.inspect_image("arena-bot/rusty-random:2.0.1")["Config"]["Labels"]
    assert (labels["arena.bot.language"], labels["arena.bot.base"]) == ("rust", "shell")
    board = CliRunner().invoke(arena, ["leaderboard", "labels", "--db", db_url])
    [row] = [line for line in board.output.splitlines() if line.split()[:1] == ["1"]]
    assert row.split()[:4] == ["1", "rusty-random", "2.0.1", "rust"], row
    listed = CliRunner().invoke(arena, ["bot", "list", "rusty-random", "--json", "--db", db_url])
    assert [b["language"] for b in json.loads(listed.output)] == ["rust"]
