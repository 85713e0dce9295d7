"""A league's entrants: entering a registered bot, who is entered, and every league with its
entrants."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select

from ..bots.registry import BotRef, check_plays, find_bot
from ..store import Bot, Entry, League, Store
from . import LeagueError, get_league
from .finals import link_of
from .schedule import DEFAULT_SCHEDULE, ScheduleOptions


def join_league(store: Store, league: str, bot_label: str) -> Bot:
    """Enters the registered bot ``bot_label`` (``name@version``, or ``name``: its newest) in ``league``."""
    with store() as session, session.begin():
        target = get_league(session, league)
        bot = find_bot(session, bot_label)
        check_plays(bot, target)
        if session.scalar(select(Entry).where(Entry.league_id == target.id, Entry.bot_id == bot.id)):
            raise LeagueError(f"{bot.label} is in league {league} already")
        session.add(Entry(league_id=target.id, bot_id=bot.id))
    return bot


def entrants(store: Store, name: str) -> set[str]:
    """The name@version of each bot entered in league ``name``."""
    with store() as session:
        return {e.bot.label for e in get_league(session, name).entries}


@dataclass(frozen=True)
class LeagueSummary:
    name: str
    game: str
    players: int
    entrants: list[str]  # name@version of each bot entered
    format: str = DEFAULT_SCHEDULE.format  # or "ladder": see ScheduleOptions.format
    settings: dict[str, Any] = field(default_factory=dict)  # the game's, complete
    schedule: dict[str, Any] = field(default_factory=dict)  # ScheduleOptions.to_dict(): never the secret
    created_at: datetime | None = None
    bots: list[BotRef] = field(default_factory=list)  # the entrants, in the order of ``entrants``
    closed_at: datetime | None = None  # closed to new entrants (``finals.py``)
    finals: str | None = None  # the name of its finals
    finals_of: str | None = None  # the name of the league it is the finals of


def all_leagues(store: Store) -> list[LeagueSummary]:
    """Every league, by name, with its entrants."""
    with store() as session:
        summaries = []
        for lg in session.scalars(select(League).order_by(League.name)):
            options = ScheduleOptions.from_dict(lg.schedule)
            link = link_of(session, lg)
            summaries.append(LeagueSummary(lg.name, lg.game, lg.players, [e.bot.label for e in lg.entries],
                                           options.format, lg.settings, options.to_dict(), lg.created_at,
                                           [BotRef.of(e.bot) for e in lg.entries], link.closed_at, link.finals,
                                           link.finals_of))
        return summaries
