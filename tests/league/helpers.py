from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import MetaData, create_engine, select, update

from arena.bots.config import load_bot_config
from arena.bots.registry import register_bot
from arena.league import create_league
from arena.league.schedule import ScheduleOptions
from arena.store import MIGRATIONS, Game, League, Match, Store

from ..docker_fixtures import ROOT

SAMPLE_FOLDERS = ("random", "first_legal", "prohis_heuristic", "prohis_bold")
# The Python sample bots that `arena demo` and `arena demo --reference` enter in Prohis (as
# arena.demo.lineup chooses): test_league_runs' demo test submits, checks and shows each of them,
# so test_sample_bots leaves them to it (a check is ~20 s of both cores).
DEMO_FOLDERS = ("first_legal", "prohis_bold", "prohis_heuristic", "prohis_search", "random")
SECRET = "5e" * 16  # a fixed league secret: reruns and other stores deal the same cards


def league_of_samples(store: Store, client, name: str = "l", players: int = 3, deals: int = 2,
                      folders: tuple[str, ...] = SAMPLE_FOLDERS, **options) -> None:
    """A Prohis league of the Python sample bots (by default the four), registered from their
    built images, dealt from :data:`SECRET`."""
    create_league(store, name, "prohis", players, {}, ScheduleOptions(deals=deals, **options), secret=SECRET)
    for folder in folders:
        config = load_bot_config(ROOT / "sample_bots" / "python" / folder)
        register_bot(store, name=config.name, version=config.version, image=config.tag,
                     image_digest=client.images.get(config.tag).id, language=config.language,
                     author=config.author, games=list(config.games), league=name)


def league_named(store: Store, name: str, game: str = "prohis", players: int = 3,
                 options: ScheduleOptions | None = None, **kwargs: Any) -> League:
    """A league named ``name``, whatever it holds: ``create_league`` refuses a name that is not
    plain (``league_name_problem``), but a store written by an older Arena's command line may hold
    any, and every page and table must still show it escaped. Made under a plain name, renamed."""
    league = create_league(store, "any-name", game, players, {}, options or ScheduleOptions(), **kwargs)
    with store() as session, session.begin():
        session.execute(update(League).where(League.id == league.id).values(name=name))
    league.name = name
    return league


def stored_games(store: Store) -> list[tuple]:
    """Every stored game, as comparable plain data, in a canonical order."""
    with store() as session:
        rows = session.execute(select(Match.round, Match.table, Game.index, Game.seed, Game.seats, Game.scores,
                                      Game.ranks, Game.failures).join(Game.match)).all()
    return sorted((r.round, r.table, r.index, r.seed, tuple(r.seats), tuple(r.scores), tuple(r.ranks),
                   tuple(r.failures)) for r in rows)


# -- a store made by migration 0001, with a league that has played -----------------------------------
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def old_rows() -> dict[str, list[dict[str, Any]]]:
    """What a 0001 store held: three bots in a Prohis league that played one match of two deals,
    each in 3 rotations in a row, and a second league that played nothing."""
    bots = [dict(id=i, name=f"b{i}", version="1", image=f"img{i}", image_digest="sha256:0", language="python",
                 author="a", games=["prohis"], created_at=T0) for i in (1, 2, 3)]
    leagues = [dict(id=i, name=name, game="prohis", players=3, settings={"max_bribe_offers": 3},
                    schedule={"deals": 2, "seed": 5, "decision_ms": 1000, "bank_ms": 10000, "startup_ms": 15000,
                              "max_restarts": 2, "failures": "last"}, created_at=T0)
               for i, name in ((1, "old"), (2, "idle"))]
    games = [dict(id=10 + g, match_id=7, index=g, seed=2**31 - 1 - g // 3, seats=[1, 2, 3][g % 3:] + [1, 2, 3][:g % 3],
                  scores=[g, 2, 3], ranks=[3, 2, 1], failures=["", "", ""], record_path=f"runs/old/game-{g:03d}.jsonl")
             for g in range(6)]
    return {
        "bots": bots,
        "leagues": leagues,
        "entries": [dict(id=i, league_id=1, bot_id=i, joined_at=T0) for i in (1, 2, 3)],
        "matches": [dict(id=7, league_id=1, round=0, table="1,2,3", seed=1_234_567_890, bots=[1, 2, 3],
                         record_dir="runs/old", restarts=[0, 1, 0], started_at=T0, finished_at=T0)],
        "games": games,
        "ratings": [dict(id=i, league_id=1, bot_id=i, mu=25.0 + i, sigma=8.0, exposure=1.0 + i, games=6)
                    for i in (1, 2, 3)],
        "rating_history": [dict(id=100 + g, league_id=1, bot_id=1, game_id=10 + g, seq=g, mu=25.0, sigma=8.0)
                           for g in range(6)],
    }


def create_0001_store(url: str) -> None:
    """A store at migration 0001 holding :func:`old_rows`."""
    engine = create_engine(url)
    with engine.connect() as connection:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")
        tables = MetaData()
        tables.reflect(connection)
        for name, rows in old_rows().items():  # parents first
            connection.execute(tables.tables[name].insert(), rows)
        connection.commit()
    engine.dispose()


def rows(store: Store) -> dict[str, list[dict[str, Any]]]:
    """Every row of every table, by primary key, times in UTC."""
    tables = MetaData()
    out = {}
    with store.engine.connect() as connection:
        tables.reflect(connection)
        for name, table in tables.tables.items():
            if name != "alembic_version":
                out[name] = [{k: _utc(v) for k, v in row._mapping.items()}
                             for row in connection.execute(select(table).order_by(*table.primary_key.columns))]
    return out


def _utc(value: Any) -> Any:
    if isinstance(value, datetime):  # SQLite gives naive UTC, PostgreSQL aware
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return value


def check_0001_store_upgraded(store: Store) -> None:
    """The upgrade kept every row; game seeds became their decimal digits, each old game has its
    old deal number, every league has a secret of its own, the match seed is gone, and the bots
    have no owner (they were registered on the command line)."""
    expected = old_rows()
    for game in expected["games"]:
        game["seed"] = str(game["seed"])
        game["deal"] = str(game["index"] // 3)
    for match in expected["matches"]:
        del match["seed"]
        match["attempt"] = ""  # 0005: which try was stored; "" for older matches
    for bot in expected["bots"]:  # 0003: registered on the command line, so no owner; not retired
        # 0007b: nor a team's; 0007f: nor disqualified
        bot.update(owner_id=None, retired_at=None, team_id=None, disqualified_at=None, disqualified_reason="")
    for table in ("users", "api_tokens", "web_sessions", "submissions", "live_matches"):
        expected[table] = []  # 0003's new tables
    for table in ("worker_results", "image_archives", "image_chunks"):
        expected[table] = []  # 0005's
    expected["league_leases"] = []  # 0006's
    expected["invites"] = []  # 0007a's
    expected["teams"] = expected["team_members"] = []  # 0007b's
    expected["audit_log"] = []  # 0007f's
    for table in ("notifications", "notification_feeds", "webhooks", "webhook_deliveries", "bot_health", "rank_marks"):
        expected[table] = []  # 0007e's
    expected["scrimmages"] = expected["scrimmage_games"] = []  # 0007c's
    for league in expected["leagues"]:  # 0008f: open, and nobody's finals
        league.update(closed_at=None, finals_of=None)
    got = rows(store)
    secrets = [league.pop("secret") for league in got["leagues"]]
    assert all(re.fullmatch("[0-9a-f]{64}", s) for s in secrets) and len(set(secrets)) == 2, secrets
    assert got == expected
    with store() as session:  # the upgraded store takes 128-bit seeds, exactly
        seventh = session.get_one(Match, 7)
        session.add(Game(match_id=7, index=6, seed=str(2**128 - 1), deal="c0d6", seats=[1, 2, 3],
                         scores=[0, 0, 0], ranks=[1, 1, 1], failures=["", "", ""], record_path="x"))
        session.commit()
        assert [g.seed for g in seventh.games][-1] == "340282366920938463463374607431768211455"
        assert ScheduleOptions.from_dict(session.get_one(League, 1).schedule).deals == 2
