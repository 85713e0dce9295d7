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


@dataclass(frozen=True)
class LeagueOutlook:
    """What a league's outlook depends on, read once for all its bots."""

    league: str
    players: int  # a table's
    ladder: bool
    playing: int  # entrants not retired
    running: bool  # a run holds the league now

    def of(self, games: int, retired: bool) -> Outlook:
        """The outlook of a bot of the league that has ``games`` stored games."""
        played = f"{games} game(s) played so far; " if games else ""

        def say(state: str, words: str) -> Outlook:
            return Outlook(self.league, state, played + words, games)

        if retired:
            return say("retired", "retired: it plays no new match")
        if self.playing < self.players:
            return say("too-few", f"waiting for more entrants: a table needs {self.players}, {self.playing} may "
                                  "play now")
        if self.ladder:
            if self.running:
                return say("playing-ladder", "the ladder is running: matchmaking seats it in its coming matches")
            return say("waiting-ladder", "waiting for the ladder's next run (an admin starts it)")
        if self.running and games:
            return say("in-this-run", "a run is under way")
        if self.running:
            return say("next-run", "a run is under way with the entrants it started with: it plays in the league's "
                                   "next run (an admin starts it)")
        return say("next-run", "waiting for the league's next run (an admin starts it)")


def league_outlook(store: Store, league: str) -> LeagueOutlook:
    """What the outlook of league ``league``'s bots depends on: two queries and the lease's."""
    with store() as session:
        row = get_league(session, league)
        league_id, k, name = row.id, row.players, row.name
        ladder = ScheduleOptions.from_dict(row.schedule).format == "ladder"
        playing = session.scalar(select(func.count()).select_from(Entry).join(Bot, Bot.id == Entry.bot_id)
                                 .where(Entry.league_id == league_id, Bot.retired_at.is_(None))) or 0
    return LeagueOutlook(name, k, ladder, playing, lease.holder(store, league_id) is not None)


def outlook(store: Store, league: str, bot_id: int) -> Outlook:
    """When bot ``bot_id``, entered in ``league``, will play (see the module)."""
    with store() as session:
        league_id = get_league(session, league).id
        retired = session.scalar(select(Bot.retired_at).where(Bot.id == bot_id)) is not None
    totals = league_games(store, league_id).totals.get(bot_id)  # kept in memory: no query per bot
    return league_outlook(store, league).of(totals.games if totals else 0, retired)
