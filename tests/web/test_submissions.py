"""Submissions over HTTP, for real: a sample bot folder uploaded by alice is built, checked by
playing it and entered in a league of this module's own, by the server's worker thread, its
status followed over the API; a broken one is refused with its build's error. Who may submit
which name, who sees a submission, retiring, and ``arena bot submit --server`` end to end."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from arena.accounts import Account
from arena.bots.cache import remove_bot_image
from arena.bots.registry import register_bot, retire_bot
from arena.bots.submit import requeue_unfinished, run_submission
from arena.bots.upload import pack_folder
from arena.league import LeagueError, NotAllowed, create_league
from arena.league.runner import run_league
from arena.league.schedule import ScheduleOptions
from arena.store import Bot, Entry, League, Submission, User

from ..docker_fixtures import ROOT
from .conftest import Site

LEAGUE = "uploads"  # this module's league: the shared "web" league stays as other tests expect
NAME = "uploads-random"
ARENA = Path(sys.executable).with_name("arena")


def bot_folder(parent: Path, name: str, version: str, dockerfile: str | None = None) -> Path:
    """The random sample bot as ``name`` ``version``, playing Prohis only (its check plays 4 games)."""
    folder = parent / f"{name}-{version}"
    shutil.copytree(ROOT / "sample_bots" / "python" / "random", folder)
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "{version}"\nlanguage = "python"\n'
                                     f'author = "Alice"\ngames = ["prohis"]\n')
    bot = (folder / "bot.py").read_text()
    (folder / "bot.py").write_text(bot.replace('name="random", version="1.0.0"',
                                               f'name="{name}", version="{version}", games=["prohis"]'))
    assert name in (folder / "bot.py").read_text()
    if dockerfile is not None:
        (folder / "Dockerfile").write_text(dockerfile)
    return folder


def upload(site: Site, user: str, folder: Path, leagues: tuple[str, ...] = (LEAGUE,), **fields: str):
    with site.client(user) as client:
        return client.post("/api/v1/submissions", files={"archive": ("bot.tar.gz", pack_folder(folder))},
                           data={"leagues": list(leagues), **fields})


def follow(site: Site, user: str, submission: dict[str, Any], seconds: float = 240) -> tuple[dict, list[tuple]]:
    """Polls the submission until it is finished; returns it and what each poll saw (status, and
    whether the log and the report had anything yet)."""
    seen = [(submission["status"], bool(submission["log"]), bool(submission["report"]))]
    deadline = time.monotonic() + seconds
    with site.client(user) as client:
        while not submission["finished"]:
            assert time.monotonic() < deadline, f"submission still {submission['status']} after {seconds} s"
            time.sleep(0.1)
            submission = client.get(submission["api_url"]).json()
            seen.append((submission["status"], bool(submission["log"]), bool(submission["report"])))
    return submission, seen


def statuses(seen: list[tuple]) -> list[str]:
    return [s for i, (s, *_) in enumerate(seen) if i == 0 or seen[i - 1][0] != s]


def account(site: Site, name: str) -> Account:
    with site.store() as session:
        user = session.scalar(select(User).where(User.name == name))
        assert user is not None, f"no user {name}"
        return Account(user.id, user.name, user.is_admin)


def remove_images(client, name: str) -> None:
    for image in client.images.list(name=f"arena-bot/{name}"):
        for tag in image.tags:
            remove_bot_image(client, tag)


@pytest.fixture(scope="module")
def league(league_site) -> str:
    create_league(league_site.store, LEAGUE, "prohis", 3, {}, ScheduleOptions(deals=1))
    return LEAGUE


@pytest.fixture(scope="module")
def entered(league_site, league, docker_client, tmp_path_factory):
    """alice's uploads-random 1, submitted over the API and followed until it is entered."""
    folder = bot_folder(tmp_path_factory.mktemp("bots"), NAME, "1")
    start = time.monotonic()
    reply = upload(league_site, "alice", folder)
    assert reply.status_code == 201, reply.text
    submission, seen = follow(league_site, "alice", reply.json())
    yield submission, seen, time.monotonic() - start
    remove_images(docker_client, NAME)


def test_a_submission_goes_queued_building_checking_entered(league_site, entered):
    submission, seen, seconds = entered
    assert submission["status"] == "entered", submission["error"]
    assert statuses(seen) == ["queued", "building", "checking", "entered"], seen
    assert any(status == "checking" and report for status, _, report in seen), "the report was not live"
    assert "Step" in submission["log"] and f"built arena-bot/{NAME}:1" in submission["log"]
    assert "passes every check" in submission["report"] and "prohis, 3 players, under load" in submission["report"]
    with league_site.store() as session:
        bot = session.get(Bot, submission["bot_id"])
        assert (bot.name, bot.version, bot.owner_id, bot.retired_at) == (NAME, "1", account(league_site, "alice").id,
                                                                          None)
        league_id = session.scalar(select(League.id).where(League.name == LEAGUE))
        assert session.scalar(select(Entry).where(Entry.league_id == league_id, Entry.bot_id == bot.id))
        assert session.get(Submission, submission["id"]).status == "entered"
    assert submission["bot_url"] == f"/bots/{bot.id}"
    with league_site.client("alice") as alice:  # and its author was told, once
        told = [n for n in alice.get("/api/v1/notifications").json()["notifications"]
                if n["data"].get("submission") == submission["id"]]
    assert [(n["event"], n["text"], n["url"]) for n in told] == [
        ("submission.entered", f"{NAME}@1 was entered in {LEAGUE} (submission {submission['id']})", submission["url"])]
    uploads = league_site.runs_dir.parent / "uploads"
    assert os.listdir(uploads) == [], "the unpacked folder was not removed once built"
    print(f"a submission entered in {seconds:.1f} s")


def test_the_author_sees_it_on_pages_and_no_one_else_does(league_site, entered):
    submission = entered[0]
    with league_site.client("alice") as alice:
        page = alice.get(submission["url"])
        assert page.status_code == 200 and 'data-status="entered"' in page.text and "passes every check" in page.text
        mine = alice.get("/api/v1/submissions").json()
        assert submission["id"] in [s["id"] for s in mine] and "log" not in mine[0]
        assert f'href="/submissions/{submission["id"]}"' in alice.get("/submissions").text
    with league_site.client("bob") as bob:
        assert bob.get(submission["api_url"]).status_code == 404
        assert bob.get(submission["url"]).status_code == 404
        assert submission["id"] not in [s["id"] for s in bob.get("/api/v1/submissions").json()]
    with league_site.client("admin") as admin:  # its log is its author's, not the operator's
        assert admin.get(submission["api_url"]).status_code == 404
    with league_site.client() as anonymous:
        assert anonymous.get(submission["api_url"]).status_code == 401
        assert anonymous.get(submission["url"]).status_code == 303


def test_bob_cannot_submit_a_version_of_alices_bot(league_site, entered, tmp_path):
    reply = upload(league_site, "bob", bot_folder(tmp_path, NAME, "2"))
    assert reply.status_code == 403 and "another author's" in reply.json()["detail"]
    again = upload(league_site, "alice", bot_folder(tmp_path / "again", NAME, "1"))
    assert again.status_code == 409 and "registered already" in again.json()["detail"]
    assert os.listdir(league_site.runs_dir.parent / "uploads") == []


def test_nobody_claims_the_name_of_a_bot_of_the_command_line(league_site, tmp_path):
    register_bot(league_site.store, name="uploads-operator", version="1", image="none", image_digest="sha256:0",
                 language="python", author="Arena", games=["prohis"], league=None)
    for user in ("alice", "bob"):
        reply = upload(league_site, user, bot_folder(tmp_path / user, "uploads-operator", "2"))
        assert reply.status_code == 403 and "the operator's" in reply.json()["detail"]


def test_a_bot_that_does_not_play_the_leagues_game_is_refused_at_once(league_site, tmp_path):
    create_league(league_site.store, "uploads-boss", "boss", 2, {}, ScheduleOptions(deals=1))
    reply = upload(league_site, "alice", bot_folder(tmp_path, "uploads-boss-bot", "1"), leagues=("uploads-boss",))
    assert reply.status_code == 400 and "plays boss" in reply.json()["detail"]
    unknown = upload(league_site, "alice", bot_folder(tmp_path / "u", "uploads-x", "1"), leagues=("no-such",))
    assert unknown.status_code == 404 and "unknown league" in unknown.json()["detail"]


def test_a_broken_dockerfile_is_refused_with_the_builds_error(league_site, league, docker_client, tmp_path):
    broken = "ARG BASE\nFROM ${BASE}\nCOPY bot.py /bot/bot.py\nRUN echo compiling... && exit 3\n"
    reply = upload(league_site, "alice", bot_folder(tmp_path, "uploads-broken", "1", dockerfile=broken))
    assert reply.status_code == 201, reply.text
    submission, seen = follow(league_site, "alice", reply.json())
    assert submission["status"] == "refused" and statuses(seen)[-1] == "refused"
    assert "returned a non-zero code: 3" in submission["error"]
    assert "compiling..." in submission["log"] and submission["report"] == ""
    assert submission["bot_id"] is None and docker_client.images.list(name="arena-bot/uploads-broken") == []
    with league_site.store() as session:
        assert session.scalar(select(Bot).where(Bot.name == "uploads-broken")) is None
    assert os.listdir(league_site.runs_dir.parent / "uploads") == []
    with league_site.client("alice") as alice:  # the page shows why, escaped
        assert "returned a non-zero code: 3" in alice.get(submission["url"]).text
        told = [n for n in alice.get("/api/v1/notifications").json()["notifications"]
                if n["data"].get("submission") == submission["id"]]
    assert [(n["event"], n["data"]["reason"]) for n in told] == [("submission.refused", submission["error"])]
    assert "returned a non-zero code: 3" in told[0]["text"]


def test_a_bot_that_fails_its_check_is_refused_and_its_image_removed(league_site, league, docker_client, tmp_path):
    folder = bot_folder(tmp_path, "uploads-liar", "1")
    (folder / "bot.py").write_text((folder / "bot.py").read_text().replace('name="uploads-liar"', 'name="other"'))
    reply = upload(league_site, "alice", folder)
    assert reply.status_code == 201, reply.text
    submission, seen = follow(league_site, "alice", reply.json())
    assert statuses(seen)[-2:] == ["checking", "refused"] and "failed 1 check(s)" in submission["error"]
    assert "FAIL  hello: says it is 'other' '1', but its bot.toml says 'uploads-liar' '1'" in submission["report"]
    assert docker_client.images.list(name="arena-bot/uploads-liar") == []
    assert os.listdir(league_site.runs_dir.parent / "uploads") == []


def test_a_build_interrupted_by_a_stopping_server_goes_back_to_the_queue(empty_site, docker_client, tmp_path):
    """On a store of its own, with no worker: the submission is run here, as if claimed."""
    folder = bot_folder(tmp_path, "uploads-stopped", "1")
    unpacked = empty_site.runs_dir.parent / "uploads" / "stopped"
    shutil.copytree(folder, unpacked)
    with empty_site.store() as session, session.begin():
        row = Submission(user_id=account(empty_site, "alice").id, status="building", folder=str(unpacked))
        session.add(row)
    assert run_submission(empty_site.store, row.id, stopping=lambda: True) == "queued"
    with empty_site.store() as session:
        again = session.get(Submission, row.id)
        assert (again.status, again.log, again.error) == ("queued", "", "")
    assert (unpacked / "bot.toml").is_file(), "the folder is needed for the next run"
    assert docker_client.images.list(name="arena-bot/uploads-stopped") == []


def test_a_page_without_javascript_refreshes_itself_until_finished(empty_site):
    with empty_site.store() as session, session.begin():
        queued = Submission(user_id=account(empty_site, "alice").id, folder="/nonexistent", bot_name="b",
                            bot_version="1")
        done = Submission(user_id=queued.user_id, folder="/nonexistent", status="entered")
        session.add_all([queued, done])
    with empty_site.client("alice") as alice:
        page = alice.get(f"/submissions/{queued.id}").text
        assert '<noscript><meta http-equiv="refresh" content="2"></noscript>' in page
        assert 'http-equiv="refresh"' not in alice.get(f"/submissions/{done.id}").text
        assert alice.get(f"/api/v1/submissions/{queued.id}").json()["status"] == "queued"


def test_a_hostile_name_is_escaped_on_the_page(league_site, tmp_path):
    """A bot.toml is checked at upload, so a hostile name never gets that far; a hostile log
    line does: the page shows it as text."""
    folder = bot_folder(tmp_path, "uploads-x", "1")
    (folder / "bot.toml").write_text('name = "<script>alert(1)</script>"\nversion = "1"\nlanguage = "python"\n'
                                     'author = "<b>me</b>"\n')
    reply = upload(league_site, "alice", folder)
    assert reply.status_code == 400 and "must be lower case letters" in reply.json()["detail"]
    with league_site.store() as session, session.begin():
        row = Submission(user_id=account(league_site, "alice").id, status="refused", folder="/nonexistent",
                         bot_name="x", bot_version="1", log="<script>alert(1)</script>", error="<img src=x>")
        session.add(row)
    with league_site.client("alice") as alice:
        text = alice.get(f"/submissions/{row.id}").text
    assert "<script>alert(1)" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "<img src=x>" not in text and "&lt;img src=x&gt;" in text


def test_only_the_owner_retires_a_bot_and_the_runner_skips_retired_ones(league_site):
    store = league_site.store
    alice, bob, admin = (account(league_site, n) for n in ("alice", "bob", "admin"))
    create_league(store, "uploads-retired", "prohis", 3, {}, ScheduleOptions(deals=1))
    ids = []
    for i, owner in enumerate((alice.id, alice.id, None)):
        bot = register_bot(store, name=f"uploads-retiree-{i}", version="1", image="none", image_digest="sha256:0",
                           language="python", author="A", games=[], league="uploads-retired", owner_id=owner)
        ids.append(bot.id)
    with pytest.raises(NotAllowed, match="only the owner"):
        retire_bot(store, ids[0], bob)
    with pytest.raises(NotAllowed):
        retire_bot(store, ids[2], alice)  # a bot of the command line is the operator's
    with pytest.raises(NotAllowed):
        retire_bot(store, ids[0], None)
    with pytest.raises(LeagueError, match="no bot with id"):
        retire_bot(store, 10**9, alice)
    retired = retire_bot(store, ids[0], alice)
    assert isinstance(retired.retired_at, datetime)
    again = retire_bot(store, ids[0], alice).retired_at
    assert again.replace(tzinfo=None) == retired.retired_at.replace(tzinfo=None)  # once is enough (SQLite: naive)
    assert retire_bot(store, ids[2], admin).retired_at is not None
    with pytest.raises(LeagueError, match=r"1 entrant\(s\) not retired \(2 retired\)"):
        run_league(store, "uploads-retired", rounds=1, jobs=1, runs_dir=league_site.runs_dir)


def test_a_new_version_retires_the_earlier_ones_unless_asked_not_to(league_site):
    store = league_site.store
    owner = account(league_site, "bob").id

    def version(v: str, retire: bool) -> int:
        return register_bot(store, name="uploads-versions", version=v, image="none", image_digest="sha256:0",
                            language="python", author="B", games=[], league=None, owner_id=owner,
                            retire_previous=retire).id

    one, two = version("1", False), version("2", False)
    three = version("3", True)
    with store() as session:
        retired = {b.version: b.retired_at is not None for b in session.scalars(
            select(Bot).where(Bot.id.in_((one, two, three))))}
    assert retired == {"1": True, "2": True, "3": False}


def test_a_restarted_server_requeues_what_it_was_building(empty_site):
    """On a store of its own, with no worker to take what is queued."""
    user_id = account(empty_site, "bob").id
    with empty_site.store() as session, session.begin():
        rows = [Submission(user_id=user_id, status=s, folder="/nonexistent", log="half a log", report="half")
                for s in ("building", "checking", "entered")]
        session.add_all(rows)
    assert requeue_unfinished(empty_site.store) == (1, [rows[1].id])
    with empty_site.store() as session:
        got = {r.id: (r.status, r.log, r.report) for r in session.scalars(select(Submission))}
    assert got == {rows[0].id: ("queued", "", ""), rows[1].id: ("checking", "half a log", ""),
                   rows[2].id: ("entered", "half a log", "half")}


# -- arena bot submit --server ------------------------------------------------------------------
def run_cli(*args: str, **env: str) -> subprocess.CompletedProcess:
    """``arena bot submit ARGS`` in a process of its own."""
    environment = {k: v for k, v in os.environ.items() if k not in ("ARENA_SERVER", "ARENA_TOKEN")}
    return subprocess.run([str(ARENA), "bot", "submit", *args], capture_output=True, text=True, timeout=300,
                          env={**environment, **env})


def run_here(*args: str) -> tuple[int, str]:
    """``arena bot submit ARGS`` in this process (quicker): its exit code and its stderr."""
    from click.testing import CliRunner

    from arena.cli import main

    result = CliRunner().invoke(main, ["bot", "submit", *args], env={"ARENA_SERVER": None, "ARENA_TOKEN": None})
    return result.exit_code, result.stderr


def test_arena_bot_submit_to_a_server_end_to_end(league_site, entered, tmp_path):
    folder = bot_folder(tmp_path, NAME, "2")
    start = time.monotonic()
    done = run_cli(str(folder), "--league", LEAGUE, ARENA_SERVER=league_site.url,
                   ARENA_TOKEN=league_site.tokens["alice"])
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    for line in ("status: queued", "status: building", "status: checking", "status: entered", "Step",
                 "passes every check", f"entered: {NAME} 2 in {LEAGUE}"):
        assert line in out, out
    assert out.index("status: building") < out.index("Step") < out.index("status: checking")
    print(out)
    with league_site.store() as session:  # version 1 is retired (the default); version 2 plays
        versions = {b.version: b.retired_at for b in session.scalars(select(Bot).where(Bot.name == NAME))}
    assert versions["1"] is not None and versions["2"] is None
    print(f"arena bot submit --server: {time.monotonic() - start:.1f} s")


def test_arena_bot_submit_says_in_one_sentence_what_went_wrong(league_site, entered, tmp_path):
    folder = bot_folder(tmp_path, NAME, "3")
    bob = run_here(str(folder), "--server", league_site.url, "--token", league_site.tokens["bob"])
    assert bob[0] == 1 and "the server refused it (403): the bot name 'uploads-random' is another author's" in bob[1]
    bad = run_here(str(folder), "--server", league_site.url, "--token", "arena_forged")
    assert bad[0] == 1 and "the server refused the API token (401)" in bad[1]
    down = run_here(str(folder), "--server", "http://127.0.0.1:9", "--token", "t")
    assert down[0] == 1 and "cannot reach the Arena server at http://127.0.0.1:9" in down[1]
    (folder / "link").symlink_to("/etc/passwd")
    local = run_here(str(folder), "--server", league_site.url, "--token", league_site.tokens["alice"])
    assert local[0] == 1 and "not sent: the symlink 'link' points to '/etc/passwd'" in local[1]
    for _, stderr in (bob, bad, down, local):
        assert len(stderr.strip().splitlines()) == 1, stderr
