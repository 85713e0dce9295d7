"""A stdio program run as a local bot (arena/bots/local.py): `arena bot check --stdio --command`
runs it under the adapter and passes it; without --stdio (or `stdio:` in `arena match`) it is
refused with a hint that says how, not retried; the version in the results is ./bot.toml's."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.bots.local import STDIO_HINT, never_spoke_grpc, under_adapter
from arena.cli import main as arena
from referee.seats import CRASH, NO_HELLO

ROOT = Path(__file__).resolve().parents[2]
STDIO_BOT = [sys.executable, str(ROOT / "tests" / "bots" / "stdio_bot.py"), "well"]


@pytest.fixture
def bot_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The author's bot folder, the current folder, with a bot.toml naming one game."""
    (tmp_path / "bot.toml").write_text('name = "my-stdio"\nversion = "0.3.1"\nlanguage = "shell"\n'
                                       'protocol = "stdio"\nauthor = "Ada"\ngames = ["sobek"]\n')
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_bot_check_of_a_stdio_program_without_stdio_says_add_stdio(bot_folder):
    result = CliRunner().invoke(arena, ["bot", "check", "--command", *STDIO_BOT])
    assert result.exit_code == 1
    assert "FAIL  hello: crash: exited before saying hello (exit code 0)" in result.output
    assert "this looks like a stdio program: add --stdio" in result.output
    assert "FAILED 1 of 1 checks" in result.output


def test_bot_check_stdio_runs_the_program_under_the_adapter_and_passes(bot_folder):
    result = CliRunner().invoke(arena, ["bot", "check", "--decision-ms", "500", "--stdio", "--command", *STDIO_BOT])
    assert result.exit_code == 0, result.output
    assert "under the stdio adapter, as my-stdio 0.3.1 (from bot.toml)" in result.output
    assert "pass  hello: 'my-stdio' '0.3.1'" in result.output
    assert "pass  games: sobek" in result.output
    assert "pass  sobek, 2 players, under load: " in result.output
    assert result.output.rstrip().endswith("passes every check")


def test_stdio_goes_with_command_only():
    result = CliRunner().invoke(arena, ["bot", "check", "--stdio", "arena-bot/x:1"])
    assert result.exit_code == 2 and "--stdio goes with --command" in result.output


def test_match_hints_at_stdio_and_a_stdio_seat_shows_bot_tomls_version(bot_folder):
    plain = CliRunner().invoke(arena, ["match", "--game", "sobek", "--games", "2", "--bot",
                                       "me=" + " ".join(STDIO_BOT), "--bot", "r=builtin:random"])
    assert plain.exit_code == 0, plain.output
    assert ("me: " + STDIO_HINT.format(fix="write --bot 'me=stdio:COMMAND'")) in plain.output
    stdio = CliRunner().invoke(arena, ["match", "--game", "sobek", "--games", "2", "--json", "--bot",
                                       "me=stdio:" + " ".join(STDIO_BOT), "--bot", "r=builtin:random"])
    assert stdio.exit_code == 0, stdio.output
    totals = {t["bot"]: t for t in json.loads(stdio.output)["totals"]}
    assert totals["me"]["version"] == "0.3.1" and totals["me"]["failures"] == 0  # not the adapter's "0"


def test_the_hint_is_for_a_program_that_never_opened_its_socket():
    assert never_spoke_grpc(CRASH, "exited before saying hello (exit code 0)")
    assert never_spoke_grpc(CRASH, "exited before saying hello (exit code 0)", connected=False)
    assert not never_spoke_grpc(CRASH, "exited before saying hello (exit code 0)", connected=True)
    assert not never_spoke_grpc(CRASH, "exited before saying hello (exit code 1); ImportError")  # a gRPC bot's
    assert not never_spoke_grpc(CRASH, "closed the stream before saying hello")  # it spoke gRPC
    assert not never_spoke_grpc(NO_HELLO, "no hello within 3000 ms", connected=False)  # a hung bot
    assert under_adapter([sys.executable, "-m", "arenabot.stdio", "--name=x", "--", "./bot"])
    assert under_adapter(["/usr/local/bin/arena-stdio", "--", "./bot"]) and not under_adapter(["./bot"])


def test_a_local_submission_takes_several_leagues_as_its_help_says(tmp_path):
    """`bot submit --help` says to repeat --league, locally as with --server: every league is
    checked before any build (the unknown second one is named, so it was read)."""
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    runner = CliRunner()
    created = runner.invoke(arena, ["league", "create", "first", "--game", "sobek", "--players", "2", "--db", db])
    assert created.exit_code == 0, created.output
    folder = ROOT / "sample_bots" / "shell" / "random"
    result = runner.invoke(arena, ["bot", "submit", str(folder), "--league", "first", "--league", "second",
                                   "--db", db])
    assert result.exit_code == 1
    assert "unknown league 'second'" in result.output and "local submission enters one" not in result.output
    assert "repeat the option for several" in " ".join(runner.invoke(arena, ["bot", "submit", "--help"]).output.split())
