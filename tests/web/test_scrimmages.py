"""Issue 31 point 3: scrimmages, end to end on a real server (league_site: real HTTP, a real store,
matches played in Docker containers by the server's own scrimmage player).

alice asks for a scrimmage of her ``random`` against bob's ``prohis-heuristic`` and an operator's
bot of a league of its own; the tests check that it is one duplicate cycle by default, that it
changes no rating, leaderboard or league (``arena ratings rebuild`` and the leaderboards are the
same before and after), who sees what (her seat byte for byte the engine's view of that seat,
nobody's full table, bob his own seat), every refusal with nothing half-created, the quotas'
429, the CSRF check of the form, and ``arena scrimmage`` from a terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from sqlalchemy import func, select, update

from arena.accounts import Account, add_user, issue_token
from arena.bots.registry import register_bot
from arena.cli import main as arena
from arena.league import create_league
from arena.league.schedule import ScheduleOptions
from arena.schemas.scrimmages import ScrimmageOut
from arena.scrimmage import Quota, ScrimmageError, create_scrimmage
from arena.store import Bot, Game, League, Match, Notification, Rating, RatingHistory, Scrimmage, ScrimmageGame, User
from arena.store.models import now
from arena.web import WebSettings, create_app
from arena_games import get_game
from referee.records import read_record

from .conftest import csrf_of, live_server

LEAGUE = "scrim"  # a league of the operator's bots of our own: the "web" league stays as the others see it
OPERATOR_BOTS = ("scrim-op", "scrim-op2", "scrim-op3")


def wait_done(client, scrimmage: dict[str, Any], seconds: float = 600) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while scrimmage["status"] not in ("done", "failed"):
        assert time.monotonic() < deadline, f"scrimmage {scrimmage['id']} not over in {seconds} s: {scrimmage}"
        time.sleep(0.5)
        reply = client.get(scrimmage["api_url"])
        assert reply.status_code == 200, reply.text
        scrimmage = reply.json()
    return scrimmage


def unrated_state(site) -> dict[str, Any]:
    """Everything a scrimmage must leave alone: both leaderboards' JSON, `arena ratings rebuild`'s
    output and the ratings it writes, the rating history, every league's matches and games."""
    out: dict[str, Any] = {}
    with site.client() as anonymous:
        for league in ("web", LEAGUE):
            out[f"board {league}"] = anonymous.get(f"/api/v1/leagues/{league}/leaderboard").content
    db = f"sqlite:///{site.runs_dir.parent}/arena.db"
    for league in ("web", LEAGUE):
        result = CliRunner().invoke(arena, ["ratings", "rebuild", league, "--db", db], prog_name="arena")
        assert result.exit_code == 0, result.output
        out[f"rebuild {league}"] = result.output
        board = CliRunner().invoke(arena, ["leaderboard", league, "--json", "--db", db], prog_name="arena")
        out[f"leaderboard {league}"] = board.output
    with site.store() as session:
        out["ratings"] = sorted(session.execute(select(Rating.league_id, Rating.bot_id, Rating.mu, Rating.sigma,
                                                       Rating.games)).all())
        out["history"] = sorted(session.execute(select(RatingHistory.league_id, RatingHistory.bot_id,
                                                       RatingHistory.game_id, RatingHistory.mu)).all())
        out["matches"] = sorted(session.execute(select(Match.id, Match.league_id, Match.round, Match.table)).all())
        out["games"] = session.scalar(select(func.count()).select_from(Game))
    return out


_made: dict[int, dict[str, Any]] = {}  # by store: made once per session, whichever module asks first


@pytest.fixture
def scrim(league_site, docker_client, sample_images):
    """The operator's bots of league ``scrim`` (the random sample's image, under names of their
    own; one more retired), and alice's default scrimmage against bob's bot and one of them, played
    while the tests wait, with the state of the ratings before and after."""
    if id(league_site.store) not in _made:
        _made[id(league_site.store)] = _scrim(league_site, docker_client, sample_images)
    return _made[id(league_site.store)]


def _scrim(site, docker_client, sample_images) -> dict[str, Any]:
    create_league(site.store, LEAGUE, "prohis", 3, {}, ScheduleOptions())
    image = sample_images["random"]
    digest = docker_client.images.get(image).id
    for name in (*OPERATOR_BOTS, "scrim-retired"):
        register_bot(site.store, name=name, version="1", image=image, image_digest=digest, language="python",
                     author="operator", games=[], league=LEAGUE)
    with site.store() as session, session.begin():
        session.execute(update(Bot).where(Bot.name == "scrim-retired").values(retired_at=now()))
    before = unrated_state(site)
    with site.client("alice") as alice:
        asked = time.monotonic()
        reply = alice.post("/api/v1/scrimmages", json={"bot": "random", "opponents": ["prohis-heuristic", "scrim-op"]})
        assert reply.status_code == 201, reply.text
        first = reply.json()
        assert first["status"] in ("queued", "running") and reply.headers["cache-control"] == "private, no-store"
        done = wait_done(alice, first)
    print(f"\nscrimmage of {done['games']} games: {time.monotonic() - asked:.1f} s")
    return {"site": site, "first": first, "done": done, "before": before, "after": unrated_state(site)}


def test_by_default_it_is_one_duplicate_cycle_of_the_leagues_game(scrim):
    done, site = scrim["done"], scrim["site"]
    assert done["status"] == "done" and done["error"] == "", done
    assert done["game"] == "prohis" and done["players"] == 3 and done["games"] == done["played"] == 9
    ids = [site.bots["random"], site.bots["prohis-heuristic"]]
    assert [b["bot_id"] for b in done["bots"]][:2] == ids and done["bots"][0]["owner"] == "alice"
    # three deals, each played in all three rotations, by fresh containers per match
    by_deal: dict[str, list[list[int]]] = {}
    for game in done["results"]:
        by_deal.setdefault(game["deal"], []).append(game["seats"])
    assert len(by_deal) == 3
    for seatings in by_deal.values():
        assert len(seatings) == 3
        for seat in range(3):
            assert sorted(s[seat] for s in seatings) == sorted(b["bot_id"] for b in done["bots"])
    assert sorted({g["round"] for g in done["results"]}) == [0, 1, 2]
    table = {b["bot_id"]: b for b in done["bots"]}
    assert sum(b["games"] for b in table.values()) == 27 and sum(b["wins"] for b in table.values()) == pytest.approx(9)
    with site.store() as session:  # its own secret, never a league's; records apart from the leagues'
        row = session.get_one(Scrimmage, done["id"])
        assert len(row.secret) >= 32 and row.secret not in set(session.scalars(select(League.secret)))
        assert "scrimmages" in row.record_dir
    assert "secret" not in json.dumps(done) and "seed" not in json.dumps(done)


def test_it_changes_no_rating_leaderboard_or_league(scrim):
    assert scrim["after"] == scrim["before"]


def test_who_sees_what(scrim):
    site, done = scrim["site"], scrim["done"]
    url = done["api_url"]
    random_id, heuristic_id = site.bots["random"], site.bots["prohis-heuristic"]
    game = done["results"][0]
    alice_seat, bob_seat = game["seats"].index(random_id), game["seats"].index(heuristic_id)
    other = ({0, 1, 2} - {alice_seat, bob_seat}).pop()
    replay = f"{url}/games/{game['number']}/replay"
    with site.client("alice") as alice, site.client("bob") as bob, site.client("admin") as admin, \
            site.client() as anonymous:
        assert bob.get(url).json()["results"] == done["results"]  # an opponent's owner sees it happened
        for nobody in (admin, anonymous):  # not theirs: as if there were none
            for path in (url, f"{url}/games/0", replay, done["url"], f"{done['url']}/games/0",
                         f"{done['url']}/games/0/table.svg"):
                assert nobody.get(path).status_code == 404, path
        assert all(s["id"] != done["id"] for s in admin.get("/api/v1/scrimmages").json())
        assert [s["id"] for s in bob.get("/api/v1/scrimmages").json()].count(done["id"]) == 1
        for client, mine, theirs in ((alice, alice_seat, bob_seat), (bob, bob_seat, alice_seat)):
            got = client.get(replay, params={"seat": mine})
            assert got.status_code == 200 and got.headers["cache-control"] == "private, no-store"
            for seat in (theirs, other, "all"):
                assert client.get(replay, params={"seat": seat}).status_code == 403, seat
            info = client.get(f"{url}/games/{game['number']}").json()
            assert not info["public"] and not info["full_table"] and info["scrimmage"] == done["id"]
            assert [s["visible"] for s in info["seats"]] == [s == mine for s in range(3)]
            page = client.get(f"{done['url']}/games/{game['number']}")
            assert page.status_code == 200 and 'id="replay"' in page.text and 'id="scrimmage-private"' in page.text
            drawn = f"{done['url']}/games/{game['number']}/table.svg"  # the drawn step: the same rules
            got = client.get(drawn, params={"seat": mine, "step": 2})
            assert got.status_code == 200 and got.headers["content-type"] == "image/svg+xml"
            assert got.headers["cache-control"] == "private, no-store" and f'src="{drawn}?seat=' in page.text
            for seat in (theirs, other, "all"):
                assert client.get(drawn, params={"seat": seat}).status_code == 403, seat
            # its bot's output in that match: to its owner, a link on the game; anyone else 404
            output = info["seats"][mine]["output"]
            assert output and all(s["output"] is None for s in info["seats"] if s["seat"] != mine)
            printed = client.get(output)
            assert printed.status_code == 200 and printed.headers["content-type"] == "text/plain; charset=utf-8"
            assert printed.headers["cache-control"] == "private, no-store"
        mine_index = [b["bot_id"] for b in done["bots"]].index(random_id)
        alice_output = f"{url}/games/{game['number']}/output/{mine_index}"
        for nobody in (bob, admin, anonymous):
            assert nobody.get(alice_output).status_code == 404
        assert alice.get(alice_output).status_code == 200
        assert alice.get(f"{url}/games/{game['number']}/output/99").status_code == 404


def test_the_challengers_replay_is_her_seats_view_and_nothing_of_the_others(scrim):
    """Each step's view is the engine's view of alice's seat at that point, byte for byte once
    encoded as JSON (views are tested by perturbation in tests/games: nothing hidden from a seat
    changes its bytes), and the other seats' actions, think times and failures are withheld: what
    the opponents held never reaches her, in any of the nine games."""
    site, done = scrim["site"], scrim["done"]
    with site.client("alice") as alice, site.store() as session:
        for game in done["results"]:
            seat = game["seats"].index(site.bots["random"])
            got = alice.get(f"{done['api_url']}/games/{game['number']}/replay", params={"seat": seat}).json()
            row = session.scalar(select(ScrimmageGame).where(ScrimmageGame.scrimmage_id == done["id"],
                                                             ScrimmageGame.number == game["number"]))
            record = read_record(row.record_path)
            h = record.header
            state = get_game(h["game"]).new_game(h["num_players"], h["seed"], h["settings"])
            assert got["decisions"] == len(record.decisions) and len(got["steps"]) == len(record.decisions) + 1
            for step, decision in zip(got["steps"], [*record.decisions, None], strict=True):
                assert json.dumps(step["view"], sort_keys=True) == json.dumps(
                    json.loads(json.dumps(state.view(seat))), sort_keys=True), f"game {game['number']}"
                if step["seat"] != seat and not step["end"]:
                    assert (step["action"], step["ms"], step["fallback"], step["failure"]) == (None,) * 4
                if decision is not None:
                    state.apply(decision["action"])
            assert str(h["seed"]) not in json.dumps(got)


def test_refusals_say_why_and_create_nothing(scrim):
    site = scrim["site"]
    with site.store() as session:
        count = session.scalar(select(func.count()).select_from(Scrimmage))
    cases = [
        ({"bot": "random", "opponents": ["no-such-bot", "scrim-op"]}, 404, "no bot 'no-such-bot'"),
        ({"bot": "random", "opponents": ["scrim-retired", "scrim-op"]}, 400, "scrim-retired@1 is retired"),
        ({"bot": "prohis-heuristic", "opponents": ["scrim-op", "scrim-op2"]}, 403, "is not your bot"),
        ({"bot": "nothing-here", "opponents": ["scrim-op"]}, 404, "no bot 'nothing-here'"),
        ({"bot": "random", "opponents": ["prohis-heuristic", "scrim-op"], "game": "sobek"}, 400,
         "prohis-heuristic@1.0.0 does not play sobek"),
        ({"bot": "random", "opponents": ["scrim-op"], "game": "prohis"}, 400, "prohis cannot seat this scrimmage's 2"),
        ({"bot": "random", "opponents": ["first-legal", *OPERATOR_BOTS], "game": "boss"}, 400,
         "boss cannot seat this scrimmage's 5"),
        ({"bot": "random", "opponents": ["random", "scrim-op"]}, 400, "is named twice"),
        ({"bot": "random", "opponents": ["scrim-op", "scrim-op2"], "games": 4}, 400, "games must be a multiple of 3"),
        ({"bot": "random", "opponents": ["scrim-op", "scrim-op2"], "game": "nope"}, 400, "unknown game 'nope'"),
        ({"bot": "random", "opponents": []}, 422, "opponents"),
        ({"bot": "random", "opponents": ["scrim-op", "scrim-op2"], "games": 10**30}, 400, "at most 64 games"),
        ({"bot": "random", "opponents": ["<script>x</script>\x1b[31m"]}, 404, "no bot '<script>x</script>\\x1b[31m'"),
    ]
    with site.client("alice") as alice:
        for body, status, words in cases:
            reply = alice.post("/api/v1/scrimmages", json=body)
            assert reply.status_code == status and words in reply.json()["detail"], (body, reply.text)
    with site.client() as anonymous:
        assert anonymous.post("/api/v1/scrimmages", json=cases[0][0]).status_code == 401
    with site.store() as session:
        assert session.scalar(select(func.count()).select_from(Scrimmage)) == count


def test_the_form_needs_the_sessions_csrf_token_and_this_sites_origin(scrim):
    site = scrim["site"]
    with site.store() as session:
        count = session.scalar(select(func.count()).select_from(Scrimmage))
    form = {"bot": "random", "opponents": ["scrim-op", "scrim-op2"], "games": "99"}
    with site.browser("alice", form=False) as browser:
        page = browser.get("/scrimmages")
        assert page.status_code == 200 and 'id="scrimmage-form"' in page.text
        token = csrf_of(page.text)
        assert browser.post("/scrimmages", data=form).status_code == 403  # no token
        assert browser.post("/scrimmages", data={**form, "csrf": "forged"}).status_code == 403
        assert browser.post("/scrimmages", data={**form, "csrf": token},
                            headers={"Origin": "http://evil.example"}).status_code == 403
        refused = browser.post("/scrimmages", data={**form, "csrf": token})  # all checks passed: the 400 is its own
        assert refused.status_code == 400 and "at most 64 games" in refused.text
        bot_page = browser.get(f"/bots/{site.bots['prohis-heuristic']}")
        assert 'id="scrimmage-form"' in bot_page.text and 'value="random@' in bot_page.text
        assert 'id="scrimmage-link"' in browser.get(f"/bots/{site.bots['random']}").text
        assert 'id="scrimmage-link"' in browser.get("/leagues/web").text
    with site.store() as session:
        assert session.scalar(select(func.count()).select_from(Scrimmage)) == count


def test_quotas_answer_429_with_when_to_ask_again(scrim, tmp_path):
    site = scrim["site"]
    carol_id = _user(site, "carol") or add_user(site.store, "carol", password="carol-password-1")[0].id
    with site.store() as session, session.begin():
        session.execute(update(Bot).where(Bot.name == "first-legal").values(owner_id=carol_id))
    carol = Account(carol_id, "carol", False)
    try:
        quota = Quota(games_per_day=6, pending=5)
        create_scrimmage(site.store, carol, "first-legal", ["scrim-op", "scrim-op2"], games=3, quota=quota)
        with pytest.raises(ScrimmageError) as refused:
            create_scrimmage(site.store, carol, "first-legal", ["scrim-op", "scrim-op2"], games=6, quota=quota)
        assert refused.value.status == 429 and "played 3 of the 6 scrimmage games" in str(refused.value)
        assert 0 < (refused.value.retry_after or 0) <= 24 * 3600
        with pytest.raises(ScrimmageError, match="queued or being played") as pending:
            create_scrimmage(site.store, carol, "first-legal", ["scrim-op", "scrim-op2"], games=3,
                             quota=Quota(pending=1))
        assert pending.value.status == 429
        # never played (no player was told of it): failed, so that the server below does not resume it;
        # its games still count today
        with site.store() as session, session.begin():
            session.execute(update(Scrimmage).where(Scrimmage.user_id == carol_id).values(status="failed"))
        # over HTTP, on a server with the same store and a quota of 5 games a day
        app = create_app(site.store, WebSettings(runs_dir=tmp_path, uploads_dir=tmp_path / "u", worker=False,
                                                 scrimmage_games_per_day=5))
        with live_server(app) as url, httpx.Client(
                base_url=url, headers={"Authorization": f"Bearer {issue_token(site.store, 'carol')}"}) as client:
            reply = client.post("/api/v1/scrimmages", json={"bot": "first-legal", "games": 3,
                                                            "opponents": ["scrim-op", "scrim-op2"]})
            assert reply.status_code == 429, reply.text
            assert "played 3 of the 5 scrimmage games this server gives one account in 24 hours" in \
                reply.json()["detail"]
            assert int(reply.headers["retry-after"]) > 0
            assert client.post("/api/v1/scrimmages", json={"bot": "first-legal", "games": 6, "opponents": [
                "scrim-op", "scrim-op2"]}).json()["detail"].startswith("this server plays at most 5 scrimmage games")
    finally:
        with site.store() as session, session.begin():
            session.execute(update(Bot).where(Bot.name == "first-legal").values(
                owner_id=session.scalar(select(User.id).where(User.name == "alice"))))
            session.execute(update(Scrimmage).where(Scrimmage.user_id == carol_id).values(status="failed"))


def _user(site, name: str) -> int | None:
    with site.store() as session:
        return session.scalar(select(User.id).where(User.name == name))


def test_arena_scrimmage_from_a_terminal(scrim):
    site = scrim["site"]
    command = [sys.executable, "-m", "arena.cli", "scrimmage", "random", "scrim-op", "scrim-op2", "--games", "3",
               "--server", site.url, "--token", site.tokens["alice"]]
    env = {**os.environ, "COLUMNS": "160", "NO_COLOR": "1"}
    shown = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert shown.returncode == 0, shown.stderr + shown.stdout
    assert "random *" in shown.stdout and "scrim-op2" in shown.stdout and "mean rank" in shown.stdout
    assert "3 of 3 games" in shown.stdout and "/scrimmages/" in shown.stdout
    as_json = subprocess.run([*command, "--json"], capture_output=True, text=True, timeout=600, env=env)
    assert as_json.returncode == 0, as_json.stderr
    data = ScrimmageOut.model_validate_json(as_json.stdout)
    assert data.status == "done" and data.played == 3 and [b.bot for b in data.bots] == ["random", "scrim-op",
                                                                                         "scrim-op2"]
    refused = subprocess.run([*command[:5], "scrim-retired", *command[6:]], capture_output=True, text=True,
                             timeout=120, env=env)
    assert refused.returncode == 1 and "scrim-retired@1 is retired" in refused.stderr


def test_a_server_started_again_plays_what_was_left_queued_and_calls_on_done_once(scrim, tmp_path):
    """A scrimmage queued when its server stopped (here: recorded, never handed to a player) is
    played by the next server on the store, and its end is announced once through on_done."""
    site = scrim["site"]
    with site.store() as session:
        alice = session.scalar(select(User).where(User.name == "alice"))
        account = Account(alice.id, "alice", False)
    left = create_scrimmage(site.store, account, "random", ["scrim-op", "scrim-op2"], games=3)
    app = create_app(site.store, WebSettings(runs_dir=tmp_path, uploads_dir=tmp_path / "u", worker=False))
    with live_server(app), httpx.Client(base_url=site.url,
                                        headers={"Authorization": f"Bearer {site.tokens['alice']}"}) as alice:
        done = wait_done(alice, alice.get(f"/api/v1/scrimmages/{left}").json())
        inbox = alice.get("/api/v1/notifications").json()["notifications"]
    assert done["status"] == "done" and done["played"] == 3
    told = [n for n in inbox if n["event"] == "scrimmage.done" and n["data"]["scrimmage"] == left]
    assert len(told) == 1 and told[0]["url"] == f"/scrimmages/{left}"  # on_done, once
    text = told[0]["text"]
    assert text.startswith(f"scrimmage {left} (") and text.endswith(": done") and "against scrim-op@" in text, text
    with site.store() as session:  # and once to each opponent's owner; to nobody else
        owners = {session.get_one(Bot, b).owner_id for b in session.get_one(Scrimmage, left).bots} - {None}
        rows = session.scalars(select(Notification).where(Notification.event == "scrimmage.done")).all()
        mine = [r for r in rows if r.data["scrimmage"] == left]
        assert sorted(r.user_id for r in mine) == sorted({account.id} | owners)
    with site.store() as session:
        assert session.get_one(Scrimmage, left).record_dir.startswith(str(tmp_path / "scrimmages"))
