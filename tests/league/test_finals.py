"""Finals on fresh deals, in the store (no Docker): closing a league refuses every way in; the
finals copy its game, settings and options, take its playing entrants, and deal from a secret of
their own. (That no bot is dealt a deal twice across the two: test_finals_runs.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from arena.bots.config import load_bot_config
from arena.bots.registry import register_bot, retire_bot
from arena.bots.submit import check_leagues
from arena.cli import main as arena
from arena.league import LeagueError, create_league
from arena.league.entries import all_leagues, entrants, join_league
from arena.league.finals import create_finals, link
from arena.league.schedule import ScheduleOptions, Slot
from arena.store import AuditEntry, League

from .helpers import SECRET

ROOT = Path(__file__).resolve().parents[2]


def bot(store, name: str, league: str | None = "ladder", version: str = "1"):
    return register_bot(store, name=name, version=version, image=f"img-{name}", image_digest="", language="python",
                        author="tests", games=[], league=league)


@pytest.fixture
def closed(store):
    """A ladder of three (one retired), closed by its finals."""
    create_league(store, "ladder", "sobek", 2, {}, ScheduleOptions(format="ladder", deals=3, decision_ms=700),
                  secret=SECRET)
    for name in ("a", "b", "c"):
        bot(store, name)
    retire_bot(store, bot(store, "gone").id, None, operator=True)
    made = create_finals(store, "ladder")
    assert (made.name, made.of, made.format, sorted(made.entrants)) == ("ladder-finals", "ladder", "round-robin",
                                                                         ["a@1", "b@1", "c@1"])
    return made


def test_the_finals_copy_the_league_and_deal_from_a_fresh_secret(store, closed):
    with store() as session:
        parent = session.scalar(select(League).where(League.name == "ladder"))
        finals = session.scalar(select(League).where(League.name == "ladder-finals"))
        assert (finals.game, finals.players, finals.settings) == (parent.game, parent.players, parent.settings)
        options = ScheduleOptions.from_dict(finals.schedule)
        assert (options.format, options.deals, options.decision_ms) == ("round-robin", 3, 700)
        assert finals.secret != parent.secret and len(finals.secret) == 64
        assert finals.finals_of == parent.id and parent.closed_at is not None and finals.closed_at is not None
        # every deal of the finals' first cycle differs from the parent's deals of the same table and cycle
        slot = Slot(0, (1, 2))
        assert slot.secrets(finals.secret)[0] != slot.secrets(parent.secret)[0]
        assert [a.action for a in session.scalars(select(AuditEntry).order_by(AuditEntry.id))][-2:] == [
            "league.close", "league.finals"]
    assert entrants(store, "ladder-finals") == {"a@1", "b@1", "c@1"}  # the retired one stays out
    assert (link(store, "ladder").finals, link(store, "ladder-finals").finals_of) == ("ladder-finals", "ladder")
    summary = {lg.name: lg for lg in all_leagues(store)}
    assert summary["ladder"].finals == "ladder-finals" and summary["ladder-finals"].finals_of == "ladder"


def test_a_closed_league_refuses_every_way_in(store, closed):
    bot(store, "late", league=None)
    for name in ("ladder", "ladder-finals"):
        with pytest.raises(LeagueError, match=f"league {name} is closed to new entrants since .*: enter another"):
            join_league(store, name, "late")
        with pytest.raises(LeagueError, match="is closed to new entrants"):  # a registration entering it
            bot(store, "late", league=name, version="2")
        with pytest.raises(LeagueError, match="is closed to new entrants"):  # a submission, before its build
            check_leagues(store, load_bot_config(ROOT / "sample_bots" / "python" / "random"), [name])
    assert entrants(store, "ladder") == {"a@1", "b@1", "c@1", "gone@1"}
    result = CliRunner().invoke(arena, ["league", "join", "ladder", "late", "--db", str(store.engine.url)])
    assert result.exit_code != 0 and "closed to new entrants" in result.output


def test_finals_are_refused_twice_of_finals_and_on_a_taken_name(store, closed):
    with pytest.raises(LeagueError, match="has its finals already: ladder-finals"):
        create_finals(store, "ladder", "other")
    with pytest.raises(LeagueError, match="is a finals already"):
        create_finals(store, "ladder-finals")
    create_league(store, "rr", "sobek", 2, {}, ScheduleOptions())
    bot(store, "d", league="rr")
    with pytest.raises(LeagueError, match="1 entrant.*finals need at least 2"):
        create_finals(store, "rr")
    join_league(store, "rr", "a")
    with pytest.raises(LeagueError, match="a league named 'ladder' exists already"):
        create_finals(store, "rr", "ladder")
    with pytest.raises(LeagueError, match="a gauntlet needs its challenger"):
        create_finals(store, "rr", format="gauntlet")
    with store() as session:
        assert session.scalar(select(League.closed_at).where(League.name == "rr")) is None  # refused: still open


def test_the_cli_closes_and_creates_the_finals(store, db_url):
    create_league(store, "open", "boss", 2, {}, ScheduleOptions())
    for name in ("x", "y"):
        bot(store, name, league="open")
    runner = CliRunner()
    made = runner.invoke(arena, ["league", "finals", "open", "--name", "final", "--db", db_url])
    assert made.exit_code == 0, made.output
    assert "league open is closed to new entrants; its finals final (round-robin, 2 entrants" in made.output
    listed = {lg["name"]: lg for lg in json.loads(runner.invoke(arena, ["league", "list", "--json", "--db",
                                                                         db_url]).output)}
    assert listed["open"]["closed_at"] and (listed["open"]["finals"], listed["final"]["finals_of"]) == ("final",
                                                                                                         "open")
    again = runner.invoke(arena, ["league", "finals", "open", "--db", db_url])
    assert again.exit_code != 0 and "has its finals already: final" in again.output
