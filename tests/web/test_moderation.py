"""Moderation, on a real server over real HTTP: a disabled account is refused on its next request
(token and session) and cannot sign in; a disqualified bot plays no new match of a real league
(not even one scheduled but not started), keeps its games, and is marked; only admins moderate
(everyone else gets 403 and learns nothing); the audit log records every change, by every route,
and no secret."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from arena import audit
from arena.accounts import add_user
from arena.cli import main as arena
from arena.league.executor import MatchJob
from arena.league.runner import run_league
from arena.store import AuditEntry, Bot, Match, Store, User, open_store
from arena.web import WebSettings, create_app
from arena.web.audit import target_of
from arena.web.auth import COOKIE

from ..docker_fixtures import docker_client, sample_images  # noqa: F401 - fixtures
from ..league.helpers import league_of_samples
from .conftest import PASSWORD, Site, add_users, app_routes, bot_archive, csrf_of, live_server, log_in


def entries(store: Store) -> list[AuditEntry]:
    with store() as session:
        return list(session.scalars(select(AuditEntry).order_by(AuditEntry.id)))


def dump(store: Store) -> str:
    """The whole audit log as text: what a leak would be found in."""
    return json.dumps([{c.name: str(getattr(e, c.name)) for c in AuditEntry.__table__.columns}
                       for e in entries(store)])


def test_a_disabled_account_is_refused_on_its_next_request_and_cannot_sign_in(empty_site: Site):
    site = empty_site
    with site.client("alice") as alice, site.client("admin") as admin, site.browser("alice") as browser:
        assert alice.get("/api/v1/me").status_code == 200
        assert browser.get("/api/v1/me").json()["name"] == "alice"
        reply = admin.post("/api/v1/admin/users/alice/disable")
        assert reply.status_code == 200 and reply.json()["disabled_at"], reply.text
        # the very next request: the token refused with a clear message, the session gone
        refused = alice.get("/api/v1/me")
        assert refused.status_code == 403 and "alice is disabled by an admin" in refused.json()["detail"]
        assert alice.get("/api/v1/submissions").status_code == 403
        assert browser.get("/api/v1/me").status_code == 401
        assert browser.get("/submissions").status_code == 303  # to the sign-in page
        # signing in: the right password says why; a wrong one says nothing of the account
        with site.browser() as again:
            page = log_in(again, "alice")
            assert page.status_code == 403 and 'id="login-disabled"' in page.text
            assert "disabled by an admin" in page.text
            assert COOKIE not in again.cookies
            wrong = log_in(again, "alice", "not-her-password")
            assert wrong.status_code == 303 and "failed=1" in wrong.headers["location"]
        # public pages still answer a disabled token's owner as anyone: with the token, 403
        assert site.client().get("/api/v1/leagues").status_code == 200
        # enabled again: the same token works; the browser signs in again
        assert admin.post("/api/v1/admin/users/alice/enable").json()["disabled_at"] is None
        assert alice.get("/api/v1/me").json()["name"] == "alice"
        with site.browser("alice") as again:
            assert again.get("/api/v1/me").status_code == 200
        # its bots stay as they are: disabling touches no bot (none here); the users list says it all
        users = {u["name"]: u for u in admin.get("/api/v1/admin/users").json()["users"]}
        assert users["alice"]["disabled_at"] is None and users["admin"]["admin"]


def test_the_last_enabled_admin_cannot_be_disabled(empty_site: Site):
    site = empty_site
    with site.client("admin") as admin:
        reply = admin.post("/api/v1/admin/users/admin/disable")
        assert reply.status_code == 400 and "last enabled admin" in reply.json()["detail"]
        add_user(site.store, "root", admin=True, password="root-password-1")
        assert admin.post("/api/v1/admin/users/root/disable").status_code == 200
        assert admin.post("/api/v1/admin/users/admin/disable").status_code == 400  # root is disabled: still the last
        assert admin.post("/api/v1/admin/users/nobody/disable").status_code == 404
        assert admin.get("/api/v1/me").status_code == 200


ADMIN_ROUTES = [("POST", "/api/v1/bots/{}/disqualify"), ("POST", "/api/v1/bots/{}/requalify"),
                ("GET", "/api/v1/admin/users"), ("POST", "/api/v1/admin/users/{}/disable"),
                ("POST", "/api/v1/admin/users/{}/enable"), ("GET", "/api/v1/admin/audit")]
ADMIN_PAGES = [("POST", "/bots/{}/disqualify"), ("POST", "/bots/{}/requalify"), ("GET", "/admin/users"),
               ("POST", "/admin/users/{}/disable"), ("POST", "/admin/users/{}/enable"), ("GET", "/admin/audit")]


def test_only_admins_moderate_and_others_learn_nothing(empty_site: Site):
    site = empty_site
    with site.client("alice") as alice, site.client() as nobody, site.browser("bob", form=False) as bob:
        for method, path in ADMIN_ROUTES:
            # an existing target and one that is not: the same answer, before anything is looked up
            answers = {(r.status_code, r.text) for target in ("1", "admin", "999", "nobody")
                       for r in [alice.request(method, path.format(target), json={"reason": "x"})]}
            assert answers == {(403, '{"detail":"only an admin may do that"}')}, (path, answers)
            assert nobody.request(method, path.format("1")).status_code == 401
        page = bob.get("/leagues").text
        for method, path in ADMIN_PAGES:
            reply = bob.request(method, path.format("admin"), data={"csrf": csrf_of(page), "reason": "x"})
            assert reply.status_code == 403 and "only an admin may do that" in reply.text, path
        assert 'href="/admin/users"' not in page  # nor the links
    with site.browser("admin", form=False) as admin:
        page = admin.get("/leagues").text
        assert 'href="/admin/users"' in page and 'href="/admin/audit"' in page
        # a form without the CSRF token, or from another site, changes nothing
        assert admin.post("/admin/users/alice/disable", data={}).status_code == 403
        assert admin.post("/admin/users/alice/disable", data={"csrf": csrf_of(page)},
                          headers={"Origin": "http://evil.example"}).status_code == 403
        assert admin.post("/admin/users/alice/disable", data={"csrf": csrf_of(page)}).status_code == 303
        users = admin.get("/admin/users").text
        assert re.search(r'data-user="alice">.*?disabled', users, re.S)
        assert admin.post("/admin/users/alice/enable", data={"csrf": csrf_of(page)}).status_code == 303
    with site.client("alice") as alice:
        assert alice.get("/api/v1/me").status_code == 200


def test_every_state_changing_route_is_recorded(empty_site: Site):
    """Each POST/PUT/PATCH/DELETE route of the app (every router's, those added later too) leaves
    an http entry with its template, whatever it answers, without the route calling anything."""
    site = empty_site
    routes = [(path, method) for path, route in app_routes(site.app) for method in sorted(route.methods or ())
              if method in {"POST", "PUT", "PATCH", "DELETE"} and path not in ("/login", "/logout")]
    assert len(routes) >= 8
    with site.client("alice") as alice:
        for path, method in routes:
            alice.request(method, re.sub(r"\{[^}]+\}", "1", path))
    recorded = {(e.method, e.route) for e in entries(site.store) if e.action == "http" and e.actor == "alice"}
    missing = [(m, p) for p, m in routes if (m, p) not in recorded]
    assert not missing, f"not recorded: {missing}"
    assert all(e.via == ("api" if e.route.startswith("/api/") else "web") and e.address == "127.0.0.1"
               for e in entries(site.store) if e.action == "http")


def test_anonymous_refusals_are_not_recorded(empty_site: Site):
    with empty_site.client() as nobody:
        for _ in range(20):
            assert nobody.post("/api/v1/bots/1/retire").status_code == 401
    assert not entries(empty_site.store)


def test_the_audit_log_has_each_kind_of_change_and_no_secret(empty_site: Site, tmp_path: Path):
    site = empty_site
    url = f"sqlite:///{tmp_path}/arena.db"
    secrets = [*PASSWORD.values(), *site.tokens.values()]
    runner = CliRunner()
    # the command line: an account, a token, a password, all as the operator
    made = runner.invoke(arena, ["user", "add", "carol", "--db", url])
    assert made.exit_code == 0, made.output
    secrets += re.findall(r"(?:API token|password): (\S+)", made.output)
    issued = runner.invoke(arena, ["user", "token", "carol", "--db", url])
    secrets += re.findall(r"API token: (\S+)", issued.output)
    assert runner.invoke(arena, ["user", "password", "carol", "--stdin", "--db", url],
                         input="carol-secret-pw-9\n").exit_code == 0
    secrets.append("carol-secret-pw-9")
    assert runner.invoke(arena, ["user", "disable", "carol", "--db", url]).exit_code == 0
    assert runner.invoke(arena, ["user", "enable", "carol", "--db", url]).exit_code == 0
    # the site: a sign-in (its password and the form's token), a form with the session's CSRF token
    with site.browser("bob") as bob:
        secrets.append(bob.cookies[COOKIE])
        page = bob.get("/leagues").text
        secrets.append(csrf_of(page))
        bob.post("/logout", data={"csrf": csrf_of(page)})
    with site.client("admin") as admin:
        admin.post("/api/v1/admin/users/bob/disable")
        admin.post("/api/v1/admin/users/bob/enable")
        admin.post("/api/v1/leagues", json={"name": "audited", "game": "prohis", "players": 3})
        page = admin.get("/api/v1/admin/audit", params={"limit": 500}).json()
    assert all(len(s) >= 8 for s in secrets) and len(secrets) >= 8
    text = dump(site.store) + json.dumps(page)
    for secret in secrets:
        assert secret not in text, "a secret is in the audit log"
    actions = {e.action for e in entries(site.store)}
    assert {"http", "cli", "user.disable", "user.enable", "account.sign_in", "league.create"} <= actions, actions
    cli = [e for e in entries(site.store) if e.action == "cli"]
    assert {e.route for e in cli} >= {"user add", "user token", "user password", "user disable", "user enable"}
    assert all(e.actor == "operator" and e.via == "cli" and "@" in e.address for e in cli)
    assert {"users", "api_tokens"} <= set(cli[0].detail["tables"])
    disabled = [e for e in entries(site.store) if e.action == "user.disable"]
    assert [(e.actor, e.via, e.target) for e in disabled] == [("operator", "cli", "user carol"),
                                                              ("admin", "api", "user bob")]
    # filtered, a page at a time; the page escapes what it shows
    with site.client("admin") as admin:
        only = admin.get("/api/v1/admin/audit", params={"user": "admin", "action": "user"}).json()["entries"]
        assert {e["action"] for e in only} == {"user.disable", "user.enable"}
        first = admin.get("/api/v1/admin/audit", params={"limit": 2}).json()
        second = admin.get("/api/v1/admin/audit", params={"limit": 2, "before": first["next_before"]}).json()
        assert first["next_before"] and second["entries"][0]["id"] < first["entries"][-1]["id"]
    listed = runner.invoke(arena, ["audit", "--user", "operator", "--json", "--db", url])
    assert {e["action"] for e in json.loads(listed.output)} >= {"cli", "user.disable"}


def test_what_an_entry_keeps_of_a_request():
    assert target_of({"bot_id": 3, "code": "invite-XYZ", "name": "alice"}) == "bot_id=3 code=[redacted] name=alice"
    kept = audit.clean({"password": "hunter22", "note": "arena_" + "x" * 40, "list": [{"token": "t"}], "n": 1})
    assert kept == {"password": "[redacted]", "note": "[redacted]", "list": [{"token": "[redacted]"}], "n": 1}


# -- a real league --------------------------------------------------------------------------------
@pytest.fixture
def league(docker_client, sample_images, tmp_path) -> Iterator[Site]:  # noqa: F811
    """Prohis, 3 players, the four sample bots (random is alice's), one deal, on a server."""
    store = open_store(f"sqlite:///{tmp_path}/arena.db")
    tokens = add_users(store)
    league_of_samples(store, docker_client, name="mod", players=3, deals=1)
    with store() as session, session.begin():
        bots = {b.name: b.id for b in session.scalars(select(Bot))}
        session.get_one(Bot, bots["random"]).owner_id = _user_id(session, "alice")
    app = create_app(store, WebSettings(runs_dir=tmp_path / "runs", uploads_dir=tmp_path / "uploads", worker=False))
    with live_server(app) as url:
        yield Site(url, store, tmp_path / "runs", tokens, bots, league="mod", app=app)


def _user_id(session, name: str) -> int:
    return session.scalars(select(User.id).where(User.name == name)).one()


def played_by(store: Store, bot_id: int) -> int:
    with store() as session:
        return sum(bot_id in m.bots for m in session.scalars(select(Match)))


def test_a_disqualified_bot_plays_no_new_match_and_is_marked(league: Site):
    site, bot = league, league.bots["random"]
    reason = '<script>alert("x")</script> colluded with first-legal'
    with site.client("admin") as admin:
        reply = admin.post(f"/api/v1/bots/{bot}/disqualify", json={"reason": reason})
        assert reply.status_code == 200 and reply.json()["disqualified_at"] and reply.json()["retired_at"], reply.text
        assert admin.post(f"/api/v1/bots/{bot}/disqualify", json={"reason": "a\x1bb"}).status_code == 400
    # the next run schedules no match for it
    summary = run_league(site.store, "mod", rounds=1, jobs=2, runs_dir=site.runs_dir)
    assert summary.matches_run == 1 and played_by(site.store, bot) == 0
    # marked: on the leaderboard (JSON and page) and on its page; the reason to its owner and admins only
    with site.client() as anyone, site.client("alice") as alice, site.client("bob") as bob:
        row = next(r for r in anyone.get("/api/v1/leagues/mod/leaderboard").json()["rows"] if r["bot_id"] == bot)
        assert row["disqualified"] and row["retired"]
        assert "disqualified" in anyone.get("/leagues/mod").text
        assert anyone.get(f"/api/v1/bots/{bot}").json()["disqualified_reason"] is None
        assert bob.get(f"/api/v1/bots/{bot}").json()["disqualified_reason"] is None
        assert alice.get(f"/api/v1/bots/{bot}").json()["disqualified_reason"] == reason
        page = alice.get(f"/bots/{bot}").text
        assert 'id="bot-disqualified"' in page and "&lt;script&gt;" in page and "<script>alert" not in page
        assert reason not in anyone.get(f"/bots/{bot}").text
        # its owner can neither undo it nor submit a new version of the name
        assert alice.post(f"/api/v1/bots/{bot}/requalify").status_code == 403
        refused = alice.post("/api/v1/submissions", files={"archive": ("bot.tar.gz", bot_archive("random", "9"))})
        assert refused.status_code == 403 and "has a disqualified version" in refused.json()["detail"], refused.text
    # undone by an admin; then disqualified while a run is under way: of its matches scheduled, the
    # one started plays on, none of those not started yet is played
    with site.client("admin") as admin:
        assert admin.post(f"/api/v1/bots/{bot}/requalify").json()["retired_at"] is None

    def started(job: MatchJob) -> None:
        if bot in job.slot.table and played_by(site.store, bot) == 0:
            with site.client("admin") as admin:
                assert admin.post(f"/api/v1/bots/{bot}/disqualify", json={"reason": "again"}).status_code == 200

    summary = run_league(site.store, "mod", rounds=1, jobs=1, runs_dir=site.runs_dir, match_started=started)
    assert summary.matches_withdrawn >= 1
    assert played_by(site.store, bot) == 1  # the match it had started when disqualified
    with site.client("admin") as admin:
        log = admin.get("/api/v1/admin/audit", params={"action": "bot"}).json()["entries"]
    assert [e["action"] for e in log] == ["bot.disqualify", "bot.requalify", "bot.disqualify"]
    assert log[-1]["detail"]["reason"] == reason and log[-1]["actor"] == "admin"
    with site.browser("admin", form=False) as admin:  # the audit page shows the reason escaped
        page = admin.get("/admin/audit", params={"action": "bot"}).text
        assert "reason: &lt;script&gt;" in page and "<script>alert" not in page
