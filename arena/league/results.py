"""What a league stored: one match or one game, in detail, with each bot named by its label.

Everything, for the operator (``arena show``): the seed included, and a game whose duplicate
cycle is not all stored, which ``arena serve`` and ``arena watch`` hide (``cycles.py``), says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select

from ..bots.registry import BotRef
from ..store import Bot, Game, League, Match, Store
from . import LeagueError
from .cycles import Cycle, cycle_of


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
    cycle_state: Cycle  # its table's duplicate cycle, as stored now


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
    cycle_state: Cycle  # its table's duplicate cycle, as stored now


def stored_match(store: Store, match_id: int) -> StoredMatch:
    with store() as session:
        match = session.get(Match, match_id)
        if match is None:
            raise LeagueError(f"no match {match_id}")
        league = session.get_one(League, match.league_id)
        bots = _bots(session, match.bots)
        cycle = cycle_of(session, league.id, match.round, match.table)
        return StoredMatch(match.id, league.name, league.game, match.round, match.round // league.players,
                           [bots[b].label for b in match.bots], [bots[b].language for b in match.bots],
                           match.restarts, match.record_dir, match.started_at, match.finished_at,
                           [_game(g, bots, cycle) for g in match.games], [BotRef.of(bots[b]) for b in match.bots],
                           cycle)


def stored_game(store: Store, game_id: int) -> StoredGame:
    with store() as session:
        game = session.get(Game, game_id)
        if game is None:
            raise LeagueError(f"no game {game_id}")
        match = game.match
        return _game(game, _bots(session, game.seats), cycle_of(session, match.league_id, match.round, match.table))


def _bots(session: Any, ids: list[int]) -> dict[int, Bot]:
    return {b.id: b for b in session.scalars(select(Bot).where(Bot.id.in_(set(ids))))}


def _game(game: Game, bots: dict[int, Bot], cycle: Cycle) -> StoredGame:
    return StoredGame(game.id, game.match_id, game.index, game.deal, game.seed, [bots[b].label for b in game.seats],
                      [bots[b].language for b in game.seats], game.scores, game.ranks, game.failures,
                      game.record_path, [BotRef.of(bots[b]) for b in game.seats], cycle)
