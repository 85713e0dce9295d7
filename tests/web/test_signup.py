"""Signing up over real HTTP, on a real server and store: each ``--join`` mode; invite codes
(unknown, expired, used up, revoked: each refused with its reason and nothing half-made); names
taken whatever their case; weak passwords; the form's and the API's protection from other sites;
the per-address throttle; and two sign-ups racing for an invite's last use, on SQLite through the
server and on a PostgreSQL server of the test's own."""

from __future__ import annotations

import json
import re
import threading
from datetime import UTC, datetime, timedelta

import click
import httpx
import pytest
from click.testing import CliRunner
from pydantic import TypeAdapter
from sqlalchemy import func, select, update

from arena.accounts import BadInvite, make_invite, sign_up
from arena.cli import main as arena
from arena.schemas.docs import LISTINGS
from arena.store import ApiToken, AuditEntry, Invite, User, WebSession, open_store
from arena.teams import OPERATOR, create_team
from arena.web.throttle import Policy, Throttles

from .conftest import log_in, new_site

GOOD = "a-good-long-password"
MANY = Policy(free=1000, first=1.0, longest=60.0)  # the sign-up throttle out of the way


def counts(site) -> tuple[int, int, int]:
    """Accounts, tokens and sessions in the store."""
    with site.store() as session:
        return (session.scalar(select(func.count(User.id))) or 0, session.scalar(select(func.count(ApiToken.id))) or 0,
                session.scalar(select(func.count(WebSession.id))) or 0)


def used(site, invite_id: int) -> int:
    with site.store() as session:
        return session.get_one(Invite, invite_id).used


def signup(client: httpx.Client, name: str, password: str = GOOD, invite: str | None = None) -> httpx.Response:
    return client.post("/api/v1/signup", json={"name": name, "password": password, "invite": invite})


def page_signup(client: httpx.Client, name: str, password: str = GOOD, invite: str = "",
                password2: str | None = None) -> httpx.Response:
    """Signs up through the page's form, as a browser does (the page first, for its token)."""
    page = client.get("/signup")
    token = client.cookies.get("arena_signup")
    assert token and f'value="{token}"' in page.text, page.text[:500]
    return client.post("/signup", data={"name": name, "password": password, "invite": invite, "csrf": token,
                                        "password2": password if password2 is None else password2})


def test_sign_up_is_closed_by_default(tmp_path):
    with new_site(tmp_path) as site, site.client() as client, site.browser() as browser:
        before = counts(site)
        reply = signup(client, "carol")
        assert reply.status_code == 403 and "closed" in reply.json()["detail"]
        page = browser.get("/signup")
        assert page.status_code == 403 and 'id="signup-closed"' in page.text and "signup-form" not in page.text
        assert 'id="sign-up"' not in browser.get("/login").text  # no link to it
        assert counts(site) == before


def test_an_open_server_makes_an_account_that_works(tmp_path):
    with new_site(tmp_path, join="open") as site, site.client() as client:
        reply = signup(client, "carol")
        assert reply.status_code == 201, reply.text
        made = reply.json()
        assert made["name"] == "carol" and made["token"].startswith("arena_") and set(made) == {"name", "token"}
        me = client.get("/api/v1/me", headers={"Authorization": f"Bearer {made['token']}"})
        assert me.json() == {"name": "carol", "admin": False}  # never an admin
        with site.browser() as browser:
            assert log_in(browser, "carol", GOOD).headers["location"] == "/"
            assert browser.get("/api/v1/me").json()["name"] == "carol"
        with site.store() as session:
            row = session.scalar(select(User).where(User.name == "carol"))
            assert row is not None and row.password_hash and row.password_hash.startswith("$argon2id$")
            assert row.invite_id is None and GOOD not in row.password_hash
        assert signup(client, "erin", invite="not-a-code").status_code == 201  # an open server takes no code


def test_a_team_s_name_cannot_be_taken_by_a_new_account_in_any_case(tmp_path):
    with new_site(tmp_path, join="open") as site, site.client() as client:
        create_team(site.store, "Crew", OPERATOR, owner="alice")
        with site.store() as session:
            audited = session.scalar(select(func.count()).select_from(AuditEntry))
        for name in ("Crew", "crew", "CREW"):
            reply = signup(client, name)
            assert reply.status_code == 409 and "is taken" in reply.json()["detail"], reply.text
        made = signup(client, "crewmate")
        assert made.status_code == 201
        with site.store() as session:  # the sign-up is in the audit log, in its own transaction
            entries = session.scalars(select(AuditEntry).where(AuditEntry.action == "account.sign_up")).all()
            assert [e.target for e in entries] == [f"account {made_id(site, 'crewmate')} (crewmate)"]
            assert session.scalar(select(func.count()).select_from(AuditEntry)) > audited


def made_id(site, name: str) -> int:
    with site.store() as session:
        return session.scalar(select(User.id).where(User.name == name))


@pytest.mark.parametrize("name, password, status, message", [
    ("alice", GOOD, 409, "the name 'alice' is taken"),
    ("ALICE", GOOD, 409, "the name 'ALICE' is taken (names are told apart whatever their case)"),
    ("Bob", GOOD, 409, "is taken"),
    ("carol", "short", 422, "at least 10 characters"),
    ("carol", "x" * 1025, 422, "at most 1024"),
    ("carolinexyz", "CarolineXYZ", 422, "must not be the account's name"),
    ("carol", "password123", 422, "one of the most common"),
    ("carol", "QWERTYUIOP", 422, "one of the most common"),
    ("carol", "zzzzzzzzzzzz", 422, "one of the most common"),
    ("-carol", GOOD, 422, "is not a user name"),
    ("car ol", GOOD, 422, "is not a user name"),
    ("c" * 65, GOOD, 422, ""),
    ("<script>", GOOD, 422, "is not a user name"),
])
def test_a_bad_sign_up_says_why_and_makes_nothing(tmp_path, name, password, status, message):
    with new_site(tmp_path, join="invite", throttles=Throttles(signup=MANY)) as site, site.client() as client:
        invite, code = make_invite(site.store, uses=5)
        before = counts(site)
        reply = signup(client, name, password, code)
        assert reply.status_code == status, reply.text
        assert message in reply.json()["detail"]
        assert counts(site) == before and used(site, invite.id) == 0  # the code's use is not taken either
        assert signup(client, "dave", GOOD, code).status_code == 201  # and it still works


def test_the_page_shows_a_refusal_escaped_and_keeps_what_was_typed_but_the_password(tmp_path):
    with new_site(tmp_path, join="open", throttles=Throttles(signup=MANY)) as site, site.browser() as browser:
        reply = page_signup(browser, "ALICE")
        assert reply.status_code == 409 and 'id="signup-message"' in reply.text
        assert "The name &#39;ALICE&#39; is taken" in reply.text and 'value="ALICE"' in reply.text
        assert GOOD not in reply.text
        differ = page_signup(browser, "carol", password2=GOOD + "!")
        assert differ.status_code == 422 and "The two passwords differ" in differ.text
        assert counts(site)[0] == 3


def test_invite_codes_unknown_expired_used_up_or_revoked_are_refused_with_their_reason(tmp_path):
    with new_site(tmp_path, join="invite", throttles=Throttles(signup=MANY)) as site, site.client() as client:
        expired, expired_code = make_invite(site.store)
        with site.store() as session, session.begin():
            session.execute(update(Invite).where(Invite.id == expired.id)
                            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1)))
        once, once_code = make_invite(site.store, uses=1)
        revoked, revoked_code = make_invite(site.store, uses=3)
        with site.client("admin") as admin:
            assert admin.delete(f"/api/v1/invites/{revoked.id}").json()["state"] == "revoked"
        assert signup(client, "carol", invite=once_code).status_code == 201
        before = counts(site)
        for code, message in [(None, "sign-up on this server is by invite"), ("  ", "by invite"),
                              ("no-such-code", "not known here"), (expired_code, "has expired"),
                              (once_code, "used up"), (revoked_code, "was revoked"), ("x" * 257, "")]:
            reply = signup(client, "dave", invite=code)
            assert reply.status_code in (403, 422), (code, reply.text)
            assert message in reply.json()["detail"], (code, reply.text)
        assert counts(site) == before
        assert [used(site, i.id) for i in (expired, once, revoked)] == [0, 1, 0]
        with site.store() as session:
            carol = session.scalar(select(User).where(User.name == "carol"))
            assert carol is not None and carol.invite_id == once.id  # which code let them in


def test_an_invite_signs_up_as_many_as_its_uses_then_no_more(tmp_path):
    with new_site(tmp_path, join="invite", throttles=Throttles(signup=MANY)) as site, site.client() as client:
        invite, code = make_invite(site.store, uses=2)
        assert [signup(client, name, invite=code).status_code for name in ("c1", "c2", "c3")] == [201, 201, 403]
        assert used(site, invite.id) == 2
        with site.client("admin") as admin:
            listed = admin.get("/api/v1/invites").json()
            assert [(i["id"], i["used"], i["uses"], i["state"]) for i in listed] == [(invite.id, 2, 2, "used up")]
            assert code not in str(listed) and listed[0]["hint"] == code[:6]


def test_two_sign_ups_racing_for_the_last_use_get_one_account(tmp_path):
    with new_site(tmp_path, join="invite", throttles=Throttles(signup=MANY), sign_in_concurrency=0) as site:
        invite, code = make_invite(site.store, uses=1)
        barrier, answers = threading.Barrier(8), []

        def racer(i: int) -> None:
            with site.client() as client:
                barrier.wait()
                answers.append(signup(client, f"racer{i}", invite=code))

        threads = [threading.Thread(target=racer, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        statuses = sorted(reply.status_code for reply in answers)
        assert statuses == [201] + [403] * 7, [r.text for r in answers]
        assert all("used up" in r.json()["detail"] for r in answers if r.status_code == 403)
        assert used(site, invite.id) == 1 and counts(site)[0] == 4


def test_racing_for_the_last_use_on_postgresql(private_postgres):
    store = open_store(private_postgres.url)
    try:
        invite, code = make_invite(store, uses=3)
        barrier, made, refused = threading.Barrier(12), [], []

        def racer(i: int) -> None:
            barrier.wait()
            try:
                made.append(sign_up(store, f"racer{i}", GOOD, code, password_hash="not-checked-here"))
            except BadInvite as exc:
                refused.append(str(exc))

        threads = [threading.Thread(target=racer, args=(i,)) for i in range(12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(made) == 3 and len(refused) == 9 and all("used up" in r for r in refused), refused
        with store() as session:
            assert session.get_one(Invite, invite.id).used == 3
            assert session.scalar(select(func.count(User.id)).where(User.invite_id == invite.id)) == 3
        # the same name in two cases, racing: the database's index lets one in
        open_invite, open_code = make_invite(store, uses=10)
        barrier, made, taken = threading.Barrier(2), [], []

        def twin(name: str) -> None:
            barrier.wait()
            try:
                made.append(sign_up(store, name, GOOD, open_code, password_hash="x"))
            except Exception as exc:  # noqa: BLE001 - which one loses is the test's question
                taken.append(exc)

        twins = [threading.Thread(target=twin, args=(name,)) for name in ("Mallory", "mallory")]
        for thread in twins:
            thread.start()
        for thread in twins:
            thread.join()
        assert len(made) == 1 and len(taken) == 1 and "is taken" in str(taken[0]), taken
        with store() as session:
            assert session.get_one(Invite, open_invite.id).used == 1  # the loser's use was given back
    finally:
        store.engine.dispose()


def test_the_form_and_the_api_refuse_other_sites(tmp_path):
    with new_site(tmp_path, join="open", throttles=Throttles(signup=MANY)) as site, site.browser() as browser:
        other = site.url.replace("127.0.0.1", "localhost")
        page = browser.get("/signup")
        token = browser.cookies["arena_signup"]
        assert f'value="{token}"' in page.text
        form = {"name": "carol", "password": GOOD, "password2": GOOD, "csrf": token}
        assert browser.post("/signup", data=form, headers={"Origin": other}).status_code == 403
        assert browser.post("/signup", data={**form, "csrf": "forged"}).status_code == 403
        browser.cookies.delete("arena_signup")
        assert browser.post("/signup", data=form).status_code == 403  # no pre-session: another site's form
        # the API: JSON only (a form cannot send it cross-site without a preflight), and no other origin
        with site.client() as client:
            body = {"name": "carol", "password": GOOD}
            assert client.post("/api/v1/signup", data=body).status_code in (415, 422)
            # what a form of another site can send: refused before it is read (FastAPI's JSON check, then ours)
            assert client.post("/api/v1/signup", content=str(body).replace("'", '"'),
                               headers={"Content-Type": "text/plain"}).status_code in (415, 422)
            assert client.post("/api/v1/signup", json=body, headers={"Origin": other}).status_code == 403
            assert counts(site)[0] == 3
            assert client.post("/api/v1/signup", json=body, headers={"Origin": site.url}).status_code == 201


def test_a_page_sign_up_with_an_invite_signs_the_browser_in(tmp_path):
    with new_site(tmp_path, join="invite", throttles=Throttles(signup=MANY)) as site, site.browser() as browser:
        _, code = make_invite(site.store)
        prefilled = browser.get(f"/signup?invite={code}")
        assert f'value="{code}"' in prefilled.text and 'id="signup-invite"' in prefilled.text
        assert log_in(browser, "alice").status_code == 303  # signed in as alice, the browser signs up anew
        before = browser.cookies["arena_session"]
        reply = page_signup(browser, "carol", invite=code)
        assert reply.status_code == 303 and reply.headers["location"] == "/account?welcome=1", reply.text
        assert browser.get("/api/v1/me").json()["name"] == "carol"
        with site.client() as other:  # alice's session in this browser ended with the sign-up
            other.cookies.set("arena_session", before)
            assert other.get("/api/v1/me").status_code == 401
        welcome = browser.get("/account?welcome=1")
        assert 'id="welcome"' in welcome.text and 'id="no-tokens"' in welcome.text  # the page's sign-up makes none


def test_sign_ups_from_one_address_are_throttled(tmp_path):
    policy = Policy(free=2, first=30.0, longest=60.0)
    with new_site(tmp_path, join="open", throttles=Throttles(signup=policy)) as site, site.client() as client:
        assert signup(client, "c1").status_code == 201
        assert signup(client, "alice").status_code == 409  # refused for the name: counted
        assert signup(client, "c2", "short").status_code == 422  # refused before anything costs: not counted
        waiting = signup(client, "c3")
        assert waiting.status_code == 429 and 25 <= int(waiting.headers["retry-after"]) <= 30
        assert re.fullmatch(r"too many sign-ups from your address: wait (2\d|30) seconds, then try again",
                            waiting.json()["detail"]), waiting.text
        with site.browser() as browser:
            shown = page_signup(browser, "c4")
            assert shown.status_code == 429 and "Too many sign-ups" in shown.text and "wait" in shown.text
        assert counts(site)[0] == 4


def test_invite_codes_from_the_command_line(tmp_path):
    with new_site(tmp_path, join="invite", throttles=Throttles(signup=MANY)) as site, site.client() as client:
        db = f"sqlite:///{tmp_path}/arena.db"
        made = CliRunner().invoke(arena, ["user", "invite", "--uses", "2", "--days", "3", "--json", "--db", db])
        assert made.exit_code == 0, made.output
        code = json.loads(made.output)["code"]
        assert signup(client, "carol", invite=code).status_code == 201
        listed = CliRunner().invoke(arena, ["user", "invites", "--db", db])
        assert "1 of 2" in listed.output and "active" in listed.output and code not in listed.output
        documents = CliRunner().invoke(arena, ["user", "invites", "--json", "--db", db]).output
        rows = TypeAdapter(LISTINGS["user invites"].shape).validate_json(documents, strict=True)
        assert [(row.used, row.uses, row.state) for row in rows] == [(1, 2, "active")] and code not in documents
        TypeAdapter(LISTINGS["user invite"].shape).validate_json(made.output, strict=True)
        revoked = CliRunner().invoke(arena, ["user", "invite", "--revoke", "1", "--db", db])
        assert revoked.exit_code == 0 and "invite 1 revoked" in revoked.output
        assert "was revoked" in signup(client, "dave", invite=code).json()["detail"]
        for args, message in [(["--uses", "0"], "0 is not in the range"), (["--days", "0"], "0"),
                              (["--revoke", "99"], "no invite 99")]:
            refused = CliRunner().invoke(arena, ["user", "invite", *args, "--db", db])
            assert refused.exit_code != 0 and message in refused.output, refused.output


def test_only_an_admin_makes_lists_and_revokes_invites(tmp_path):
    with new_site(tmp_path, join="invite") as site:
        with site.client("alice") as alice:
            assert alice.post("/api/v1/invites", json={}).status_code == 403
            assert alice.get("/api/v1/invites").status_code == 403
            assert alice.delete("/api/v1/invites/1").status_code == 403
        with site.browser("alice", form=False) as browser:
            assert browser.get("/invites").status_code == 403
        with site.client("admin") as admin:
            made = admin.post("/api/v1/invites", json={"uses": 3, "days": 2})
            assert made.status_code == 201 and made.json()["uses"] == 3 and made.json()["state"] == "active"
            for body in ({"uses": 0}, {"uses": 10_001}, {"days": 0}, {"days": 366}):
                assert admin.post("/api/v1/invites", json=body).status_code == 422, body
            assert admin.delete("/api/v1/invites/99").status_code == 404
        with site.browser("admin") as browser:
            page = browser.get("/invites")
            token = page.text.split('name="csrf" value="')[1].split('"')[0]
            shown = browser.post("/invites", data={"csrf": token, "uses": "2", "days": "1"})
            assert shown.status_code == 200 and 'id="new-invite"' in shown.text
            code = shown.text.split('id="new-invite">')[1].split("<")[0]
            assert code not in browser.get("/invites").text  # shown once
            assert browser.post("/invites/2/revoke", data={"csrf": token}).status_code == 303
            assert "revoked" in browser.get("/invites").text


def test_serve_takes_join_and_the_settings_refuse_anything_else():
    from arena.cli.serve import serve
    from arena.web import WebSettings

    assert WebSettings().join == "closed"  # today's behaviour, unless the operator says otherwise
    for mode in ("open", "invite", "closed"):
        assert serve.make_context("serve", ["--join", mode]).params["join"] == mode
    with pytest.raises(click.BadParameter, match="'everyone' is not one of 'open', 'invite', 'closed'"):
        serve.make_context("serve", ["--join", "everyone"])
    with pytest.raises(ValueError, match="join is one of open, invite, closed"):
        WebSettings(join="everyone")


def test_the_command_line_holds_names_and_passwords_to_the_same_rules(tmp_path):
    db = f"sqlite:///{tmp_path}/arena.db"
    runner = CliRunner()
    assert runner.invoke(arena, ["user", "add", "Alice", "--db", db]).exit_code == 0
    for args, given, message in [(["user", "add", "alice"], None, "the name 'alice' is taken"),
                                 (["user", "add", "bob", "--password-stdin"], "short-one\n", "at least 10 characters"),
                                 (["user", "add", "bob", "--password-stdin"], "bob\n", "at least 10"),
                                 (["user", "password", "Alice", "--stdin"], "qwertyuiop\n", "most common")]:
        result = runner.invoke(arena, [*args, "--db", db], input=given)
        assert result.exit_code == 1 and message in result.output, (args, result.output)
    with open_store(db)() as session:
        assert session.scalars(select(User.name)).all() == ["Alice"]
