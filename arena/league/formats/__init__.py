"""A league's format: which matches it plays, decided from what it has stored so far.

Every format plays **duplicate cycles** (``schedule.py``): a table of k bots plays k matches,
rounds c·k .. c·k + k − 1, so every deal of the cycle is played in every seat rotation and the
luck of the deal cancels, each match by fresh containers; a match is identified by (round,
table) and stored once. What a format decides is *which tables play which cycles*, one file each:

- ``round_robin.py``: every table of k entrants, round after round (k rounds make a cycle);
- ``gauntlet.py``: every table of one challenger and k − 1 of the field; the field never plays itself;
- ``swiss.py``: Swiss round R is cycle R, its tables pairing bots of similar points;
- ``knockout.py``: single or double elimination; bracket round R is cycle R;
- the ladder, picked one cycle at a time by matchmaking without end, is ``../ladder.py``.

A format is a pure function of the entrants and the stored results (``base.Played``), so a run
killed at any moment and run again asks it again and gets the same slots: the runner
(``../runner.py``) plays the slots not stored, asks again, and stops when every slot it is
given is stored. A draw (a bye, a seeding without ratings) comes from the league's secret,
never from the clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import select

from ...store import League, Rating, Store
from .. import get_league
from ..schedule import ScheduleOptions
from .base import Field, LeagueFormat, Played, complete_cycles, read_played
from .gauntlet import Gauntlet
from .knockout import Knockout
from .round_robin import RoundRobin
from .swiss import Swiss


def league_format(options: ScheduleOptions) -> LeagueFormat:
    """The format a league's options name, as ``arena league run`` plays it (a ladder is
    ``arena ladder run``'s)."""
    return format_named(options.format)


def format_named(name: str) -> LeagueFormat:
    """The format called ``name`` (a standings document's ``format``)."""
    formats: dict[str, LeagueFormat] = {
        "round-robin": RoundRobin(),
        "knockout": Knockout(),
        "double-elimination": Knockout(double=True),
        "swiss": Swiss(),
        "gauntlet": Gauntlet(),
    }
    try:
        return formats[name]
    except KeyError:
        raise ValueError(f"the format {name!r} is not played by `arena league run`") from None


def field_of(league: League) -> Field:
    """The field of ``league`` (a loaded row: its entries are read)."""
    options = ScheduleOptions.from_dict(league.schedule)
    entries = [e.bot for e in league.entries]
    return Field(entrants=tuple(sorted(b.id for b in entries)), playing=frozenset(b.id for b in entries if b.plays),
                 names={b.id: b.name for b in entries}, players=league.players, options=options,
                 secret=league.secret, draw=dict(league.schedule.get("draw") or {}))


def drawn_field(store: Store, name: str) -> Field:
    """The league's field, its format's draw made and kept first if it has none yet (the runner
    calls this before its first match: a draw never changes once a match may have used it)."""
    with store() as session, session.begin():
        league = get_league(session, name)
        if session.get_bind().dialect.name == "postgresql":  # two runners must not draw twice
            session.execute(select(League.id).where(League.id == league.id).with_for_update())
        field = field_of(league)
        if "draw" in league.schedule:
            return field
        drawn = league_format(field.options).draw(field, lambda other: _ratings(session, other or name))
        league.schedule = {**league.schedule, "draw": drawn}  # a new dict: SQLAlchemy sees the change
        return field_of(league)


def _ratings(session: Any, name: str) -> Mapping[int, float]:
    league = get_league(session, name)
    return {r.bot_id: r.exposure for r in session.scalars(select(Rating).where(Rating.league_id == league.id))}


def format_board(store: Store, name: str) -> dict[str, Any] | None:
    """The league's format's own standings (``LeagueFormat.board``) from its complete cycles, or
    None (a round robin's, a ladder's: the leaderboard)."""
    with store() as session:
        league = get_league(session, name)
        field = field_of(league)
        if field.options.format == "ladder":
            return None
        league_id = league.id
    fmt = league_format(field.options)
    return fmt.board(field, complete_cycles(read_played(store, league_id), field.players))


def standings_of(store: Store, name: str) -> dict[str, Any]:
    """The document of ``arena league standings NAME --json`` and ``GET
    /api/v1/leagues/NAME/standings``: the format's own board (None for a round robin or a
    ladder), and beside it each entrant's rating as the leaderboard has it."""
    from ..standings import standings  # the leaderboard's: one cache for the pages and this

    board = format_board(store, name)
    now = standings(store, name)
    ratings = {str(row["bot_id"]): {key: row[key] for key in ("bot", "version", "rank", "mu", "sigma", "exposure",
                                                              "games")} for row in now.rows}
    return {"league": now.name, "format": ScheduleOptions.from_dict(now.schedule).format, "board": board,
            "ratings": ratings}


__all__ = ["Field", "LeagueFormat", "Played", "drawn_field", "field_of", "format_board", "format_named",
           "league_format", "standings_of"]
