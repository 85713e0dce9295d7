"""Shell completion: `arena completion SHELL` prints click's scripts; a Tab completes commands,
league names and bot names (BOT@VERSION included) from a real SQLite store, through click's
variables and through bash itself; names a shell would misread are never offered; a missing or
unreachable store completes nothing, quietly, and no completion creates or changes a store.

bash is run for real (an interactive bash in a pseudo-terminal, pexpect). zsh and fish are not
installed on these machines: their scripts are checked as text, and the answers they would read
(zsh_complete, fish_complete) are checked as click gives them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from click.testing import CliRunner

from arena.bots.registry import register_bot
from arena.cli import main as arena
from arena.league import create_league
from arena.league.schedule import ScheduleOptions
from arena.store import open_store

from ..league.helpers import league_named

ROOT = Path(__file__).resolve().parents[2]
# League names are free text: these must never be offered (see arena/cli/completion.py)
HOSTILE = ("two words", "semi;colon", "-rf", "ansi\x1b[31m", "dollar$HOME", "quote'd", "new\nline", "glob*")


@pytest.fixture(scope="module")
def store_url(tmp_path_factory) -> str:
    """A real SQLite store: the round robin "mine", the ladder "top", the hostile names, and the
    bots random (1.0.0, then 2.0.0) and rival 0.1."""
    url = f"sqlite:///{tmp_path_factory.mktemp('store') / 'arena.db'}"
    store = open_store(url)
    create_league(store, "mine", "prohis", 3, {}, ScheduleOptions())
    create_league(store, "top", "sobek", 2, {}, ScheduleOptions(format="ladder"))
    for name in HOSTILE:  # names from an older store: create_league refuses them now
        league_named(store, name, "sobek", 2)
    for name, version, language in [("random", "1.0.0", "python"), ("random", "2.0.0", "python"),
                                    ("rival", "0.1", "go")]:
        register_bot(store, name=name, version=version, image=f"arena-bot/{name}:{version}", image_digest="sha256:0",
                     language=language, author="tests", games=[], league=None)
    store.engine.dispose()
    return url


def complete(line: str, shell: str = "bash", **env: str) -> list[str]:
    """What click answers the shell for ``line`` (the cursor at its end), in process, given the
    variables each script sets (bash's without COMP_LINE: what click's stock script sends)."""
    words = line.split()
    incomplete = "" if line.endswith(" ") else words[-1]
    variables = {"_ARENA_COMPLETE": f"{shell}_complete", "COMP_WORDS": line, "ARENA_DB": None,
                 "COMP_CWORD": incomplete if shell == "fish" else str(len(words) - (incomplete != "")), **env}
    result = CliRunner().invoke(arena, [], env=variables, prog_name="arena")
    assert result.exit_code == 0 and not result.stderr, result.output
    return [line for line in result.stdout.splitlines() if line]  # nothing to offer: one empty line


def values(lines: list[str]) -> list[str]:
    return [line.split(",", 1)[1] for line in lines]


# The scripts ----------------------------------------------------------------------------------


@pytest.mark.parametrize("shell, marks", [
    ("bash", ["_arena_completion()", "_ARENA_COMPLETE=bash_complete", 'COMP_LINE="$COMP_LINE"',
              "complete -o nosort -F _arena_completion arena"]),
    ("zsh", ["#compdef arena", "_arena_completion()", "_ARENA_COMPLETE=zsh_complete",
             "compdef _arena_completion arena"]),
    ("fish", ["function _arena_completion", "_ARENA_COMPLETE=fish_complete",
              'complete --no-files --command arena --arguments "(_arena_completion)"']),
])
def test_arena_completion_prints_clicks_script_for_each_shell(shell, marks):
    result = CliRunner().invoke(arena, ["completion", shell], prog_name="arena")
    assert result.exit_code == 0, result.output
    for mark in marks:
        assert mark in result.output, mark
    sourced = CliRunner().invoke(arena, [], env={"_ARENA_COMPLETE": f"{shell}_source"}, prog_name="arena")
    assert sourced.output == result.output  # the same as click's own variable gives


def test_the_help_says_how_to_install_it_and_an_unknown_shell_is_refused():
    result = CliRunner().invoke(arena, ["completion", "--help"], prog_name="arena")
    for line in ['eval "$(arena completion bash)"', 'eval "$(arena completion zsh)"',
                 "arena completion fish > ~/.config/fish/completions/arena.fish", "_ARENA_COMPLETE=bash_source"]:
        assert line in result.output
    refused = CliRunner().invoke(arena, ["completion", "tcsh"], prog_name="arena")
    assert refused.exit_code == 2 and "'tcsh' is not one of 'bash', 'zsh', 'fish'" in refused.output


# What a Tab offers ----------------------------------------------------------------------------


def test_commands_leagues_and_bots_complete_from_the_store_and_hostile_names_never(store_url):
    assert complete("arena comp") == ["plain,compare", "plain,completion"]
    assert complete("arena bot n") == ["plain,new"]
    db = {"ARENA_DB": store_url}
    assert values(complete("arena leaderboard ", **db)) == ["mine", "top"]  # every hostile name left out
    assert values(complete("arena league run ", **db)) == ["mine"]  # round robins only
    assert values(complete("arena ladder run ", **db)) == ["top"]  # ladders only
    assert values(complete("arena league join m", **db)) == ["mine"]
    bots = ["random", "random@2.0.0", "random@1.0.0", "rival", "rival@0.1"]
    assert values(complete("arena league join mine ", **db)) == bots  # NAME (its newest), then each version
    assert values(complete("arena compare random@2.0.0 ri", **db)) == ["rival", "rival@0.1"]
    assert values(complete("arena images archive random ", **db)) == bots
    assert values(complete("arena bot submit x --league t", **db)) == ["top"]
    assert values(complete(f"arena leaderboard --db {store_url} ")) == ["mine", "top"]  # --db, as the command reads
    assert values(complete("arena bot new x --language ")) == ["python", "javascript", "go", "cpp", "shell"]
    # zsh and fish read the same names, with a description beside them
    assert complete("arena league join mine riv", shell="zsh", **db) == [
        "plain", "rival", "go", "plain", "rival@0.1", "go"]
    assert complete("arena ladder run ", shell="fish", **db) == ["plain,top\tsobek 2 players ladder"]


def test_bash_gets_bot_at_version_as_it_splits_words_at_the_at_sign(store_url):
    # bash breaks words at '@' (COMP_WORDBREAKS) and readline replaces from the '@' on: given the
    # line, the reply is that part; after a ':', what follows it
    line = "arena league join mine random@"
    env = {"ARENA_DB": store_url, "COMP_LINE": line, "COMP_POINT": str(len(line))}
    assert complete("arena league join mine random @", **env) == ["plain,@2.0.0", "plain,@1.0.0"]
    line = "arena compare random@1.0.0 r"  # a word before, split by bash too, is read whole
    env.update(COMP_LINE=line, COMP_POINT=str(len(line)))
    assert values(complete("arena compare random @ 1.0.0 r", **env)) == [
        "random", "random@2.0.0", "random@1.0.0", "rival", "rival@0.1"]


def test_a_missing_or_unreachable_store_completes_nothing_and_nothing_is_created(store_url, tmp_path):
    missing = tmp_path / "nowhere" / "arena.db"
    for url in (f"sqlite:///{missing}", "postgresql+psycopg://arena@127.0.0.1:9/arena", "not a url",
                "sqlite:///:memory:"):
        assert complete("arena leaderboard ", ARENA_DB=url) == []
    assert list(tmp_path.iterdir()) == []
    folder = Path(store_url.removeprefix("sqlite:///")).parent
    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    assert values(complete("arena leaderboard ", ARENA_DB=store_url)) == ["mine", "top"]
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == before  # read, left as it was


# Through the real variables and a real bash ---------------------------------------------------


@pytest.fixture(scope="module")
def arena_on_path(tmp_path_factory) -> dict[str, str]:
    """An environment whose PATH has an `arena` that runs this checkout's CLI."""
    bin_dir = tmp_path_factory.mktemp("bin")
    (bin_dir / "arena").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m arena.cli "$@"\n')
    (bin_dir / "arena").chmod(0o755)
    return {"PATH": f"{bin_dir}:{os.environ['PATH']}", "PYTHONPATH": str(ROOT), "HOME": str(bin_dir),
            "TERM": "dumb", "LANG": "C.UTF-8"}


def test_click_answers_the_variables_of_a_subprocess(store_url, arena_on_path, tmp_path):
    env = {**arena_on_path, "ARENA_DB": store_url, "_ARENA_COMPLETE": "bash_complete",
           "COMP_WORDS": "arena league join mine ran", "COMP_CWORD": "4"}
    done = subprocess.run(["arena"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == ["plain,random", "plain,random@2.0.0", "plain,random@1.0.0"]


# every command's help, then a Tab, in a fresh interpreter; then the modules of the heavy libraries it loaded
LAZY = """
import json, os, sys
import click
from arena.cli import main

def helps(group, path):
    for name in group.list_commands(click.Context(group)):
        command = group.get_command(click.Context(group), name)
        command.get_help(click.Context(command, info_name=" ".join((*path, name))))
        if isinstance(command, click.Group):
            helps(command, (*path, name))

helps(main, ("arena",))
os.environ.update(_ARENA_COMPLETE="bash_complete", COMP_WORDS="arena league join mine ran", COMP_CWORD="4")
try:
    main(prog_name="arena")
except SystemExit:
    pass
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "fastapi"))), file=sys.stderr)
"""


def test_help_and_a_tab_load_neither_pydantic_nor_the_web(store_url, tmp_path):
    """The lazy CLI: `--help` of every command and a Tab import no pydantic and no FastAPI (the
    models of the --json documents, arena/schemas, are for the tests, the docs and the server)."""
    done = subprocess.run([sys.executable, "-c", LAZY], env={**os.environ, "ARENA_DB": store_url}, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["plain,random", "plain,random@2.0.0", "plain,random@1.0.0"]
    assert json.loads(done.stderr.splitlines()[-1]) == []


def test_a_tab_in_a_real_bash_completes_a_league_and_a_bot_at_a_version(store_url, arena_on_path, tmp_path):
    env = {**arena_on_path, "ARENA_DB": store_url, "PS1": "$ "}
    bash = pexpect.spawn("bash", ["--norc", "--noprofile", "-i"], env=env, cwd=str(tmp_path), encoding="utf-8",
                         timeout=30, dimensions=(24, 200))
    try:
        bash.expect_exact("$ ")
        bash.sendline("source <(arena completion bash); complete -p arena")
        bash.expect_exact("\r\ncomplete -o nosort -F _arena_completion arena\r\n")
        bash.expect_exact("$ ")
        # each line: Tab, then Ctrl-A and `echo ` in front, so that Enter prints the completed line
        for typed, completed in [("arena leaderboard m", "arena leaderboard mine"),
                                 ("arena league join mine random@2", "arena league join mine random@2.0.0")]:
            bash.send(typed + "\t")
            bash.expect_exact(completed[len(typed):])  # what readline inserts (after a bell, if ambiguous)
            bash.send("\x01echo \r")
            bash.expect_exact(f"\r\n{completed}\r\n")
            bash.expect_exact("$ ")
    finally:
        bash.close(force=True)
