"""Issue 31 point 2, teams, over real HTTP on a real server: making a team and managing its members
(the API and the pages' forms, CSRF-checked), a team's bot's output and hidden seats read by its
members and by nobody else, a member removed losing them at their very next request, and (with
Docker) a member submitting a version of the team's bot, which stays the team's. The rules
themselves, for every kind of asker, are tests/test_access.py's."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from pydantic import TypeAdapter
from sqlalchemy import delete, select

from arena.accounts import add_user
from arena.bots.registry import register_bot
from arena.cli import main as arena
from arena.schemas.docs import LISTINGS
from arena.store import Bot, Game, Match, Submission, Team, User
from arena.teams import OPERATOR, add_member, create_team

from .conftest import Site, csrf_of
from .local_match import play_and_store
from .test_submissions import bot_folder, follow, remove_images, upload

MORE = {"carol": "carol-password-1", "dave": "dave-password-1"}


def more_users(site: Site) -> None:
    for name, password in MORE.items():
        site.tokens[name] = add_user(site.store, name, password=password)[1]


def user_id(site: Site, name: str) -> int:
    with site.store() as session:
        found = session.scalar(select(User.id).where(User.name == name))
    assert found is not None
    return found


def api(site: Site, user: str | None, method: str, path: str, **kwargs):
    with site.client(user) as client:
        return client.request(method, path, **kwargs)


# -- making a team and managing it ----------------------------------------------------------------------
def test_a_team_is_made_and_managed_through_the_api(empty_site):
    site = empty_site
    more_users(site)
    made = api(site, "alice", "POST", "/api/v1/teams", json={"name": "Crew"})
    assert made.status_code == 201, made.text
    assert made.json() == {"name": "Crew", "created_at": made.json()["created_at"], "role": "owner",
                           "members": [{"name": "alice", "role": "owner", "added_at": made.json()["members"][0]
                                        ["added_at"]}], "bots": [], "url": "/teams/Crew"}
    for name, why in (("crew", "is taken"), ("BOB", "is taken"), ("<b>x</b>", "is not a team name"), ("", "not a")):
        refused = api(site, "bob", "POST", "/api/v1/teams", json={"name": name})
        assert refused.status_code == 400 and why in refused.json()["detail"], (name, refused.text)
    assert api(site, None, "POST", "/api/v1/teams", json={"name": "anon"}).status_code == 401

    added = api(site, "alice", "POST", "/api/v1/teams/crew/members", json={"name": "bob"})  # any case names it
    assert added.status_code == 201 and [m["name"] for m in added.json()["members"]] == ["alice", "bob"]
    assert api(site, "bob", "POST", "/api/v1/teams/Crew/members", json={"name": "carol"}).status_code == 403
    for body, status, why in (({"name": "bob"}, 400, "already"), ({"name": "nobody"}, 404, "no account"),
                              ({"name": "carol", "role": "king"}, 400, "not a team role")):
        refused = api(site, "alice", "POST", "/api/v1/teams/Crew/members", json=body)
        assert refused.status_code == status and why in refused.json()["detail"], refused.text
    assert api(site, "alice", "POST", "/api/v1/teams/nosuch/members", json={"name": "bob"}).status_code == 404

    assert [t["name"] for t in api(site, "bob", "GET", "/api/v1/teams").json()] == ["Crew"]
    assert api(site, "carol", "GET", "/api/v1/teams").json() == []
    assert api(site, "carol", "GET", "/api/v1/teams/Crew").json()["members"] is None  # not hers to see
    assert api(site, None, "GET", "/api/v1/teams/Crew").json()["members"] is None
    assert len(api(site, "admin", "GET", "/api/v1/teams/Crew").json()["members"]) == 2

    # a team keeps an owner: the only one can neither leave nor step down
    for method, kwargs in (("DELETE", {}), ("PATCH", {"json": {"role": "member"}})):
        kept = api(site, "alice", method, "/api/v1/teams/Crew/members/alice", **kwargs)
        assert kept.status_code == 400 and "at least one owner" in kept.json()["detail"], kept.text
    assert api(site, "bob", "PATCH", "/api/v1/teams/Crew/members/bob", json={"role": "owner"}).status_code == 403
    assert api(site, "bob", "DELETE", "/api/v1/teams/Crew/members/alice").status_code == 403
    promoted = api(site, "alice", "PATCH", "/api/v1/teams/Crew/members/bob", json={"role": "owner"})
    assert [(m["name"], m["role"]) for m in promoted.json()["members"]] == [("alice", "owner"), ("bob", "owner")]
    left = api(site, "alice", "DELETE", "/api/v1/teams/Crew/members/alice")  # now she may leave
    assert left.status_code == 200 and left.json()["role"] is None and left.json()["members"] is None
    assert api(site, "alice", "POST", "/api/v1/teams/Crew/members", json={"name": "carol"}).status_code == 403


def test_the_pages_forms_need_the_sessions_token_and_escape_names(empty_site):
    site = empty_site
    with site.browser("alice", form=False) as alice:
        page = alice.get("/teams")
        assert page.status_code == 200 and 'id="no-teams"' in page.text
        token = csrf_of(page.text)
        assert alice.post("/teams", data={"name": "Pages"}).status_code == 403  # no token
        foreign = alice.post("/teams", data={"name": "Pages", "csrf": token}, headers={"Origin": "http://evil.test"})
        assert foreign.status_code == 403
        made = alice.post("/teams", data={"name": "Pages", "csrf": token})
        assert made.status_code == 303 and made.headers["location"] == "/teams/Pages"
        team_page = alice.get("/teams/pages").text  # any case
        assert 'id="add-member-form"' in team_page and 'data-member="alice"' in team_page
        added = alice.post("/teams/Pages/members", data={"member": "bob", "role": "member", "csrf": token})
        assert added.status_code == 303
        assert alice.post("/teams/Pages/members/bob/role", data={"role": "owner"}).status_code == 403
        assert alice.post("/teams/Pages/members/bob/role", data={"role": "owner", "csrf": token}).status_code == 303
        refused = alice.post("/teams", data={"name": "<script>alert(1)</script>", "csrf": token})
        assert refused.status_code == 400 and "<script>alert(1)" not in refused.text
        assert "&lt;script&gt;" in refused.text
    with site.browser("bob", form=False) as bob:
        page = bob.get("/teams/Pages").text
        assert 'data-remove="bob"' in page and 'id="team-role">owner' in page
        left = bob.post("/teams/Pages/members/bob/remove", data={"csrf": csrf_of(page)})
        assert left.status_code == 303 and left.headers["location"] == "/teams"
        assert 'id="members-hidden"' in bob.get("/teams/Pages").text


# -- a team's bot: output and hidden seats --------------------------------------------------------------
def test_a_teams_bot_output_and_hidden_seats_go_to_its_members_only_and_not_after_they_leave(empty_site):
    """A real match (local processes: tests/web/local_match.py) whose recorder bot, which prints what
    it is dealt, is the team's: submitted by dave while he was in it, who has left since."""
    site = empty_site
    more_users(site)
    played = play_and_store(site.store, site.runs_dir, "prohis", owners=("alice", None, None), games=3)
    create_team(site.store, "Crew", OPERATOR, owner="carol")
    add_member(site.store, "Crew", "bob", OPERATOR)
    recorder = played.bots[1]
    with site.store() as session, session.begin():
        team_id = session.scalar(select(Team.id).where(Team.name == "Crew"))
        bot = session.get_one(Bot, recorder)
        bot.team_id, bot.owner_id = team_id, user_id(site, "dave")
        # the rest of the cycle unplayed: its games are not public, each seat its holders' alone
        session.execute(delete(Match).where(Match.league_id == session.get_one(Match, played.match_id).league_id,
                                            Match.id != played.match_id))
    output = f"/api/v1/matches/{played.match_id}/output/1"
    game = played.game_ids[0]
    with site.store() as session:
        seat = session.get_one(Game, game).seats.index(recorder)

    def sees(user: str | None) -> tuple[int, int, bool, str]:
        with site.client(user) as client:
            out = client.get(output)
            replay = client.get(f"/api/v1/games/{game}/replay", params={"seat": seat})
            answer = client.get(f"/api/v1/games/{game}").json()
            return out.status_code, replay.status_code, answer["seats"][seat]["visible"], out.text

    for member in ("carol", "bob"):  # the team's owner and a plain member
        status, replay, visible, text = sees(member)
        assert (status, replay, visible) == (200, 200, True), member
        assert text.count("DEALT ") == 3
    for other in ("alice", "dave", "admin", None):  # a stranger (whose bot sat at the table), a former member, ...
        status, replay, visible, _ = sees(other)
        assert status == 404 and replay in (401, 403, 404) and not visible, other
    # removed: the same token, its very next request
    removed = api(site, "carol", "DELETE", "/api/v1/teams/Crew/members/bob")
    assert removed.status_code == 200
    status, replay, visible, _ = sees("bob")
    assert status == 404 and replay in (403, 404) and not visible
    # a browser session too: the team's bot page shows the team, and the owner's retire form to its owner only
    with site.browser("carol", form=False) as carol:
        page = carol.get(f"/bots/{recorder}").text
        assert 'id="bot-team">Crew</a>' in page and 'id="retire-form"' in page
    with site.browser("bob", form=False) as bob:
        assert 'id="retire-form"' not in bob.get(f"/bots/{recorder}").text
    out = api(site, None, "GET", f"/api/v1/bots/{recorder}").json()
    assert (out["owner"], out["author"], out["team"]) == ("Crew", "Crew", "Crew")
    match = api(site, None, "GET", f"/api/v1/matches/{played.match_id}").json()
    assert match["bots"][1]["owner"] == "Crew"
    board = api(site, None, "GET", f"/api/v1/leagues/{played.league}/leaderboard").json()
    assert {r["bot_id"]: r["author"] for r in board["rows"]}[recorder] == "Crew"
    # retiring: an owner of the team only, not the member who submitted it
    assert api(site, "dave", "POST", f"/api/v1/bots/{recorder}/retire").status_code == 403
    assert api(site, "carol", "POST", f"/api/v1/bots/{recorder}/retire").status_code == 200


def test_arena_team_commands_for_the_operator(empty_site):
    site = empty_site
    url = f"sqlite:///{site.runs_dir.parent}/arena.db"

    def run(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(arena, [*args, "--db", url])
        return result.exit_code, result.output

    assert run("team", "create", "ops", "--owner", "alice") == (0, "team ops created, owned by alice\n")
    assert run("team", "add", "ops", "bob")[0] == 0
    assert run("team", "add", "ops", "bob", "--role", "owner") == (0, "bob is now owner of team ops\n")
    code, said = run("team", "remove", "ops", "nobody")
    assert code == 1 and "no account 'nobody'" in said
    assert run("team", "remove", "ops", "alice")[0] == 0
    code, said = run("team", "remove", "ops", "bob")
    assert code == 1 and "at least one owner" in said
    code, printed = run("team", "list", "--json")
    document = TypeAdapter(LISTINGS["team list"].shape).validate_json(printed, strict=True)
    assert [(t.name, [(m.name, m.role) for m in t.members]) for t in document] == [("ops", [("bob", "owner")])]
    assert json.loads(printed)[0]["name"] == "ops"


# -- submitting for a team (Docker) ---------------------------------------------------------------------
TEAM_BOT = "teams-random"


@pytest.fixture(scope="module")
def team_site(league_site, docker_client):
    """league_site with a team "Builders" (erin its owner, finn a member) holding the name
    teams-random, whose version 1 (registered here) erin submitted."""
    site = league_site
    for name in ("erin", "finn", "gus"):
        site.tokens[name] = add_user(site.store, name, password=f"{name}-password-1")[1]
    create_team(site.store, "Builders", OPERATOR, owner="erin")
    add_member(site.store, "Builders", "finn", OPERATOR)
    with site.store() as session:
        team_id = session.scalar(select(Team.id).where(Team.name == "Builders"))
    register_bot(site.store, name=TEAM_BOT, version="1", image="none", image_digest="sha256:0", language="python",
                 author="B", games=["prohis"], league=None, owner_id=user_id(site, "erin"), team_id=team_id)
    yield site, team_id
    remove_images(docker_client, TEAM_BOT)


def test_a_member_submits_a_version_of_the_teams_bot_and_it_stays_the_teams(team_site, tmp_path):
    site, team_id = team_site
    # finn, a plain member, names no team: the name is the team's, so the version is too
    reply = upload(site, "finn", bot_folder(tmp_path, TEAM_BOT, "2"), leagues=())
    assert reply.status_code == 201, reply.text
    assert (reply.json()["author"], reply.json()["team"]) == ("finn", "Builders")
    # while it builds: erin (the team's) sees it, gus (a stranger) does not, and cannot take the name
    assert api(site, "erin", "GET", reply.json()["api_url"]).status_code == 200
    assert reply.json()["id"] in [s["id"] for s in api(site, "erin", "GET", "/api/v1/submissions").json()]
    assert api(site, "gus", "GET", reply.json()["api_url"]).status_code == 404
    stranger = upload(site, "gus", bot_folder(tmp_path / "gus", TEAM_BOT, "3"), leagues=())
    assert stranger.status_code == 403 and "belongs to team Builders" in stranger.json()["detail"]
    again = upload(site, "erin", bot_folder(tmp_path / "again", TEAM_BOT, "2"), leagues=(), team="Builders")
    assert again.status_code == 409 and "your team submitted teams-random version 2 already" in again.json()["detail"]
    submission, _ = follow(site, "finn", reply.json())
    assert submission["status"] == "entered", (submission["error"], submission["report"][-2000:])
    with site.store() as session:
        bot = session.get_one(Bot, submission["bot_id"])
        assert (bot.name, bot.version, bot.team_id, bot.owner_id) == (TEAM_BOT, "2", team_id, user_id(site, "finn"))
        assert session.get_one(Submission, submission["id"]).team_id == team_id
    page = api(site, None, "GET", f"/bots/{bot.id}").text
    assert 'id="bot-team">Builders</a>' in page


def test_who_may_submit_for_a_team_is_decided_at_once(team_site, tmp_path):
    """Each refused before anything is built or queued."""
    site, _ = team_site
    register_bot(site.store, name="teams-alices", version="1", image="none", image_digest="sha256:0",
                 language="python", author="A", games=["prohis"], league=None, owner_id=user_id(site, "alice"))
    cases = [
        ("gus", "teams-gus", "Builders", 403, "you are not in team Builders"),
        ("finn", "teams-finn", "nosuch", 404, "no team 'nosuch'"),
        ("erin", "teams-alices", "Builders", 403, "another author's"),
    ]
    for user, name, team, status, why in cases:
        reply = upload(site, user, bot_folder(tmp_path / f"{user}-{name}", name, "9"), leagues=(), team=team)
        assert reply.status_code == status and why in reply.json()["detail"], (user, name, reply.text)
    # a name of one's own does not pass to a team
    register_bot(site.store, name="teams-erins-own", version="1", image="none", image_digest="sha256:0",
                 language="python", author="E", games=["prohis"], league=None, owner_id=user_id(site, "erin"))
    reply = upload(site, "erin", bot_folder(tmp_path / "own", "teams-erins-own", "2"), leagues=(), team="Builders")
    assert reply.status_code == 403 and "is yours and does not belong to team Builders" in reply.json()["detail"]
    with site.store() as session:
        assert session.scalar(select(Submission.id).where(Submission.bot_name.in_(
            ["teams-gus", "teams-finn", "teams-alices", "teams-erins-own"]))) is None
    # the command line's --team, refused by the server in one sentence
    result = CliRunner().invoke(arena, ["bot", "submit", str(bot_folder(tmp_path / "cli", "teams-cli", "1")),
                                        "--team", "nosuch", "--server", site.url, "--token", site.tokens["finn"]],
                                env={"ARENA_SERVER": None, "ARENA_TOKEN": None})
    assert result.exit_code == 1 and "the server refused it (404): no team 'nosuch'" in result.stderr


def test_a_removed_member_can_submit_no_more(team_site, tmp_path):
    site, _ = team_site
    with site.store() as session:
        before = session.scalar(select(Submission.id).order_by(Submission.id.desc()).limit(1))
    add_member(site.store, "Builders", "gus", OPERATOR)
    assert api(site, "gus", "GET", "/api/v1/teams/Builders").json()["role"] == "member"
    removed = api(site, "erin", "DELETE", "/api/v1/teams/Builders/members/gus")
    assert removed.status_code == 200
    reply = upload(site, "gus", bot_folder(tmp_path, TEAM_BOT, "7"), leagues=())
    assert reply.status_code == 403 and "belongs to team Builders" in reply.json()["detail"]
    with site.store() as session:
        assert session.scalar(select(Submission.id).order_by(Submission.id.desc()).limit(1)) == before


def test_a_submission_of_a_member_removed_before_its_build_is_refused(empty_site, tmp_path):
    """The worker asks the rules again with the account's teams as they are then (and once more
    before registering); here no build starts. Run here, as if claimed (the site has no worker)."""
    import shutil

    from arena.bots.submit import run_submission

    site = empty_site
    create_team(site.store, "Late", OPERATOR, owner="alice")
    add_member(site.store, "Late", "bob", OPERATOR)
    unpacked = site.runs_dir.parent / "uploads" / "late"
    shutil.copytree(bot_folder(tmp_path, "teams-late", "1"), unpacked)
    with site.store() as session, session.begin():
        team_id = session.scalar(select(Team.id).where(Team.name == "Late"))
        row = Submission(user_id=user_id(site, "bob"), team_id=team_id, status="building", folder=str(unpacked))
        session.add(row)
    assert api(site, "alice", "DELETE", "/api/v1/teams/Late/members/bob").status_code == 200
    assert run_submission(site.store, row.id) == "refused"
    with site.store() as session:
        done = session.get_one(Submission, row.id)
        assert "you are not in team Late" in done.error and done.log == "" and done.bot_id is None
        assert session.scalar(select(Bot.id).where(Bot.name == "teams-late")) is None
    assert not unpacked.exists()
