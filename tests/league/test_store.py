"""The store: migrations match the models, WAL mode, bad input refused with nothing written."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import cast

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from click.testing import CliRunner
from sqlalchemy import func, select, text

from arena.bots.registry import register_bot
from arena.cli import main as arena
from arena.league import LeagueError, create_league
from arena.league.schedule import ScheduleOptions
from arena.store import Bot, League, StoreError, open_store
from arena.store.models import Base

from .helpers import check_0001_store_upgraded, create_0001_store


def test_migrations_build_exactly_the_models(store):
    with store.engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert diff == []


def test_sqlite_runs_in_wal_mode_with_foreign_keys_enforced(store):
    with store.engine.connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1  # on again after migrating


def test_a_0001_store_is_upgraded_without_losing_data(tmp_path):
    url = f"sqlite:///{tmp_path}/old.db"
    create_0001_store(url)
    store = open_store(url)
    check_0001_store_upgraded(store)
    with store.engine.connect() as connection:
        assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert connection.execute(text("PRAGMA foreign_key_check")).all() == []
        diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert diff == []


def test_reopening_is_idempotent(db_url):
    open_store(db_url)
    store = open_store(db_url)
    with store() as session:
        assert session.scalar(select(func.count(League.id))) == 0


def counts(store) -> tuple[int, int]:
    with store() as session:
        return session.scalar(select(func.count(League.id))), session.scalar(select(func.count(Bot.id)))


@pytest.mark.parametrize("game, players, message", [
    ("chess", 4, "unknown game 'chess'; known games: "),
    ("prohis", 2, "Prohis is played by 3 to 6 players, not 2"),
])
def test_bad_leagues_are_refused(store, game, players, message):
    with pytest.raises(LeagueError, match=message):
        create_league(store, "x", game, players, {}, ScheduleOptions())
    assert counts(store) == (0, 0)


def test_bad_settings_are_refused(store):
    with pytest.raises(LeagueError, match="unknown setting"):
        create_league(store, "x", "prohis", 3, {"bribes": "2"}, ScheduleOptions())
    assert counts(store) == (0, 0)


def test_a_duplicate_league_name_is_refused(store):
    create_league(store, "x", "prohis", 3, {}, ScheduleOptions())
    with pytest.raises(LeagueError, match="a league named 'x' exists already"):
        create_league(store, "x", "prohis", 4, {}, ScheduleOptions())
    assert counts(store) == (1, 0)


def bot(store, version="1", league=None):
    return register_bot(store, name="b", version=version, image="img", image_digest="sha256:0", language="python",
                        author="a", games=[], league=league)


def test_a_duplicate_bot_version_is_refused(store):
    bot(store)
    with pytest.raises(LeagueError, match="bot b version 1 is registered already"):
        bot(store)
    bot(store, version="2")
    assert counts(store) == (0, 2)


def test_an_unknown_league_is_refused_and_nothing_is_registered(store):
    with pytest.raises(LeagueError, match="unknown league 'nope'; leagues: none yet"):
        bot(store, league="nope")
    assert counts(store) == (0, 0)


def test_an_unreachable_database_is_named():
    with pytest.raises(StoreError, match=r"cannot reach the database at postgresql\+psycopg://arena@127.0.0.1:1/x"):
        open_store("postgresql+psycopg://arena@127.0.0.1:1/x")
    with pytest.raises(StoreError, match="is not a database URL"):
        open_store("not a url")


def test_cli_bad_input_is_refused_with_a_clear_message(db_url, tmp_path):
    runner = CliRunner()

    def run(*args):
        return runner.invoke(arena, [*args, "--db", db_url])

    cases = [
        (["league", "create", "l", "--game", "chess", "--players", "3"], "unknown game 'chess'"),
        (["league", "create", "l", "--game", "prohis", "--players", "7"], "3 to 6 players, not 7"),
        (["league", "run", "nope"], "unknown league 'nope'"),
        (["leaderboard", "nope"], "unknown league 'nope'"),
        (["ratings", "rebuild", "nope"], "unknown league 'nope'"),
        (["league", "join", "nope", "b@1"], "unknown league 'nope'"),
        (["bot", "submit", str(tmp_path), "--league", "nope"], "no bot.toml"),
    ]
    for args, message in cases:
        result = run(*args)
        assert result.exit_code != 0, args
        assert message in result.output, (args, result.output)
    result = runner.invoke(arena, ["leaderboard", "x", "--db", "postgresql+psycopg://arena@127.0.0.1:1/x"])
    assert result.exit_code == 1 and "cannot reach the database" in result.output
    assert counts(open_store(db_url)) == (0, 0)


def test_a_league_needs_enough_entrants(store, tmp_path):
    from arena.league.runner import run_league

    create_league(store, "x", "prohis", 3, {}, ScheduleOptions())
    bot(store, league="x")
    with pytest.raises(LeagueError, match="league x has 1 entrant"):
        run_league(store, "x", 1, 1, tmp_path)


READ_ONLY = [["leaderboard", "x"], ["show", "match", "1"], ["show", "game", "1", "--log"], ["league", "list"],
             ["ratings", "rebuild", "x"], ["league", "run", "x"], ["league", "join", "x", "b@1"]]


@pytest.mark.parametrize("args", READ_ONLY, ids=" ".join)
def test_a_command_that_only_reads_never_creates_a_store(tmp_path, args):
    """Commands that only read, or that need a league to exist, name a store that is not there
    and create nothing: no folder, no database file, no table in someone else's database."""
    missing = tmp_path / "no" / "such" / "dir" / "a.db"
    result = CliRunner().invoke(arena, [*args, "--db", f"sqlite:///{missing}"])
    assert result.exit_code == 1, result.output
    assert f"no store at sqlite:///{missing}: {missing} does not exist" in result.output
    assert not (tmp_path / "no").exists()

    other = tmp_path / "other.db"  # another program's SQLite database
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE notes (body TEXT)")
    before = other.read_bytes()
    result = CliRunner().invoke(arena, [*args, "--db", f"sqlite:///{other}"])
    assert result.exit_code == 1 and "holds no Arena tables" in result.output, result.output
    assert other.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


def test_the_issues_own_example_creates_nothing():
    assert not Path("/no").exists()
    result = CliRunner().invoke(arena, ["leaderboard", "x", "--db", "sqlite:////no/such/dir/a.db"])
    assert result.exit_code == 1 and "no store at sqlite:////no/such/dir/a.db" in result.output
    assert not Path("/no").exists()
    replayed = CliRunner().invoke(arena, ["replay", "/no/such/dir/game-000.jsonl"])
    assert replayed.exit_code == 2 and "does not exist" in replayed.output
    assert not Path("/no").exists()


def test_a_command_that_only_reads_reads_an_existing_store(store, db_url):
    create_league(store, "x", "prohis", 3, {}, ScheduleOptions())
    listed = CliRunner().invoke(arena, ["league", "list", "--db", db_url])
    assert listed.exit_code == 0 and listed.output.splitlines() == ["league  format       game    players  entrants",
                                                                     "x       round-robin  prohis        3  -"]


# every command that opens a store (``--db``), with arguments it accepts
COMMANDS_WITH_A_STORE = {
    "images archive": [], "bot list": [], "bot submit": ["."],
    "league create": ["y", "--game", "prohis", "--players", "3"], "league join": ["x", "b@1"], "league list": [],
    "league run": ["x"], "league status": ["x"], "league standings": ["x"], "league finals": ["x"],
    "ratings rebuild": ["x"], "leaderboard": ["x"], "show game": ["1"], "show match": ["1"], "demo": [], "serve": [],
    "user add": ["eve"], "user list": [], "user password": ["eve"], "user token": ["eve"], "user invite": [],
    "user invites": [],
    "team create": ["t", "--owner", "eve"], "team add": ["t", "eve"], "team remove": ["t", "eve"], "team list": [],
    "user disable": ["eve"], "user enable": ["eve"], "bot retire": ["b"], "bot requalify": ["b"], "audit": [],
    "ladder create": ["z", "--game", "prohis", "--players", "3"], "ladder run": ["x"], "bundle match": ["1"],
    "compare": ["b@1", "b@2"], "worker": [], "watch": ["x/0/1,2,3"],
}


def commands_with_a_store() -> set[str]:
    import click

    found: set[str] = set()

    def walk(command: click.Command, path: list[str]) -> None:
        if isinstance(command, click.Group):
            ctx = click.Context(command)
            for name in command.list_commands(ctx):
                walk(cast(click.Command, command.get_command(ctx, name)), [*path, name])  # a name list_commands gave
        elif any(param.name == "db_url" for param in command.params):
            found.add(" ".join(path))

    walk(arena, [])
    return found


def test_a_store_of_a_newer_arena_is_refused_by_every_command_and_left_as_it_is(store, db_url, tmp_path):
    """A store whose schema names a migration this Arena does not know: every command says so,
    without a traceback and without writing a byte (nor a WAL or a journal file)."""
    assert commands_with_a_store() == COMMANDS_WITH_A_STORE.keys()  # a new command: add it above
    create_league(store, "x", "prohis", 3, {}, ScheduleOptions())
    bot(store, league="x")
    store.engine.dispose()
    path = tmp_path / "arena.db"
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '0099'")
    connection.close()
    before = path.read_bytes()
    files = sorted(p.name for p in tmp_path.iterdir())
    for name, args in COMMANDS_WITH_A_STORE.items():
        result = CliRunner().invoke(arena, [*name.split(), *args, "--db", db_url], input="password\npassword\n")
        assert result.exit_code == 1, (name, result.output, result.exception)
        assert ("this store was written by a newer Arena (migration 0099); upgrade Arena to use "
                f"sqlite:///{path} (nothing was changed)") in result.output, (name, result.output)
        assert "Traceback" not in result.output
        assert path.read_bytes() == before, name
        assert sorted(p.name for p in tmp_path.iterdir()) == files, name
    with pytest.raises(StoreError, match="newer Arena"):
        open_store(db_url, create=False)
