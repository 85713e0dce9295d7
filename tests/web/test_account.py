"""An account's own tokens and password over real HTTP: tokens listed by hint and dates (never
themselves), made and shown once, revoked by their owner only (from the API and the page); a
password change needs the current password, refuses a weak one, and signs out the account's
other browsers while this one stays signed in."""

from __future__ import annotations

import re

from sqlalchemy import select

from arena.store import ApiToken, User

from .conftest import PASSWORD, csrf_of, log_in, new_site

NEW = "a-brand-new-password"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_tokens_are_listed_made_once_and_revoked_by_their_owner(tmp_path):
    with new_site(tmp_path) as site, site.client("alice") as alice:
        listed = alice.get("/api/v1/me/tokens").json()
        assert len(listed) == 1 and set(listed[0]) == {"id", "hint", "created_at", "last_used_at"}
        first = listed[0]
        assert first["hint"] == site.tokens["alice"][:12] + "…" and site.tokens["alice"] not in str(listed)
        assert first["last_used_at"] is not None  # this very request used it
        made = alice.post("/api/v1/me/tokens")
        assert made.status_code == 201, made.text
        token = made.json()["token"]
        assert made.json()["hint"] == token[:12] + "…" and alice.get("/api/v1/me", headers=bearer(token)).json()[
            "name"] == "alice"
        assert [t["id"] for t in alice.get("/api/v1/me/tokens").json()] == [made.json()["id"], first["id"]]
        assert token not in alice.get("/api/v1/me/tokens").text  # shown once
        with site.store() as session:  # only its hash is kept
            assert session.scalar(select(ApiToken.digest).where(ApiToken.id == made.json()["id"])) != token
        # another account's token is "not found", and keeps working
        with site.client("bob") as bob:
            assert bob.delete(f"/api/v1/me/tokens/{made.json()['id']}").status_code == 404
            assert bob.get("/api/v1/me/tokens").json()[0]["id"] != made.json()["id"]
        assert alice.get("/api/v1/me", headers=bearer(token)).status_code == 200
        revoked = alice.delete(f"/api/v1/me/tokens/{made.json()['id']}")
        assert revoked.status_code == 200 and revoked.json()["id"] == made.json()["id"]
        assert alice.get("/api/v1/me", headers=bearer(token)).status_code == 401
        assert alice.delete(f"/api/v1/me/tokens/{made.json()['id']}").status_code == 404
        assert alice.delete("/api/v1/me/tokens/99999999999999999999").status_code == 404


def test_the_account_page_makes_a_token_shown_once_and_revokes_one(tmp_path):
    with new_site(tmp_path) as site, site.browser("alice", form=False) as browser:
        page = browser.get("/account")
        assert page.status_code == 200 and 'id="tokens"' in page.text and site.tokens["alice"] not in page.text
        shown = browser.post("/account/tokens", data={"csrf": csrf_of(page.text)})
        found = re.search(r'id="new-token">(arena_[^<]+)<', shown.text)
        assert shown.status_code == 200 and found, shown.text[:400]
        token = found[1]
        assert site.client().get("/api/v1/me", headers=bearer(token)).json()["name"] == "alice"
        again = browser.get("/account").text
        assert token not in again and token[:12] + "…" in again  # its hint, not itself
        with site.store() as session:
            token_id = session.scalar(select(ApiToken.id).order_by(ApiToken.id.desc()))
        assert browser.post(f"/account/tokens/{token_id}/revoke", data={"csrf": csrf_of(again)}).status_code == 303
        assert site.client().get("/api/v1/me", headers=bearer(token)).status_code == 401
        # a form without the session's token changes nothing
        assert browser.post("/account/tokens", data={"csrf": "forged"}).status_code == 403


def test_a_password_change_needs_the_current_one_and_signs_out_the_other_browsers(tmp_path):
    with new_site(tmp_path) as site, site.browser("alice") as here, site.browser("alice") as there, \
            site.client("alice") as program:
        token = csrf_of(here.get("/account").text)

        def change(current: str, new: str, new2: str | None = None):
            return here.post("/account/password", data={"csrf": token, "current": current, "new": new,
                                                        "new2": new if new2 is None else new2})

        for args, status, message in [(("wrong-password-x", NEW), 403, "The current password is wrong."),
                                      ((PASSWORD["alice"], "short"), 422, "at least 10 characters"),
                                      ((PASSWORD["alice"], "ALICE"), 422, ""),
                                      ((PASSWORD["alice"], NEW, NEW + "x"), 422, "The two new passwords differ"),
                                      ((PASSWORD["alice"], PASSWORD["alice"]), 422, "is the current one")]:
            reply = change(*args)
            assert reply.status_code == status and message in reply.text, (args, reply.status_code)
        assert there.get("/api/v1/me").json()["name"] == "alice"  # nothing changed yet
        done = change(PASSWORD["alice"], NEW)
        assert done.status_code == 200 and "Password changed; 1 other session signed out." in done.text
        assert here.get("/api/v1/me").json()["name"] == "alice"  # this browser stays in
        assert there.get("/api/v1/me").status_code == 401  # the other is out
        assert program.get("/api/v1/me").json()["name"] == "alice"  # tokens keep working
        with site.browser() as fresh:
            assert "failed" in log_in(fresh, "alice", PASSWORD["alice"]).headers["location"]
            assert log_in(fresh, "alice", NEW).headers["location"] == "/"


def test_the_api_changes_a_password_and_ends_every_session(tmp_path):
    with new_site(tmp_path) as site, site.browser("bob") as browser, site.client("bob") as bob:
        assert bob.post("/api/v1/me/password", json={"current": "nope-nope-nope", "new": NEW}).status_code == 403
        assert bob.post("/api/v1/me/password", json={"current": PASSWORD["bob"], "new": "1234567890"}).json()[
            "detail"] == "that password is one of the most common: choose another"
        reply = bob.post("/api/v1/me/password", json={"current": PASSWORD["bob"], "new": NEW})
        assert reply.status_code == 200 and reply.json() == {"sessions_ended": 1}
        assert browser.get("/api/v1/me").status_code == 401
        with site.store() as session:
            stored = session.scalar(select(User.password_hash).where(User.name == "bob"))
            assert stored and stored.startswith("$argon2id$") and NEW not in stored


def test_wrong_current_passwords_are_throttled_like_sign_ins(tmp_path):
    from arena.web.throttle import Policy, Throttles

    few = Policy(free=2, first=30.0, longest=60.0)
    with new_site(tmp_path, throttles=Throttles(account=few)) as site, site.client("alice") as alice:
        for _ in range(few.free):
            assert alice.post("/api/v1/me/password", json={"current": "guess-guess", "new": NEW}).status_code == 403
        waiting = alice.post("/api/v1/me/password", json={"current": PASSWORD["alice"], "new": NEW})
        assert waiting.status_code == 429 and "wait" in waiting.json()["detail"] and waiting.headers["retry-after"]
        with site.browser() as browser:  # and the name's sign-ins wait as well: they are the same guesses
            assert log_in(browser, "alice").status_code == 429


def test_an_account_holds_at_most_its_share_of_tokens_and_secrets_are_not_cached(tmp_path):
    from referee import limits

    with new_site(tmp_path) as site, site.client("alice") as alice:
        for _ in range(limits.TOKENS_PER_ACCOUNT - 1):  # alice has one already
            made = alice.post("/api/v1/me/tokens")
            assert made.status_code == 201 and made.headers["cache-control"] == "no-store"
        refused = alice.post("/api/v1/me/tokens")
        assert refused.status_code == 409 and f"at most {limits.TOKENS_PER_ACCOUNT} API tokens" in refused.json()[
            "detail"]
        assert len(alice.get("/api/v1/me/tokens").json()) == limits.TOKENS_PER_ACCOUNT
        with site.browser("alice", form=False) as browser:
            page = browser.post("/account/tokens", data={"csrf": csrf_of(browser.get("/account").text)})
            assert page.status_code == 409 and "revoke one" in page.text and 'id="new-token"' not in page.text
        newest = alice.get("/api/v1/me/tokens").json()[0]["id"]  # not the oldest: the one this client uses
        assert alice.delete(f"/api/v1/me/tokens/{newest}").status_code == 200
        assert alice.post("/api/v1/me/tokens").status_code == 201
