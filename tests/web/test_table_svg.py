"""The drawn table of a replay's step (``/games/{id}/table.svg``, arena/tables drawn by the web):
the replay's seat rules exactly (arena/access.py), nothing of a card the seat may not know,
escaped names, the download; and the replay page's words (the title, the actions as the viewing
seat may know them, "nobody", the end's summary). Over HTTP against the played Prohis match of
tests/web/local_match.py (public at once), and a copy of its games in a league whose duplicate
cycle is not all stored (not public)."""

from __future__ import annotations

import re
from collections import Counter
from xml.etree import ElementTree

import pytest
from sqlalchemy import select

from arena.league import create_league
from arena.league.schedule import ScheduleOptions
from arena.store import Game, League, Match
from arena_games import get_game

from .local_match import HOSTILE, local_match

PRIVATE_LEAGUE = "svg-private"


@pytest.fixture(scope="module")
def games(league_site) -> tuple[list[int], list[int], list[list[int]]]:
    """(the public games' ids, their not-public copies' ids, each game's bot by seat)."""
    played = local_match(league_site, "prohis")
    store = league_site.store
    with store() as session:
        public = [session.get_one(Game, g) for g in played.game_ids]
        seats = [list(g.seats) for g in public]
        match = session.get_one(Match, played.match_id)
        rows = [(g.index, g.seed, g.deal, g.seats, g.scores, g.ranks, g.failures, g.record_path) for g in public]
        table, bots, record_dir = match.table, match.bots, match.record_dir
    create_league(store, PRIVATE_LEAGUE, "prohis", 3, {}, ScheduleOptions(), secret="5d" * 16)
    with store() as session, session.begin():  # round 0 of its cycle only: not public
        league_id = session.scalar(select(League.id).where(League.name == PRIVATE_LEAGUE))
        copy = Match(league_id=league_id, round=0, table=table, bots=bots, record_dir=record_dir,
                     restarts=[0, 0, 0], started_at=match.started_at)
        session.add(copy)
        session.flush()
        copies = [Game(match_id=copy.id, index=i, seed=seed, deal=deal, seats=s, scores=sc, ranks=r, failures=f,
                       record_path=path) for i, seed, deal, s, sc, r, f, path in rows]
        session.add_all(copies)
        session.flush()
        hidden = [g.id for g in copies]
    return played.game_ids, hidden, seats


def faces(svg: str) -> Counter:
    return Counter(re.findall(r'<g class="card face" data-card="([^"]*)"', svg))


def strings(value) -> Counter:
    """Every string in a view (its cards among them), counted."""
    if isinstance(value, str):
        return Counter([value])
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return sum((strings(v) for v in items), Counter())


def test_a_steps_drawing_follows_the_replays_rules(league_site, games):
    _, hidden, seats = games
    played = local_match(league_site, "prohis")
    a, b = seats[0].index(played.bots[0]), seats[0].index(played.bots[1])  # alice's seat, bob's
    url = f"/games/{hidden[0]}/table.svg"
    with league_site.client("alice") as alice, league_site.client("bob") as bob, \
            league_site.client("admin") as admin, league_site.client() as anonymous:
        mine = alice.get(url, params={"seat": a, "step": 3})
        assert mine.status_code == 200 and mine.headers["content-type"] == "image/svg+xml"
        assert mine.headers["cache-control"] == "private, no-store"
        assert alice.get(url, params={"step": 3}).text == mine.text  # no seat: her own, as her page shows
        assert bob.get(url, params={"seat": b, "step": 3}).status_code == 200
        for client, seat in ((alice, b), (bob, a), (admin, a), (anonymous, a), (anonymous, b)):
            refused = client.get(url, params={"seat": seat, "step": 3})
            assert refused.status_code == 403 and "owner of the bot" in refused.text
        for client in (alice, bob, admin, anonymous):  # the full table: nobody before the cycle is stored
            assert client.get(url, params={"seat": "all"}).status_code == 403
        assert anonymous.get(url).status_code == 403
        assert anonymous.get(url, params={"seat": 7}).status_code == 404

        public = f"/games/{games[0][0]}/table.svg"
        full = anonymous.get(public, params={"seat": "all", "step": 3})
        assert full.status_code == 200 and "private" not in full.headers.get("cache-control", "")
        assert anonymous.get(public, params={"step": 3}).text == full.text  # no seat: the full table
        assert anonymous.get(public, params={"seat": a, "step": 3}).text == mine.text  # the same picture for all


def test_a_seats_drawing_shows_no_card_it_may_not_know(league_site, games):
    public, _, seats = games
    with league_site.client() as anonymous:
        last = len(anonymous.get(f"/api/v1/games/{public[1]}/replay", params={"seat": 0}).json()["steps"]) - 1
        for seat in range(3):
            replay = anonymous.get(f"/api/v1/games/{public[1]}/replay", params={"seat": seat}).json()
            for step in (0, last // 2, last):
                drawn = anonymous.get(f"/games/{public[1]}/table.svg", params={"seat": seat, "step": step}).text
                known = strings(replay["steps"][step]["view"])
                assert faces(drawn) and not faces(drawn) - known, (seat, step)  # every face drawn is in its view
                if step == 0:  # the full table shows the others' hands, the seat's drawing their backs
                    every = anonymous.get(f"/games/{public[1]}/table.svg", params={"seat": "all", "step": 0}).text
                    assert sum(faces(every).values()) > sum(faces(drawn).values())
                    assert '<g class="card back">' in drawn


def test_a_step_downloads_as_a_file_with_hostile_names_escaped(league_site, games):
    public, _, seats = games
    with league_site.client() as anonymous:
        last = len(anonymous.get(f"/api/v1/games/{public[0]}/replay").json()["steps"]) - 1
        saved = anonymous.get(f"/games/{public[0]}/table.svg", params={"seat": "all", "step": last, "download": 1})
        assert saved.headers["content-disposition"] == f'attachment; filename="game-{public[0]}-full-step{last}.svg"'
        assert "content-disposition" not in anonymous.get(f"/games/{public[0]}/table.svg").headers
        assert saved.headers["content-encoding"] == "gzip"  # sent a fourth of its size or less
        assert len(saved.content) > 4 * int(saved.headers["content-length"])
        ElementTree.fromstring(saved.text)  # well-formed: nothing a bot's name held broke out
        assert "<script" not in saved.text and "&lt;script&gt;" in saved.text  # the hostile bot, named
        narrow = anonymous.get(f"/games/{public[0]}/table.svg", params={"step": last, "narrow": 1}).text
        assert narrow != saved.text and faces(narrow) == faces(saved.text)


def test_the_replay_page_says_the_game_in_words_as_its_seat_may_know_it(league_site, games):
    public, _, seats = games
    spec = get_game("prohis")
    with league_site.client() as anonymous:
        page = anonymous.get(f"/games/{public[0]}").text
        title = re.search(r'<h1 id="game-title">(.*?)</h1>', page, re.S)[1]
        with league_site.store() as session:  # 3, or 4 once test_hidden.py has added a game to the match
            count = len(session.get_one(Match, session.get_one(Game, public[0]).match_id).games)
        assert re.sub(r"<[^>]+>", "", title).startswith(f"Game {public[0]} · the 1st of {count} games of match ")
        assert f"<title>Game {public[0]} · 1st of match" in page and "Game 0" not in page
        assert 'id="summary"' in page and 'id="breakdown"' in page  # the end: its ranks, its scoring
        assert HOSTILE not in page and "&lt;script&gt;alert(1)&lt;/script&gt;@prohis" in page
        assert '<img id="picture" src="/games/' in page and "download=1" in page
        replay = anonymous.get(f"/api/v1/games/{public[0]}/replay", params={"seat": 0}).json()
        told = anonymous.get(f"/api/v1/games/{public[0]}/replay", params={"seat": "all"}).json()
        secret = 0
        for mine, every in zip(replay["steps"][:-1], told["steps"][:-1], strict=True):
            own = mine["seat"] == 0
            assert mine["said"] == spec.describe_action(mine["action"], own)  # another seat's: what all know
            assert every["said"] == spec.describe_action(every["action"], True)
            if not own and mine["said"] != every["said"]:
                secret += 1
                shown = anonymous.get(f"/games/{public[0]}", params={"seat": 0, "step": mine["step"]}).text
                head = re.search(r'<p class="step-head" id="step-head">(.*?)</p>', shown, re.S)[1]
                assert mine["said"] in head and every["said"] not in head and mine["action"] not in head
        assert secret > 0  # a convoy of another seat's was played, and its cards left unsaid
        first = anonymous.get(f"/games/{public[0]}", params={"seat": 0, "step": 0}).text
        assert '<dd data-field="inspector">nobody</dd>' in first
