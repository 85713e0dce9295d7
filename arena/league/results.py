"""What a league stored: one match or one game, in detail, with each bot named by its label."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select

from ..store import Bot, Game, League, Match, Store
from . import BotRef, LeagueError


@dataclass(frozen=True)
class StoredGame:
    id: int
    match_id: int
    index: int
    deal: str
    seed: str
    bots: list[str]  # name@version of the bot in each seat
    languages: list[str]  # bot.toml's language of the bot in each seat
    scores: list[int]
    ranks: list[int]
    failures: list[str]
    record_path: str
    refs: list[BotRef]  # the bot in each seat


@dataclass(frozen=True)
class StoredMatch:
    id: int
    league: str
    game: str
    round: int
    cycle: int  # the table's duplicate cycle (see schedule.py)
    bots: list[str]  # name@version, in the order of the table
    languages: list[str]  # of each bot, in the same order
    restarts: list[int]
    record_dir: str
    started_at: datetime
    finished_at: datetime
    games: list[StoredGame]
    refs: list[BotRef]  # the bots, in the order of the table


def stored_match(store: Store, match_id: int) -> StoredMatch:
    with store() as session:
        match = session.get(Match, match_id)
        if match is None:
            raise LeagueError(f"no match {match_id}")
        league = session.get(League, match.league_id)
        bots = _bots(session, match.bots)
        return StoredMatch(match.id, league.name, league.game, match.round, match.round // league.players,
                           [bots[b].label for b in match.bots], [bots[b].language for b in match.bots],
                           match.restarts, match.record_dir, match.started_at, match.finished_at,
                           [_game(g, bots) for g in match.games], [BotRef.of(bots[b]) for b in match.bots])


def stored_game(store: Store, game_id: int) -> StoredGame:
    with store() as session:
        game = session.get(Game, game_id)
        if game is None:
            raise LeagueError(f"no game {game_id}")
        return _game(game, _bots(session, game.seats))


def _bots(session: Any, ids: list[int]) -> dict[int, Bot]:
    return {b.id: b for b in session.scalars(select(Bot).where(Bot.id.in_(set(ids))))}


def _game(game: Game, bots: dict[int, Bot]) -> StoredGame:
    return StoredGame(game.id, game.match_id, game.index, game.deal, game.seed, [bots[b].label for b in game.seats],
                      [bots[b].language for b in game.seats], game.scores, game.ranks, game.failures,
                      game.record_path, [BotRef.of(bots[b]) for b in game.seats])
