"""A bracket's standings over real HTTP: the page draws it (a column per stage, names escaped, no
inline style), the JSON is the format's board, and a table whose cycle is not all stored shows
nothing of it."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import insert, select

from arena.league import create_league
from arena.league.formats import drawn_field
from arena.league.schedule import ScheduleOptions
from arena.league.standings import rebuild_ratings
from arena.store import Bot, Entry, Game, League, Match
from referee.spec import dev_secret

T0 = datetime(2026, 12, 7, tzinfo=UTC)
NAMES = ("ada", "bea", "<i>cy</i>", "dee")


def test_the_bracket_page_draws_complete_cycles_only(empty_site):
    store = empty_site.store
    create_league(store, "ko", "sobek", 2, {}, ScheduleOptions(deals=1, format="knockout"), secret=dev_secret(7))
    with store() as session, session.begin():
        league_id = session.scalar(select(League.id).where(League.name == "ko"))
        bots = [Bot(name=name, version="1", image=f"x/{i}", image_digest=f"sha256:{i:064x}", language="python",
                    author="Arena") for i, name in enumerate(NAMES)]
        session.add_all(bots)
        session.flush()
        session.add_all(Entry(league_id=league_id, bot_id=b.id) for b in bots)
    with empty_site.client() as anonymous:
        undrawn = anonymous.get("/leagues/ko/standings")
        assert undrawn.status_code == 200 and 'id="bracket-undrawn"' in undrawn.text
        seeds = drawn_field(store, "ko").draw["seeds"]  # as the first run draws it
        first, second = seeds[0], seeds[3]  # seed 1 meets seed 4; seeds 2 and 3 meet
        other = (seeds[1], seeds[2])
        with store() as session, session.begin():
            for round_, table, ranks in ((0, (first, second), [1, 2]), (1, (first, second), [1, 2]),
                                         (0, other, [2, 1])):  # the second table's cycle is half stored
                bots_ = sorted(table)
                match_id = session.execute(insert(Match).values(
                    league_id=league_id, round=round_, table=",".join(map(str, bots_)), bots=bots_, record_dir="x",
                    restarts=[0, 0], started_at=T0, finished_at=T0).returning(Match.id)).scalar_one()
                seats = list(table)
                session.execute(insert(Game).values(match_id=match_id, index=0, seed="1", deal="c0d0", seats=seats,
                                                    scores=[10 - r for r in ranks], ranks=ranks, failures=["", ""],
                                                    record_path="x"))
        rebuild_ratings(store, "ko")
        body = anonymous.get("/api/v1/leagues/ko/standings").json()
        page = anonymous.get("/leagues/ko/standings").text
        board_link = anonymous.get("/leagues/ko").text
        create_league(store, "rr", "sobek", 2, {}, ScheduleOptions(deals=1), secret=dev_secret(8))
        round_robin = anonymous.get("/leagues/rr").text
    board = body["board"]
    assert body["format"] == "knockout" and board["drawn"] and board["champion"] is None
    assert [s["name"] for s in board["stages"]] == ["Round 1", "Final"]
    one, two = board["stages"][0]["tables"]
    assert (one["status"], one["winner"]) == ("played", first)
    assert [p["mean_rank"] for p in one["bots"]] == [1.0, 2.0]
    assert two["status"] == "pending" and [p["mean_rank"] for p in two["bots"]] == [None, None]  # secret yet
    assert board["stages"][1]["tables"][0]["bots"][0]["bot"] == first
    assert page.count('class="bracket-round"') == 2 and page.count('class="bracket-table status-') == 3
    assert "&lt;i&gt;cy&lt;/i&gt;" in page and "<i>cy</i>" not in page
    assert "style=" not in page and "<script>" not in page  # the CSP: the stylesheet's classes only
    assert page.count("bracket-bot winner") == 1 and "to be decided" in page
    assert 'id="standings-link"' in board_link and "/leagues/ko/standings" in board_link
    assert 'id="standings-link"' not in round_robin  # its standings are its leaderboard
