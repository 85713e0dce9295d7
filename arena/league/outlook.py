"""When an entered bot will play: what its author is told after "entered".

What is knowable, and no more: the server does not run leagues on a clock (an admin starts a
run), so no time is promised. What is known is the league's format, whether a run holds the
league now (its lease, ``lease.py``), how many entrants may play, and whether the bot has
played. A round robin's run plays the schedule of the entrants it started with
(``runner.py``): a bot entered during a run waits for the next one. A ladder reads its entrants
before each match (``ladder.py``): a running ladder seats a new entrant in its coming matches.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from ..store import Bot, Entry, Store
from . import get_league, lease
from .schedule import ScheduleOptions
from .stats import league_games


@dataclass(frozen=True)
class Outlook:
    """A bot's outlook in one league: ``state`` a key for pages and tests, ``words`` a sentence."""

    league: str
    state: str  # "retired", "too-few", "in-this-run", "next-run", "playing-ladder", "waiting-ladder"
    words: str
    games: int  # games it has stored in the league


def outlook(store: Store, league: str, bot_id: int) -> Outlook:
    """When bot ``bot_id``, entered in ``league``, will play (see the module)."""
    with store() as session:
        row = get_league(session, league)
        league_id, k, name = row.id, row.players, row.name
        options = ScheduleOptions.from_dict(row.schedule)
        retired = session.scalar(select(Bot.retired_at).where(Bot.id == bot_id)) is not None
        playing = session.scalar(select(func.count()).select_from(Entry).join(Bot, Bot.id == Entry.bot_id)
                                 .where(Entry.league_id == league_id, Bot.retired_at.is_(None))) or 0
    totals = league_games(store, league_id).totals.get(bot_id)  # kept in memory: no query per bot
    games = totals.games if totals else 0
    running = lease.holder(store, league_id) is not None
    played = f"{games} game(s) played so far; " if games else ""
    if retired:
        return Outlook(name, "retired", f"{played}retired: it plays no new match", games)
    if playing < k:
        return Outlook(name, "too-few", f"{played}waiting for more entrants: a table needs {k}, "
                                        f"{playing} may play now", games)
    if options.format == "ladder":
        if running:
            return Outlook(name, "playing-ladder", f"{played}the ladder is running: matchmaking seats it in its "
                                                   "coming matches", games)
        return Outlook(name, "waiting-ladder", f"{played}waiting for the ladder's next run (an admin starts it)",
                       games)
    if running and games:
        return Outlook(name, "in-this-run", f"{played}a run is under way", games)
    if running:
        return Outlook(name, "next-run", "a run is under way, with the entrants it started with: it plays in the "
                                         "league's next run (an admin starts it)", games)
    return Outlook(name, "next-run", f"{played}waiting for the league's next run (an admin starts it)", games)

