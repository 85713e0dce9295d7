"""Accounts over HTTP: tokens, passwords, sessions, CSRF, and the headers every answer carries."""

from __future__ import annotations

import re

from arena.accounts import check_password, issue_token, revoke_tokens
from arena.store import ApiToken

from .conftest import PASSWORD, csrf_of, log_in, sign_in, wait_for


def test_a_token_says_who_is_asking(empty_site):
    with empty_site.client("alice") as alice, empty_site.client("admin") as admin:
        assert alice.get("/api/v1/me").json() == {"name": "alice", "admin": False}
        assert admin.get("/api/v1/me").json() == {"name": "admin", "admin": True}


def test_no_token_or_a_bad_one_is_refused_with_401(empty_site):
    with empty_site.client() as anonymous:
        reply = anonymous.get("/api/v1/me")
        assert reply.status_code == 401 and "token" in reply.json()["detail"]
        forged = anonymous.get("/api/v1/me", headers={"Authorization": "Bearer arena_" + "A" * 43})
        assert forged.status_code == 401 and "not valid" in forged.json()["detail"]


def test_only_hashes_of_tokens_are_stored_and_revoked_ones_stop_working(empty_site):
    with empty_site.store() as session:
        digests = [t.digest for t in session.query(ApiToken)]
    assert all(re.fullmatch("[0-9a-f]{64}", d) for d in digests)
    assert not any(token in digests for token in empty_site.tokens.values())
    extra = issue_token(empty_site.store, "bob")
    with empty_site.client("bob") as bob:
        assert bob.get("/api/v1/me", headers={"Authorization": f"Bearer {extra}"}).status_code == 200
        assert revoke_tokens(empty_site.store, "bob") == 2
        assert bob.get("/api/v1/me").status_code == 401


def test_passwords_are_argon2id_hashes(empty_site):
    from arena.store import User

    with empty_site.store() as session:
        hashes = {u.name: u.password_hash for u in session.query(User)}
    assert all(h.startswith("$argon2id$") for h in hashes.values())
    assert check_password(empty_site.store, "alice", PASSWORD["alice"]).name == "alice"
    assert check_password(empty_site.store, "alice", PASSWORD["bob"]) is None
    assert check_password(empty_site.store, "nobody", PASSWORD["bob"]) is None


def test_signing_in_sets_an_http_only_session_cookie_and_signing_out_needs_the_csrf_token(empty_site):
    with empty_site.browser() as browser:
        wrong = log_in(browser, "alice", "nope", next="/leagues")
        assert wrong.status_code == 303 and "failed=1" in wrong.headers["location"]
        reply = log_in(browser, "alice", next="/leagues")
        assert reply.status_code == 303 and reply.headers["location"] == "/leagues"
        cookie = next(c for c in reply.headers.get_list("set-cookie") if c.startswith("arena_session=")).lower()
        assert "httponly" in cookie and "samesite=lax" in cookie
        assert browser.get("/api/v1/me").json()["name"] == "alice"  # the session works for the API too
        refused = browser.post("/logout", data={"csrf": "forged"})
        assert refused.status_code == 403 and browser.get("/api/v1/me").status_code == 200
        csrf = csrf_of(browser.get("/leagues").text)
        assert browser.post("/logout", data={"csrf": csrf}).status_code == 303
        browser.cookies.clear()
        assert browser.get("/api/v1/me").status_code == 401


def test_sign_in_never_redirects_off_the_site(empty_site):
    with empty_site.browser() as browser:
        for target in ("https://evil.example/", "//evil.example/", "/\\evil.example"):
            reply = log_in(browser, "bob", next=target)
            assert reply.headers["location"] == "/", target


def test_every_answer_carries_the_security_headers_and_pages_are_not_cached(empty_site):
    with empty_site.client() as anonymous:
        page = anonymous.get("/login")
        api = anonymous.get("/api/v1/openapi.json")
    for reply in (page, api):
        assert "script-src 'self'" in reply.headers["content-security-policy"]
        assert reply.headers["x-content-type-options"] == "nosniff"
    assert page.headers["cache-control"] == "no-store"
    assert api.json()["info"]["title"] == "Arena"


def test_a_page_that_needs_an_account_sends_a_browser_to_sign_in(empty_site):
    with empty_site.client() as anonymous:
        reply = anonymous.post("/logout")
        assert reply.status_code == 303 and reply.headers["location"].startswith("/login?next=")


def test_signing_in_in_chromium(empty_site, browser):
    from selenium.webdriver.common.by import By

    sign_in(browser, empty_site.url, "alice")
    assert browser.find_element(By.ID, "who").text == "alice"
    browser.get(f"{empty_site.url}/login")
    browser.find_element(By.ID, "login-name").send_keys("alice")
    browser.find_element(By.ID, "login-password").send_keys("wrong password")
    browser.find_element(By.ID, "login-submit").click()
    # the answer is a new page: on a busy machine it is not there the moment the click returns
    failed = wait_for(browser, lambda d: d.find_elements(By.ID, "login-failed"), "the sign-in to be refused")
    assert failed[0].is_displayed()
