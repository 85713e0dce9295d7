"""Bot pages over HTTP, on a real league: details, the rating chart (a point per rated game),
head to head and recent matches recomputed here from the stored games, failure reasons, and
retiring (the owner only)."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from sqlalchemy import select

from arena.league.standings import leaderboard
from arena.store import Bot, Game, League, Match, Rating, RatingHistory, User

from ..league.crafted import crafted_league
from .conftest import log_in


def stored_games(store, league: str) -> list[tuple[int, list[int], list[int], list[str]]]:
    with store() as session:
        rows = session.execute(select(Game.match_id, Game.seats, Game.ranks, Game.failures).join(Match)
                               .join(League, League.id == Match.league_id).where(League.name == league)).all()
    return [(r.match_id, r.seats, r.ranks, r.failures) for r in rows]


def test_a_bot_page_says_who_made_it_and_where_it_stands(league_site):
    random_id = league_site.bots["random"]
    with league_site.client() as anonymous:
        bot = anonymous.get(f"/api/v1/bots/{random_id}").json()
        page = anonymous.get(f"/bots/{random_id}")
    assert (bot["name"], bot["owner"], bot["league"], bot["retired_at"]) == ("random", "alice", "web", None)
    assert bot["language"] == "python" and bot["created_at"].endswith("Z")
    row = next(r for r in leaderboard(league_site.store, "web") if r["bot_id"] == random_id)
    # other tests enter the site's sample bots in leagues of their own: pick this league's standing
    standing = next(s for s in bot["leagues"] if s["league"] == "web")
    assert (standing["league"], standing["rank"], standing["entrants"], standing["mu"], standing["games"]) == \
        ("web", row["rank"], 3, row["mu"], 9)
    assert page.status_code == 200 and 'id="bot-name">random<' in page.text
    with league_site.client() as anonymous:
        assert anonymous.get("/api/v1/bots/999999").status_code == 404
        assert anonymous.get(f"/api/v1/bots/{random_id}?league=nope").status_code == 404
        assert anonymous.get("/bots/999999").status_code == 404


def test_the_rating_chart_has_a_point_per_rated_game(league_site):
    for name, bot_id in league_site.bots.items():
        with league_site.client() as anonymous:
            history = anonymous.get(f"/api/v1/bots/{bot_id}").json()["history"]
            page = anonymous.get(f"/bots/{bot_id}").text
        with league_site.store() as session:
            web = session.scalar(select(League.id).where(League.name == "web"))  # the bots may be in other leagues
            rated = session.scalar(select(Rating.games).where(Rating.bot_id == bot_id, Rating.league_id == web))
            stored = session.scalars(select(RatingHistory).where(RatingHistory.bot_id == bot_id,
                                                                 RatingHistory.league_id == web)
                                     .order_by(RatingHistory.seq)).all()
        assert len(history) == rated == 9, name
        assert [(p["game_id"], p["mu"]) for p in history] == [(h.game_id, round(h.mu, 3)) for h in stored]
        svg = re.search(r'<svg[^>]*id="rating-chart".*?</svg>', page, re.S).group(0)
        mu_path = re.search(r'<path[^>]*id="rating-chart-mu"[^>]*>', svg).group(0)
        d = re.search(r' d="([^"]+)"', mu_path).group(1)
        assert len(re.findall(r"[ML]", d)) == rated and f'data-points="{rated}"' in mu_path
        assert len(re.findall(r"<circle", svg)) == rated  # few games: each marked
        assert "rated games" in svg and 'id="rating-chart-band"' in svg


def test_head_to_head_and_recent_matches_match_the_stored_games(league_site):
    games = stored_games(league_site.store, "web")
    for name, bot_id in league_site.bots.items():
        with league_site.client() as anonymous:
            bot = anonymous.get(f"/api/v1/bots/{bot_id}").json()
        tally: dict[int, list[int]] = {}
        for _, seats, ranks, _ in games:
            mine = ranks[seats.index(bot_id)]
            for other, theirs in zip(seats, ranks, strict=True):
                if other != bot_id:
                    t = tally.setdefault(other, [0, 0, 0, 0, 0])
                    t[0] += 1
                    t[1] += mine < theirs
                    t[2] += mine > theirs
                    t[3] += mine == theirs
                    t[4] += theirs - mine
        got = {h["opponent_id"]: h for h in bot["head_to_head"]}
        assert set(got) == set(tally), name
        for other, (n, wins, losses, draws, difference) in tally.items():
            h = got[other]
            assert (h["games"], h["wins"], h["losses"], h["draws"]) == (n, wins, losses, draws)
            assert h["mean_rank_difference"] == pytest.approx(difference / n, abs=1e-3)
        matches = sorted({m for m, *_ in games}, reverse=True)  # stored one after another: newest last
        assert [m["match_id"] for m in bot["recent_matches"]] == matches
        for m in bot["recent_matches"]:
            assert m["ranks"] == [r[s.index(bot_id)] for mid, s, r, _ in games if mid == m["match_id"]]
            assert len(m["opponents"]) == 2 and bot_id not in {o["id"] for o in m["opponents"]}
        failures = Counter(f[s.index(bot_id)] for _, s, _, f in games if f[s.index(bot_id)])
        assert {f["reason"]: f["games"] for f in bot["failures"]} == dict(failures)


def test_failure_reasons_are_counted_and_shown(league_site):
    ids = crafted_league(league_site.store, "flaky", ("crashes", "steady", "slow"), [
        ([0, 1, 2], [3, 1, 2], ["crash", "", ""]),
        ([1, 2, 0], [1, 3, 2], ["", "timeout", ""]),
        ([2, 0, 1], [3, 2, 1], ["timeout", "crash", ""]),
        ([0, 1, 2], [3, 1, 2], ["illegal", "", ""]),
    ])
    with league_site.client() as anonymous:
        crashes = anonymous.get(f"/api/v1/bots/{ids[0]}").json()
        slow = anonymous.get(f"/api/v1/bots/{ids[2]}").json()
        page = anonymous.get(f"/bots/{ids[0]}").text
    assert crashes["failures"] == [{"reason": "crash", "games": 2}, {"reason": "illegal", "games": 1}]
    assert slow["failures"] == [{"reason": "timeout", "games": 2}]
    assert crashes["leagues"][0]["failure_rate"] == 0.75
    assert '<tr data-reason="crash"><td>crash</td><td class="num">2</td>' in page
    assert [m["match_id"] for m in crashes["recent_matches"]][:1] == [max(m["match_id"]
                                                                          for m in crashes["recent_matches"])]
    assert f'href="/matches/{crashes["recent_matches"][0]["match_id"]}"' in page


def owner_id(store, name: str) -> int:
    with store() as session:
        return session.scalar(select(User.id).where(User.name == name))


def test_only_the_owner_retires_a_bot(league_site):
    store = league_site.store
    ids = crafted_league(store, "retiring", ("alices", "operators", "bobs"),
                         [([0, 1, 2], [1, 2, 3], ["", "", ""])])
    with store() as session, session.begin():
        session.get(Bot, ids[0]).owner_id = owner_id(store, "alice")
        session.get(Bot, ids[2]).owner_id = owner_id(store, "bob")
    alices, operators, _ = ids
    with league_site.client("alice") as alice, league_site.client("bob") as bob, \
            league_site.client("admin") as admin, league_site.client() as anonymous:
        assert anonymous.post(f"/api/v1/bots/{alices}/retire").status_code == 401
        assert bob.post(f"/api/v1/bots/{alices}/retire").status_code == 403
        assert admin.post(f"/api/v1/bots/{alices}/retire").status_code == 403  # an author's bot is the author's
        assert alice.post(f"/api/v1/bots/{operators}/retire").status_code == 403
        assert alice.post("/api/v1/bots/999999/retire").status_code == 404
        assert anonymous.get(f"/api/v1/bots/{alices}").json()["retired_at"] is None
        reply = alice.post(f"/api/v1/bots/{alices}/retire")
        assert reply.status_code == 200 and reply.json()["retired_at"]
        assert admin.post(f"/api/v1/bots/{operators}/retire").status_code == 200
        assert anonymous.get(f"/api/v1/bots/{alices}").json()["retired_at"] == reply.json()["retired_at"]
        rows = {r["bot"]: r for r in anonymous.get("/api/v1/leagues/retiring/leaderboard").json()["rows"]}
        assert rows["alices"]["retired"] and rows["operators"]["retired"] and not rows["bobs"]["retired"]


def test_the_retire_button_is_the_owners_and_needs_the_csrf_token(league_site):
    store = league_site.store
    ids = crafted_league(store, "buttons", ("bobs-one", "bobs-two", "nobodys"), [([0, 1, 2], [1, 2, 3], ["", "", ""])])
    with store() as session, session.begin():
        session.get(Bot, ids[0]).owner_id = owner_id(store, "bob")
    with league_site.browser() as browser:
        assert 'id="retire-form"' not in browser.get(f"/bots/{ids[0]}").text  # anonymous
        log_in(browser, "alice")
        assert 'id="retire-form"' not in browser.get(f"/bots/{ids[0]}").text  # not hers
        browser.cookies.clear()
        log_in(browser, "bob")
        page = browser.get(f"/bots/{ids[0]}").text
        assert 'id="retire-form"' in page
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        assert browser.post(f"/bots/{ids[0]}/retire", data={"csrf": "forged"}).status_code == 403
        reply = browser.post(f"/bots/{ids[0]}/retire", data={"csrf": csrf})
        assert reply.status_code == 303 and reply.headers["location"] == f"/bots/{ids[0]}"
        page = browser.get(f"/bots/{ids[0]}").text
        assert 'id="bot-retired"' in page and 'id="retire-form"' not in page


def test_the_chart_alone():
    from types import SimpleNamespace

    from arena.web.charts import interval_bars, nice_ticks, rating_chart

    empty = rating_chart([], title="<b>x</b>")
    assert 'data-points="0"' in empty and "no rated games yet" in empty and "<b>" not in empty
    one = rating_chart([SimpleNamespace(game=1, mu=25.0, sigma=8.3)])
    assert re.search(r'id="rating-chart-mu"[^>]* d="M[\d.]+,[\d.]+"', one)
    assert nice_ticks(0.4, 9.6) == [0, 2, 4, 6, 8, 10]
    bars = interval_bars([(1, 25.0, 1.0), (2, 30.0, 2.0)], width=100, pad=0)
    assert (bars[1].low, bars[2].high) == (0.0, 100.0) and bars[1].mu < bars[2].mu
