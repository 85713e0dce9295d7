"""Leagues: creating one and finding it by name, and the error every refusal raises.

A league's entrants are ``entries.py`` (the bots themselves are the registry's:
:mod:`arena.bots.registry`), its schedule ``schedule.py``, running it ``runner.py`` (through
``executor.py``), its ratings and leaderboard ``standings.py``, and what it stored
``results.py``. The functions of these modules are what the CLI calls; each takes the store and
does one thing in as few transactions as possible, raising :class:`LeagueError` with a sentence
a user can act on for anything it refuses. This module imports nothing of the bots: the
registry raises its errors and enters bots in leagues found here.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import select

from arena_games import GameError, get_game
from referee.spec import SpecError, check_secret, new_secret

from .. import audit
from ..store import League, Store
from .schedule import ScheduleOptions


class LeagueError(Exception):
    """Something a league refuses; the message is a sentence a user can act on."""


class NotAllowed(LeagueError):
    """Something this account may not do (the web server answers 403)."""


# A league's name is part of URLs and of the folder its records go to: plain characters only.
LEAGUE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
LEAGUE_NAME_RULE = "letters, digits, '_', '.' or '-' (a letter or digit first), at most 64"


def league_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a league's name, or None: the one check of ``arena league create``,
    ``arena ladder create`` and the API's. fullmatch: ``$`` would let a trailing newline through."""
    if LEAGUE_NAME.fullmatch(name):
        return None
    return f"the league name {name!r} must be {LEAGUE_NAME_RULE}"


def create_league(store: Store, name: str, game: str, players: int, settings: dict[str, Any],
                  options: ScheduleOptions, secret: str | None = None, actor_id: int | None = None) -> League:
    """A new league, made by account ``actor_id`` (None: the operator), on the audit log. Its deals
    and bot seeds derive from ``secret`` (hex, at least 128 bits); by default a fresh one from the
    operating system. Give one only to make a league reproducible (tests): whoever knows it knows
    every deal."""
    if problem := league_name_problem(name):
        raise LeagueError(problem)
    try:
        spec = get_game(game)
        full_settings = spec.validate(players, settings).to_dict()
        secret = new_secret() if secret is None else check_secret(secret, "the league's secret")
    except (GameError, SpecError) as exc:
        raise LeagueError(str(exc)) from None
    if options.format == "double-elimination" and players != 2:
        raise LeagueError(f"double elimination is played 2 per table, not {players}: use --format knockout for "
                          f"tables of {players} (each table's winner goes through)")
    with store() as session, session.begin():
        if session.scalar(select(League).where(League.name == name)):
            raise LeagueError(f"a league named {name!r} exists already")
        if options.seeds_from and not session.scalar(select(League.id).where(League.name == options.seeds_from)):
            raise LeagueError(f"the league to take the seeding from, {options.seeds_from!r}, does not exist")
        league = League(name=name, game=spec.name, players=players, settings=full_settings,
                        schedule=options.to_dict(), secret=secret)
        session.add(league)
        session.flush()
        audit.record(session, actor_id, "league.create", f"league {league.id} ({name})",
                     {"game": spec.name, "players": players, "format": options.format})
    return league


def check_open(league: League) -> None:
    """Refuses a new entrant in ``league`` once it is closed (``arena league finals``): asked by
    ``arena league join``, by every registration that enters a bot, and before a submission's build."""
    if league.closed_at is not None:
        raise LeagueError(f"league {league.name} is closed to new entrants since "
                          f"{league.closed_at:%Y-%m-%d %H:%M} UTC: enter another league")


def get_league(session: Any, name: str) -> League:
    league = session.scalar(select(League).where(League.name == name))
    if league is None:
        known = session.scalars(select(League.name).order_by(League.name)).all()
        raise LeagueError(f"unknown league {name!r}; leagues: {', '.join(known) or 'none yet'}")
    return league
