"""Issue 15 point 5: hidden information never leaves the server early, and a bot's output is its
owner's.

- A finished game's replay for seat S is, step by step, what the referee sent S: a bot that keeps
  every byte it receives (tests/bots/capture.py) plays a real match, and each decision request it
  got is rebuilt byte for byte from the API's steps.
- A running game: a real league of our own, played in containers by the league runner in a
  thread of this process while the tests ask, its match slowed by a bot that thinks (tests/bots/
  thinker.py with a heavy workload). Real is the point: the runner's live row, the record written
  line by line as decisions are made, and the server reading it, all as in production.
- Another author's token, and no token, get neither a seat's view nor the full table of a running
  game, nor a bot's output; the owner gets both. Once stored, the game stays hidden until its
  whole duplicate cycle is (tests/web/test_cycles.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time

import pytest
from selenium.webdriver.common.by import By
from sqlalchemy import select

from arena.bots.images import PYTHON_BASE
from arena.bots.registry import register_bot
from arena.league import create_league, live
from arena.league.runner import run_league
from arena.league.schedule import ScheduleOptions
from arena.store import Bot, Game, League, LiveMatch, Match, User
from arena_games import GAMES, get_game
from arena_protocol import codec
from arena_protocol.proto import arena_pb2 as pb
from referee.records import read_record

from ..docker_fixtures import ROOT, TEST_IMAGES
from .conftest import sign_in, wait_for
from .local_match import local_match

THINK_WORK = 4_000_000  # loop iterations per decision: a few hundred ms of CPU
THINK_SECONDS = 30  # then quickly: the checks need game 0 running (about 20 s), not the whole match


# -- what a seat was sent ---------------------------------------------------------------------------
def captured_games(capture: list[dict]) -> dict[int, dict]:
    """What the capture bot received, by game: its seat, each decision request (raw bytes and
    message) and the game's end."""
    games: dict[int, dict] = {}
    current: dict | None = None
    for line in capture:
        if line["kind"] == "process":
            continue
        raw = bytes.fromhex(line["bytes"])
        message = pb.RefereeMessage.FromString(raw)
        if line["kind"] == "game_start":
            current = games[message.game_start.game_index] = {"seat": message.game_start.seat, "decisions": [],
                                                               "end": None}
        elif line["kind"] == "decision":
            assert current is not None, "a decision before any game_start"
            current["decisions"].append((raw, message))
        elif line["kind"] == "game_end":
            assert current is not None, "a game_end before any game_start"
            current["end"] = message
    return games


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_finished_games_replay_for_a_seat_is_what_the_referee_sent_that_seat(league_site, game):
    played = local_match(league_site, game)
    sent_to = captured_games(played.capture)
    assert sorted(sent_to) == [0, 1, 2]
    with league_site.client() as anonymous:  # a finished game is public
        for index, game_id in enumerate(played.game_ids):
            got, seat = sent_to[index], sent_to[index]["seat"]
            reply = anonymous.get(f"/api/v1/games/{game_id}/replay", params={"seat": seat})
            assert reply.status_code == 200, reply.text
            steps = reply.json()["steps"]
            sent = [s for s in steps if s["sent"]]
            assert [s["step"] for s in sent] == [s["step"] for s in steps if s["seat"] == seat]
            assert len(sent) == len(got["decisions"]) > 0
            for step, (raw, message) in zip(sent, got["decisions"], strict=True):
                asked = message.decision
                assert codec.decode_view(asked.view, asked.events) == step["view"]
                view, events = codec.view_kwargs(step["view"])
                rebuilt = pb.RefereeMessage(decision={  # as referee/seats.py builds a request
                    "decision_id": asked.decision_id, "view": view, "events": events,
                    "legal_actions": [codec.encode_action(game, a) for a in step["legal"]],
                    "time_left_ms": asked.time_left_ms, "bank_left_ms": asked.bank_left_ms,
                    "match_bank_left_ms": asked.match_bank_left_ms})
                assert rebuilt.SerializeToString() == raw, f"game {index} step {step['step']}"
            end = steps[-1]
            assert end["end"] and not end["sent"] and end["view"]["phase"] == "over"
            told = [e.SerializeToString() for e in got["end"].game_end.events]
            assert told == [e.SerializeToString() for e in codec.encode_events(game, end["view"]["events"])]


def test_the_full_table_is_every_seats_view_at_every_step(league_site):
    played = local_match(league_site, "prohis")
    with league_site.client() as anonymous:
        table = anonymous.get(f"/api/v1/games/{played.game_ids[0]}/replay", params={"seat": "all"}).json()
        assert table["seat"] == "all" and table["over"]
        for seat in range(3):
            mine = anonymous.get(f"/api/v1/games/{played.game_ids[0]}/replay", params={"seat": seat}).json()
            assert [s["views"][seat] for s in table["steps"]] == [s["view"] for s in mine["steps"]]
            assert [s["action"] for s in table["steps"]] == [s["action"] for s in mine["steps"]]


# -- a bot's output ---------------------------------------------------------------------------------
def test_a_bots_output_is_served_to_its_owner_only_as_plain_text(league_site):
    played = local_match(league_site, "prohis")  # the recorder (bot 1, bob's) prints what it is dealt
    url = f"/api/v1/matches/{played.match_id}/output/1"
    with league_site.client("bob") as bob:
        reply = bob.get(url)
        assert reply.status_code == 200
        assert reply.headers["content-type"] == "text/plain; charset=utf-8"
        assert reply.headers["x-content-type-options"] == "nosniff" and "no-store" in reply.headers["cache-control"]
        assert reply.text.count("DEALT ") == 3
        page = bob.get(f"/games/{played.game_ids[0]}").text
        assert f'href="{url}"' in page
    for who in ("alice", "admin", None):  # another author, an admin, anonymous: as if there were none
        with league_site.client(who) as other:
            refused = other.get(url)
            assert refused.status_code == 404, who
            missing = other.get(f"/api/v1/matches/{played.match_id}/output/7")  # a bot the match does not have
            assert refused.json()["detail"] == missing.json()["detail"].replace("bot 7", "bot 1")
            assert url not in other.get(f"/games/{played.game_ids[0]}").text
            assert url not in other.get(f"/matches/{played.match_id}").text


def test_a_failures_detail_is_its_bots_owners_only(league_site):
    """A failure's detail may quote the bot's last output (a crash's last lines): it is shown to
    the bot's owner only; that the seat failed, and why, to everyone once the game is over."""
    played = local_match(league_site, "prohis")
    lines = (played.out / "game-000.jsonl").read_text().splitlines()
    crash = {"type": "failure", "seat": 0, "reason": "crash", "at": "decision",
             "detail": "exit code 1; its last output: MY SECRET PLAN"}
    copy = played.out / "game-crashed.jsonl"  # game 0's record, as if seat 0 had crashed
    copy.write_text("\n".join([lines[0], json.dumps(crash), *lines[1:]]) + "\n")
    with league_site.store() as session, session.begin():
        original = session.get(Game, played.game_ids[0])
        assert original.seats[0] == played.bots[0]  # the capture bot: alice's
        game = Game(match_id=original.match_id, index=99, seed=original.seed, deal=original.deal,
                    seats=original.seats, scores=original.scores, ranks=original.ranks,
                    failures=["crash", "", ""], record_path=str(copy))
        session.add(game)
        session.flush()
        game_id = game.id
    with league_site.client("alice") as alice:
        answer = alice.get(f"/api/v1/games/{game_id}").json()
        assert answer["failures"] == [{"seat": 0, "reason": "crash", "at": "decision", "detail": crash["detail"]}]
        assert "MY SECRET PLAN" in alice.get(f"/games/{game_id}").text
    for who in ("bob", "admin", None):
        with league_site.client(who) as other:
            answer = other.get(f"/api/v1/games/{game_id}").json()
            assert answer["failures"] == [{"seat": 0, "reason": "crash", "at": "decision", "detail": None}]
            assert answer["seats"][0]["failure"] == "crash"
            assert "MY SECRET PLAN" not in other.get(f"/games/{game_id}").text


def test_a_live_row_of_a_dead_process_is_ignored(league_site):
    played = local_match(league_site, "boss")
    dead = subprocess.Popen(["true"])
    dead.wait()
    with league_site.store() as session, session.begin():
        match = session.get(Match, played.match_id)
        session.add(LiveMatch(league_id=match.league_id, round=1, table=match.table, bots=match.bots,
                              record_dir=str(played.out), host=live.HOST, pid=dead.pid))
    with league_site.client() as anonymous:
        assert anonymous.get(f"/api/v1/leagues/{played.league}/live").json()["matches"] == []
        assert anonymous.get(f"/api/v1/games/{played.game_ids[0]}/replay").status_code == 200
    with league_site.store() as session:
        league_id = session.scalar(select(League.id).where(League.name == played.league))
    assert live.clear_stale(league_site.store, league_id) == 1


# -- a game being played ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def thinker_image(docker_client) -> str:
    """tests/bots/thinker.py, thinking hard at every decision, on the Python base image."""
    import tempfile
    from pathlib import Path

    tag = f"{TEST_IMAGES}/slow-thinker:1"
    with tempfile.TemporaryDirectory() as context:
        shutil.copy(ROOT / "tests" / "bots" / "thinker.py", Path(context) / "thinker.py")
        (Path(context) / "Dockerfile").write_text(
            f'FROM {PYTHON_BASE.tag}\nENV PYTHONDONTWRITEBYTECODE=1\nCOPY thinker.py /bot/thinker.py\n'
            f'CMD ["python3", "/bot/thinker.py", "{THINK_WORK}", "{THINK_SECONDS}"]\n')
        docker_client.images.build(path=context, tag=tag, rm=True, forcerm=True)
    return tag


def test_a_running_games_hidden_cards_reach_only_its_seats_owner(league_site, docker_client, sample_images,
                                                                  thinker_image, browser):
    site, name = league_site, "live-replays"
    store = site.store
    create_league(store, name, "prohis", 3, {}, ScheduleOptions(deals=1, decision_ms=10_000, bank_ms=60_000),
                  secret="3c" * 16)
    bots = {"alice": ("thinker-live", thinker_image), "bob": ("random-live", sample_images["random"]),
            None: ("first-live", sample_images["first_legal"])}
    for owner, (bot_name, image) in bots.items():
        bot = register_bot(store, name=bot_name, version="1", image=image, language="python", author="tests",
                           image_digest=docker_client.images.get(image).id, games=["prohis"], league=name)
        if owner:
            with store() as session, session.begin():
                session.get(Bot, bot.id).owner_id = session.scalar(select(User.id).where(User.name == owner))
    with store() as session, session.begin():  # a row a killed run left: the next run clears it
        league_id = session.scalar(select(League.id).where(League.name == name))
        dead = subprocess.Popen(["true"])
        dead.wait()
        session.add(LiveMatch(league_id=league_id, round=7, table="1,2,3", bots=[1, 2, 3], record_dir="/nonexistent",
                              host=live.HOST, pid=dead.pid))
    outcome: dict = {}
    runner = threading.Thread(target=lambda: outcome.update(summary=run_league(store, name, rounds=1, jobs=1,
                                                                                  runs_dir=site.runs_dir)))
    runner.start()
    try:
        with site.client("alice") as alice, site.client("bob") as bob, site.client("admin") as admin, \
                site.client() as anonymous:
            match, game = wait_for_a_running_game(alice, name)  # its progress: to its bots' owners
            seen = anonymous.get(f"/api/v1/leagues/{name}/live").json()["matches"][0]["games"]
            assert [(g["decisions"], g["scores"]) for g in seen] == [(None, None)] * len(seen)
            with store() as session:
                rows = session.scalars(select(LiveMatch).where(LiveMatch.league_id == league_id)).all()
            assert [(r.round, r.host, r.pid) for r in rows] == [(0, live.HOST, os.getpid())]  # the stale row is gone
            base = f"/api/v1/leagues/{name}/live/0/{match['table']}/games/{game['index']}"
            seats = anonymous.get(base).json()["seats"]
            owner = {s["owner"]: s["seat"] for s in seats}
            a, b = owner["alice"], owner["bob"]
            assert [s["visible"] for s in seats] == [False] * 3
            assert [s["visible"] for s in alice.get(base).json()["seats"]] == [s == a for s in range(3)]

            for _ in range(300):  # until alice's bot has made a decision of the game, seen from its seat
                mine = alice.get(f"{base}/replay", params={"seat": a})
                assert mine.status_code == 200 and "no-store" in mine.headers["cache-control"]
                replay = mine.json()
                if any(s["seat"] == a for s in replay["steps"][:-1]):
                    break
                time.sleep(0.1)
            assert not replay["over"] and replay["steps"][-1]["pending"]
            assert all("views" not in s and s["view"]["seat"] == a for s in replay["steps"])
            assert all(s["action"] is None and s["ms"] is None for s in replay["steps"] if s["seat"] != a)
            assert all(s["action"] and s["ms"] is not None for s in replay["steps"][:-1] if s["seat"] == a)
            check_views_are_the_seats(site, name, match["table"], game["index"], replay, a)
            assert bob.get(f"{base}/replay", params={"seat": b}).status_code == 200

            for client, seat in ((alice, b), (bob, a), (admin, a), (admin, b), (anonymous, a), (anonymous, b)):
                refused = client.get(f"{base}/replay", params={"seat": seat})
                assert refused.status_code == 403 and "owner" in refused.json()["detail"]
            for client in (alice, bob, admin, anonymous):  # the full table: nobody, admins included
                assert client.get(f"{base}/replay", params={"seat": "all"}).status_code == 403
                assert client.get(f"{base}/replay").status_code == 403

            page = base.removeprefix("/api/v1")
            for client in (admin, anonymous):
                html = client.get(page).text
                assert 'id="no-view"' in html and "data-card" not in html and 'id="decisions"' not in html
            html = alice.get(page).text
            assert f'<section class="view" data-seat="{a}">' in html and "data-card" in html
            assert f'data-seat="{b}"' not in html
            assert bob.get(page, params={"seat": a}).status_code == 403
            # the drawn table: the same rules, the same secrecy (tests/web/test_table_svg.py for a stored game)
            drawn = alice.get(f"{page}/table.svg", params={"seat": a})
            assert drawn.status_code == 200 and drawn.headers["content-type"] == "image/svg+xml"
            assert "no-store" in drawn.headers["cache-control"] and 'id="picture"' in html
            for client, seat in ((alice, b), (bob, a), (admin, a), (anonymous, a)):
                assert client.get(f"{page}/table.svg", params={"seat": seat}).status_code == 403
            for client in (alice, admin, anonymous):
                assert client.get(f"{page}/table.svg", params={"seat": "all"}).status_code == 403
            assert anonymous.get(f"{page}/table.svg").status_code == 403
            assert f"/live/0/{match['table']}/games/{game['index']}" in anonymous.get(f"/leagues/{name}/live").text
            # the league's live page draws it for her, as her seat sees it, and for nobody else
            assert f'<img src="{page}/table.svg?seat={a}"' in alice.get(f"/leagues/{name}/live").text
            assert "data-live-picture" not in anonymous.get(f"/leagues/{name}/live").text
            # all of that while the game was still being played
            assert not anonymous.get(base).json()["over"]
            # in Chromium, her page follows the game as it is played: no reload, the picture at its last step
            sign_in(browser, site.url, "alice")
            browser.get(f"{site.url}{page}?seat={a}")
            wait_for(browser, lambda d: d.find_element(By.ID, "replay").get_attribute("data-ready") == "true",
                     "the live replay viewer")
            browser.execute_script("window.notReloaded = true")
            first = int(browser.find_element(By.ID, "last").text)
            wait_for(browser, lambda d: int(d.find_element(By.ID, "last").text) > first, "a new decision", seconds=15)
            assert browser.execute_script("return window.notReloaded === true")
            last = browser.find_element(By.ID, "last").text
            wait_for(browser, lambda d: d.find_element(By.ID, "picture").get_attribute("src").endswith(f"step={last}")
                     or int(d.find_element(By.ID, "last").text) > int(last), "the picture to follow")
    finally:
        runner.join(600)
    assert outcome["summary"].games_run == 3
    with store() as session:
        assert session.scalars(select(LiveMatch).where(LiveMatch.league_id == league_id)).all() == []
    with site.client() as anonymous, site.client("alice") as alice:
        # stored: the game's live address leads to it; hidden still, its cycle has 1 of 3 matches stored
        moved = anonymous.get(f"/leagues/{name}/live/0/{match['table']}/games/{game['index']}")
        assert moved.status_code == 303 and moved.headers["location"].startswith("/games/")
        svg = anonymous.get(f"/leagues/{name}/live/0/{match['table']}/games/{game['index']}/table.svg?seat={a}")
        assert svg.status_code == 307 and svg.headers["location"] == f"{moved.headers['location']}/table.svg?seat={a}"
        live_api = f"/api/v1/leagues/{name}/live/0/{match['table']}/games/{game['index']}"
        game_api = anonymous.get(live_api, params={"seat": a})  # the game's own answer takes no seat
        assert game_api.status_code == 307 and game_api.headers["location"] == f"/api/v1{moved.headers['location']}"
        replay_api = anonymous.get(f"{live_api}/replay", params={"seat": a})
        assert replay_api.status_code == 307
        assert replay_api.headers["location"] == f"/api/v1{moved.headers['location']}/replay?seat={a}"
        assert anonymous.get(f"/api/v1{moved.headers['location']}/replay", params={"seat": "all"}).status_code == 403
        assert alice.get(f"/api/v1{moved.headers['location']}/replay", params={"seat": a}).status_code == 200
        assert "1 of its 3 matches stored" in anonymous.get(moved.headers["location"]).text
        assert anonymous.get(f"/api/v1/leagues/{name}/live").json()["matches"] == []


def wait_for_a_running_game(client, league: str, seconds: float = 240) -> tuple[dict, dict]:
    """The league's match being played and one of its games a few decisions in."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for match in client.get(f"/api/v1/leagues/{league}/live").json()["matches"]:
            for game in match["games"]:
                if not game["over"] and game["decisions"] >= 4:
                    return match, game
        time.sleep(0.2)
    raise AssertionError(f"no game of league {league} was seen being played")


def check_views_are_the_seats(site, league: str, table: str, index: int, replay: dict, seat: int) -> None:
    """Each step's view is the engine's view of ``seat`` at that point (views are tested by
    perturbation in tests/games: nothing hidden from a seat changes its bytes), rebuilt here from
    the record being written, and its hand is whole: its own, and nobody else's."""
    with site.store() as session:
        row = session.scalar(select(LiveMatch).join(League, League.id == LiveMatch.league_id)
                             .where(League.name == league, LiveMatch.table == table))
        record = read_record(f"{row.record_dir}/game-{index:03d}.jsonl", growing=True)
    h = record.header
    state = get_game(h["game"]).new_game(h["num_players"], h["seed"], h["settings"])
    for step, decision in zip(replay["steps"], record.decisions[: replay["decisions"]] + [None], strict=True):
        assert step["view"] == json.loads(json.dumps(state.view(seat))), f"step {step['step']}"
        assert len(step["view"]["hand"]) == step["view"]["players"][seat]["hand_size"]
        assert "unknown" not in step["view"]["hand"]
        if decision is not None:
            state.apply(decision["action"])
