"""What a bot's author asks of a league (arena/league/stats.py), and the leaderboard's cache:
numbers checked by hand on crafted games, and the caches checked against a fresh read after each
kind of change (new games, a rebuild, a new entrant, a retirement)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from click.testing import CliRunner
from sqlalchemy import update

from arena.accounts import Account
from arena.bots.registry import retire_bot
from arena.cli import main as arena
from arena.league import LeagueError, NotAllowed
from arena.league.standings import leaderboard, rebuild_ratings, standings
from arena.league.stats import (
    bot_in_league,
    failure_reasons,
    head_to_head,
    league_games,
    rating_history,
    recent_matches,
)
from arena.store import Entry, Game, Match, RatingHistory, open_store
from arena.store.models import now

from .crafted import T0, crafted_league, register

# Three bots, A B C, three games of one match each:
#   seats       ranks      failures
#   A B C       1 2 3      C timeout
#   B C A       1 1 3      A crash    (B and C tie)
#   C A B       2 1 3
GAMES = [([0, 1, 2], [1, 2, 3], ["", "", "timeout"]),
         ([1, 2, 0], [1, 1, 3], ["", "", "crash"]),
         ([2, 0, 1], [2, 1, 3], ["", "", ""])]


@pytest.fixture
def abc(store):
    return crafted_league(store, "abc", ("A", "B", "C"), GAMES)


def test_head_to_head_by_hand(store, abc):
    a, b, c = abc
    against = {h.opponent: h for h in head_to_head(store, "abc", a)}
    # A v B: ahead (1 v 2), behind (3 v 1), ahead (1 v 3): rank differences +1, -2, +2
    assert (against["B"].games, against["B"].wins, against["B"].losses, against["B"].draws) == (3, 2, 1, 0)
    assert against["B"].mean_rank_difference == pytest.approx(1 / 3, abs=1e-3)
    # A v C: ahead (1 v 3), behind (3 v 1), ahead (1 v 2): +2, -2, +1
    assert (against["C"].wins, against["C"].losses, against["C"].mean_rank_difference) == (2, 1, pytest.approx(1 / 3,
                                                                                                                abs=1e-3))
    b_v_c = {h.opponent: h for h in head_to_head(store, "abc", b)}["C"]
    # B v C: ahead (2 v 3), level (1 v 1), behind (3 v 2): +1, 0, -1
    assert (b_v_c.games, b_v_c.wins, b_v_c.losses, b_v_c.draws, b_v_c.mean_rank_difference) == (3, 1, 1, 1, 0.0)
    assert b_v_c.opponent_id == c


def test_failure_reasons_recent_matches_and_history(store, abc):
    a, b, c = abc
    assert failure_reasons(store, "abc", a) == [("crash", 1)]
    assert failure_reasons(store, "abc", c) == [("timeout", 1)]
    assert failure_reasons(store, "abc", b) == []
    recent = recent_matches(store, "abc", a, limit=2)
    assert [m.round for m in recent] == [2, 1]  # newest first
    assert [m.ranks for m in recent] == [[1], [3]] and recent[1].failures == ["crash"]
    assert [o[1] for o in recent[0].opponents] == ["C", "B"]  # in match order
    history = rating_history(store, "abc", a)
    assert [p.game for p in history] == [1, 2, 3]
    with store() as session:
        stored = session.query(RatingHistory).filter_by(bot_id=a).order_by(RatingHistory.seq).all()
    assert [(p.game_id, p.mu, p.sigma) for p in history] == [(r.game_id, r.mu, r.sigma) for r in stored]
    everything = bot_in_league(store, "abc", a)
    assert (everything.totals.games, everything.totals.wins, everything.totals.failed) == (3, 2, 1)
    with pytest.raises(LeagueError, match="unknown league"):
        head_to_head(store, "nope", a)


def test_the_leaderboard_counts_from_the_stored_games(store, abc):
    rows = {r["bot"]: r for r in leaderboard(store, "abc")}
    assert (rows["A"]["games"], rows["A"]["wins"], rows["A"]["failure_rate"]) == (3, 2, 0.333)
    assert (rows["B"]["wins"], rows["C"]["wins"]) == (1, 1)  # B's tie for first counts for both
    assert [rows[n]["rank"] for n in "ABC"] != [] and sorted(r["rank"] for r in rows.values()) == [1, 2, 3]


def fresh(db_url):
    """The leaderboard read by a new Store: nothing cached."""
    return leaderboard(open_store(db_url), "abc")


def test_the_caches_follow_every_change(store, db_url, abc):
    a, b, c = abc
    assert leaderboard(store, "abc") == fresh(db_url)
    version = standings(store, "abc").version
    assert standings(store, "abc").version == version  # nothing changed: the same
    # a new match stored: the games are read again (only the new match's), not yet the ratings
    with store() as session, session.begin():
        match = Match(league_id=1, round=9, table=f"{a},{b},{c}", bots=[a, b, c], record_dir="x",
                      restarts=[0, 0, 0], started_at=T0, finished_at=T0 + timedelta(hours=1))
        session.add(match)
        session.flush()
        session.add(Game(match_id=match.id, index=0, seed="1", deal="c3d0", seats=[c, b, a], scores=[9, 8, 7],
                         ranks=[1, 2, 3], failures=["", "illegal", ""], record_path="x"))
    after_match = leaderboard(store, "abc")
    assert after_match == fresh(db_url)
    assert {r["bot"]: r["games"] for r in after_match} == {"A": 4, "B": 4, "C": 4}
    assert league_games(store, 1).key == (4, match.id)
    assert failure_reasons(store, "abc", b) == [("illegal", 1)]
    # the ratings rebuilt
    before = {r["bot"]: r["mu"] for r in after_match}
    rebuild_ratings(store, "abc")
    rebuilt = leaderboard(store, "abc")
    assert rebuilt == fresh(db_url) and {r["bot"]: r["mu"] for r in rebuilt} != before
    # a new entrant, and a second version of a name: marked new
    newer = register(store, "abc", "A", version="2")
    rows = {(r["bot"], r["version"]): r for r in leaderboard(store, "abc")}
    assert rows["A", "2"]["new"] and not rows["A", "1"]["new"] and rows["A", "2"]["games"] == 0
    assert leaderboard(store, "abc") == fresh(db_url)
    # ... but not once it entered NEW_DAYS ago
    with store() as session, session.begin():
        session.execute(update(Entry).where(Entry.bot_id == newer).values(joined_at=now() - timedelta(days=15)))
    assert not any(r["new"] for r in fresh(db_url))
    # a retirement
    retire_bot(store, c, Account(id=1, name="root", is_admin=True))
    assert {r["bot"]: r["retired"] for r in leaderboard(store, "abc") if r["version"] == "1"} == \
        {"A": False, "B": False, "C": True}


def test_only_the_owner_retires_a_bot_and_an_admin_the_operators(store, abc):
    a, _, _ = abc
    alice, bob, root = Account(7, "alice", False), Account(8, "bob", False), Account(9, "root", True)
    owned = register(store, "abc", "mine", owner_id=None)
    with store() as session, session.begin():
        from arena.store import Bot, User

        session.add_all([User(id=7, name="alice"), User(id=8, name="bob")])
        session.flush()
        session.get(Bot, owned).owner_id = 7
    with pytest.raises(NotAllowed):
        retire_bot(store, owned, bob)
    with pytest.raises(NotAllowed):
        retire_bot(store, owned, root)  # an admin does not retire an author's bot
    with pytest.raises(NotAllowed):
        retire_bot(store, a, alice)  # the operator's
    first = retire_bot(store, owned, alice).retired_at
    again = retire_bot(store, owned, alice).retired_at  # read back: SQLite's times have no zone
    assert first is not None and again.replace(tzinfo=None) == first.replace(tzinfo=None)
    assert retire_bot(store, a, root).retired_at is not None
    with pytest.raises(LeagueError, match="no bot with id 999"):
        retire_bot(store, 999, root)


def test_every_row_says_how_sure_its_rank_is_in_the_cli_and_its_json(store, db_url, abc):
    """Far apart (A always first, C always last, 24 games) every rank is settled; three bots of
    one game each (``abc``) are not. ``--top K`` changes P(top K) only, and the JSON is the rows."""
    far = crafted_league(store, "far", ("X", "Y", "Z"), [([0, 1, 2], [1, 2, 3], ["", "", ""])] * 24)
    rows = leaderboard(store, "far")
    assert [r["bot_id"] for r in rows] == far and rows[0]["p_first"] >= 0.999 and rows[2]["p_first"] == 0
    assert all(r["settled"] and r["rank_low"] == r["rank_high"] == r["rank"] for r in rows)
    assert [r["top_k"] for r in rows] == [3, 3, 3] and all(r["p_top"] == 1.0 for r in rows)
    close = leaderboard(store, "abc")
    assert not any(r["settled"] for r in close) and sum(r["p_first"] for r in close) == pytest.approx(1, abs=1e-3)
    assert all(r["p_top"] >= r["p_first"] for r in close)
    runner = CliRunner()
    table = runner.invoke(arena, ["leaderboard", "abc", "--top", "2", "--db", db_url]).output
    lines = table.splitlines()
    assert "P(1st)" in lines[0] and "P(top 2)" in lines[0] and "90% ranks" in lines[0]
    assert [line.split()[0] for line in lines[1:4]] == ["1~", "2~", "3~"]  # none settled
    assert lines[4].startswith("~ rank not settled") and len(lines) == 5
    settled = runner.invoke(arena, ["leaderboard", "far", "--db", db_url]).output.splitlines()
    assert len(settled) == 4 and "~" not in "".join(settled)  # no marker, so no legend
    as_json = json.loads(runner.invoke(arena, ["leaderboard", "abc", "--top", "2", "--json", "--db", db_url]).output)
    assert as_json == leaderboard(store, "abc", top=2) and {r["top_k"] for r in as_json} == {2}
    assert [r["p_top"] for r in as_json] != [r["p_top"] for r in close]
    assert [(r["p_first"], r["settled"]) for r in as_json] == [(r["p_first"], r["settled"]) for r in close]
    assert leaderboard(store, "abc", top=1) == [{**r, "p_top": r["p_first"], "top_k": 1} for r in close]
