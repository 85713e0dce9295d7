"""Finals and a gauntlet on the site (no Docker: nothing is played). An admin closes a league and
creates its finals with the form (CSRF) or the API; both boards side by side; the JSON says the
link. A gauntlet's standings page from stored games, names escaped. One test: a site costs a
second to start."""

from __future__ import annotations

from datetime import UTC, datetime

from arena.bots.registry import register_bot
from arena.league import create_league
from arena.league.schedule import ScheduleOptions
from arena.league.standings import rebuild_ratings
from arena.store import Game, League, Match

from .conftest import csrf_of

HOSTILE = "<b>bold</b>"


def ladder_with_bots(store, name: str, version: str = "1") -> None:
    create_league(store, name, "sobek", 2, {}, ScheduleOptions(format="ladder"))
    for bot in ("alpha", HOSTILE):
        register_bot(store, name=bot, version=version, image="img", image_digest="", language="python", author="t",
                     games=[], league=name)


def test_an_admin_closes_a_ladder_and_both_boards_show_side_by_side(empty_site):
    ladder_with_bots(empty_site.store, "open")
    with empty_site.browser("admin", form=False) as admin:
        page = admin.get("/leagues/open").text
        assert 'id="finals-form"' in page and 'id="linked-board"' not in page
        form = {"finals": "", "format": "round-robin", "challenger": ""}
        assert admin.post("/leagues/open/finals", data={**form, "csrf": "forged"}).status_code == 403
        reply = admin.post("/leagues/open/finals", data={**form, "csrf": csrf_of(page)})
        assert reply.status_code == 303 and reply.headers["location"] == "/leagues/open-finals", reply.text
        finals = admin.get("/leagues/open-finals").text
        parent = admin.get("/leagues/open").text
    assert 'id="finals-form"' not in parent + finals  # one finals per league, none of a finals
    assert 'id="linked-board"' in parent and 'href="/leagues/open-finals" id="linked-name"' in parent
    assert "Finals on fresh deals" in parent and 'id="league-closed"' in parent
    assert 'id="linked-board"' in finals and 'href="/leagues/open" id="finals-of-link"' in finals
    for page in (parent, finals):
        assert HOSTILE not in page and "&lt;b&gt;bold&lt;/b&gt;" in page
        assert page.count('id="leaderboard"') == 1  # the page's own board keeps its ids; the other has its own
    with empty_site.client() as anonymous:
        listed = {lg["name"]: lg for lg in anonymous.get("/api/v1/leagues").json()}
        board = anonymous.get("/api/v1/leagues/open/leaderboard").json()
        assert 'id="finals-form"' not in anonymous.get("/leagues/open").text
        assert "finals of open</span>" in anonymous.get("/leagues").text
    assert listed["open"]["closed_at"] and listed["open"]["finals"] == "open-finals"
    assert listed["open-finals"]["finals_of"] == "open" and listed["open-finals"]["entrants"] == 2
    assert listed["open-finals"]["schedule"]["format"] == "round-robin"
    assert board["league"]["finals"] == "open-finals" and board["league"]["finals_of"] is None

    # over the API: admin only, a gauntlet's challenger needed, one finals per league
    ladder_with_bots(empty_site.store, "api", version="2")
    with empty_site.client("alice") as alice, empty_site.client() as anonymous:
        assert alice.post("/api/v1/leagues/api/finals", json={}).status_code == 403
        assert anonymous.post("/api/v1/leagues/api/finals", json={}).status_code == 401
    with empty_site.client("admin") as admin:
        refused = admin.post("/api/v1/leagues", json={"name": "g0", "game": "sobek", "players": 2,
                                                    "format": "gauntlet"})
        assert refused.status_code == 400 and "a gauntlet needs its challenger" in refused.json()["detail"]
        assert admin.post("/api/v1/leagues/nowhere/finals", json={}).status_code == 404
        refused = admin.post("/api/v1/leagues/api/finals", json={"format": "gauntlet"})
        assert refused.status_code == 400 and "needs its challenger" in refused.json()["detail"]
        made = admin.post("/api/v1/leagues/api/finals", json={"name": "api-last", "format": "gauntlet",
                                                               "challenger": "alpha"})
        assert made.status_code == 201, made.text
        assert (made.json()["name"], made.json()["finals_of"], made.json()["schedule"]["challenger"]) == (
            "api-last", "api", "alpha")
        again = admin.post("/api/v1/leagues/api/finals", json={})
        assert again.status_code == 409 and "has its finals already: api-last" in again.json()["detail"]

    # a gauntlet's board on its standings page: one complete cycle of each of its two tables stored
    gauntlet = create_league(empty_site.store, "gt", "sobek", 2, {}, ScheduleOptions(format="gauntlet",
                                                                                    challenger=HOSTILE))
    ids = [register_bot(empty_site.store, name=name, version="9", image="img", image_digest="", language="python",
                        author="t", games=[], league="gt").id for name in (HOSTILE, "alpha", "beta")]
    with empty_site.store() as session, session.begin():
        for rival, ranks in ((ids[1], (1, 2)), (ids[2], (2, 1))):  # ahead of alpha twice, behind beta twice
            table = sorted((ids[0], rival))
            for round_ in (0, 1):
                match = Match(league_id=gauntlet.id, round=round_, table=",".join(map(str, table)), bots=table,
                              record_dir="x", restarts=[0, 0], started_at=datetime.now(UTC))
                session.add(match)
                session.flush()
                session.add(Game(match_id=match.id, index=0, seed=str(round_), deal="c0d0", seats=[ids[0], rival],
                                 scores=[0, 0], ranks=list(ranks), failures=["", ""], record_path="x"))
        assert session.get_one(League, gauntlet.id).name == "gt"
    rebuild_ratings(empty_site.store, "gt")
    with empty_site.client() as anonymous:
        page = anonymous.get("/leagues/gt/standings").text
        data = anonymous.get("/api/v1/leagues/gt/standings").json()
    assert 'id="gauntlet"' in page and HOSTILE not in page and "&lt;b&gt;bold&lt;/b&gt; against the field" in page
    assert f'id="against-{ids[0]}"' in page and "+1.00" in page and "-1.00" in page
    versions = data["board"]["versions"]
    assert data["format"] == "gauntlet" and data["board"]["field"] == ids[1:] and len(versions) == 1
    assert [(a["bot_id"], a["games"], a["ahead"], a["behind"]) for a in versions[0]["against"]] == [
        (ids[1], 2, 2, 0), (ids[2], 2, 0, 2)]
