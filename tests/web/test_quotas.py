"""Quotas on uploads, over real HTTP against a real server on a real store (no worker: nothing
is built here, so what is queued stays queued): an author's submissions not finished yet, an
author's submissions a day, the uploads unpacked at once and the bytes unpacked and waiting to
be built, across every author. Each refusal is a 429 (or 413) that says what to do, and leaves
nothing on disk. And the order the build queue takes them in: fair across authors."""

from __future__ import annotations

import os
import re
import shutil
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

from sqlalchemy import select, update

from arena.bots.submit import next_queued
from arena.store import Submission, User, open_store
from arena.store.models import now
from arena.web import WebSettings, create_app

from .conftest import Site, add_users, bot_archive, csrf_of, live_server

MiB = 2**20


def archive(name: str, version: str = "1", zeros: int = 0, toml_extra: str = "") -> bytes:
    """A good bot folder as a .tar.gz, with a file of ``zeros`` bytes (a few KiB packed)."""
    return bot_archive(name, version, toml_extra, zeros=zeros)


@contextmanager
def server(tmp_path: Path, **settings) -> Iterator[Site]:
    store = open_store(f"sqlite:///{tmp_path}/arena.db")
    tokens = add_users(store)
    app = create_app(store, WebSettings(runs_dir=tmp_path / "runs", uploads_dir=tmp_path / "uploads", worker=False,
                                        **settings))
    with live_server(app) as url:
        site = Site(url, store, tmp_path / "runs", tokens)
        site.app = app  # its quotas, for the test that holds a slot
        yield site


def post(site: Site, user: str, data: bytes):
    with site.client(user) as client:
        return client.post("/api/v1/submissions", files={"archive": ("bot.tar.gz", data, "application/gzip")})


def on_disk(site: Site) -> list[str]:
    uploads = site.runs_dir.parent / "uploads"
    return sorted(os.listdir(uploads)) if uploads.exists() else []


def user_id(site: Site, name: str) -> int:
    with site.store() as session:
        return session.scalars(select(User.id).where(User.name == name)).one()


def test_an_author_has_at_most_so_many_submissions_not_finished(tmp_path):
    with server(tmp_path, queued_per_author=2) as site:
        for i in range(2):
            assert post(site, "alice", archive(f"q{i}")).status_code == 201
        kept = on_disk(site)
        third = post(site, "alice", archive("q2"))
        assert third.status_code == 429, third.text
        detail = third.json()["detail"]
        assert "2 submissions not finished yet" in detail and "once one of them is finished" in detail, detail
        assert on_disk(site) == kept, "a refused upload left something on disk"
        assert post(site, "bob", archive("q3")).status_code == 201, "another author is not held by alice's"
        with site.store() as session, session.begin():  # one of alice's is built: she may submit again
            session.execute(update(Submission).where(Submission.bot_name == "q0").values(status="entered"))
        assert post(site, "alice", archive("q2")).status_code == 201
        form = _form_post(site, "alice", archive("q4"))
        assert form.status_code == 429 and "not finished yet" in form.text and 'id="submit-error"' in form.text
        assert re.search(r"takes up to\s+2 submissions of yours at a time", form.text)  # the form says them


def _form_post(site: Site, user: str, data: bytes):
    with site.browser(user) as browser:
        csrf = csrf_of(browser.get("/submit").text)
        return browser.post("/submit", data={"csrf": csrf}, files={"archive": ("bot.tar.gz", data)})


def test_an_author_makes_at_most_so_many_submissions_a_day(tmp_path):
    with server(tmp_path, submissions_per_day=3, queued_per_author=10) as site:
        for i in range(3):
            assert post(site, "alice", archive(f"d{i}")).status_code == 201
        fourth = post(site, "alice", archive("d3"))
        assert fourth.status_code == 429, fourth.text
        detail = fourth.json()["detail"]
        assert "3 submissions in the last 24 hours" in detail and "the next one is taken from" in detail, detail
        retry = int(fourth.headers["retry-after"])
        assert 23 * 3600 < retry <= 24 * 3600, retry
        assert post(site, "bob", archive("d4")).status_code == 201
        with site.store() as session, session.begin():  # the oldest is now a day old
            first = session.scalar(select(Submission.id).where(Submission.bot_name == "d0"))
            session.execute(update(Submission).where(Submission.id == first)
                            .values(created_at=now() - timedelta(hours=24, minutes=1)))
        assert post(site, "alice", archive("d3")).status_code == 201


def test_parallel_uploads_stay_within_the_unpack_slots_and_the_bytes_waiting_to_be_built(tmp_path):
    """12 uploads at once, each 10 MiB unpacked (a few KiB packed), from three authors, against
    2 unpack slots and 35 MiB in flight: the disk under the uploads folder never holds more than
    the cap (plus the packed archives being received), no more than 2 unpack at once, 3 are
    queued and the other 9 are refused with 429, leaving nothing."""
    cap = 35
    with server(tmp_path, unpacks_at_once=2, uploads_in_flight_mb=cap, queued_per_author=10) as site:
        uploads = site.runs_dir.parent / "uploads"
        peak = {"bytes": 0, "unpacking": 0, "spooled": 0}
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                total = spooled = unpacking = 0
                for folder, dirs, files in os.walk(uploads):
                    if folder == str(uploads):
                        unpacking = sum(d.startswith(".unpacking-") for d in dirs)
                    for name in files:
                        try:
                            size = os.lstat(os.path.join(folder, name)).st_size
                        except FileNotFoundError:
                            continue
                        total += size
                        spooled += size if name.startswith(".upload-") else 0
                peak["bytes"] = max(peak["bytes"], total)
                peak["spooled"] = max(peak["spooled"], spooled)
                peak["unpacking"] = max(peak["unpacking"], unpacking)
                time.sleep(0.002)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        data = [archive(f"fill-{i}", zeros=10 * MiB) for i in range(12)]
        with ThreadPoolExecutor(12) as pool:
            replies = list(pool.map(lambda i: post(site, ("alice", "bob", "admin")[i % 3], data[i]), range(12)))
        done.set()
        sampler.join()
        statuses = sorted(r.status_code for r in replies)
        assert statuses == [201] * 3 + [429] * 9, [(r.status_code, r.text[:200]) for r in replies]
        for reply in replies:
            if reply.status_code == 429:
                assert "waiting to be built" in reply.json()["detail"], reply.text
                assert reply.headers.get("retry-after", "").isdigit()
        assert peak["unpacking"] <= 2, peak
        assert peak["bytes"] <= cap * MiB + peak["spooled"] + 64 * 1024, peak
        assert len(on_disk(site)) == 3 and not [n for n in on_disk(site) if n.startswith(".")]
        print(f"peak under the uploads folder: {peak['bytes'] / MiB:.1f} MiB (cap {cap} MiB), "
              f"{peak['unpacking']} unpacking at once")

        # a queued upload's folder removed (the worker built it): its bytes are free again
        with site.store() as session, session.begin():
            row = session.scalars(select(Submission)).first()
            row.status = "entered"
        shutil.rmtree(row.folder)
        assert post(site, "bob", archive("fill-again", zeros=10 * MiB)).status_code == 201
        alone = post(site, "bob", archive("too-big", zeros=36 * MiB))  # could never fit: 413, not 429
        assert alone.status_code == 413 and f"{cap} MB" in alone.json()["detail"], alone.text


def test_an_upload_that_waits_too_long_for_an_unpack_slot_is_refused(tmp_path):
    from arena.web.submissions import quotas_of

    with server(tmp_path, unpacks_at_once=1, unpack_wait_s=0.5) as site:
        release, held = threading.Event(), threading.Event()

        def hold() -> None:  # the one slot, held as a slow unpack holds it
            with quotas_of(site.app).unpack_slot():
                held.set()
                release.wait(30)

        threading.Thread(target=hold, daemon=True).start()
        assert held.wait(5)
        try:
            reply = post(site, "alice", archive("waits"))
        finally:
            release.set()
        assert reply.status_code == 429 and "unpacking" in reply.json()["detail"], reply.text
        assert reply.headers["retry-after"].isdigit() and on_disk(site) == []
        assert post(site, "alice", archive("waits")).status_code == 201


# -- the build queue's order ----------------------------------------------------------------------
def claim_all(store, most_per_author: int | None = None, finish: bool = True) -> list[str]:
    """The bot names in the order the queue hands them out (each finished before the next claim)."""
    order = []
    while (claimed := next_queued(store, most_per_author)) is not None:
        with store() as session, session.begin():
            row = session.get(Submission, claimed)
            order.append(row.bot_name)
            if finish:
                row.status = "entered"
    return order


def test_the_queue_takes_authors_in_turn_not_oldest_first(tmp_path):
    with server(tmp_path, queued_per_author=10) as site:
        for name in ("a1", "a2", "a3"):
            assert post(site, "alice", archive(name)).status_code == 201
        assert post(site, "bob", archive("b1")).status_code == 201
        assert claim_all(site.store) == ["a1", "b1", "a2", "a3"]

        for name in ("a4", "a5", "a6"):
            assert post(site, "alice", archive(name)).status_code == 201
        for name in ("b2", "b3"):
            assert post(site, "bob", archive(name)).status_code == 201
        assert post(site, "admin", archive("c1")).status_code == 201
        # bob was served last before (b1 after a1, then alice twice): he and the new author go first
        assert claim_all(site.store) == ["c1", "b2", "a4", "b3", "a5", "a6"]


def test_with_two_builders_an_author_holds_at_most_one_while_another_waits(tmp_path):
    with server(tmp_path, queued_per_author=10) as site:
        for name in ("a1", "a2", "a3"):
            assert post(site, "alice", archive(name)).status_code == 201
        assert post(site, "bob", archive("b1")).status_code == 201
        # two builders, each author at most one build at once: alice's a1 and bob's b1
        assert claim_all(site.store, most_per_author=1, finish=False) == ["a1", "b1"]
        with site.store() as session:
            building = session.scalars(select(Submission.bot_name).where(Submission.status == "building")).all()
        assert sorted(building) == ["a1", "b1"]


def test_the_defaults_live_in_limits_and_the_docs_say_them():
    from click.testing import CliRunner

    from arena.cli import main as arena
    from referee import limits

    settings = WebSettings()
    assert (settings.unpacks_at_once, settings.unpack_wait_s, settings.uploads_in_flight_mb,
            settings.queued_per_author, settings.submissions_per_day, settings.builds_at_once,
            settings.build_seconds) == (limits.UNPACKS_AT_ONCE, limits.UNPACK_WAIT_S, limits.UPLOADS_IN_FLIGHT_MB,
                                        limits.QUEUED_PER_AUTHOR, limits.SUBMISSIONS_PER_DAY, limits.BUILDS_AT_ONCE,
                                        limits.BUILD_TIMEOUT_S)
    assert 2 <= limits.BUILDS_AT_ONCE <= 8
    root = Path(__file__).resolve().parents[2]
    deploy = (root / "docs" / "deploy.md").read_text()
    for row in (f"| `--queued-per-author` | {limits.QUEUED_PER_AUTHOR} |",
                f"| `--submissions-per-day` | {limits.SUBMISSIONS_PER_DAY} |",
                f"| `--unpacks` | {limits.UNPACKS_AT_ONCE} |",
                f"wait up to {limits.UNPACK_WAIT_S} s", f"| `--uploads-in-flight-mb` | {limits.UPLOADS_IN_FLIGHT_MB} |",
                f"| `--build-seconds` | {limits.BUILD_TIMEOUT_S} |"):
        assert row in deploy, f"docs/deploy.md does not say {row!r}"
    api = (root / "docs" / "api.md").read_text()
    for row in (f"| {limits.QUEUED_PER_AUTHOR} (`--queued-per-author`) |", f"| {limits.SUBMISSIONS_PER_DAY} "
                "(`--submissions-per-day`) |", f"| {limits.UNPACKS_AT_ONCE} (`--unpacks`) |",
                f"up to {limits.UNPACK_WAIT_S} s", f"| {limits.UPLOADS_IN_FLIGHT_MB} MB (`--uploads-in-flight-mb`) |"):
        assert row in api, f"docs/api.md does not say {row!r}"
    helped = CliRunner().invoke(arena, ["serve", "--help"], terminal_width=200).output
    for option in ("--builds", "--build-seconds", "--queued-per-author", "--submissions-per-day",
                   "--uploads-in-flight-mb", "--unpacks"):
        assert option in helped
