"""The session model over real HTTP, for every route of the app: a state-changing request signed
in with the session cookie is refused without the session's CSRF token or without an Origin (or
Referer) of this site; an API token needs neither; and sign-in's own token and Origin check."""

from __future__ import annotations

import re

import pytest
from fastapi.routing import APIRoute

from arena.web import WebSettings, auth, create_app

from .conftest import PASSWORD, app_routes, csrf_of

UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}
MISSING = str(2**63 - 1)  # an id in range that names nothing: a request that passes changes nothing
# routes with no account yet: signing in and signing up check their own form's token and the Origin
# (test_sign_in_needs_its_forms_token_and_this_sites_origin; tests/web/test_signup.py)
NO_ACCOUNT_YET = {"/login", "/signup", "/api/v1/signup"}


def unsafe_routes() -> list[tuple[str, str, APIRoute]]:
    return [(method, path, route) for path, route in app_routes()
            for method in sorted((route.methods or set()) & UNSAFE)]


def concrete(path: str) -> str:
    ids = ("{bot_id}", "{submission_id}", "{match_id}", "{game_id}", "{token_id}", "{invite_id}")
    return re.sub(r"\{[^}]+\}", lambda m: MISSING if m[0] in ids else "nosuch", path)


def calls(dependant) -> set:
    out = {dependant.call}
    for sub in dependant.dependencies:
        out |= calls(sub)
    return out


def test_every_state_changing_route_gets_its_account_through_the_check():
    """A route added later that takes the account another way fails here (sign-in has no account yet)."""
    unchecked = [(m, p) for m, p, route in unsafe_routes()
                 if p not in NO_ACCOUNT_YET and not calls(route.dependant) & {auth.viewer, auth.uploader}]
    assert unchecked == []
    assert len(unsafe_routes()) >= 9  # the walk below walks something


def test_every_state_changing_route_refuses_a_cookie_request_without_its_token_or_origin(empty_site):
    other = {"Origin": empty_site.url.replace("127.0.0.1", "localhost")}
    for method, path in [(m, p) for m, p, _ in unsafe_routes() if p not in NO_ACCOUNT_YET]:
        url = concrete(path)
        with empty_site.browser("admin", form=False) as browser:  # anew for each: one may be /logout

            def send(headers=None, browser=browser, method=method, url=url, **body):
                return browser.request(method, url, headers=headers or {}, **body)

            token = csrf_of(browser.get("/leagues").text)
            for what, reply in {
                "no token": send(),
                "a form without the token": send(data={"name": "x"}),
                "a multipart form without the token": send(data={"name": "x"},
                                                           files={"archive": ("a.tar.gz", b"x", "application/gzip")}),
                "a wrong token": send({"X-CSRF-Token": "forged"}),
                "the token from another site": send({"X-CSRF-Token": token, **other}),
                "the token from nowhere": send({"X-CSRF-Token": token, "Origin": ""}),
            }.items():
                assert reply.status_code == 403, (method, path, what, reply.status_code, reply.text[:300])
            # without an Origin header (these clients send one): with neither, refused; with a Referer of
            # this site, past the check (to an answer about the missing thing)
            nowhere = browser.build_request(method, url, headers={"X-CSRF-Token": token})
            del nowhere.headers["origin"]
            refused = browser.send(nowhere)
            assert refused.status_code == 403 and "says neither" in refused.text, (method, path)
            assert browser.get("/api/v1/me").json()["name"] == "admin"  # nothing above signed it out
            no_origin = browser.build_request(method, url, headers={"X-CSRF-Token": token,
                                                                    "Referer": f"{empty_site.url}/leagues"})
            del no_origin.headers["origin"]
            passed = browser.send(no_origin)
            assert passed.status_code != 403, (method, path, passed.text[:300])
        with empty_site.browser("admin", form=False) as browser:
            reply = browser.request(method, url, headers={"X-CSRF-Token": csrf_of(browser.get("/leagues").text)})
            assert reply.status_code != 403, (method, path, reply.text[:300])


def test_an_api_token_needs_no_csrf_token_nor_origin(empty_site):
    with empty_site.client("admin") as admin:
        reply = admin.post("/api/v1/leagues", json={"name": "by-token", "game": "prohis", "players": 3},
                           headers={"Origin": "http://evil.example"})
        assert reply.status_code == 201, reply.text


def test_the_api_takes_the_token_in_a_header_from_the_sites_own_scripts(empty_site):
    with empty_site.browser("admin") as browser:
        token = csrf_of(browser.get("/leagues").text)
        body = {"name": "by-cookie", "game": "prohis", "players": 3}
        assert browser.post("/api/v1/leagues", json=body).status_code == 403
        reply = browser.post("/api/v1/leagues", json=body, headers={"X-CSRF-Token": token})
        assert reply.status_code == 201, reply.text


def test_sign_in_needs_its_forms_token_and_this_sites_origin(empty_site):
    form = {"name": "alice", "password": PASSWORD["alice"], "next": "/"}
    with empty_site.browser() as browser:
        first = browser.post("/login", data={**form, "csrf": "x"})
        assert first.status_code == 403  # no pre-session yet: the page shown sets one
        cookie = first.headers["set-cookie"].lower()
        assert "arena_login=" in cookie and "samesite=strict" in cookie
        page = browser.get("/login")
        token = re.search(r'id="login-csrf" value="([^"]+)"', page.text)[1]
        refused = browser.post("/login", data={**form, "csrf": "forged"})
        assert refused.status_code == 403 and 'id="login-refused"' in refused.text
        elsewhere = browser.post("/login", data={**form, "csrf": token},
                                 headers={"Origin": empty_site.url.replace("127.0.0.1", "localhost")})
        assert elsewhere.status_code == 403 and "not from this site" in elsewhere.text
        assert browser.get("/api/v1/me").status_code == 401
        signed = browser.post("/login", data={**form, "csrf": token})
        assert signed.status_code == 303 and browser.get("/api/v1/me").json()["name"] == "alice"


@pytest.mark.parametrize("public, origin, ok", [
    ("https://arena.example.org", "https://arena.example.org", True),
    ("https://arena.example.org/", "https://ARENA.example.org:443", True),
    ("https://arena.example.org", "http://127.0.0.1:8000", False),  # what uvicorn sees behind a proxy
    (None, "http://127.0.0.1:8000", True),
    (None, "http://localhost:8000", False),
    (None, "null", False),
])
def test_the_origin_a_request_must_come_from(public, origin, ok):
    from starlette.requests import Request

    from arena.web.auth import check_origin

    app = create_app(None, WebSettings(worker=False, public_url=public))
    request = Request({"type": "http", "method": "POST", "scheme": "http", "path": "/", "query_string": b"",
                       "server": ("127.0.0.1", 8000), "app": app,
                       "headers": [(b"host", b"127.0.0.1:8000"), (b"origin", origin.encode())]})
    if ok:
        check_origin(request)
    else:
        with pytest.raises(Exception, match="refused"):
            check_origin(request)


def test_a_public_url_that_is_not_one_is_refused():
    with pytest.raises(ValueError, match="not an http"):
        WebSettings(public_url="arena.example.org")
