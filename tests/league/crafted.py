"""Leagues written straight into a store, with games whose numbers the tests know by heart:
for what a real league cannot be made to show on demand (failures, ties, two versions of a
name, names an author chose to be hostile)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from arena.bots.registry import register_bot
from arena.league import get_league
from arena.league.formats import field_of, league_format
from arena.league.formats.base import read_played
from arena.league.standings import rebuild_ratings
from arena.store import Bot, Game, League, Match, Store

from .helpers import league_named

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def register(store: Store, league: str, name: str, version: str = "1", author: str = "tester",
             owner_id: int | None = None) -> int:
    """A bot version entered in ``league`` (its image is never run); returns its id."""
    bot = register_bot(store, name=name, version=version, image=f"none/{len(name)}:{len(version)}",
                       image_digest="sha256:0", language="python", author=author, games=["prohis"], league=league)
    if owner_id is not None:
        with store() as session, session.begin():
            session.get_one(Bot, bot.id).owner_id = owner_id
    return bot.id


def crafted_league(store: Store, league: str, names: tuple[str, ...],
                   games: list[tuple[list[int], list[int], list[str]]], **register_options) -> list[int]:
    """League ``league`` (Prohis, 3 a table) of bots ``names`` (version "1"), and one match per
    game of ``games``: (seats as indexes into ``names``, ranks, failures); rated. Returns the
    bots' ids in the order of ``names``."""
    league_named(store, league, secret="ab" * 16)  # any name: a hostile one too
    ids = [register(store, league, name, **register_options) for name in names]
    with store() as session, session.begin():
        league_id = session.scalar(select(League.id).where(League.name == league))
        for i, (seats, ranks, failures) in enumerate(games):
            bots = [ids[s] for s in seats]
            match = Match(league_id=league_id, round=i, table=",".join(map(str, sorted(bots))), bots=bots,
                          record_dir=f"runs/{league}/{i}", restarts=[0, 0, 0], started_at=T0 + timedelta(minutes=i),
                          finished_at=T0 + timedelta(minutes=i, seconds=30))
            session.add(match)
            session.flush()
            session.add(Game(match_id=match.id, index=0, seed=str(1000 + i), deal="c0d0", seats=bots,
                             scores=[10 - r for r in ranks], ranks=ranks, failures=failures,
                             record_path=f"runs/{league}/{i}/game-000.jsonl"))
    rebuild_ratings(store, league)
    return ids


def play_format(store: Store, league: str, stop: int, rounds: int = 3) -> None:
    """Stores the next ``stop`` matches of the league's format (``formats/``) to ``rounds``, as
    the runner would: in each game the bots rank by id, the lowest first; rated."""
    stored = 0
    while stored < stop:
        with store() as session, session.begin():
            row = get_league(session, league)
            field, played = field_of(row), read_played(store, row.id)
            slots = [s for s in league_format(field.options).slots(field, rounds, played) if not played.stored(s)]
            if not slots:
                break
            slot = slots[0]
            match = Match(league_id=row.id, round=slot.round, table=slot.key, bots=list(slot.table),
                          record_dir=f"runs/{slot.round}", restarts=[0] * len(slot.table), started_at=T0,
                          finished_at=T0)
            session.add(match)
            session.flush()
            for i in range(len(slot.table)):
                seats = list(slot.table[i:] + slot.table[:i])
                ranks = [1 + sorted(seats).index(b) for b in seats]
                session.add(Game(match_id=match.id, index=i, seed=str(i), deal=f"c{slot.cycle}d{i}", seats=seats,
                                 scores=[10 - r for r in ranks], ranks=ranks, failures=[""] * len(seats),
                                 record_path=f"runs/{slot.round}/game-{i}.jsonl"))
        stored += 1
    rebuild_ratings(store, league)
