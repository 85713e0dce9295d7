"""Finals on fresh deals: a league closed to submissions, then ranked on deals no bot has seen.

``arena league finals NAME`` closes NAME (no bot enters it any more: ``arena league join``, a
registration, a submission are refused, :func:`~arena.league.check_open`) and creates its finals
in the same transaction: a new league (``NAME-finals`` unless named) of the same game, players,
settings, deals, time control and failure policy, in the format asked (a round robin by
default), whose entrants are NAME's playing entrants at that moment (it is closed from the start),
and whose secret is fresh
(:func:`referee.spec.new_secret`): every deal of the finals derives from a secret no match of NAME
used, so no bot has seen one of them, however many ladder games it played.

NAME itself is only closed, not stopped: a ladder keeps running as the public board (its
entrants frozen), and both boards are shown side by side. A league has at most one finals.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select

from referee.spec import new_secret

from .. import audit
from ..store import Entry, League, Store
from ..store.models import now
from . import LeagueError, get_league, league_name_problem
from .schedule import DEFAULT_SCHEDULE, LEAGUE_FORMATS, ScheduleOptions

BRACKETS = ("knockout", "double-elimination")  # seeded from the parent's ratings by default


@dataclass(frozen=True)
class Link:
    """How a league is tied to finals: when it closed, its finals' name, or whose finals it is."""

    closed_at: datetime | None
    finals: str | None  # the name of this league's finals
    finals_of: str | None  # the name of the league this is the finals of


@dataclass(frozen=True)
class Finals:
    """Finals just created."""

    name: str
    of: str
    format: str
    entrants: list[str]  # name@version of each


def finals_name(name: str) -> str:
    return f"{name}-finals"


def create_finals(store: Store, name: str, finals: str | None = None, format: str = DEFAULT_SCHEDULE.format,
                  challenger: str = "", actor_id: int | None = None) -> Finals:
    """Closes league ``name`` (if it is not closed yet) and creates its finals (see the module's
    doc), made by account ``actor_id`` (None: the operator), both on the audit log. Refuses a
    league that has finals already, the finals of a league, a name taken, and fewer playing
    entrants than a table."""
    finals = finals or finals_name(name)
    if format not in LEAGUE_FORMATS:
        raise LeagueError("finals are played by `arena league run`: their format is one of "
                          f"{', '.join(LEAGUE_FORMATS)}")
    if problem := league_name_problem(finals):
        raise LeagueError(f"{problem} (give the finals a shorter name)")
    with store() as session, session.begin():
        parent = get_league(session, name)
        if session.get_bind().dialect.name == "postgresql":  # two admins closing at once: one finals
            session.execute(select(League.id).where(League.id == parent.id).with_for_update())
        if parent.finals_of is not None:
            raise LeagueError(f"league {parent.name} is a finals already: it cannot have finals of its own")
        if existing := session.scalar(select(League.name).where(League.finals_of == parent.id)):
            raise LeagueError(f"league {parent.name} has its finals already: {existing}")
        if session.scalar(select(League.id).where(League.name == finals)) is not None:
            raise LeagueError(f"a league named {finals!r} exists already: name the finals with --name")
        bots = [e.bot for e in parent.entries if e.bot.plays]
        if len(bots) < parent.players:
            raise LeagueError(f"league {parent.name} has {len(bots)} entrant(s) playing; finals need at least "
                              f"{parent.players} (one table of {parent.game})")
        kept = {k: v for k, v in parent.schedule.items() if k != "draw"}  # a draw is the parent format's own
        try:
            options = ScheduleOptions.from_dict({**kept, "format": format, "challenger": challenger,
                                                 "seeds_from": parent.name if format in BRACKETS else ""})
        except ValueError as exc:
            raise LeagueError(str(exc)) from None
        closed = now()
        if parent.closed_at is None:
            parent.closed_at = closed
            audit.record(session, actor_id, "league.close", f"league {parent.id} ({parent.name})", {})
        league = League(name=finals, game=parent.game, players=parent.players, settings=dict(parent.settings),
                        schedule=options.to_dict(), secret=new_secret(), finals_of=parent.id,
                        closed_at=closed)  # its entrants are those of the close: nobody joins later
        session.add(league)
        session.flush()
        session.add_all(Entry(league_id=league.id, bot_id=bot.id) for bot in bots)
        audit.record(session, actor_id, "league.finals", f"league {league.id} ({finals})",
                     {"of": parent.name, "format": format, "entrants": len(bots)})
        return Finals(finals, parent.name, format, [bot.label for bot in bots])


def link_of(session: Any, league: League) -> Link:
    """``league``'s :class:`Link` (a loaded row)."""
    finals = session.scalar(select(League.name).where(League.finals_of == league.id))
    parent = session.get(League, league.finals_of) if league.finals_of is not None else None
    return Link(league.closed_at, finals, parent.name if parent is not None else None)


def link(store: Store, name: str) -> Link:
    with store() as session:
        return link_of(session, get_league(session, name))
