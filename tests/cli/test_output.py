"""One output convention (arena/cli/output.py, docs/cli.md): every listing has a ``--json`` whose
document validates against its model (arena/schemas, exactly its fields); tables stay aligned at any width whatever
the names; colour only on a terminal and never with NO_COLOR; hostile names escaped everywhere.

One small SQLite store, filled once by real commands and the store API (no image is built or run)."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import click
import pexpect
import pytest
import wcwidth
from click.testing import CliRunner
from pydantic import TypeAdapter, ValidationError

from arena import audit
from arena.bots.registry import register_bot
from arena.cli import main as arena
from arena.league.standings import rebuild_ratings
from arena.schemas.docs import LISTINGS, markdown
from arena.store import Bot, Game, ImageArchive, League, Match, User, open_store
from referee.textlog import printable

from ..league.helpers import league_named

ROOT = Path(__file__).resolve().parents[2]
# clears the screen, moves the cursor, forges a row, flips text (no space: a table's words are its cells)
EVIL = "\x1b[2J\x1b[Hevil\r\nforged-row\t1.0\x07\x9b2J\u202e\u2028"
WIDE = "名前のとても長いボット" * 2  # 22 characters, 44 cells
# (name, language) of the league "wide": every cell width a terminal has, and a language longer than "javascript"
BOTS = [("random", "python"), (WIDE, "javascript"), ("cafe\u0301-bot", "e\u0301lixir"),
        ("x" * 60, "typescript-deno-experimental"), (EVIL, EVIL)]

# Every command that is not a listing, and why it has no --json. A listing prints a list of
# things or one stored record (the keys of LISTINGS); a new command must be put in one or the other.
NOT_LISTINGS = {
    "play": "plays one game in process and prints its log",
    "match": "runs a match; its --json is the match's result.json, not a listing",
    "compare": "runs a sequential test; its --json is the verdict, not a listing",
    "replay": "prints a game record as a log (the record itself is JSON lines already)",
    "images build": "builds images; prints the build's progress",
    "images archive": "archives images; prints what it did for each",
    "images wheels": "builds wheels; prints their paths",
    "bot build": "builds an image; prints the build's output",
    "kit install": "copies a kit into a folder; prints how to use it",
    "bot check": "plays a bot and prints a report; the exit status is the verdict",
    "bot submit": "builds, checks and registers; prints the steps",
    "league finals": "closes a league and creates its finals; prints what it made (league list --json has both)",
    "doctor": "a health check whose exit status is the verdict (images list --json has the images)",
    "league create": "creates a league",
    "league join": "enters a bot",
    "league run": "plays matches; prints progress",
    "ladder create": "creates a ladder",
    "ladder run": "plays matches; prints progress",
    "ratings rebuild": "recomputes ratings (leaderboard --json shows them)",
    "demo": "registers and plays a league, then prints its leaderboard (leaderboard --json has it)",
    "serve": "runs the web server (its JSON is /api/v1/)",
    "worker": "runs a Celery worker",
    "user add": "makes an account; prints its token and password once",
    "user token": "issues or revokes tokens",
    "user password": "sets a password",
    "team create": "creates a team",
    "team add": "puts an account in a team",
    "team remove": "takes an account out of a team",
    "user disable": "disables an account",
    "user enable": "enables an account",
    "bot retire": "retires or disqualifies a bot",
    "bot requalify": "undoes a disqualification",
    "bundle match": "writes a bundle folder",
    "bundle run": "plays a bundle's match again and compares it",
    "completion": "prints a shell's completion script",
    "watch": "follows a match being played, as a log of its public events",
}
# the listings that need nothing but the store, with the arguments that show the store's records
STORE_LISTINGS = {"league list": ["league", "list"], "bot list": ["bot", "list"], "user list": ["user", "list"],
                  "leaderboard": ["leaderboard", "wide"], "show match": ["show", "match", "1"],
                  "show game": ["show", "game", "1"],
                  "league status": ["league", "status", "wide"], "audit": ["audit"]}


def commands(group: click.Group = arena, path: tuple[str, ...] = ()) -> dict[str, click.Command]:
    """Every command of the tree that is not a group, by its path ("league list")."""
    found: dict[str, click.Command] = {}
    ctx = click.Context(group)
    for name in group.list_commands(ctx):  # arena's top level imports its commands lazily
        command = group.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            found |= commands(command, (*path, name))
        else:
            found[" ".join((*path, name))] = command
    return found


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    """Leagues made by `arena league create` and `arena ladder create`, an account by `arena
    user add`; bots, games, a hostile account and an archived image by the store API."""
    url = f"sqlite:///{tmp_path_factory.mktemp('output')}/arena.db"
    for args in (["league", "create", "wide", "--game", "prohis", "--players", "3"],
                 ["ladder", "create", "top", "--game", "prohis", "--players", "3"],
                 ["user", "add", "ann", "--admin", "--password-stdin"]):
        result = CliRunner().invoke(arena, [*args, "--db", url], input="a long password\n")
        assert result.exit_code == 0, result.output
    store = open_store(url)
    league_named(store, EVIL)  # a name from an older store: create_league refuses it now
    with store() as session, session.begin():
        session.add(User(name=EVIL))  # no account name is this bad (arena user add refuses it): the store's text
        session.add(ImageArchive(image_id="sha256:0", image="arena-bot/random:1", size=1, chunks=0))
    with store() as session:
        evil_user = session.query(User).filter_by(name=EVIL).one().id
    with store() as session, session.begin():  # an entry of the audit log (arena audit) naming it
        audit.record(session, evil_user, "bot.retire", f"bot 1 ({EVIL})")
    ids = [register_bot(store, name=name, version=EVIL if name == EVIL else "1", image=f"arena-bot/b{i}:1",
                        image_digest=f"sha256:{i}", language=language, author=EVIL if i == 4 else "tester",
                        games=["prohis"], league="wide", leagues=["top"] if i == 0 else ()).id
           for i, (name, language) in enumerate(BOTS)]
    register_bot(store, name="random", version="2", image="arena-bot/random:2", image_digest="sha256:9",
                 language="python", author="tester", games=["prohis"], league=None, retire_previous=True)
    with store() as session, session.begin():
        session.get_one(Bot, ids[4]).owner_id = evil_user
        league = session.query(League).filter_by(name="wide").one()
        for i, seats in enumerate([(4, 0, 1), (1, 2, 3), (2, 3, 4), (0, 2, 3)]):
            bots = [ids[s] for s in seats]
            match = Match(league_id=league.id, round=i, table=",".join(map(str, sorted(bots))), bots=bots,
                          record_dir=f"runs/{i}", restarts=[0, 1, 0], started_at=league.created_at)
            session.add(match)
            session.flush()
            session.add(Game(match_id=match.id, index=0, seed=str(100 + i), deal="c0d0", seats=bots,
                             scores=[30 - i, 20, 10], ranks=[1, 2, 3], failures=["", "", EVIL if i == 0 else ""],
                             record_path=f"runs/{i}/game-000.jsonl"))
    rebuild_ratings(store, "wide")
    return url


def strings(value: object) -> set[str]:
    """Every string value of a JSON document."""
    if isinstance(value, dict):
        return set().union(*map(strings, value.values()))
    if isinstance(value, list):
        return set().union(*map(strings, value))
    return {value} if isinstance(value, str) else set()


def keys(value: object) -> set[str]:
    """Every key of a JSON document's objects."""
    if isinstance(value, dict):
        return set(value).union(*map(keys, value.values()))
    if isinstance(value, list):
        return set().union(*map(keys, value))
    return set()


def invoke(db: str, args: list[str], columns: int | None = None) -> str:
    result = CliRunner().invoke(arena, [*args, "--db", db], env={"COLUMNS": str(columns) if columns else None})
    assert result.exit_code == 0, (args, result.output)
    return result.output


def test_every_listing_has_json_and_every_other_command_says_why_not():
    tree = commands()
    listed = {key.split(" --")[0] for key in LISTINGS}  # "bot new --list-languages": a listing of an option
    unclassified = sorted(set(tree) - listed - set(NOT_LISTINGS))
    assert not unclassified, f"new commands: add each to LISTINGS (a listing, with its model) or to NOT_LISTINGS: " \
                             f"{unclassified}"
    assert not listed & set(NOT_LISTINGS)
    assert not (listed | set(NOT_LISTINGS)) - set(tree), "stale names"
    lacking = [name for name in listed if not any("--json" in p.opts for p in tree[name].params)]
    assert not lacking, f"listings without --json: {lacking}"


def test_docs_show_the_schemas_of_the_code():
    docs = (ROOT / "docs" / "cli.md").read_text()
    assert docs.startswith("# The command line\n") and "\n## Output: tables, colour and --json\n" in docs
    assert markdown("cli") in docs, "docs/cli.md is out of date: paste `python -m arena.schemas.docs cli` into it"


def conforms(printed: str, command: str) -> object:
    """``command``'s ``--json`` document, validated by its model: exactly its fields (a key added
    or missing fails), and strictly (no true for a number, no number for a string)."""
    return TypeAdapter(LISTINGS[command].shape).validate_json(printed, strict=True)


@pytest.mark.parametrize("command", sorted(STORE_LISTINGS))
def test_each_listing_json_validates_against_its_schema(db, command):
    printed = invoke(db, [*STORE_LISTINGS[command], "--json"])
    assert printed.isascii() and "\x1b" not in printed and "\\u001b[2J" in printed
    document = json.loads(printed)
    conforms(printed, command)
    # the stored text, whole (league status has it as a failure reason: a key of by_reason)
    assert EVIL in strings(document) | keys(document)
    if LISTINGS[command].about is not None:  # a list
        assert document, "an empty listing validates trivially"


def test_the_documents_say_what_the_store_holds(db):
    bots = json.loads(invoke(db, ["bot", "list", "random", "--json"]))
    assert [(b["version"], b["archived"], b["retired_at"] is None, b["leagues"]) for b in bots] == \
        [("1", True, False, ["top", "wide"]), ("2", False, True, [])]
    evil = next(b for b in json.loads(invoke(db, ["bot", "list", "--json"])) if b["bot"] == EVIL)
    assert (evil["owner"], evil["author"], evil["language"], evil["version"]) == (EVIL, EVIL, EVIL, EVIL)
    leagues = {lg["name"]: lg for lg in json.loads(invoke(db, ["league", "list", "--json"]))}
    assert leagues["top"]["format"] == "ladder" and [e["bot"] for e in leagues["top"]["entrants"]] == ["random"]
    assert len(leagues["wide"]["entrants"]) == 5 and leagues[EVIL]["entrants"] == []
    assert "secret" not in json.dumps(leagues)
    match = json.loads(invoke(db, ["show", "match", "1", "--json"]))
    assert [b["bot"] for b in match["bots"]] == [EVIL, "random", WIDE] and match["restarts"] == [0, 1, 0]
    assert match["games"][0] == json.loads(invoke(db, ["show", "game", "1", "--json"]))
    assert match["games"][0]["seats"][2]["failure"] == EVIL
    users = json.loads(invoke(db, ["user", "list", "--json"]))
    assert {(u["name"], u["admin"]) for u in users} == {("ann", True), (EVIL, False)}
    result = CliRunner().invoke(arena, ["show", "game", "1", "--log", "--json", "--db", db])
    assert result.exit_code == 2 and "--log goes without --json" in result.output


def test_the_models_refuse_what_is_wrong(db):
    def faults(document: object, command: str = "user list") -> list[tuple[tuple, str]]:
        try:
            conforms(json.dumps(document), command)
        except ValidationError as exc:
            return [(e["loc"], e["type"]) for e in exc.errors()]
        return []

    good = {"name": "a", "admin": False, "created_at": "2026-12-01T09:00:00+00:00", "disabled_at": None}
    assert faults([good]) == []
    assert faults([{**good, "admin": 1}]) == [((0, "admin"), "bool_type")]
    assert faults([{**good, "extra": 1}]) == [((0, "extra"), "extra_forbidden")]
    assert faults([{**good, "created_at": "yesterday"}]) == [((0, "created_at"), "datetime_parsing")]
    assert faults({"name": "a"}) == [((), "list_type")]
    assert faults([{"name": "a"}]) == [((0, "admin"), "missing"), ((0, "created_at"), "missing"),
                                       ((0, "disabled_at"), "missing")]
    row = json.loads(invoke(db, ["leaderboard", "wide", "--json"]))[0]
    assert faults([{**row, "bot_id": True}], "leaderboard") == [((0, "bot_id"), "int_type")]
    status = json.loads(invoke(db, ["league", "status", "wide", "--json"]))
    assert faults({**status, "cycles": {**status["cycles"], "closed": 0}}, "league status") == \
        [(("cycles", "closed"), "extra_forbidden")]


def test_hostile_names_are_escaped_in_every_table(db):
    for command, args in STORE_LISTINGS.items():
        printed = invoke(db, args)
        assert "\\x1b[2J" in printed, (command, printed)
        for line in printed.splitlines():
            assert line.isprintable() and not line.lstrip().startswith("forged-row"), (command, repr(line))


def cells(text: str) -> int:
    return sum(max(wcwidth.wcwidth(c), 0) for c in text)


def words(line: str) -> list[tuple[int, int, str]]:
    """(first cell, cell after the last, text) of each run of non-spaces, as a terminal draws it."""
    out: list[tuple[int, int, str]] = []
    for m in re.finditer(r"\S+", line):
        word = (cells(line[:m.start()]), cells(line[:m.end()]), m.group())
        if word[2] == "\u2026" and out and out[-1][1] + 1 == word[0]:
            first = out.pop()  # a name cut after a wide character: rich pads the cell left before the ellipsis
            word = (first[0], word[1], first[2] + word[2])
        out.append(word)
    return out


@pytest.mark.parametrize("columns", [80, 200])
def test_the_leaderboard_stays_aligned_whatever_the_names(db, columns):
    rows = json.loads(invoke(db, ["leaderboard", "wide", "--json"]))
    printed = invoke(db, ["leaderboard", "wide"], columns).splitlines()
    assert max(cells(line) for line in printed if not line.startswith(("(", "~ "))) <= columns  # not the prose
    labels = [f"{r['rank']}{'' if r['settled'] else '~'}" for r in rows]
    table = [line for line in printed if not line.startswith(("(", "~ "))]
    starts = [i for i, line in enumerate(table) if line.split()[:1] == [labels[0]]]
    assert len(starts) == 1
    firsts, rest, row = [], {}, -1  # each row's first line, and its continuation lines
    for line in table[starts[0]:]:
        if row + 1 < len(labels) and line.split()[:1] == [labels[row + 1]]:
            row += 1
            firsts.append(words(line))
        else:
            rest.setdefault(row, []).append(words(line))
    assert len(firsts) == len(rows) and len({len(w) for w in firsts}) == 1, firsts
    assert not rest, rest  # a row is one line: a name folded onto the next could forge a row
    for column in zip(*firsts, strict=True):  # left-aligned: the same first cell; right-aligned: the same last
        assert len({w[0] for w in column}) == 1 or len({w[1] for w in column}) == 1, column
    for i, r in enumerate(rows):  # the name and language whole, or cut with an ellipsis where it does not fit
        for c, key, limit in ((1, "bot", 64), (3, "language", 16)):
            shown, whole = firsts[i][c][2], printable(r[key], limit)
            assert shown == whole or (shown.endswith("\u2026") and whole.startswith(shown[:-1])), (shown, whole)
    if columns == 200:
        assert len(table) - starts[0] == len(rows) and not any(line.startswith("(left out") for line in printed)
    else:
        assert any(line.startswith("(left out to fit: avg score, mu, sigma") for line in printed), printed


def in_terminal(db: str, **env: str) -> pexpect.spawn:
    """`arena leaderboard wide` started in a pseudo-terminal."""
    clean = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "TTY_COMPATIBLE")}
    return pexpect.spawn(sys.executable, ["-m", "arena.cli", "leaderboard", "wide", "--db", db], cwd=str(ROOT),
                         env={**clean, "TERM": "xterm-256color", **env}, dimensions=(50, 200), encoding="utf-8",
                         timeout=60)


def received(child: pexpect.spawn) -> str:
    """What the terminal received, once the command exited."""
    printed = child.read()
    child.close()
    assert child.exitstatus == 0, printed
    return printed


def test_colour_only_on_a_terminal_and_never_with_no_color(db):
    styled, plain = in_terminal(db), in_terminal(db, NO_COLOR="1")  # both at once: most of the time is imports
    assert "\x1b[1m" in received(styled)  # the bold header
    plain = received(plain)
    assert "\x1b" not in plain and "random" in plain and "\\x1b[2J" in plain
    assert "\x1b" not in invoke(db, ["leaderboard", "wide"])  # not a terminal: no colour either


def test_images_list_json_validates_against_its_schema():
    """The one listing that asks the Docker engine (which images it has); nothing is built."""
    result = CliRunner().invoke(arena, ["images", "list", "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    conforms(result.output, "images list")
    assert "python" in {i["language"] for i in document}
    table = CliRunner().invoke(arena, ["images", "list"], env={"COLUMNS": None}).output.splitlines()
    assert table[0].split() == ["language", "image", "status", "description"] and len(table) == len(document) + 1


def test_the_languages_listing_validates_against_its_schema():
    result = CliRunner().invoke(arena, ["bot", "new", "--list-languages", "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    conforms(result.output, "bot new --list-languages")
    assert {s["language"] for s in document} == {"python", "javascript", "go", "cpp", "shell"}
