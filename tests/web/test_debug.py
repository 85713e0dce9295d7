"""Issue 31 point 4: a bot's debug text per decision is its owner's alone.

A real match (the referee in this process, local bots): alice's and bob's bots each send a debug
text with every decision (tests/bots/debugger.py, tagged with their owner's name in capitals),
beside the operator's built-in bot. Its games are stored as a league stores them, once with their
duplicate cycle complete (public) and once with it open. Then every page and endpoint that shows
the game is asked by each of alice, bob, an admin and nobody:

- the owner's replay has, beside each of its seat's steps, exactly the text the record keeps for
  that decision (and the record exactly what the referee made of what the bot sent);
- no answer to anyone else holds a byte of it: not the other author's, not an admin's, not the
  public's, public game or not; and every answer that holds some is ``private, no-store``.
"""

from __future__ import annotations

import gzip
import sys
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from arena.bots.registry import register_bot
from arena.league import create_league
from arena.league.schedule import ScheduleOptions
from arena.store import Bot, Game, League, Match, User
from referee.match import run_match
from referee.records import read_record
from referee.spec import parse_spec

from .conftest import Site, new_site

ROOT = Path(__file__).resolve().parents[2]
DEBUGGER = ROOT / "tests/bots/debugger.py"
OWNERS = ("alice", "bob", None)
TAGS = ("ALICE-SAYS", "BOB-SAYS")


def play_and_store(site: Site, league: str, public: bool) -> tuple[int, list[int], list[dict]]:
    """The match, stored in ``league``: (its id, its games' ids, its result's games)."""
    out = site.runs_dir / league
    out.mkdir(parents=True)
    names = [f"alices-{league}", f"bobs-{league}", f"house-{league}"]
    spec = parse_spec({
        "match_id": league, "game": "prohis", "games": 3, "secret": "5b" * 16, "duplicate": False,
        "bots": [{"name": f"{names[0]}@1", "command": [sys.executable, str(DEBUGGER), "kit", TAGS[0]]},
                 {"name": f"{names[1]}@1", "command": [sys.executable, str(DEBUGGER), "kit", TAGS[1]]},
                 {"name": f"{names[2]}@1", "builtin": "random"}],
        "time": {"startup_ms": 30000, "decision_ms": 10000, "bank_ms": 60000},
    })
    result = run_match(spec, out)
    create_league(site.store, league, "prohis", 3, {}, ScheduleOptions(), secret="5b" * 16)
    ids = []
    for name, owner in zip(names, OWNERS, strict=True):
        bot = register_bot(site.store, name=name, version="1", image="local", image_digest="", language="python",
                           author="x", games=["prohis"], league=league)
        ids.append(bot.id)
        if owner:
            with site.store() as session, session.begin():
                session.get_one(Bot, bot.id).owner_id = session.scalar(select(User.id).where(User.name == owner))
    with site.store() as session, session.begin():
        league_id = session.scalar(select(League.id).where(League.name == league))
        table = ",".join(map(str, sorted(ids)))
        match = Match(league_id=league_id, round=0, table=table, bots=ids, record_dir=str(out),
                      restarts=[0, 0, 0], started_at=datetime.now(UTC))
        session.add(match)
        session.flush()
        stored = [Game(match_id=match.id, index=g["index"], seed=str(g["seed"]), deal=g["deal"],
                       seats=[ids[b] for b in g["bots"]], scores=g["scores"], ranks=g["ranks"],
                       failures=g["failures"], record_path=str(out / g["record"])) for g in result["games"]]
        session.add_all(stored)
        if public:  # the rest of its cycle stored: its games are public
            session.add_all(Match(league_id=league_id, round=r, table=table, bots=ids, record_dir=str(out),
                                  restarts=[0, 0, 0], started_at=match.started_at) for r in (1, 2))
        session.flush()
        return match.id, [g.id for g in stored], result["games"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with new_site(tmp_path_factory.mktemp("debug-site")) as site:
        site.played = {public: play_and_store(site, f"debug-{'public' if public else 'open'}", public)
                       for public in (True, False)}
        yield site


def answers(client: httpx.Client, match_id: int, game_id: int) -> dict[str, httpx.Response]:
    """Every page and endpoint that shows the game or its match, as ``client`` gets them."""
    urls = [f"/games/{game_id}", f"/api/v1/games/{game_id}", f"/matches/{match_id}", f"/api/v1/matches/{match_id}",
            f"/games/{game_id}?seat=all", f"/api/v1/games/{game_id}/replay", f"/api/v1/games/{game_id}/replay?seat=all"]
    for seat in range(3):
        urls += [f"/games/{game_id}?seat={seat}", f"/api/v1/games/{game_id}/replay?seat={seat}",
                 f"/api/v1/games/{game_id}/replay?seat={seat}&step=5"]
        urls += [f"/games/{game_id}?seat={seat}&step={k}" for k in (0, 1, 2, 3)]
    out = {url: client.get(url) for url in urls}
    zipped = client.get(f"/api/v1/games/{game_id}/replay?seat=all", headers={"accept-encoding": "gzip"})
    out["gzip"] = zipped  # httpx unzips it: the text is what a browser reads
    return out


@pytest.mark.parametrize("public", [True, False])
@pytest.mark.parametrize("who", ["alice", "bob", "admin", None])
def test_no_answer_holds_another_seats_debug_text(site, public, who):
    match_id, game_ids, games = site.played[public]
    mine = {"alice": TAGS[0], "bob": TAGS[1]}.get(who or "")
    with site.client(who) as client:
        for game_id in game_ids:
            for url, reply in answers(client, match_id, game_id).items():
                assert reply.status_code in (200, 403), (url, reply.status_code, reply.text[:200])
                for tag in TAGS:
                    if tag != mine:
                        assert tag not in reply.text, (who, url)
                if mine and mine in reply.text:
                    assert "no-store" in reply.headers.get("cache-control", ""), url


@pytest.mark.parametrize("public", [True, False])
@pytest.mark.parametrize("owner, bot", [("alice", 0), ("bob", 1)])
def test_the_owners_replay_has_its_debug_text_beside_each_of_its_steps(site, public, owner, bot):
    match_id, game_ids, games = site.played[public]
    with site.client(owner) as client:
        for game_id, game in zip(game_ids, games, strict=True):
            record = read_record(site.runs_dir / f"debug-{'public' if public else 'open'}" / game["record"])
            seat = game["bots"].index(bot)
            views = [seat, "all"] if public else [seat]
            for view in views:
                replay = client.get(f"/api/v1/games/{game_id}/replay", params={"seat": view})
                assert replay.status_code == 200 and "no-store" in replay.headers["cache-control"]
                data = replay.json()
                assert data["debug_seats"] == [seat]
                steps = data["steps"]
                ours = [s["debug"] for s in steps if s["seat"] == seat and not s["end"]]
                assert ours == [d["debug"] for d in record.decisions if d["seat"] == seat]
                assert all(s["debug"] is None for s in steps if s["seat"] != seat)
                assert all(text.startswith(f"{TAGS[bot]} seat {seat} decision ") for text in ours)
            page = client.get(f"/games/{game_id}", params={"seat": seat, "step": next(
                s["step"] for s in steps if s["seat"] == seat and s["debug"] and "evil" in s["debug"])}).text
            assert 'id="step-debug"' in page and "evil&lt;i&gt;html&lt;/i&gt;" in page and "<i>html" not in page
            assert "\x1b" not in page and "\u202e" not in page


def test_a_public_replay_without_debug_texts_is_as_before(site):
    """Nobody's debug text in it: no ``debug`` key, no ``debug_seats``, cacheable as public games are."""
    match_id, game_ids, games = site.played[True]
    with site.client() as anonymous:
        reply = anonymous.get(f"/api/v1/games/{game_ids[0]}/replay", params={"seat": "all"})
        assert reply.status_code == 200 and "no-store" not in reply.headers.get("cache-control", "")
        data = reply.json()
        assert "debug_seats" not in data and all("debug" not in s for s in data["steps"])
        assert gzip.decompress(gzip.compress(reply.content)) == reply.content


def test_the_viewer_shows_each_steps_debug_text_beside_it_in_the_browser(site, browser):
    """Chromium, signed in as alice, on a public game's full table: stepping with the keys, each of
    her seat's steps shows its debug text (as text: the markup in it is not markup) and the others'
    steps none, as the API gives them; bob's replay of the same game shows none of hers."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from .conftest import screenshot, sign_in, wait_for

    match_id, game_ids, games = site.played[True]
    seat = games[0]["bots"].index(0)
    driver = browser
    sign_in(driver, site.url, "alice")
    driver.get(f"{site.url}/games/{game_ids[0]}?seat=all&step=0")
    wait_for(driver, lambda d: d.find_element(By.ID, "replay").get_attribute("data-ready") == "true",
             "the replay viewer to load")
    with site.client("alice") as alice:
        steps = alice.get(f"/api/v1/games/{game_ids[0]}/replay", params={"seat": "all"}).json()["steps"]
    evil = next(s["step"] for s in steps if s["debug"] and "evil" in s["debug"])
    for k in range(evil + 2):
        wait_for(driver, lambda d, k=k: d.find_element(By.ID, "table").get_attribute("data-step") == str(k),
                 f"step {k}")
        shown = driver.find_elements(By.CSS_SELECTOR, "#step-debug pre.debug-text")
        if steps[k]["seat"] == seat:
            assert [e.get_attribute("textContent") for e in shown] == [steps[k]["debug"]], k
            assert not driver.find_elements(By.CSS_SELECTOR, "#step-debug i")
        else:
            assert shown == [], k
        if k == evil:
            screenshot(driver, "replay-debug")
        ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
    sign_in(driver, site.url, "bob")
    driver.get(f"{site.url}/games/{game_ids[0]}?seat=all&step={evil}")
    wait_for(driver, lambda d: d.find_element(By.ID, "replay").get_attribute("data-ready") == "true",
             "the replay viewer to load")
    assert TAGS[0] not in driver.page_source
