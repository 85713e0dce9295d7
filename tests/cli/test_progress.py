"""Progress on long work (arena/cli/progress.py), seen from outside: `arena league run` of two
bots in containers (The Boss, two a table, one deal: a match is 2 games), in a pseudo-terminal
and through a pipe. One of the bots has a name full of escape sequences."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import pexpect
import pytest

from arena.bots.build import build_bot
from arena.bots.config import load_bot_config
from arena.bots.registry import register_bot
from arena.league import create_league
from arena.league.schedule import ScheduleOptions
from arena.store import open_store

from ..docker_fixtures import ROOT, docker_client  # noqa: F401 - a fixture

# an OSC that retitles the terminal, a screen clear, and a forged line: none may reach a terminal raw
EVIL = "ev\x1b]2;pwned\x07il\x1b[2J\r\nforged"
ESCAPED = "ev\\x1b]2;pwned\\x07il"  # how it must be printed
SUMMARY = re.compile(r"^(\d+) match\(es\), (\d+) game\(s\), 0 seat failure\(s\) in [\d.]+ s; 0 match\(es\) were "
                     r"already played$")
COLOUR = re.compile(r"\x1b\[([0-9;]*)m")
CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # rich's own: colours, cursor moves, the cursor shown


@dataclass
class Run:
    output: str
    status: int | None  # None: a pseudo-terminal's child killed by a signal

    @property
    def lines(self) -> list[str]:
        return self.output.splitlines()

    def colours(self) -> set[str]:
        """The colour parameters of its SGR sequences (foreground and background, any palette)."""
        found = set()
        for params in COLOUR.findall(self.output):
            for p in params.split(";"):
                if p.isdigit() and (30 <= int(p) <= 49 or 90 <= int(p) <= 107):
                    found.add(p)
        return found


@pytest.fixture(scope="module")
def league(tmp_path_factory, docker_client) -> Callable[..., list[str]]:  # noqa: F811 - a fixture
    """Makes a store of its own (the runs go side by side) with a league of the random sample
    bot, registered twice: as random@1 and under EVIL; returns the `arena league run`
    arguments that play ``rounds`` of it."""
    tmp = tmp_path_factory.mktemp("progress")
    image = build_bot(docker_client, load_bot_config(ROOT / "sample_bots" / "python" / "random")).tag
    digest = docker_client.images.get(image).id
    made = itertools.count()

    def make(rounds: int, *options: str) -> list[str]:
        name = f"p{next(made)}"
        url = f"sqlite:///{tmp}/{name}.db"
        store = open_store(url)
        create_league(store, name, "boss", 2, {}, ScheduleOptions(deals=1))
        for bot in ("random", EVIL):
            register_bot(store, name=bot, version="1", image=image, image_digest=digest, language="python",
                         author="tests", games=[], league=name)
        return ["league", "run", name, "--rounds", str(rounds), "--db", url, "--runs-dir", str(tmp / "runs"),
                *options]

    return make


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "ARENA_DB")}
    return {**env, "TERM": "xterm", "COLUMNS": "100", **extra}


def in_terminal(args: list[str], **env: str) -> Run:
    child = pexpect.spawn(sys.executable, ["-m", "arena.cli", *args], cwd=str(ROOT), env=environment(**env),
                          dimensions=(30, 100), encoding="utf-8", codec_errors="replace", timeout=120)
    child.expect(pexpect.EOF)
    child.close()
    assert isinstance(child.before, str)  # expect() set it: the text up to the end
    return Run(child.before, child.exitstatus)


def in_pipe(args: list[str]) -> Run:
    done = subprocess.run([sys.executable, "-m", "arena.cli", *args], cwd=ROOT, env=environment(),
                          capture_output=True, text=True, timeout=120)  # stdout a pipe, not a terminal
    assert not done.stderr, done.stderr
    return Run(done.stdout, done.returncode)


@pytest.fixture(scope="module")
def runs(league) -> Iterator[dict[str, Future[Run]]]:
    """The runs the tests look at, started together: each mostly waits for its containers."""
    with ThreadPoolExecutor(4) as pool:
        yield {"terminal": pool.submit(in_terminal, league(2, "--jobs", "2")),  # both tables at once
               "pipe": pool.submit(in_pipe, league(2, "--jobs", "2")),
               "quiet": pool.submit(in_terminal, league(1, "--quiet")),
               "no colour": pool.submit(in_terminal, league(1), NO_COLOR="1")}


@pytest.fixture
def on_terminal(runs) -> Run:
    return runs["terminal"].result()


@pytest.fixture
def piped(runs) -> Run:
    return runs["pipe"].result()


def test_on_a_terminal_a_bar_with_games_rate_eta_and_the_tables_playing(on_terminal):
    assert on_terminal.status == 0, on_terminal.output
    shown = CONTROL.sub("", on_terminal.output)  # the frames' text
    assert "━" in shown and " games/s " in shown
    assert re.search(r"league p\d+ +━+ 0/4 games 0\.00 games/s ETA -:--:-- 0:00:00", shown), shown
    assert re.search(r"━ 4/4 games [\d.]+ games/s ETA 0:00:00 \d:\d\d:\d\d", shown), shown
    assert f"playing: random@1 vs {ESCAPED}" in shown, shown
    assert "\x1b[2K" in on_terminal.output and on_terminal.colours(), "redrawn in place, in colour"
    assert SUMMARY.match(CONTROL.sub("", on_terminal.lines[-1])), on_terminal.lines[-1:]


def test_through_a_pipe_plain_lines_one_per_stored_match(piped):
    assert piped.status == 0, piped.output
    assert "\x1b" not in piped.output and "\r" not in piped.output
    first, second, summary = piped.lines
    assert re.fullmatch(r"league p\d+: 2/4 games, [\d.]+ games/s, ETA \d:\d\d:\d\d, 0 failures; stored round [01]: "
                        r".* vs .*", first), first
    assert second.startswith(f"{first.split(':')[0]}: 4/4 games, ") and "ETA 0:00:00" in second, second
    assert SUMMARY.match(summary) and summary.startswith("2 match(es), 4 game(s)"), summary


def test_quiet_prints_only_the_summary(runs):
    quiet = runs["quiet"].result()
    assert quiet.status == 0, quiet.output
    assert SUMMARY.match(quiet.output.strip()) and quiet.output.strip().startswith("1 match(es), 2 game(s)"), \
        quiet.output


def test_no_color_means_no_colour_on_a_terminal(runs):
    plain = runs["no colour"].result()
    assert plain.status == 0, plain.output
    assert "2/2 games" in plain.output and "━" in plain.output  # the bar is still drawn
    assert not plain.colours(), sorted(set(COLOUR.findall(plain.output)))


def test_a_hostile_name_is_printed_escaped_in_both_modes(on_terminal, piped):
    for run in (on_terminal, piped):
        assert ESCAPED in run.output, run.output
        assert "pwned\x07" not in run.output and "\x1b]" not in run.output and "\x1b[2J" not in run.output
        assert not any(line.startswith("forged") for line in run.lines)
