"""A real match played by the referee in this process with local bots (no Docker), stored in a
league of its own as the league runner stores one: for the replay tests, which need a bot that
keeps every byte it was sent (``tests/bots/capture.py``) and one that prints to its stderr
(``tests/bots/recorder.py``), and a bot with a hostile name."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import select

from arena.bots.registry import register_bot
from arena.league import create_league
from arena.league.schedule import ScheduleOptions
from arena.store import Bot, Game, League, Match, Store, User
from referee.match import run_match
from referee.spec import parse_spec

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = "<script>alert(1)</script>"
PY = sys.executable


@dataclass
class LocalMatch:
    league: str
    match_id: int
    game_ids: list[int]  # by game index
    bots: list[int]  # bot ids in match order: capture, recorder, hostile
    out: Path
    capture: list[dict]  # capture.py's lines: {"kind", "bytes"} per message received
    result: dict


_played: dict[tuple[int, str], LocalMatch] = {}


def local_match(site, game: str) -> LocalMatch:
    """The match of ``game`` stored on ``site`` (a tests.web.conftest.Site), played once per site."""
    key = (id(site.store), game)
    if key not in _played:
        _played[key] = play_and_store(site.store, site.runs_dir, game)
    return _played[key]


def play_and_store(store: Store, runs: Path, game: str, owners: tuple[str | None, ...] = ("alice", "bob", None),
                   games: int = 3) -> LocalMatch:
    """Plays a match of ``game`` between the capture bot, the recorder and a built-in random bot
    named ``<script>alert(1)</script>``, each in every seat in turn, and stores it in league
    ``replays-<game>`` with the bots owned by ``owners``."""
    league = f"replays-{game}"
    out = runs / league
    out.mkdir(parents=True)
    labels = [f"capture-{game}@1", f"recorder-{game}@1", f"{HOSTILE}@{game}"]
    capture_file = out / "capture.jsonl"
    spec = parse_spec({
        # a deal per game (no bot process is renewed between games, so the capture bot reads every
        # game's end), and time to read the match's end before it is stopped
        "match_id": league, "game": game, "games": games, "secret": "7a" * 16, "duplicate": False,
        "shutdown_ms": 5000,
        "bots": [{"name": labels[0], "command": [PY, str(ROOT / "tests/bots/capture.py"), str(capture_file)]},
                 {"name": labels[1], "command": [PY, str(ROOT / "tests/bots/recorder.py")]},
                 {"name": labels[2], "builtin": "random"}],
        "time": {"startup_ms": 30000, "decision_ms": 10000, "bank_ms": 60000},
    })
    result = run_match(spec, out)
    create_league(store, league, game, 3, {}, ScheduleOptions(), secret="7a" * 16)
    ids = []
    for label, owner in zip(labels, owners, strict=True):
        name, _, version = label.rpartition("@")
        bot = register_bot(store, name=name, version=version, image="local", image_digest="", language="python",
                           author=HOSTILE, games=[game], league=league)
        ids.append(bot.id)
        if owner:
            with store() as session, session.begin():
                session.get_one(Bot, bot.id).owner_id = session.scalar(select(User.id).where(User.name == owner))
    with store() as session, session.begin():
        league_id = session.scalar(select(League.id).where(League.name == league))
        match = Match(league_id=league_id, round=0, table=",".join(map(str, sorted(ids))), bots=ids,
                      record_dir=str(out), restarts=[t["restarts"] for t in result["totals"]],
                      started_at=datetime.now(UTC))
        session.add(match)
        session.flush()
        stored = [Game(match_id=match.id, index=g["index"], seed=str(g["seed"]), deal=g["deal"],
                       seats=[ids[b] for b in g["bots"]], scores=g["scores"], ranks=g["ranks"],
                       failures=g["failures"], record_path=str(out / g["record"])) for g in result["games"]]
        session.add_all(stored)
        # the rest of its duplicate cycle, stored with no games: this match's deals are its own (its
        # spec plans none), so its games are public at once, as a league's are once its cycle is stored
        session.add_all(Match(league_id=league_id, round=r, table=match.table, bots=ids, record_dir=str(out),
                              restarts=[0, 0, 0], started_at=match.started_at) for r in (1, 2))
        session.flush()
        match_id, game_ids = match.id, [g.id for g in stored]
    capture = [json.loads(line) for line in capture_file.read_text().splitlines()]
    return LocalMatch(league, match_id, game_ids, ids, out, capture, result)
