"""A Swiss' standings over HTTP, from games written into the store (no Docker): the page escapes
every name an author chose, the JSON is the format's board with the ratings beside it, and the
leaderboard links to both; games of an open cycle count nowhere."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select

from arena.bots.registry import register_bot
from arena.league import create_league
from arena.league.formats import field_of, league_format
from arena.league.formats.base import read_played
from arena.league.schedule import ScheduleOptions
from arena.league.standings import rebuild_ratings
from arena.store import Game, League, Match

T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
HOSTILE = ("<b>sa</b>", '"><script>x()</script>', "plain")


def play(store, league: str, stop: int) -> None:
    """Stores the Swiss' next ``stop`` slots as the runner would: the lower bot id of
    each game ranks first (so the results are known by heart)."""
    stored = 0
    while stored < stop:
        with store() as session, session.begin():
            row = session.scalar(select(League).where(League.name == league))
            field, played = field_of(row), read_played(store, row.id)
            slots = [s for s in league_format(field.options).slots(field, 3, played) if not played.stored(s)]
            if not slots:
                return
            slot = slots[0]
            match = Match(league_id=row.id, round=slot.round, table=slot.key, bots=list(slot.table),
                          record_dir=f"runs/{slot.round}", restarts=[0, 0], started_at=T0, finished_at=T0)
            session.add(match)
            session.flush()
            for i in range(2):
                seats = list(slot.table[i:] + slot.table[:i])
                ranks = [1 if b == min(seats) else 2 for b in seats]
                session.add(Game(match_id=match.id, index=i, seed=str(i), deal="c0d0", seats=seats,
                                 scores=[2 - r for r in ranks], ranks=ranks, failures=["", ""],
                                 record_path=f"runs/{slot.round}/game-{i}.jsonl"))
        stored += 1
    rebuild_ratings(store, league)


def test_a_swiss_standings_page_and_json(empty_site):
    store = empty_site.store
    create_league(store, "sw", "sobek", 2, {}, ScheduleOptions(format="swiss"), secret="cd" * 16)
    ids = [register_bot(store, name=name, version="1", image="none:1", image_digest="sha256:0", language="python",
                        author="a", games=["sobek"], league="sw").id for name in HOSTILE]
    play(store, "sw", 2)  # round 0's table: its cycle of 2 matches
    with empty_site.client() as anonymous:
        before = anonymous.get("/api/v1/leagues/sw/standings").json()["board"]
        play(store, "sw", 1)  # round 1's first match: its cycle open
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
