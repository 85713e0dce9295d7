"""A Swiss' standings over HTTP, from games written into the store (no Docker): the page escapes
every name an author chose, the JSON is the format's board with the ratings beside it, and the
leaderboard links to both; games of an open cycle count nowhere."""

from __future__ import annotations

from arena.bots.registry import register_bot
from arena.league import create_league
from arena.league.schedule import ScheduleOptions

from ..league.crafted import play_format

HOSTILE = ("<b>sa</b>", '"><script>x()</script>', "plain")


def test_a_swiss_standings_page_and_json(empty_site):
    store = empty_site.store
    create_league(store, "sw", "sobek", 2, {}, ScheduleOptions(format="swiss"), secret="cd" * 16)
    ids = [register_bot(store, name=name, version="1", image="none:1", image_digest="sha256:0", language="python",
                        author="a", games=["sobek"], league="sw").id for name in HOSTILE]
    play_format(store, "sw", 2)  # round 0's table: its cycle of 2 matches
    with empty_site.client() as anonymous:
        before = anonymous.get("/api/v1/leagues/sw/standings").json()["board"]
        play_format(store, "sw", 1)  # round 1's first match: its cycle open
        reply = anonymous.get("/api/v1/leagues/sw/standings")
        page = anonymous.get("/leagues/sw/standings")
        board_page = anonymous.get("/leagues/sw")
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["format"] == "swiss" and set(body["ratings"]) == {str(b) for b in ids}
    board = body["board"]
    assert board == before, "the open cycle counts nowhere: its games are secret"
    assert board["rounds_done"] == 1 and board["current"] is None
    by_id = {row["bot_id"]: row for row in board["rows"]}
    (table,) = {tuple(t["table"]) for row in board["rows"] for t in row["tables"] if t["round"] == 0 and t["table"]}
    bye = (set(ids) - set(table)).pop()
    assert by_id[min(table)]["points"] == 1 and by_id[max(table)]["points"] == 0 and by_id[bye]["points"] == 0.5
    assert [row["bot_id"] for row in board["rows"]] == [min(table), bye, max(table)]
    assert page.status_code == 200
    assert "&lt;b&gt;sa&lt;/b&gt;" in page.text and "<b>sa</b>" not in page.text
    assert "<script>x()" not in page.text and "&lt;script&gt;x()" in page.text
    assert page.text.count("<tr data-bot=") == 3 and "bye" in page.text
    assert 'href="/leagues/sw/standings"' in board_page.text
    create_league(store, "rr", "sobek", 2, {}, ScheduleOptions(), secret="cd" * 16)
    with empty_site.client() as anonymous:
        round_robin = anonymous.get("/leagues/rr")
        none = anonymous.get("/leagues/rr/standings")
    assert round_robin.status_code == 200 and "/standings" not in round_robin.text  # its leaderboard is all
    assert none.status_code == 404
