"""Names and versions in the store (an author's text) are printed escaped by `arena league
list`, `arena leaderboard` and `arena show`, whatever got them in there."""

from __future__ import annotations

from datetime import UTC, datetime

from click.testing import CliRunner

from arena.bots.registry import register_bot
from arena.cli import main as arena
from arena.store import Game, Match

from .helpers import league_named

EVIL = "\x1b[2J\x1b[Hevil\r\nforged-row  1.0\x07\x9b2J\u202e" + "x" * 40


def test_stored_names_are_printed_escaped(store, db_url, tmp_path):
    league = league_named(store, EVIL[:60])  # a name from an older store: any text
    bots = [register_bot(store, name=f"{EVIL[:20]}{i}", version=EVIL, image="x", image_digest="x", language=EVIL[:30],
                         author="a", games=[], league=league.name) for i in range(3)]
    with store() as session, session.begin():
        match = Match(league_id=league.id, round=1, table=",".join(str(b.id) for b in bots),
                      bots=[b.id for b in bots], record_dir=str(tmp_path), restarts=[0, 0, 0],
                      started_at=datetime.now(UTC))
        session.add(match)
        session.flush()
        session.add(Game(match_id=match.id, index=0, seed="1", deal="c0d0", seats=[b.id for b in bots],
                         scores=[3, 2, 1], ranks=[1, 2, 3], failures=["", "", "crash"],
                         record_path=str(tmp_path / "game-000.jsonl")))
    runner = CliRunner()
    printed = ""
    for args in (["league", "list"], ["leaderboard", league.name], ["show", "match", "1"], ["show", "game", "1"]):
        result = runner.invoke(arena, [*args, "--db", db_url])
        assert result.exit_code == 0, (args, result.output)
        assert "\\x1b[2J" in result.output, (args, result.output)
        printed += result.output
    for line in printed.splitlines():
        assert line.isprintable() and not line.startswith("forged-row"), repr(line)
