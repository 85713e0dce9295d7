"""Cross-site request forgery in headless Chromium: an admin signed in on the app (on
127.0.0.1) opens pages of another site (``localhost``, another port: cross-site) and of another
port of the same host (127.0.0.1: same-site, so the session cookie's SameSite=Lax does not
stop the browser from sending it) that submit forms and fetches to the app's state-changing
routes, the sign-in form included. Each is refused, and nothing changes."""

from __future__ import annotations

import html
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from selenium.webdriver.common.by import By
from sqlalchemy import select

from arena.store import Bot, League

from ..league.crafted import crafted_league
from .conftest import PASSWORD, sign_in, wait_for


class Attacker:
    """Another web server on the loopback, serving the pages a test gives it."""

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        pages = self.pages

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the standard library's name
                body = pages.get(self.path.lstrip("/"), "no such page").encode()
                self.send_response(200 if self.path.lstrip("/") in pages else 404)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def attacker() -> Iterator[Attacker]:
    server = Attacker()
    try:
        yield server
    finally:
        server.close()


def form_page(action: str, fields: dict[str, str]) -> str:
    inputs = "".join(f'<input name="{html.escape(k)}" value="{html.escape(v)}">' for k, v in fields.items())
    return (f'<!doctype html><form method="post" action="{html.escape(action)}">{inputs}</form>'
            "<script>document.forms[0].submit();</script>")


def fetch_page(action: str, body: str) -> str:
    # a "simple" request (no preflight): text/plain, no header of its own, the cookies included
    return ("<!doctype html><title>sending</title><script>"
            f"fetch({json.dumps(action)}, {{method: 'POST', mode: 'no-cors', credentials: 'include', "
            f"body: {json.dumps(body)}}}).then(() => {{ document.title = 'sent'; }}, "
            "() => { document.title = 'failed'; });</script>")


def me(browser, url: str) -> dict:
    browser.get(f"{url}/api/v1/me")
    text = browser.find_element(By.TAG_NAME, "body").text
    try:
        return json.loads(text)
    except ValueError:
        return {"text": text}


@pytest.mark.parametrize("where", ["cross-site", "same-site"])
def test_pages_of_another_site_or_port_change_nothing(empty_site, browser, attacker, where):
    app = empty_site.url
    store = empty_site.store
    api_bot, page_bot = crafted_league(store, "forged", ("api-target", "page-target", "third"),
                                       [([0, 1, 2], [1, 2, 3], ["", "", ""])])[:2]
    host = "localhost" if where == "cross-site" else "127.0.0.1"
    base = f"http://{host}:{attacker.port}"
    attacks = {
        "api-retire-form": form_page(f"{app}/api/v1/bots/{api_bot}/retire", {}),
        "api-retire-fetch": fetch_page(f"{app}/api/v1/bots/{api_bot}/retire", ""),
        "api-run-form": form_page(f"{app}/api/v1/leagues/forged/run", {}),
        "api-run-fetch": fetch_page(f"{app}/api/v1/leagues/forged/run", '{"rounds": 1}'),
        "page-retire-form": form_page(f"{app}/bots/{page_bot}/retire", {"csrf": ""}),
        "page-run-form": form_page(f"{app}/leagues/forged/run", {"csrf": "", "rounds": "1"}),
        "page-create-form": form_page(f"{app}/leagues", {"csrf": "", "name": "planted", "game": "prohis",
                                                         "players": "3"}),
        "logout-form": form_page(f"{app}/logout", {"csrf": ""}),
        "login-form": form_page(f"{app}/login", {"name": "bob", "password": PASSWORD["bob"], "next": "/"}),
        "login-fetch": fetch_page(f"{app}/login", f"name=bob&password={PASSWORD['bob']}"),
    }
    attacker.pages.update(attacks)
    sign_in(browser, app, "admin")
    for name in attacks:
        browser.get(f"{base}/{name}")
        if name.endswith("-fetch"):
            wait_for(browser, lambda d: d.title in ("sent", "failed"), f"the page {name} to send its request")
        else:
            wait_for(browser, lambda d: d.current_url.startswith(app), f"the form of {name} to be submitted")
    changed = []
    with store() as session:
        for bot_id in (api_bot, page_bot):
            if session.get(Bot, bot_id).retired_at is not None:
                changed.append(f"bot {bot_id} retired")
        if session.scalar(select(League.id).where(League.name == "planted")) is not None:
            changed.append("league 'planted' created")
    with empty_site.client("admin") as admin:
        run = admin.get("/api/v1/leagues/forged/run")
        if run.status_code != 404:
            changed.append(f"a run of league 'forged' started: {run.text}")
    who = me(browser, app)
    if who.get("name") != "admin":
        changed.append(f"the browser's session is now {who}")
    assert not changed, f"{where} pages changed: {changed}"


def test_a_signed_out_browser_is_not_signed_in_to_another_account(empty_site, browser, attacker):
    """Sign-in CSRF: a browser with no session opens a page that signs it in as bob."""
    app = empty_site.url
    attacker.pages["login"] = form_page(f"{app}/login", {"name": "bob", "password": PASSWORD["bob"], "next": "/"})
    for host in ("localhost", "127.0.0.1"):
        browser.delete_all_cookies()
        browser.get(f"{app}/login")  # the sign-in page was open once: its cookie is there
        browser.get(f"http://{host}:{attacker.port}/login")
        wait_for(browser, lambda d: d.current_url.startswith(app), "the form to be submitted")
        assert me(browser, app).get("name") is None, f"a page on {host} signed the browser in as bob"
