"""The crosstable over real HTTP: its numbers against a small league computed by hand, and a game
counted only once the public may see it (its duplicate cycle all stored)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import insert, select

from arena.league import create_league
from arena.league.crosstable import sign_test
from arena.league.schedule import ScheduleOptions
from arena.league.standings import rebuild_ratings
from arena.store import Bot, Entry, Game, League, Match, Store, User
from referee.spec import dev_secret

T0 = datetime(2026, 12, 1, tzinfo=UTC)
NAMES = ("ada", "bea", "<b>cy</b>")  # the third's name is markup: shown escaped


def add_bots(store: Store, league: str = "cross") -> list[int]:
    """League ``league`` (Prohis, 3 a table) with three bots, alice's."""
    create_league(store, league, "prohis", 3, {}, ScheduleOptions(deals=1), secret=dev_secret(3))
    with store() as session, session.begin():
        alice = session.scalar(select(User.id).where(User.name == "alice"))
        league_id = session.scalar(select(League.id).where(League.name == league))
        bots = [Bot(name=name, version="1", image=f"x/{i}", image_digest=f"sha256:{i:064x}", language="python",
                    author="Arena", owner_id=alice) for i, name in enumerate(NAMES)]
        session.add_all(bots)
        session.flush()
        session.add_all(Entry(league_id=league_id, bot_id=b.id) for b in bots)
        return [b.id for b in bots]


def add_match(store: Store, round_: int, bots: list[int], ranks: list[list[int]], league: str = "cross") -> None:
    """A match at round ``round_`` of the table of ``bots``, one game per ranks list (each bot's
    rank, in ``bots`` order, seated in that order)."""
    with store() as session, session.begin():
        league_id = session.scalar(select(League.id).where(League.name == league))
        table = ",".join(map(str, sorted(bots)))
        match_id = session.execute(insert(Match).values(
            league_id=league_id, round=round_, table=table, bots=bots, record_dir="x", restarts=[0, 0, 0],
            started_at=T0, finished_at=T0 + timedelta(minutes=round_)).returning(Match.id)).scalar_one()
        for index, game in enumerate(ranks):
            session.execute(insert(Game).values(match_id=match_id, index=index, seed="1", deal=f"d{index}",
                                                seats=bots, scores=[10 - r for r in game], ranks=game,
                                                failures=["", "", ""], record_path="x"))


def pair(body: dict, x: int, y: int) -> dict:
    """The pair of bots x and y, seen from x: (games, x ahead, y ahead, level, mean, low, high, p)."""
    found = [p for p in body["pairs"] if {p["a"], p["b"]} == {x, y}]
    assert len(found) == 1
    p = found[0]
    if p["a"] == x:
        return {k: p[k] for k in ("games", "a_ahead", "b_ahead", "level", "mean_rank_difference", "low", "high",
                                  "p_value")}
    return {"games": p["games"], "a_ahead": p["b_ahead"], "b_ahead": p["a_ahead"], "level": p["level"],
            "mean_rank_difference": -p["mean_rank_difference"], "low": -p["high"], "high": -p["low"],
            "p_value": p["p_value"]}


def test_the_crosstable_of_a_small_league_computed_by_hand(empty_site):
    store = empty_site.store
    a, b, c = add_bots(store)
    # cycle 0 of the table (rounds 0 to 2): four games, ranks of (a, b, c)
    add_match(store, 0, [a, b, c], [[1, 2, 3], [1, 3, 2]])
    add_match(store, 1, [a, b, c], [[2, 1, 3]])
    add_match(store, 2, [a, b, c], [[1, 2, 2]])
    rebuild_ratings(store, "cross")
    with empty_site.client() as anonymous:
        reply = anonymous.get("/api/v1/leagues/cross/crosstable")
        assert reply.status_code == 200, reply.text
        body = reply.json()
        page = anonymous.get("/leagues/cross/crosstable")
    assert body["games"] == 4 and body["hidden_games"] == 0 and len(body["bots"]) == 3
    assert [x["rank"] for x in body["bots"]] == [1, 2, 3]
    for p in body["pairs"]:  # a ranks higher on the leaderboard
        assert [x["bot_id"] for x in body["bots"]].index(p["a"]) < [x["bot_id"] for x in body["bots"]].index(p["b"])
    # a vs b: rank differences (b's - a's) 1, 2, -1, 1: mean 0.75, sample sd sqrt(19/12), n 4
    assert pair(body, a, b) == {"games": 4, "a_ahead": 3, "b_ahead": 1, "level": 0, "mean_rank_difference": 0.75,
                                "low": -0.483, "high": 1.983, "p_value": 0.625}  # 2 (1 + 4) / 16
    # a vs c: 2, 1, 1, 1: mean 1.25, sd 1/2; a ahead in all 4: p = 2/16
    assert pair(body, a, c) == {"games": 4, "a_ahead": 4, "b_ahead": 0, "level": 0, "mean_rank_difference": 1.25,
                                "low": 0.76, "high": 1.74, "p_value": 0.125}
    # b vs c: 1, -1, 2, 0: mean 0.5, sd sqrt(5/3); one level game; p = 2 (1 + 3) / 8, capped at 1
    assert pair(body, b, c) == {"games": 4, "a_ahead": 2, "b_ahead": 1, "level": 1, "mean_rank_difference": 0.5,
                                "low": -0.765, "high": 1.765, "p_value": 1.0}
    assert page.status_code == 200
    assert "&lt;b&gt;cy&lt;/b&gt;" in page.text and "<b>cy</b>" not in page.text
    assert page.text.count('data-pair="') == 6  # every ordered pair once


def test_a_crosstable_never_counts_a_game_that_is_not_public_yet(empty_site):
    store = empty_site.store
    a, b, c = add_bots(store)
    for round_ in range(3):
        add_match(store, round_, [a, b, c], [[1, 2, 3]])
    rebuild_ratings(store, "cross")
    with empty_site.client() as anonymous:
        before = anonymous.get("/api/v1/leagues/cross/crosstable").json()
        page_before = anonymous.get("/leagues/cross/crosstable").text
        # round 3 opens cycle 1: its games are not public until rounds 4 and 5 are stored
        add_match(store, 3, [a, b, c], [[3, 2, 1], [3, 1, 2]])
        rebuild_ratings(store, "cross")
        during = anonymous.get("/api/v1/leagues/cross/crosstable").json()
        assert during["hidden_games"] == 2 and during["games"] == 3
        # a game of the open cycle moves no figure (the rows' order is the leaderboard's, whose ratings
        # count every stored game, as they always have)
        for x, y in ((a, b), (a, c), (b, c)):
            assert pair(during, x, y) == pair(before, x, y)
        page_during = anonymous.get("/leagues/cross/crosstable").text
        assert page_during.replace("left out", "").count("title=") == page_before.count("title=")
        assert "2 more stored, left out" in page_during
        add_match(store, 4, [a, b, c], [[1, 2, 3]])
        add_match(store, 5, [a, b, c], [[1, 2, 3]])
        after = anonymous.get("/api/v1/leagues/cross/crosstable").json()
    assert after["hidden_games"] == 0 and after["games"] == 7
    assert pair(after, a, b)["games"] == 7 and pair(after, a, b)["b_ahead"] == 2  # the cycle's games count now


def test_unknown_league_and_empty_league(empty_site):
    create_league(empty_site.store, "empty", "prohis", 3, {}, ScheduleOptions(deals=1), secret=dev_secret(4))
    with empty_site.client() as anonymous:
        missing = anonymous.get("/api/v1/leagues/nope/crosstable")
        assert missing.status_code == 404 and "unknown league" in missing.json()["detail"]
        empty = anonymous.get("/api/v1/leagues/empty/crosstable").json()
        assert empty == {"league": "empty", "games": 0, "hidden_games": 0, "bots": [], "pairs": []}
        assert "No bot has entered" in anonymous.get("/leagues/empty/crosstable").text


@pytest.mark.parametrize(("wins", "losses", "p"), [(0, 0, 1.0), (5, 0, 0.0625), (0, 5, 0.0625), (3, 3, 1.0),
                                                   (9, 1, 0.021484375), (60, 40, 0.05688793364098078)])
def test_the_sign_test(wins, losses, p):
    assert sign_test(wins, losses) == pytest.approx(p, rel=1e-12)
