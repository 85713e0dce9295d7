"""Notifications over real HTTP on a real server: the inbox (API and page, CSRF), the Atom feed
(parsed with the standard library), webhooks (a receiver on the loopback checks each signature;
retries; refused addresses at registration and at delivery), and the events written by the
domain's real paths (a refused submission, a bot failing often, rank changes, a finished run)."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from sqlalchemy import select

from arena.bots.submit import run_submission
from arena.notifications import after_match, notify, rank_changes
from arena.store import (
    Bot,
    Game,
    League,
    Notification,
    NotificationFeed,
    Rating,
    Store,
    Submission,
    User,
    Webhook,
    WebhookDelivery,
    open_store,
)
from arena.web import WebSettings, create_app

from .conftest import Site, add_users, csrf_of, live_server, new_site

ATOM = "{http://www.w3.org/2005/Atom}"
FAST = {"webhooks_to_private": True, "webhook_retry_s": 0.2, "webhook_attempts": 4, "webhook_timeout_s": 3.0}


def user_id(store: Store, name: str) -> int:
    with store() as session:
        found = session.scalar(select(User.id).where(User.name == name))
        assert found is not None
        return found


def tell(store: Store, name: str, text: str = "the run of web finished", event: str = "run.finished",
         url: str | None = "/leagues/web") -> int:
    """A notification for ``name``, written as an event's own code writes it: in a transaction."""
    with store() as session, session.begin():
        (row,) = notify(session, [user_id(store, name)], event, text, url, {"league": "web"})
        return row.id


# -- a webhook receiver ---------------------------------------------------------------------------
@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """An HTTP server on the loopback that answers POSTs with ``answers`` in turn (then 200)."""

    url: str
    answers: list[int] = field(default_factory=list)
    got: list[Received] = field(default_factory=list)

    def wait_for(self, count: int, seconds: float = 20) -> list[Received]:
        deadline = time.monotonic() + seconds
        while len(self.got) < count:
            assert time.monotonic() < deadline, f"{len(self.got)} deliveries came, not {count}"
            time.sleep(0.05)
        return self.got


@contextmanager
def receiver(answers: list[int] | None = None) -> Iterator[Receiver]:
    box = Receiver("", list(answers or []))

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            box.got.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            status = box.answers.pop(0) if box.answers else 200
            self.send_response(status)
            if 300 <= status < 400:
                self.send_header("Location", "/elsewhere")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    box.url = f"http://127.0.0.1:{server.server_port}"
    try:
        yield box
    finally:
        server.shutdown()
        server.server_close()


def verify(secret: str, got: Received, max_age: float = 300) -> dict:
    """What docs/api.md tells a receiver to do; returns the body, parsed."""
    timestamp = got.headers["x-arena-timestamp"]
    expected = "sha256=" + hmac.new(secret.encode(), timestamp.encode() + b"." + got.body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(expected, got.headers["x-arena-signature"]), "bad signature"
    assert abs(time.time() - int(timestamp)) < max_age, "too old"
    body = json.loads(got.body)
    assert body["delivery"] == got.headers["x-arena-delivery"]
    return body


def deliveries(site: Site, user: str, hook: int) -> list[dict]:
    with site.client(user) as client:
        reply = client.get(f"/api/v1/webhooks/{hook}/deliveries")
        assert reply.status_code == 200, reply.text
        return reply.json()


def wait_until_done(site: Site, user: str, hook: int, seconds: float = 20) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        (last, *_) = deliveries(site, user, hook)
        if last["status"] != "pending":
            return last
        assert time.monotonic() < deadline, last
        time.sleep(0.1)


# -- webhooks -------------------------------------------------------------------------------------
def test_a_delivery_is_signed_and_retried_until_taken(tmp_path):
    """The receiver fails twice (a redirect, then 500): three deliveries, one id, each signed;
    the redirect is not followed."""
    with receiver([302, 500]) as hook_server, new_site(tmp_path, **FAST) as site:
        with site.client("alice") as alice:
            reply = alice.post("/api/v1/webhooks", json={"url": hook_server.url + "/hook?x=1"})
            assert reply.status_code == 201, reply.text
            hook = reply.json()
            assert hook["secret"].startswith("whsec_") and hook["url"] == hook_server.url + "/hook?x=1"
            listed = alice.get("/api/v1/webhooks").json()
            assert [h["secret"] for h in listed] == [None], "the secret is shown once"
        tell(site.store, "alice", 'a <b>"quoted"</b> run & more')
        got = hook_server.wait_for(3)
        assert [g.path for g in got] == ["/hook?x=1"] * 3, "the redirect was followed"
        bodies = [verify(hook["secret"], g) for g in got]
        assert len({g.headers["x-arena-delivery"] for g in got}) == 1
        assert {g.headers["x-arena-event"] for g in got} == {"run.finished"}
        assert bodies[0] == bodies[2] and bodies[0]["text"] == 'a <b>"quoted"</b> run & more'
        assert bodies[0]["url"] == "/leagues/web" and bodies[0]["data"] == {"league": "web"}
        assert got[0].headers["content-type"] == "application/json"
        last = wait_until_done(site, "alice", hook["id"])
        assert (last["status"], last["attempts"], last["last_status"]) == ("delivered", 3, 200)
        # a signature under another secret, or of other bytes, is told apart
        forged = Received(got[0].path, dict(got[0].headers), got[0].body.replace(b"run", b"nur"))
        with pytest.raises(AssertionError, match="bad signature"):
            verify(hook["secret"], forged)
        time.sleep(0.6)
        assert len(hook_server.got) == 3, "delivered, yet sent again"


def test_a_delivery_that_keeps_failing_stops_after_its_attempts(tmp_path):
    with receiver([500] * 10) as hook_server, new_site(tmp_path, **FAST) as site:
        with site.client("bob") as bob:
            hook = bob.post("/api/v1/webhooks", json={"url": hook_server.url}).json()
        tell(site.store, "bob")
        last = wait_until_done(site, "bob", hook["id"])
        assert (last["status"], last["attempts"], last["last_status"]) == ("failed", 4, 500)
        assert last["last_error"] == "the receiver answered 500"
        assert len(hook_server.got) == 4
        with site.client("bob") as bob:
            shown = bob.get(f"/api/v1/webhooks/{hook['id']}").json()
        assert (shown["failed"], shown["delivered"], shown["last_error"]) == (1, 0, "the receiver answered 500")


@pytest.mark.parametrize(("url", "says"), [
    ("http://127.0.0.1:8080/hook", "127.0.0.1 is a loopback address"),
    ("http://10.1.2.3/hook", "10.1.2.3 is a private address"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"),
    ("http://[::1]:8080/hook", "::1 is a loopback address"),
    ("http://[::ffff:127.0.0.1]:8080/", "a loopback address"),
    ("http://localhost:8080/hook", "localhost resolves to 127.0.0.1, a loopback address"),
    ("http://0.0.0.0:8080/", "an unspecified address"),
    ("http://224.0.0.1:8080/", "a multicast address"),
    ("ftp://93.184.215.14/hook", "must start with https:// or http://"),
    ("javascript:alert(1)", "must start with https:// or http://"),
    ("http://user:pw@93.184.215.14/hook", "may not hold a user name or password"),
    ("http://93.184.215.14:22/hook", "port 22 is not one for a web server"),
    ("http:///hook", "names no host"),
    ("http://93.184.215.14/" + "a" * 2000, "longer than 2000 characters"),
    ("http://93.184.215.14/a b", "spaces or control characters"),
    ("http://93.184.215.14/a\r\nX-Evil: 1", "spaces or control characters"),
    ("http://exämple.org/", "write the host name in its ASCII form"),
    ("http://93.184.215.14/é", "percent-encode them"),
])
def test_a_webhook_pointing_inside_or_not_http_is_refused(empty_site, url, says):
    with empty_site.client("alice") as alice:
        reply = alice.post("/api/v1/webhooks", json={"url": url})
        assert reply.status_code in (400, 422), reply.text
        if reply.status_code == 400:
            assert says in reply.json()["detail"], reply.json()
            assert reply.json()["detail"].startswith("that webhook URL is refused: ")
        assert alice.get("/api/v1/webhooks").json() == [], "something was half-created"


def test_a_public_address_is_taken_and_the_count_is_capped(empty_site):
    with empty_site.client("alice") as alice:
        for n in range(5):
            reply = alice.post("/api/v1/webhooks", json={"url": f"https://93.184.215.14/hook/{n}"})
            assert reply.status_code == 201, reply.text
        reply = alice.post("/api/v1/webhooks", json={"url": "https://93.184.215.14/six"})
        assert reply.status_code == 400 and "5 webhooks, the most an account may have" in reply.json()["detail"]
        first = alice.get("/api/v1/webhooks").json()[0]["id"]
    with empty_site.client("bob") as bob:  # another's webhook is not there for bob
        assert bob.get(f"/api/v1/webhooks/{first}").status_code == 404
        assert bob.delete(f"/api/v1/webhooks/{first}").status_code == 404
        assert bob.get(f"/api/v1/webhooks/{first}/deliveries").status_code == 404
    with empty_site.client("alice") as alice:
        assert alice.delete(f"/api/v1/webhooks/{first}").json()["id"] == first
        assert len(alice.get("/api/v1/webhooks").json()) == 4


def serve(store: Store, root: Path, **settings) -> AbstractContextManager[str]:
    app = create_app(store, WebSettings(runs_dir=root / "runs", uploads_dir=root / "uploads", worker=False,
                                        **settings))
    return live_server(app)


def test_a_delivery_whose_name_now_points_inside_is_refused_at_send_time(tmp_path):
    """Registered while the operator allowed inside addresses (or while its name pointed out);
    the server that sends now does not allow them: it resolves the name again and refuses."""
    store = open_store(f"sqlite:///{tmp_path}/arena.db")
    tokens = add_users(store)
    with receiver() as hook_server:
        port = hook_server.url.rsplit(":", 1)[1]
        with serve(store, tmp_path, webhooks_to_private=True, webhook_senders=0) as url:
            site = Site(url, store, tmp_path / "runs", tokens)
            with site.client("alice") as alice:
                hook = alice.post("/api/v1/webhooks", json={"url": f"http://localhost:{port}/hook"}).json()
        tell(store, "alice")  # queued while no server sends: a later one does
        with serve(store, tmp_path, webhook_retry_s=0.1, webhook_attempts=2) as url:
            site = Site(url, store, tmp_path / "runs", tokens)
            last = wait_until_done(site, "alice", hook["id"])
        assert last["status"] == "failed" and last["last_status"] is None
        assert "refused: localhost resolves to 127.0.0.1, a loopback address" in last["last_error"]
        assert hook_server.got == [], "it reached the loopback"
        # and a server that allows it sends what was queued before it started (rows, not memory)
        tell(store, "alice", "another")
        with serve(store, tmp_path, **FAST) as url:
            got = hook_server.wait_for(1)
        with store() as session:
            secret = session.scalar(select(Webhook.secret).where(Webhook.id == hook["id"]))
        assert verify(secret, got[0])["text"] == "another"


# -- the inbox ------------------------------------------------------------------------------------
def test_the_inbox_lists_counts_and_marks_read_over_the_api(empty_site):
    first = tell(empty_site.store, "alice", "one")
    second = tell(empty_site.store, "alice", "two", event="bot.failing", url=None)
    tell(empty_site.store, "bob", "bob's")
    with empty_site.client("alice") as alice:
        inbox = alice.get("/api/v1/notifications").json()
        assert inbox["unread"] == 2 and [n["text"] for n in inbox["notifications"]] == ["two", "one"]
        assert inbox["notifications"][0] == {**inbox["notifications"][0], "event": "bot.failing", "url": None,
                                             "read": False}
        with empty_site.client("bob") as bob:  # bob marks alice's: nothing changes
            assert bob.post("/api/v1/notifications/read", json={"ids": [first, second]}).json()["unread"] == 1
        reply = alice.post("/api/v1/notifications/read", json={"ids": [first]})
        assert reply.json()["unread"] == 1
        assert [n["id"] for n in alice.get("/api/v1/notifications?unread=true").json()["notifications"]] == [second]
        assert alice.post("/api/v1/notifications/read").json()["unread"] == 0
        assert alice.post("/api/v1/notifications/read", json={"ids": [2**63]}).status_code == 422
    assert empty_site.client().get("/api/v1/notifications").status_code == 401


def test_the_inbox_page_shows_the_count_escapes_and_needs_the_csrf_token(empty_site):
    nasty = '<script>alert(1)</script> & "x"'
    tell(empty_site.store, "alice", nasty, url="/bots/1")
    with empty_site.browser("alice", form=False) as browser:
        page = browser.get("/leagues").text
        assert 'id="unread" title="unread notifications">1</span>' in page
        page = browser.get("/inbox").text
        assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#34;x&#34;" in page
        token = csrf_of(page)
        assert browser.post("/inbox/read", data={}).status_code == 403  # no token
        evil = {"Origin": "http://evil.example"}
        assert browser.post("/inbox/read", data={"csrf": token}, headers=evil).status_code == 403
        assert browser.get("/api/v1/notifications").json()["unread"] == 1
        reply = browser.post("/inbox/read", data={"csrf": token})
        assert reply.status_code == 303
        assert 'id="unread"' not in browser.get("/inbox").text
        assert browser.get("/api/v1/notifications").json()["unread"] == 0


def test_a_webhook_registered_on_the_page_shows_its_secret_once_and_refusals_escaped(empty_site):
    with empty_site.browser("alice", form=False) as browser:
        token = csrf_of(browser.get("/inbox").text)
        reply = browser.post("/inbox/webhooks", data={"csrf": token, "url": "http://169.254.169.254/<b>x</b>"})
        assert reply.status_code == 400 and "a link-local address" in reply.text and "<b>x</b>" not in reply.text
        reply = browser.post("/inbox/webhooks", data={"csrf": token, "url": "https://93.184.215.14/hook"})
        assert reply.status_code == 201 and 'id="webhook-secret">whsec_' in reply.text
        assert "whsec_" not in browser.get("/inbox").text
        assert browser.post("/inbox/webhooks", data={"url": "https://93.184.215.14/x"}).status_code == 403
    with empty_site.client("alice") as alice:
        assert [h["url"] for h in alice.get("/api/v1/webhooks").json()] == ["https://93.184.215.14/hook"]


# -- the feed -------------------------------------------------------------------------------------
def test_the_atom_feed_parses_is_escaped_and_its_token_rotates(empty_site):
    nasty = "]]> <entry>&amp; \x1b[31m \u202e bidi </feed>"
    tell(empty_site.store, "alice", nasty, url="/submissions/3?a=1&b=<2>")
    tell(empty_site.store, "bob", "bob's news")
    with empty_site.client("alice") as alice:
        assert alice.get("/api/v1/feed").json() == {"enabled": False, "url": None, "created_at": None}
        made = alice.post("/api/v1/feed").json()
        url = made["url"]
        assert made["enabled"] and url.startswith(empty_site.url + "/feeds/feed_") and url.endswith(".atom")
        assert alice.get("/api/v1/feed").json()["url"] is None, "the URL is shown once"
    with empty_site.store() as session:  # only its hash is kept
        stored = session.scalars(select(NotificationFeed.digest)).all()
    token = url.rsplit("/", 1)[1].removesuffix(".atom")
    assert stored == [hashlib.sha256(token.encode()).hexdigest()]
    with empty_site.client() as anyone:  # a feed reader: no account, the URL is the key
        reply = anyone.get(url)
        assert reply.status_code == 200 and reply.headers["content-type"].startswith("application/atom+xml")
        feed = ET.fromstring(reply.content)
        assert feed.tag == f"{ATOM}feed"
        for required in ("id", "title", "updated", "author"):
            assert feed.find(f"{ATOM}{required}") is not None, required
        (entry,) = feed.findall(f"{ATOM}entry")  # alice's only
        for required in ("id", "title", "updated", "content"):
            assert entry.find(f"{ATOM}{required}") is not None, required
        text = entry.find(f"{ATOM}content").text
        assert "]]> <entry>&amp;" in text and "\x1b" not in text and "\\x1b[31m" in text and "\\u202e" in text
        assert entry.find(f"{ATOM}link").get("href") == empty_site.url + "/submissions/3?a=1&b=<2>"
        assert anyone.get(url.replace("feed_", "feed_x")).status_code == 404
    with empty_site.client("alice") as alice:
        again = alice.post("/api/v1/feed").json()["url"]
        assert again != url
        assert empty_site.client().get(url).status_code == 404, "the old URL still works"
        assert empty_site.client().get(again).status_code == 200
        assert alice.delete("/api/v1/feed").json()["enabled"] is False
        assert empty_site.client().get(again).status_code == 404


# -- the events -----------------------------------------------------------------------------------
def test_a_refused_submission_tells_its_author_why(empty_site, docker_client):
    alice = user_id(empty_site.store, "alice")
    with empty_site.store() as session, session.begin():
        row = Submission(user_id=alice, status="building", folder=str(empty_site.runs_dir / "gone"),
                         bot_name="lost", bot_version="2", leagues=["web"])
        session.add(row)
    assert run_submission(empty_site.store, row.id) == "refused"
    with empty_site.client("alice") as client:
        (news,) = client.get("/api/v1/notifications").json()["notifications"]
    assert news["event"] == "submission.refused" and news["url"] == f"/submissions/{row.id}"
    assert news["text"] == (f"lost@2 was refused (submission {row.id}): the uploaded folder is gone from the "
                            "server: submit the bot again")
    assert news["data"] == {"submission": row.id, "bot": "lost@2", "leagues": ["web"],
                            "reason": "the uploaded folder is gone from the server: submit the bot again"}


def league_with_bots(store: Store, owner: str, count: int = 3) -> tuple[int, list[int]]:
    owner_id = user_id(store, owner)
    with store() as session, session.begin():
        league = League(name="health", game="prohis", players=3, settings={}, schedule={}, secret="0" * 64)
        bots = [Bot(name=f"b{n}", version="1", image="x", image_digest="sha256:x", language="python", author="a",
                    owner_id=owner_id if n else None) for n in range(count)]
        session.add_all([league, *bots])
        session.flush()
        return league.id, [b.id for b in bots]


def play(store: Store, league_id: int, bots: list[int], failed: bool) -> None:
    """One game's outcome, as a stored match's transaction tells it."""
    with store() as session, session.begin():
        after_match(session, league_id, [Game(seats=bots, failures=["timeout" if failed else "", "", ""])])


def test_a_bot_failing_often_is_told_once_per_crossing(empty_site):
    store = empty_site.store
    league_id, bots = league_with_bots(store, "alice")
    bots = [bots[1], bots[0], bots[2]]  # alice's b1 in seat 0
    for n in range(9):
        play(store, league_id, bots, failed=n < 3)  # 3 of 9: under the 10 games a share needs
    assert alerts(store) == []
    play(store, league_id, bots, failed=False)  # 3 of 10: 30%
    assert [a.data["bot"] for a in alerts(store)] == ["b1@1"]
    assert alerts(store)[0].text == "b1@1 failed in 30% of its last 10 games in health: its games on its page say why"
    for _ in range(5):
        play(store, league_id, bots, failed=True)
    assert len(alerts(store)) == 1, "told again while still failing"
    for _ in range(20):
        play(store, league_id, bots, failed=False)
    play(store, league_id, bots, failed=True)
    assert len(alerts(store)) == 1
    for _ in range(5):
        play(store, league_id, bots, failed=True)  # 6 of the last 20
    assert len(alerts(store)) == 2


def alerts(store: Store) -> list[Notification]:
    with store() as session:
        return list(session.scalars(select(Notification).where(Notification.event == "bot.failing")
                                    .order_by(Notification.id)))


def test_rank_changes_are_told_once_per_owner_and_league(empty_site):
    store = empty_site.store
    league_id, bots = league_with_bots(store, "alice", 4)

    def rate(*exposures: float) -> None:
        with store() as session, session.begin():
            for bot_id, exposure in zip(bots, exposures, strict=True):
                row = session.scalar(select(Rating).where(Rating.bot_id == bot_id)) or \
                    Rating(league_id=league_id, bot_id=bot_id, mu=0, sigma=1, games=1)
                row.exposure = exposure
                session.add(row)

    rate(4, 3, 2, 1)
    assert rank_changes(store, "health") == 0, "a first rank is not news"
    rate(4, 3, 2, 1)
    assert rank_changes(store, "health") == 0
    rate(1, 2, 4, 3)  # the operator's b0 falls to 4th (nobody to tell), alice's b1 to 3rd, b2 and b3 rise
    assert rank_changes(store, "health") == 1
    with store() as session:
        (told,) = session.scalars(select(Notification).where(Notification.event == "rank.changed"))
    assert told.text == "ranks in health of 4: b2@1 3 \u2192 1; b3@1 4 \u2192 2; b1@1 2 \u2192 3"
    assert told.url == "/leagues/health" and [c["after"] for c in told.data["changes"]] == [1, 2, 3]
    assert rank_changes(store, "health") == 0


def test_a_finished_league_run_told_the_owners_of_its_bots(league_site):
    """The shared league was run once its bots had owners: alice and bob were told."""
    for user in ("alice", "bob"):
        with league_site.client(user) as client:
            runs = [n for n in client.get("/api/v1/notifications").json()["notifications"]
                    if n["event"] == "run.finished" and n["data"]["league"] == "web"]
        assert runs and runs[-1]["text"].startswith("the run of web finished: 9 game(s) played"), runs
        assert runs[-1]["url"] == "/leagues/web"
    with league_site.client("admin") as admin:  # run on the command line: no admin to tell
        assert not [n for n in admin.get("/api/v1/notifications").json()["notifications"]
                    if n["event"] == "run.finished" and n["data"]["league"] == "web"]


def test_on_postgresql_the_inbox_feed_webhooks_and_events_work(private_postgres, tmp_path):
    """The same store on PostgreSQL: its migration builds the models, and one of each path runs."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from arena.store.models import Base

    store = open_store(private_postgres.url)
    with store.engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    tokens = add_users(store)
    with receiver([500]) as hook_server, serve(store, tmp_path, **FAST) as url:
        site = Site(url, store, tmp_path / "runs", tokens)
        with site.client("alice") as alice:
            hook = alice.post("/api/v1/webhooks", json={"url": hook_server.url}).json()
            feed = alice.post("/api/v1/feed").json()["url"]
        league_id, bots = league_with_bots(store, "alice")
        for n in range(10):
            play(store, league_id, [bots[1], bots[0], bots[2]], failed=n < 3)
        got = hook_server.wait_for(2)
        assert len({g.headers["x-arena-delivery"] for g in got}) == 1
        assert verify(hook["secret"], got[1])["event"] == "bot.failing"
        assert wait_until_done(site, "alice", hook["id"])["status"] == "delivered"
        with site.client("alice") as alice:
            inbox = alice.get("/api/v1/notifications").json()
            assert inbox["unread"] == 1 and inbox["notifications"][0]["event"] == "bot.failing"
            assert alice.post("/api/v1/notifications/read").json()["unread"] == 0
        (entry,) = ET.fromstring(site.client().get(feed).content).findall(f"{ATOM}entry")
        assert "failed in 30% of its last 10 games" in entry.find(f"{ATOM}content").text
    store.engine.dispose()


def test_old_finished_deliveries_are_pruned_and_a_link_is_a_path_of_the_site(empty_site):
    from datetime import UTC, datetime, timedelta

    from arena.webhooks import prune

    store = empty_site.store
    with store() as session, session.begin():
        hook = Webhook(user_id=user_id(store, "alice"), url="https://93.184.215.14/", secret="s")
        session.add(hook)
        session.flush()
        old = datetime.now(UTC) - timedelta(days=31)
        session.add_all(WebhookDelivery(webhook_id=hook.id, delivery_id=f"d{n}", event="run.finished", body="{}",
                                        status=status, created_at=created)
                        for n, (status, created) in enumerate([("delivered", old), ("failed", old),
                                                               ("pending", old), ("delivered", datetime.now(UTC))]))
    assert prune(store) == 2
    with store() as session:
        assert sorted(session.scalars(select(WebhookDelivery.delivery_id))) == ["d2", "d3"]
    for url in ("https://evil.example/", "//evil.example/x", "javascript:alert(1)"):
        with store() as session, pytest.raises(ValueError, match="a path of this site"):
            notify(session, [user_id(store, "alice")], "run.finished", "x", url)


def test_a_run_from_the_server_tells_its_admin_and_the_owners_and_a_failed_one_its_admin_only(empty_site):
    """Bots whose images are gone: every seat fails, the run finishes; the admin who started it
    and the bots' owner are told, with the failures counted. A run that fails is told to its
    admin alone, with why."""
    from arena.league import create_league
    from arena.league.entries import join_league
    from arena.league.schedule import ScheduleOptions
    from arena.notifications import run_finished

    store = empty_site.store
    create_league(store, "doomed", "prohis", 3, {}, ScheduleOptions(deals=1))
    alice = user_id(store, "alice")
    with store() as session, session.begin():
        session.add_all(Bot(name=f"ghost{n}", version="1", image="arena-test-notify/no-such-image:gone",
                            image_digest="sha256:" + "0" * 64, language="python", author="a", owner_id=alice)
                        for n in range(3))
    for n in range(3):
        join_league(store, "doomed", f"ghost{n}@1")
    with empty_site.client("admin") as admin:
        assert admin.post("/api/v1/leagues/doomed/run", json={"rounds": 1}).status_code == 202
        deadline = time.monotonic() + 120
        while (state := admin.get("/api/v1/leagues/doomed/run").json())["status"] == "running":
            assert time.monotonic() < deadline, state
            time.sleep(0.3)
        assert state["status"] == "finished", state
    for user in ("admin", "alice"):
        with empty_site.client(user) as client:
            (told,) = client.get("/api/v1/notifications").json()["notifications"]
        assert told["event"] == "run.finished" and told["url"] == "/leagues/doomed"
        assert told["data"] == {"league": "doomed", "games": 3, "seat_failures": state["seat_failures"]}
        assert state["seat_failures"] > 0
    run_finished(store, "doomed", 0, 0, ran_by=user_id(store, "admin"), error="the referee failed: \x1b[2J boom")
    with empty_site.client("admin") as admin:
        told = admin.get("/api/v1/notifications").json()["notifications"][0]
    assert told["event"] == "run.failed"
    assert told["text"] == "the run of doomed failed: the referee failed: \\x1b[2J boom"  # made printable
    with empty_site.client("alice") as client:
        assert len(client.get("/api/v1/notifications").json()["notifications"]) == 1
