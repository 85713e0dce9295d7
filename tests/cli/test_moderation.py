"""The operator's moderation on the command line: `arena bot retire [--disqualify]`, `arena bot
requalify`, `arena user disable`/`enable` and `arena audit`, on a real store, each on the record."""

from __future__ import annotations

import json

from click.testing import CliRunner
from sqlalchemy import select

from arena.accounts import add_user
from arena.bots.registry import register_bot
from arena.cli import main as arena
from arena.store import Bot, open_store


def run(url: str, *args: str, code: int = 0) -> str:
    result = CliRunner().invoke(arena, [*args, "--db", url])
    assert result.exit_code == code, result.output
    return result.output


def test_the_operator_retires_disqualifies_and_disables_on_the_record(tmp_path):
    url = f"sqlite:///{tmp_path}/arena.db"
    store = open_store(url)
    add_user(store, "root", admin=True)
    alice = add_user(store, "alice")[0]
    for version in ("1", "2"):
        register_bot(store, name="b", version=version, image=f"img:{version}", image_digest=f"sha256:{version}",
                     language="python", author="x", games=[], league=None, owner_id=alice.id)
    assert "b@1 retired" in run(url, "bot", "retire", "b@1")
    out = run(url, "bot", "retire", "b", "--disqualify", "--reason", "shared hands")  # NAME: its newest, b@2
    assert "b@2 disqualified" in out
    with store() as session:
        bots = {b.version: b for b in session.scalars(select(Bot))}
    assert bots["1"].retired_at and not bots["1"].disqualified_at
    assert bots["2"].disqualified_at and bots["2"].retired_at == bots["2"].disqualified_at
    assert bots["2"].disqualified_reason == "shared hands" and not bots["2"].plays
    with store() as session:  # the same predicate in SQL, for whoever picks bots for a match (scrimmages too)
        assert session.scalars(select(Bot.version).where(Bot.plays)).all() == []
    assert "control characters" in run(url, "bot", "retire", "b@2", "--disqualify", "--reason", "a\x1b[2J", code=1)
    assert "--reason goes with --disqualify" in run(url, "bot", "retire", "b@2", "--reason", "x", code=2)
    assert "it plays again" in run(url, "bot", "requalify", "b@2")
    with store() as session:
        assert session.scalars(select(Bot.version).where(Bot.plays)).all() == ["2"]
    assert "is not disqualified" in run(url, "bot", "requalify", "b@2", code=1)
    assert "no registered bot" in run(url, "bot", "retire", "nope", code=1)
    # accounts: the last enabled admin stays
    assert "last enabled admin" in run(url, "user", "disable", "root", code=1)
    assert "alice disabled" in run(url, "user", "disable", "alice")
    listed = {u["name"]: u for u in json.loads(run(url, "user", "list", "--json"))}
    assert listed["alice"]["disabled_at"] and listed["root"]["disabled_at"] is None
    assert "alice enabled" in run(url, "user", "enable", "alice")
    assert "no user 'nobody'" in run(url, "user", "disable", "nobody", code=1)
    # all on the record, as the operator, newest first; filtered
    entries = json.loads(run(url, "audit", "--json", "--since", "1h"))
    assert all(e["actor"] == "operator" and e["via"] == "cli" for e in entries)
    actions = [e["action"] for e in entries if e["action"] != "cli"]
    assert actions == ["user.enable", "user.disable", "bot.requalify", "bot.disqualify", "bot.retire"]
    assert {e["route"] for e in entries if e["action"] == "cli"} == {"bot retire", "bot requalify", "user disable",
                                                                      "user enable"}
    assert [e["action"] for e in json.loads(run(url, "audit", "--json", "--action", "bot"))] == \
        ["bot.requalify", "bot.disqualify", "bot.retire"]
    assert json.loads(run(url, "audit", "--json", "--user", "root")) == []
    assert json.loads(run(url, "audit", "--json", "--since", "2999-01-01")) == []
    assert "is not a time" in run(url, "audit", "--since", "yesterday", code=2)
    assert "bot.disqualify" in run(url, "audit")
