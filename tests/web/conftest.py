"""Web tests: a real server (uvicorn on a free localhost port, in a thread) on a real store,
filled by a real small league played in containers; real HTTP (httpx) and a real browser
(Debian's chromium through its chromium-driver, installed by ``scripts/browser-up.sh``)."""

from __future__ import annotations

import io
import os
import re
import socket
import tarfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
import uvicorn
from fastapi.routing import APIRoute
from sqlalchemy import select, update

from arena.accounts import Account, add_user, open_session
from arena.league.runner import run_league
from arena.store import Bot, Store, User, open_store
from arena.web import WebSettings, create_app
from arena.web.auth import COOKIE
from arena.web.server import config as server_config

from ..docker_fixtures import ROOT, docker_client, sample_images  # noqa: F401 - fixtures
from ..league.helpers import league_of_samples

ARTIFACTS = Path(os.environ.get("ARENA_TEST_ARTIFACTS", ROOT / "test-artifacts"))
PASSWORD = {"admin": "admin-password-1", "alice": "alice-password-1", "bob": "bob-password-1"}
# the league's sample bots, by folder, and who owns each (by the bot's name in its bot.toml)
FOLDERS = ("random", "first_legal", "prohis_heuristic")
OWNERS = {"random": "alice", "first-legal": "alice", "prohis-heuristic": "bob"}


@contextmanager
def live_server(app) -> Iterator[str]:
    """Serves ``app`` on a free port of 127.0.0.1 until the block ends, as ``arena serve`` does
    (its HTTP limits included); yields its base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(server_config(app, port=port, lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@dataclass
class Site:
    """A running server and what the tests know of its store."""

    url: str
    store: Store
    runs_dir: Path
    tokens: dict[str, str] = field(default_factory=dict)  # user name -> API token
    bots: dict[str, int] = field(default_factory=dict)  # bot name -> id (the league's entrants)
    league: str = "web"
    app: Any = None  # the app served, when a test made it

    def client(self, user: str | None = None) -> httpx.Client:
        """An HTTP client, with ``user``'s API token when given."""
        headers = {"Authorization": f"Bearer {self.tokens[user]}"} if user else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60, follow_redirects=False)

    @contextmanager
    def browser(self, user: str | None = None, form: bool = True) -> Iterator[httpx.Client]:
        """An HTTP client as a browser on this site's pages is: cookies, and the site's origin
        on every request; signed in as ``user`` when given: through /login, or (``form`` False)
        with a session opened in the store, without the second of argon2 a sign-in costs."""
        with httpx.Client(base_url=self.url, headers={"Origin": self.url}, timeout=60,
                          follow_redirects=False) as client:
            if user and form:
                reply = log_in(client, user)
                assert reply.status_code == 303 and "failed" not in reply.headers["location"], reply.text
            elif user:
                with self.store() as session:
                    row = session.scalar(select(User).where(User.name == user))
                    assert row is not None, f"no user {user}"
                    account = Account(row.id, row.name, row.is_admin)
                client.cookies.set(COOKIE, open_session(self.store, account)[0])
            yield client


def log_in(client: httpx.Client, name: str, password: str | None = None, next: str = "/") -> httpx.Response:  # noqa: A002
    """Signs ``client`` in through the sign-in page's form; returns the form's answer."""
    page = client.get("/login")
    found = re.search(r'id="login-csrf" value="([^"]+)"', page.text)
    assert found is not None, "no sign-in form"
    token = found[1]
    return client.post("/login", data={"name": name, "password": PASSWORD[name] if password is None else password,
                                       "next": next, "csrf": token})


def app_routes(app=None) -> list[tuple[str, APIRoute]]:
    """Every API route of the app (its pages too) with its full path."""
    from fastapi.routing import iter_route_contexts

    app = app or create_app(None, WebSettings(worker=False))  # only its routes are read
    # cast: an APIRoute's context has a path (RouteContext's is optional for the routes that have none)
    return [(cast(str, context.path), context.original_route) for context in iter_route_contexts(app.routes)
            if isinstance(context.original_route, APIRoute)]


def csrf_of(page: str) -> str:
    """The CSRF token of a page's forms."""
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found is not None, "no form with a CSRF token"
    return found[1]


BOT_DOCKERFILE = b"ARG BASE\nFROM ${BASE}\nCOPY bot.py /bot/bot.py\n"


def bot_archive(name: str, version: str = "1", toml_extra: str = "", author: str = "Ada", zeros: int = 0) -> bytes:
    """A good bot folder as an upload's .tar.gz (bot.toml with ``toml_extra`` after its keys), with
    a file of ``zeros`` bytes (a few KiB packed) if asked."""
    files = {"bot.toml": (f'name = "{name}"\nversion = "{version}"\nlanguage = "python"\nauthor = "{author}"\n'
                          + toml_extra).encode(), "Dockerfile": BOT_DOCKERFILE, "bot.py": b"print('hi')\n"}
    if zeros:
        files["zeros.bin"] = bytes(zeros)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path, data in files.items():
            member = tarfile.TarInfo(f"bot/{path}")
            member.size = len(data)
            tar.addfile(member, io.BytesIO(data))
    return buffer.getvalue()


def add_users(store: Store) -> dict[str, str]:
    return {name: add_user(store, name, admin=name == "admin", password=PASSWORD[name])[1] for name in PASSWORD}


@pytest.fixture(scope="session")
def league_site(docker_client, sample_images, tmp_path_factory) -> Iterator[Site]:  # noqa: F811
    """A server on a store where a real league has played: Prohis, 3 players, the sample bots
    random, first_legal and prohis_heuristic, one duplicate cycle (3 rounds of 3 games), with
    the users admin, alice (owns random and first_legal) and bob (owns prohis_heuristic).

    Shared by the whole session: tests that add things use names of their own (a league other
    than "web", bots of their own) so the others see the same league."""
    root = tmp_path_factory.mktemp("site")
    store = open_store(f"sqlite:///{root}/arena.db")
    tokens = add_users(store)
    league_of_samples(store, docker_client, name="web", players=3, deals=1, folders=FOLDERS)
    with store() as session, session.begin():
        for bot, owner in OWNERS.items():
            owner_id = session.scalar(select(User.id).where(User.name == owner))
            session.execute(update(Bot).where(Bot.name == bot).values(owner_id=owner_id))
        bots = {b.name: b.id for b in session.scalars(select(Bot))}
    run_league(store, "web", rounds=3, jobs=2, runs_dir=root / "runs")
    app = create_app(store, WebSettings(runs_dir=root / "runs", uploads_dir=root / "uploads"))
    with live_server(app) as url:
        yield Site(url, store, root / "runs", tokens, bots)


@contextmanager
def new_site(root: Path, **settings) -> Iterator[Site]:
    """A server on a new store in ``root`` with the three users and nothing else (no Docker
    needed), with ``settings`` (of WebSettings) besides the usual ones."""
    store = open_store(f"sqlite:///{root}/arena.db")
    tokens = add_users(store)
    app = create_app(store, WebSettings(runs_dir=root / "runs", uploads_dir=root / "uploads", worker=False,
                                        **settings))
    with live_server(app) as url:
        yield Site(url, store, root / "runs", tokens, app=app)


@pytest.fixture
def empty_site(tmp_path) -> Iterator[Site]:
    """A server on a new store with the three users and nothing else (no Docker needed)."""
    with new_site(tmp_path) as site:
        yield site


# -- the browser --------------------------------------------------------------------------------
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


@pytest.fixture(scope="session")
def browser():
    """Headless Debian chromium, driven by Debian's chromium-driver (never a downloaded browser)."""
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not fetch anything
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists():
            pytest.fail(f"{path} is missing: `make browser` (scripts/browser-up.sh) installs Debian's "
                        "chromium and chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900",
                     "--disable-gpu", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()


def screenshot(driver, name: str) -> Path:
    """Saves the page as ``test-artifacts/screenshots/NAME.png`` (``$ARENA_TEST_ARTIFACTS``)."""
    path = ARTIFACTS / "screenshots" / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(path))
    return path


def sign_in(driver, url: str, name: str) -> None:
    from selenium.webdriver.common.by import By

    driver.delete_all_cookies()
    driver.get(f"{url}/login")
    driver.find_element(By.ID, "login-name").send_keys(name)
    driver.find_element(By.ID, "login-password").send_keys(PASSWORD[name])
    driver.find_element(By.ID, "login-submit").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "who"), f"{name} to be signed in")


def wait_for(driver, condition, what: str, seconds: float = 20):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds).until(condition, message=f"waited {seconds} s for {what}")
