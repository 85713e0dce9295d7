"""What an author is told is only what that author may know, over real HTTP against a real
server: another author's pending submission is not named; refusals name paths inside the bot
folder, never the server's; and the "author" of a bot, on its pages and in the JSON, is the
account that owns it (bot.toml's free text is a capped subtitle, not an identity)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.bots.registry import register_bot
from arena.bots.submit import run_submission
from arena.league import create_league
from arena.league.schedule import ScheduleOptions
from arena.store import Submission, User, open_store
from arena.web import WebSettings, create_app

from .conftest import BOT_DOCKERFILE, Site, add_users, bot_archive, live_server


def archive(name: str, version: str = "1", build: str = "", author: str = "Ada") -> bytes:
    return bot_archive(name, version, build, author)


@pytest.fixture
def site(tmp_path, monkeypatch) -> Iterator[Site]:
    """A server without the worker whose folders are given relative to its working directory,
    as `arena serve` gives them by default (runs/, runs/uploads): a resolved path must not show
    either."""
    monkeypatch.chdir(tmp_path)
    store = open_store(f"sqlite:///{tmp_path}/arena.db")
    tokens = add_users(store)
    app = create_app(store, WebSettings(runs_dir=Path("runs"), uploads_dir=Path("runs/uploads"), worker=False))
    with live_server(app) as url:
        yield Site(url, store, tmp_path / "runs", tokens)


def post(site: Site, user: str, data: bytes):
    with site.client(user) as client:
        return client.post("/api/v1/submissions", files={"archive": ("bot.tar.gz", data, "application/gzip")})


def test_another_authors_pending_submission_is_not_named(site):
    bobs = post(site, "bob", archive("shared", "1"))
    assert bobs.status_code == 201
    bob_id = bobs.json()["id"]
    for version in ("1", "2"):  # the same version, or another one of the name bob has pending
        reply = post(site, "alice", archive("shared", version))
        assert reply.status_code == 409, reply.text
        detail = reply.json()["detail"]
        assert f"submission {bob_id}" not in detail and str(bob_id) not in detail and "bob" not in detail, detail
        assert "another author" in detail and "pick another name" in detail, detail
    own = post(site, "alice", archive("mine", "1")).json()["id"]
    again = post(site, "alice", archive("mine", "1"))
    assert again.status_code == 409
    assert f"you submitted mine version 1 already (submission {own}" in again.json()["detail"], again.text


@pytest.mark.parametrize("build, words", [
    ('[build]\ncontext = "../.."\n', "[build] context '../..' leads outside the bot folder"),
    ('[build]\ndockerfile = "../../../x"\n', "leads outside the bot folder"),
    ('[build]\ndockerfile = "sub/Dockerfile"\n', "no Dockerfile: sub/Dockerfile does not exist"),
    ('[build]\ncontext = "sub"\n', "the Dockerfile Dockerfile must be inside the build context sub"),
])
def test_a_refusal_names_paths_inside_the_bot_folder_not_the_servers(site, tmp_path, build, words):
    reply = post(site, "alice", archive("paths", build=build))
    assert reply.status_code == 400, reply.text
    detail = reply.json()["detail"]
    assert words in detail, detail
    for secret in (str(tmp_path), "runs/uploads", "/uploads", str(Path.cwd())):
        assert secret not in detail, detail
    assert detail.startswith(("bot.toml", "no Dockerfile", "the Dockerfile")), detail


def test_the_worker_names_paths_inside_the_bot_folder_too(site, tmp_path):
    """A folder the upload let through but the worker refuses (its bot.toml changed on disk):
    the refusal stored for the author names no server path either."""
    folder = Path("runs/uploads/by-hand")
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text('name = "by-hand"\nversion = "1"\nlanguage = "python"\nauthor = "A"\n'
                                     '[build]\ncontext = "../.."\n')
    (folder / "Dockerfile").write_bytes(BOT_DOCKERFILE)
    with site.store() as session, session.begin():
        alice = session.scalar(select(User.id).where(User.name == "alice"))
        row = Submission(user_id=alice, status="building", folder=str(folder))
        session.add(row)
    assert run_submission(site.store, row.id) == "refused"
    with site.store() as session:
        error = session.get(Submission, row.id).error
    assert "[build] context '../..' leads outside the bot folder" in error, error
    assert str(tmp_path) not in error and "runs/uploads" not in error, error


def test_the_author_of_a_bot_is_the_account_that_owns_it(site):
    create_league(site.store, "who", "prohis", 3, {}, ScheduleOptions())
    with site.store() as session:
        alice = session.scalar(select(User.id).where(User.name == "alice"))
    forged = register_bot(site.store, name="forged", version="1", image="x", image_digest="x", language="python",
                          author="Arena", games=[], league="who", owner_id=alice)
    operators = register_bot(site.store, name="house", version="1", image="x", image_digest="x",
                             language="python", author="bob", games=[], league="who")
    with site.client() as anonymous:
        bot = anonymous.get(f"/api/v1/bots/{forged.id}").json()
        assert (bot["author"], bot["declared_author"], bot["owner"]) == ("alice", "Arena", "alice")
        house = anonymous.get(f"/api/v1/bots/{operators.id}").json()
        assert (house["author"], house["declared_author"], house["owner"]) == (None, "bob", None)
        rows = {r["bot"]: r for r in anonymous.get("/api/v1/leagues/who/leaderboard").json()["rows"]}
        assert (rows["forged"]["author"], rows["forged"]["declared_author"]) == ("alice", "Arena")
        assert (rows["house"]["author"], rows["house"]["declared_author"]) == (None, "bob")
        assert anonymous.get("/api/v1/leagues/who/leaderboard?sort=author").status_code == 200
        page = anonymous.get(f"/bots/{forged.id}").text
        assert re.search(r'id="bot-author">\s*alice\s*<', page), page
        assert 'id="bot-declared-author"' in page and "Arena" in page
        assert re.search(r'id="bot-author">[^<]*<span[^>]*>the operator', anonymous.get(f"/bots/{operators.id}").text)
        board = anonymous.get("/leagues/who").text
        cells = re.findall(r'<td class="author[^"]*"[^>]*>(.*?)</td>', board, re.S)
        assert any(">alice<" in c or c.strip().startswith("alice") for c in cells), cells
        assert not any(c.strip().startswith("Arena") or c.strip().startswith("bob") for c in cells), cells


def test_bot_tomls_author_is_capped(site):
    reply = post(site, "alice", archive("long-author", author="A" * 65))
    assert reply.status_code == 400 and "'author'" in reply.json()["detail"] and "64" in reply.json()["detail"]
    assert post(site, "alice", archive("long-author", author="A" * 64)).status_code == 201
    assert os.path.isdir("runs/uploads")
