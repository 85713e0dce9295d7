"""arena/scrimmage.py's rules on a real store, SQLite and PostgreSQL (a schema of its own in the
suite's database, so that other tests' stores are left alone): the defaults chosen, every
refusal with nothing written, the quotas' windows, and the result table. The matches themselves
are played end to end in tests/web/test_scrimmages.py (real server, real containers)."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import pytest
from sqlalchemy import create_engine, func, select, text, update

from arena.accounts import Account, add_user
from arena.bots.registry import register_bot
from arena.league import create_league
from arena.league.schedule import ScheduleOptions
from arena.scrimmage import Quota, ScrimmageError, create_scrimmage, standings
from arena.store import Bot, League, Scrimmage, open_store
from arena.store.models import now

from .league.test_postgres import PG_URL

SCHEMA = "scrimmage_tests"


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        return open_store(f"sqlite:///{tmp_path}/arena.db")
    engine = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.execute(text(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE"))
            connection.execute(text(f"CREATE SCHEMA {SCHEMA}"))
    except Exception as exc:
        pytest.fail(f"these tests need PostgreSQL at {PG_URL}: run scripts/postgres-up.sh as root ({exc})")
    finally:
        engine.dispose()
    return open_store(f"{PG_URL}?options=-csearch_path%3D{SCHEMA}")


@pytest.fixture
def world(store):
    """alice owns ``mine`` (every game) and ``mine-prohis``; bob owns ``theirs``; the operator
    ``op1``..``op3`` (every game) and ``old`` (retired); ``loner`` is in no league."""
    alice, _ = add_user(store, "alice")
    bob, _ = add_user(store, "bob")
    create_league(store, "p", "prohis", 3, {}, ScheduleOptions())
    create_league(store, "b", "bandits", 2, {}, ScheduleOptions())
    bots = {"mine": (alice.id, [], "b"), "mine-prohis": (alice.id, ["prohis"], "p"), "theirs": (bob.id, [], "p"),
            "op1": (None, [], "p"), "op2": (None, [], "p"), "op3": (None, [], "p"), "old": (None, [], "p"),
            "loner": (None, [], None)}
    for name, (owner, games, league) in bots.items():
        register_bot(store, name=name, version="1", image="img", image_digest="", language="python", author="x",
                     games=games, league=league, owner_id=owner)
    with store() as session, session.begin():
        session.execute(update(Bot).where(Bot.name == "old").values(retired_at=now()))
    return SimpleNamespace(store=store, alice=Account(alice.id, "alice", False), bob=Account(bob.id, "bob", False))


def count(store) -> int:
    with store() as session:
        return session.scalar(select(func.count()).select_from(Scrimmage)) or 0


def test_the_defaults_a_league_game_one_cycle_and_a_secret_of_its_own(world):
    store, quota = world.store, Quota(pending=3)
    two = create_scrimmage(store, world.alice, "mine", ["theirs"], quota=quota)  # mine's league is bandits: 2 seats
    three = create_scrimmage(store, world.alice, "mine", ["theirs", "op1"], quota=quota)  # bandits seats 3 too
    prohis = create_scrimmage(store, world.alice, "mine-prohis", ["theirs", "op1"], quota=quota)
    with store() as session:
        rows = {r.id: r for r in session.scalars(select(Scrimmage))}
        league_secrets = set(session.scalars(select(League.secret)))
    assert (rows[two].game, rows[two].players, rows[two].games) == ("bandits", 2, 4)
    assert (rows[three].game, rows[three].games) == ("bandits", 9)
    assert (rows[prohis].game, rows[prohis].games, rows[prohis].status) == ("prohis", 9, "queued")
    secrets = {r.secret for r in rows.values()}
    assert len(secrets) == 3 and not secrets & league_secrets and all(len(s) == 64 for s in secrets)
    assert rows[prohis].settings and rows[prohis].schedule["deals"] == 1


@pytest.mark.parametrize(("bot", "opponents", "game", "games", "status", "words"), [
    ("nobody", ["op1"], None, None, 404, "no bot 'nobody'"),
    ("theirs", ["op1", "op2"], None, None, 403, "'theirs' is not your bot"),
    ("mine", ["nobody"], None, None, 404, "no bot 'nobody'"),
    ("mine", ["old", "op1"], None, None, 400, "old@1 is retired"),
    ("mine", ["loner"], None, None, 400, "'loner' is in no league"),
    ("mine", ["op1", "op1"], None, None, 400, "op1@1 is named twice"),
    ("mine", ["mine"], None, None, 400, "mine@1 is named twice"),
    ("mine-prohis", ["op1"], "bandits", None, 400, "mine-prohis@1 does not play bandits"),
    ("mine", ["op1"], "prohis", None, 400, "prohis cannot seat this scrimmage's 2 bots"),
    ("mine", ["op1", "op2", "op3", "theirs"], "boss", None, 400, "boss cannot seat this scrimmage's 5 bots"),
    ("mine", ["op1"], "chess", None, 400, "unknown game 'chess'"),
    ("mine", ["op1"], None, 3, 400, "games must be a multiple of 2"),
    ("mine", ["op1"], None, 66, 400, "at most 64 games"),
    ("mine", [], None, None, 400, "at least one opponent"),
    ("mine", ["\x1b]0;pwned\x07" + "x" * 500], None, None, 404, "no bot '\\x1b]0;pwned\\x07xxx"),
])
def test_each_refusal_says_why_and_writes_nothing(world, bot, opponents, game, games, status, words):
    with pytest.raises(ScrimmageError) as refused:
        create_scrimmage(world.store, world.alice, bot, opponents, game, games)
    assert refused.value.status == status and words in str(refused.value), str(refused.value)
    assert len(str(refused.value)) < 400 and "\x1b" not in str(refused.value)
    assert count(world.store) == 0


def test_no_game_every_bot_plays_at_that_many_seats_is_refused(world):
    with pytest.raises(ScrimmageError, match="no game is played by all of these 2 bots"):
        create_scrimmage(world.store, world.alice, "mine-prohis", ["op1"])  # prohis is its only game: 3 seats
    assert count(world.store) == 0


def test_quotas_pending_and_per_day_with_when_it_fits(world):
    store, alice = world.store, world.alice
    quota = Quota(games_per_day=10, pending=2, max_games=64)
    first = create_scrimmage(store, alice, "mine", ["op1"], games=4, quota=quota)
    create_scrimmage(store, alice, "mine", ["op1"], games=4, quota=quota)
    with pytest.raises(ScrimmageError, match="you have 2 scrimmage") as pending:
        create_scrimmage(store, alice, "mine", ["op1"], games=2, quota=quota)
    assert pending.value.status == 429 and pending.value.retry_after
    with store() as session, session.begin():  # both over: the daily count still holds them
        session.execute(update(Scrimmage).values(status="done"))
        session.get_one(Scrimmage, first).created_at = now() - timedelta(hours=23)
    with pytest.raises(ScrimmageError, match="played 8 of the 10 scrimmage games") as today:
        create_scrimmage(store, alice, "mine", ["op1"], games=4, quota=quota)
    assert today.value.status == 429 and 3000 < (today.value.retry_after or 0) <= 3600  # the first ages out in 1 h
    create_scrimmage(store, alice, "mine", ["op1"], games=2, quota=quota)  # fits
    with pytest.raises(ScrimmageError, match="at most 10 scrimmage games a day"):
        create_scrimmage(store, alice, "mine", ["op1"], games=12, quota=Quota(games_per_day=10, max_games=64))
    create_scrimmage(store, world.bob, "theirs", ["op1"], games=4, quota=quota)  # bob's day is his own
    assert count(store) == 4


def test_the_result_table():
    games = [SimpleNamespace(seats=[1, 2, 3], ranks=[1, 2, 3], scores=[5, 3, 1], failures=["", "", ""]),
             SimpleNamespace(seats=[3, 1, 2], ranks=[1, 1, 3], scores=[4, 4, 0], failures=["", "", "timeout"]),
             SimpleNamespace(seats=[2, 3, 1], ranks=[2, 3, 1], scores=[2, 0, 6], failures=["", "crash", ""])]
    table = {s.bot_id: s for s in standings([1, 2, 3], games)}
    assert (table[1].games, table[1].wins, table[1].mean_rank, table[1].total_score) == (3, 2.5, 1.0, 15)
    assert (table[2].wins, table[2].mean_rank, table[2].failures) == (0, 2.333, 1)
    assert (table[3].wins, table[3].total_score, table[3].failures) == (0.5, 5, 1)


def test_a_disqualified_bot_is_no_opponent_and_plays_for_nobody(world):
    with world.store() as session, session.begin():
        session.execute(update(Bot).where(Bot.name.in_(["op2", "mine-prohis"])).values(disqualified_at=now()))
    with pytest.raises(ScrimmageError, match="op2@1 is disqualified: it plays no new match"):
        create_scrimmage(world.store, world.alice, "mine", ["op2"])
    with pytest.raises(ScrimmageError, match="mine-prohis@1 is disqualified"):
        create_scrimmage(world.store, world.alice, "mine-prohis", ["op1", "op3"])
    assert count(world.store) == 0
