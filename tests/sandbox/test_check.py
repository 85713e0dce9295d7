"""`arena bot check` (arena/bots/check.py): a correct bot passes every check; a bot with one
flaw (tests/bots/flawed.py) fails the line that names it and no other; a submission runs the
check and refuses a bot that fails it; and the records the check reads say what it needs."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from arena.bots.build import build_bot
from arena.bots.cache import remove_bot_image
from arena.bots.check import FAIL, PASS, Line, check_bot
from arena.bots.config import load_bot_config
from arena.bots.submit import SubmissionRefused, submit_bot
from arena.cli import main as arena
from arena.store import Bot, open_store
from referee import launch, limits
from referee.records import read_record
from referee.spec import BotSpec, MatchSpec, TimeControl

from ..docker_fixtures import TEST_IMAGES
from .conftest import ROOT

FLAWS = ("none", "named", "fourplayers", "slow", "memory", "linger")
PREFIX = TEST_IMAGES.replace("/", "-")  # bot names: the images are arena-bot/<name>:1


def flawed_folder(parent: Path, flaw: str) -> Path:
    """A bot folder of tests/bots/flawed.py with ``flaw``, claiming Sobek (2 to 4 players)."""
    folder = parent / flaw
    folder.mkdir()
    name = f"{PREFIX}-{flaw}"
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "1"\nlanguage = "python"\nauthor = "tests"\n'
                                     'games = ["sobek"]\n')
    (folder / "Dockerfile").write_text(f'ARG BASE\nFROM ${{BASE}}\nCOPY flawed.py /bot/flawed.py\n'
                                       f'CMD ["python3", "/bot/flawed.py", "{flaw}", "{name}"]\n')
    shutil.copy(ROOT / "tests" / "bots" / "flawed.py", folder / "flawed.py")
    return folder


@pytest.fixture(scope="module")
def flawed(docker_client, tmp_path_factory) -> Iterator[dict[str, str]]:
    """The image of each flaw, built by `arena bot build`'s path (so it has bot.toml's labels)."""
    parent = tmp_path_factory.mktemp("flawed")
    images = {flaw: build_bot(docker_client, load_bot_config(flawed_folder(parent, flaw))).tag for flaw in FLAWS}
    yield images
    for tag in images.values():
        remove_bot_image(docker_client, tag)


def test_a_correct_bot_passes_every_check(flawed):
    report = check_bot(image=flawed["none"])
    assert report.ok, "\n".join(report.text())
    assert [line.check for line in report.lines] == [
        "image settings", "hello", "protocol", "games", "sobek, 2 players, under load", "sobek, 3 players",
        "sobek, 4 players", "memory", "shutdown"]
    seen = {line.check: line.seen for line in report.lines}
    assert seen["hello"] == f"'{PREFIX}-none' '1', as its bot.toml says"
    assert seen["memory"].startswith("peak ") and seen["memory"].endswith(f" MiB of {limits.MEMORY_MB} MiB")
    assert seen["shutdown"].startswith("exit code 0 at most ") and seen["shutdown"].endswith("in all 3 games")
    assert "; p50 " in seen["sobek, 2 players, under load"] and "bank used 0 ms (with a CPU hog" in seen[
        "sobek, 2 players, under load"]
    [think] = report.think
    assert think.game == "sobek" and think.decisions > 0 and 0 < think.p50_ms <= think.p99_ms
    assert report.text()[-1] == f"{flawed['none']}: passes every check"


@pytest.mark.serial  # 150 ms a decision beside a CPU hog: a second test process on the machine starves it
@pytest.mark.parametrize("flaw, failed, seen", [
    ("named", ["hello"], f"says it is '{PREFIX}-named-other' '1', but its bot.toml says '{PREFIX}-named' '1'"),
    ("fourplayers", ["sobek, 4 players"], "crash: "),
    ("slow", ["sobek, 2 players, under load"], "timeout: no reply within 150 ms (with a CPU hog on its core"),
    ("linger", ["shutdown"], "still running 2"),
])
def test_a_flawed_bot_fails_the_line_that_names_its_flaw(flaw, failed, seen, flawed):
    # Under load the slow bot has half its core: its 100 ms of CPU take 200 ms, over the 150 ms a
    # decision it is given there. Its other games give it 750 ms, which it keeps to unless other
    # work on the machine leaves it less than a seventh of its core.
    report = check_bot(image=flawed[flaw], time_control=TimeControl(limits.CHECK_STARTUP_MS, 150, 0))
    assert [line.check for line in report.failed] == failed, "\n".join(report.text())
    assert seen in report.failed[0].seen, report.failed[0]
    assert report.text()[-1] == f"{flawed[flaw]}: FAILED 1 of 9 checks"


def test_a_bot_over_its_memory_limit_fails_the_memory_line(flawed):
    report = check_bot(image=flawed["memory"])
    memory = next(line for line in report.lines if line.check == "memory")
    assert memory.status == FAIL, "\n".join(report.text())
    assert memory.seen == (f"killed for using more than its limit of {limits.MEMORY_MB} MiB "
                           "(sobek, 2 players, under load)")


@pytest.mark.parametrize("kind, line", [
    ("badversion", Line("protocol", FAIL, "protocol_version: bot speaks protocol 99, referee speaks 1")),
    ("noconnect", Line("hello", FAIL, "no_hello: no hello within 3000 ms")),
])
def test_a_bot_whose_hello_fails_is_not_played(kind, line, misbehaving_images):
    report = check_bot(image=misbehaving_images[kind], time_control=TimeControl(3000, 1000, 0))
    assert report.lines == [Line("image settings", PASS, "nothing Arena's sandbox refuses"), line]


def test_submit_refuses_a_failing_bot_and_registers_nothing(tmp_path, flawed):
    db = f"sqlite:///{tmp_path}/arena.db"
    folder = flawed_folder(tmp_path, "named")
    with pytest.raises(SubmissionRefused) as info:
        submit_bot(open_store(db), folder)
    assert str(info.value).startswith(f"arena-bot/{PREFIX}-named:1 failed 1 check(s):\n  FAIL  hello: says it is ")
    result = CliRunner().invoke(arena, ["bot", "submit", str(folder), "-q", "--db", db])
    assert result.exit_code == 1
    assert f"refused: arena-bot/{PREFIX}-named:1 failed 1 check(s):\n  FAIL  hello: says it is" in result.output
    with open_store(db)() as session:
        assert session.scalars(select(Bot)).all() == []


def test_arena_bot_check_of_a_local_command(tmp_path):
    bot = ROOT / "sample_bots" / "python" / "sobek_heuristic" / "bot.py"
    result = CliRunner().invoke(arena, ["bot", "check", "--decision-ms", "500", "--increment-ms", "100",
                                        "--match-bank-ms", "2000", "--command", sys.executable, "-u", str(bot)])
    assert result.exit_code == 0, result.output
    assert "pass  hello: 'sobek-heuristic' '1.0.0' (a command has no bot.toml to compare them with)" in result.output
    assert "pass  sobek, 2 players, under load: " in result.output and (
        "the time control: 500 ms a decision, a bank of 10000 ms, an increment of 100 ms and a match bank of 2000 ms)"
        in result.output)
    assert " MiB of 512 MiB (a local command: its processes' resident peaks, summed" in result.output
    assert result.output.rstrip().endswith("-u " + str(bot) + ": passes every check")


def test_arena_bot_check_prints_the_failure_and_the_bots_output(flawed, misbehaving_images):
    result = CliRunner().invoke(arena, ["bot", "check", flawed["fourplayers"]])
    assert result.exit_code == 1
    assert "FAIL  sobek, 4 players: crash: " in result.output
    hostile = CliRunner().invoke(arena, ["bot", "check", misbehaving_images["evilgames"]])
    assert hostile.exit_code == 1
    assert "FAIL  games: claims unknown game(s) '\\x1b[2J\\x1b[H\\x1b[31mevil\\r\\nforged-row" in hostile.output
    for line in (result.output + hostile.output).splitlines():
        assert line.isprintable() and len(line) <= 310, repr(line)
    usage = CliRunner().invoke(arena, ["bot", "check", flawed["none"], "--bank-ms", "5"])
    assert usage.exit_code == 2 and "give one IMAGE (options go before it)" in usage.output


def test_a_line_quoting_a_bot_is_printed_escaped():
    line = Line("hello", FAIL, "says it is '\x1b[2Jevil\r\nFAIL  forged'\u202e")
    assert str(line) == "FAIL  hello: says it is '\\x1b[2Jevil\\r\n      FAIL  forged'\\u202e"


def test_the_records_say_each_seats_language_memory_and_shutdown(tmp_path, sample_images):
    spec = MatchSpec(game="prohis", match_id="languages", shutdown_ms=limits.CHECK_SHUTDOWN_MS, bots=(
        BotSpec("boxed", image=sample_images["random"]), BotSpec("local", command=(sys.executable, "-u", str(
            ROOT / "sample_bots" / "python" / "random" / "bot.py"))), BotSpec("inproc", builtin="random")))
    result = launch(spec, tmp_path)
    header = read_record(tmp_path / result.games[0]["record"]).header
    assert [seat["language"] for seat in header["seats"]] == ["python", "", ""]
    boxed, local, inproc = result.totals
    assert (boxed["language"], local["language"], inproc["language"]) == ("python", "", "")
    assert boxed["shutdown"]["status"] == local["shutdown"]["status"] == "exit code 0"
    assert 0 < boxed["peak_memory_mb"] < limits.MEMORY_MB and 0 < local["peak_memory_mb"] < limits.MEMORY_MB
    assert inproc["shutdown"] is None and inproc["peak_memory_mb"] is None


def test_the_check_plays_its_games_at_the_time_control_the_slack_ones_with_its_banks_and_increment():
    from arena.bots.check import game_time

    given = TimeControl(limits.CHECK_STARTUP_MS, 200, 300, 50, 4000)
    assert game_time(given, load=True) == given
    assert game_time(given, load=False) == TimeControl(limits.CHECK_STARTUP_MS, 200 * limits.CHECK_SLACK, 300, 50,
                                                       4000)
