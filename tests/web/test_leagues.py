"""Leagues and leaderboards over HTTP, on a real league: the rows are the store's standings,
sorting on the server, hostile names escaped, and the admin's commands (create, run) refused
to everyone else and working for an admin, with a real run of sample bots in containers."""

from __future__ import annotations

import re
import time

import pytest

from arena.accounts import Account
from arena.bots.registry import retire_bot
from arena.league.entries import join_league
from arena.league.standings import leaderboard
from referee import limits

from ..league.crafted import crafted_league, register

HOSTILE = "<script>alert(1)</script>"
COLUMNS = ("rank", "bot", "version", "author", "language", "exposure", "mu", "sigma", "upper", "games", "wins",
           "failure_rate", "p_first", "p_top", "rank_high")


def test_every_league_is_listed_with_its_game_players_entrants_and_games(league_site):
    with league_site.client() as anonymous:
        leagues = {lg["name"]: lg for lg in anonymous.get("/api/v1/leagues").json()}
        page = anonymous.get("/leagues")
    web = leagues["web"]
    assert (web["game"], web["players"], web["entrants"], web["games"]) == ("prohis", 3, 3, 9)
    assert web["schedule"]["deals"] == 1 and "secret" not in str(leagues)  # the deals' secret never leaves
    assert page.status_code == 200 and 'href="/leagues/web"' in page.text


def test_the_leaderboards_rows_are_the_stores_standings(league_site):
    with league_site.client() as anonymous:
        board = anonymous.get("/api/v1/leagues/web/leaderboard").json()
    assert board["sort"] == "rank" and board["order"] == "asc"
    assert board["league"]["games"] == 9
    expected = leaderboard(league_site.store, "web")
    assert board["rows"] == expected
    assert {r["bot"] for r in expected} == {"random", "first-legal", "prohis-heuristic"}
    assert all(r["games"] == 9 and not r["new"] and not r["retired"] for r in expected)


def value(row: dict, column: str):
    return row["mu"] + 3 * row["sigma"] if column == "upper" else row[column]


@pytest.mark.parametrize("column", COLUMNS)
def test_sorting_on_the_server_by_any_column(league_site, column):
    with league_site.client() as anonymous:
        for order in ("asc", "desc"):
            board = anonymous.get(f"/api/v1/leagues/web/leaderboard?sort={column}&order={order}").json()
            values = [value(r, column) for r in board["rows"]]
            if isinstance(values[0], str):
                values = [v.casefold() for v in values]
            assert values == sorted(values, reverse=order == "desc"), (column, order)
            page = anonymous.get(f"/leagues/web?sort={column}&order={order}").text
            assert re.findall(r'data-bot-id="(\d+)"', page) == [str(r["bot_id"]) for r in board["rows"]]
            sorted_th = re.search(rf'<th data-sort="{column}"[^>]*>', page, re.S).group(0)
            assert f'aria-sort="{"ascending" if order == "asc" else "descending"}"' in sorted_th
            # the heading's link sorts the other way (that is how it sorts with JavaScript off)
            assert f'href="?sort={column}&amp;order={"desc" if order == "asc" else "asc"}"' in page
        assert anonymous.get("/api/v1/leagues/web/leaderboard?sort=secret").status_code == 422


def test_the_leaderboard_page_draws_an_interval_bar_per_row_and_links_each_bot(league_site):
    with league_site.client() as anonymous:
        page = anonymous.get("/leagues/web").text
        board = anonymous.get("/api/v1/leagues/web/leaderboard").json()
    assert page.count('<svg class="bar"') == 3
    for row in board["rows"]:
        assert f'href="/bots/{row["bot_id"]}"' in page
    assert '<script src="/static/sort.js"' in page
    # the scale is shared: the widest interval is the row with the largest sigma, whose bar spans the most
    spans = [float(b) - float(a) for a, b in re.findall(r'<line x1="([\d.]+)" x2="([\d.]+)" y1="7"', page)]
    sigmas = [r["sigma"] for r in board["rows"]]
    assert spans.index(max(spans)) == sigmas.index(max(sigmas))


def test_the_leaderboard_says_how_sure_each_rank_is_and_marks_the_unsettled(league_site):
    """X is first in all 24 games; Y and Z take second place in turn: X's rank is settled, Y's
    and Z's are not. The page and its JSON twin show P(1st), P(top k) and the interval."""
    games = [([0, 1, 2], [1, 2, 3], ["", "", ""]), ([0, 1, 2], [1, 3, 2], ["", "", ""])] * 12
    x, y, z = crafted_league(league_site.store, "odds", ("X", "Y", "Z"), games)
    with league_site.client() as anonymous:
        board = anonymous.get("/api/v1/leagues/odds/leaderboard").json()
        top1 = anonymous.get("/api/v1/leagues/odds/leaderboard?top=1").json()
        page = anonymous.get("/leagues/odds").text
        assert anonymous.get("/api/v1/leagues/odds/leaderboard?top=0").status_code == 422
    rows = {r["bot_id"]: r for r in board["rows"]}
    assert board["top_k"] == 3 and board["rows"] == leaderboard(league_site.store, "odds")
    assert rows[x]["settled"] and rows[x]["p_first"] >= 0.99 and (rows[x]["rank_low"], rows[x]["rank_high"]) == (1, 1)
    assert not rows[y]["settled"] and not rows[z]["settled"] and (rows[y]["rank_low"], rows[z]["rank_high"]) == (2, 3)
    assert top1["top_k"] == 1 and all(r["p_top"] == r["p_first"] for r in top1["rows"])
    assert "P(top 3)" in page and "P(1st)" in page and "draws of every bot" in page
    for bot, marked in ((x, False), (y, True), (z, True)):
        row = re.search(rf'<tr data-bot-id="{bot}".*?</tr>', page, re.S).group(0)
        assert ('<span class="unsettled"' in row) == marked, row
        assert f'{100 * rows[bot]["p_first"]:.1f} %' in row
        assert f'{rows[bot]["rank_low"]}–{rows[bot]["rank_high"]}' in row


def test_a_new_version_and_a_retired_bot_are_marked(league_site):
    store = league_site.store
    ids = crafted_league(store, "marks", ("old", "stays", "gone"), [([0, 1, 2], [1, 2, 3], ["", "", ""])])
    newer = register(store, "marks", "old", version="2")
    retire_bot(store, ids[2], Account(1, "admin", True))
    with league_site.client() as anonymous:
        rows = {(r["bot"], r["version"]): r for r in
                anonymous.get("/api/v1/leagues/marks/leaderboard").json()["rows"]}
        page = anonymous.get("/leagues/marks").text
    assert rows["old", "2"]["new"] and not rows["old", "1"]["new"] and rows["gone", "1"]["retired"]
    row = re.search(rf'<tr data-bot-id="{newer}".*?</tr>', page, re.S).group(0)
    assert 'class="badge new"' in row
    row = re.search(rf'<tr data-bot-id="{ids[2]}".*?</tr>', page, re.S).group(0)
    assert 'class="badge retired"' in row and 'class="retired"' in row


def test_hostile_names_come_out_escaped_on_every_page(league_site):
    store = league_site.store
    league = '"><img src=x onerror=alert(2)>'  # the command line takes any league name
    ids = crafted_league(store, league, (HOSTILE, "plain", "other"), [([0, 1, 2], [1, 2, 3], ["", "", ""])],
                         author=HOSTILE)
    with league_site.client() as anonymous:
        pages = [anonymous.get("/leagues").text, anonymous.get(f"/leagues/{league}").text,
                 anonymous.get(f"/bots/{ids[0]}").text, anonymous.get(f"/bots/{ids[1]}").text]
        board = anonymous.get(f"/api/v1/leagues/{league}/leaderboard")
    for page in pages:
        assert HOSTILE not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages[1] and "&lt;script&gt;" in pages[2]
    assert board.headers["content-type"] == "application/json"
    assert board.json()["rows"][0]["bot"] in (HOSTILE, "plain", "other")  # JSON is data: as it was given


ADMIN_CALLS = [("post", "/api/v1/leagues", {"name": "nope", "game": "prohis", "players": 3}),
               ("post", "/api/v1/leagues/web/run", {"rounds": 1}),
               ("get", "/api/v1/leagues/web/run", None)]


@pytest.mark.parametrize("method, path, body", ADMIN_CALLS)
def test_the_admins_commands_are_refused_to_an_author_and_to_anonymous(league_site, method, path, body):
    with league_site.client("alice") as alice, league_site.client() as anonymous:
        kwargs = {"json": body} if body else {}
        assert getattr(alice, method)(path, **kwargs).status_code == 403
        assert getattr(anonymous, method)(path, **kwargs).status_code == 401
        page = anonymous.post("/leagues", data={"name": "nope", "game": "prohis", "players": "3"})
        assert page.status_code == 303 and page.headers["location"].startswith("/login")
    with league_site.client() as anonymous:
        assert "nope" not in {lg["name"] for lg in anonymous.get("/api/v1/leagues").json()}


def test_creating_a_league_refuses_bad_input(league_site):
    with league_site.client("admin") as admin:
        assert admin.post("/api/v1/leagues", json={"name": "web", "game": "prohis", "players": 3}).status_code == 409
        assert admin.post("/api/v1/leagues", json={"name": "../up", "game": "prohis", "players": 3}).status_code == 422
        reply = admin.post("/api/v1/leagues", json={"name": "chess", "game": "chess", "players": 2})
        assert reply.status_code == 400 and "known games" in reply.json()["detail"]
        reply = admin.post("/api/v1/leagues", json={"name": "crowd", "game": "prohis", "players": 9})
        assert reply.status_code == 400 and "players" in reply.json()["detail"]
        for field, too_much in (("increment_ms", limits.MAX_INCREMENT_MS + 1),
                                ("match_bank_ms", limits.MAX_BANK_MS + 1), ("match_bank_ms", -1)):
            reply = admin.post("/api/v1/leagues", json={"name": "clock", "game": "prohis", "players": 3,
                                                        field: too_much})
            assert reply.status_code == 422 and field in reply.text, (field, too_much)
        reply = admin.post("/api/v1/leagues", json={"name": "odd", "game": "prohis", "players": 3,
                                                    "settings": {"no_such_setting": 1}})
        assert reply.status_code == 400 and "no_such_setting" in reply.json()["detail"]
        assert admin.post("/api/v1/leagues/empty-one/run", json={}).status_code == 404


def test_an_admins_browser_creates_a_league_with_the_form_and_its_csrf_token(league_site):
    with league_site.browser("admin") as browser:
        page = browser.get("/leagues").text
        assert 'id="create-league-form"' in page
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        form = {"name": "formed", "game": "bandits", "players": "4", "deals": "2", "settings": "", "decision_ms": "500",
                "bank_ms": "5000", "increment_ms": "200", "match_bank_ms": "60000", "failures": "exclude"}
        assert browser.post("/leagues", data={**form, "csrf": "forged"}).status_code == 403
        reply = browser.post("/leagues", data={**form, "csrf": csrf})
        assert reply.status_code == 303 and reply.headers["location"] == "/leagues/formed"
        board = browser.get("/leagues/formed").text
        assert 'id="run-form"' in board and 'id="no-entrants"' in board
    with league_site.client() as anonymous:
        formed = {lg["name"]: lg for lg in anonymous.get("/api/v1/leagues").json()}["formed"]
    assert (formed["game"], formed["players"], formed["schedule"]["deals"], formed["schedule"]["failures"]) == \
        ("bandits", 4, 2, "exclude")
    assert (formed["schedule"]["increment_ms"], formed["schedule"]["match_bank_ms"]) == (200, 60_000)
    with league_site.client("alice") as alice:
        assert 'id="run-form"' not in alice.get("/leagues/web").text
        assert 'id="create-league-form"' not in alice.get("/leagues").text


def test_an_admin_creates_and_runs_a_league_over_the_api(league_site):
    with league_site.client("admin") as admin:
        reply = admin.post("/api/v1/leagues", json={"name": "served", "game": "prohis", "players": 3, "deals": 1,
                                                    "decision_ms": 2000})
        assert reply.status_code == 201, reply.text
        assert reply.json()["entrants"] == 0 and reply.json()["schedule"]["decision_ms"] == 2000
        refused = admin.post("/api/v1/leagues/served/run", json={"rounds": 1})
        assert refused.status_code == 400 and "entrant" in refused.json()["detail"]
        for bot in ("random", "first-legal", "prohis-heuristic"):
            join_league(league_site.store, "served", bot)
        started = admin.post("/api/v1/leagues/served/run", json={"rounds": 1, "jobs": 1})
        assert started.status_code == 202 and started.json()["status"] == "running", started.text
        assert admin.post("/api/v1/leagues/served/run", json={"rounds": 1}).status_code == 409
        deadline = time.monotonic() + 240
        while (state := admin.get("/api/v1/leagues/served/run").json())["status"] == "running":
            assert time.monotonic() < deadline, state
            time.sleep(0.5)
        assert state["status"] == "finished", state
        assert (state["games_total"], state["games_played"], state["error"]) == (3, 3, "")
        for user in ("admin", "alice", "bob"):  # the admin who ran it and its bots' owners were told
            with league_site.client(user) as client:
                told = [n for n in client.get("/api/v1/notifications").json()["notifications"]
                        if n["data"].get("league") == "served"]
            assert [n["event"] for n in told] == ["run.finished"], (user, told)
            assert told[0]["text"].startswith("the run of served finished: 3 game(s) played"), told
        board = admin.get("/api/v1/leagues/served/leaderboard").json()
        assert board["league"]["games"] == 3 and all(r["games"] == 3 for r in board["rows"])
        assert board["rows"] == leaderboard(league_site.store, "served")
        assert any(r["mu"] != 25.0 for r in board["rows"])  # rated
        page = admin.get("/leagues/served").text
        assert 'id="run-state" data-status="finished"' in page
    records = list((league_site.runs_dir / "leagues" / "served").rglob("game-*.jsonl"))
    assert len(records) == 3  # under the server's runs folder


def test_an_admin_creates_and_runs_a_ladder_in_whole_cycles(league_site):
    """A ladder over the API: a run plays `rounds` more matches, in whole cycles (two a table:
    rounds 1 is one cycle of two matches of two games)."""
    with league_site.client("admin") as admin:
        reply = admin.post("/api/v1/leagues", json={"name": "served-ladder", "game": "boss", "players": 2,
                                                    "format": "ladder", "decision_ms": 2000})
        assert reply.status_code == 201 and reply.json()["schedule"]["format"] == "ladder", reply.text
        for bot in ("random", "first-legal"):
            join_league(league_site.store, "served-ladder", bot)
        started = admin.post("/api/v1/leagues/served-ladder/run", json={"rounds": 1, "jobs": 2})
        assert started.status_code == 202, started.text
        deadline = time.monotonic() + 240
        while (state := admin.get("/api/v1/leagues/served-ladder/run").json())["status"] == "running":
            assert time.monotonic() < deadline, state
            time.sleep(0.5)
        assert (state["status"], state["games_total"], state["games_played"], state["error"]) == \
            ("finished", 4, 4, ""), state
        told = [n for n in admin.get("/api/v1/notifications").json()["notifications"]
                if n["data"].get("league") == "served-ladder"]
        assert [(n["event"], n["data"]["games"]) for n in told] == [("run.finished", 4)], told
        board = admin.get("/api/v1/leagues/served-ladder/leaderboard").json()
        assert board["league"]["games"] == 4 and [r["games"] for r in board["rows"]] == [4, 4]
        assert "this many more matches of the ladder" in admin.get("/leagues/served-ladder").text
