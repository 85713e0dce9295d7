"""What a bot's author asks of a league: the bot's rating history, its record against each
opponent, its recent matches, and why it failed; and every bot's totals for the leaderboard.

Store-level, no web: the leaderboard (:func:`arena.league.standings.leaderboard`), the web
server's bot pages and the ladder read these. Each function takes the store, the league's name
and a bot's id, and raises :class:`~arena.league.LeagueError` for an unknown league.

The numbers come from the stored games (:func:`league_games`), except the rating history, which
is what the last :func:`~arena.league.standings.rebuild_ratings` stored.

**Open cycles** (``cycles.py``): what is told per game or per match, the rating history's points
and the recent matches, leaves out the games of duplicate cycles not all stored (the public may
not see their results, ``arena/access.py``: a game's result narrows a deal still to be played);
the totals, head to head and failure counts sum every stored game, as the leaderboard and the
ratings do.
"""

from __future__ import annotations

import threading
import weakref
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, func, select

from .. import access
from ..store import Bot, Game, Match, RatingHistory, Store
from . import get_league
from .cycles import complete_cycles, cycle_number

if TYPE_CHECKING:  # not at run time: accounts loads argon2
    from ..accounts import Account


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One stored game, as the statistics need it."""

    id: int
    match_id: int
    index: int
    seats: tuple[int, ...]  # bot ids by seat
    scores: tuple[int, ...]
    ranks: tuple[int, ...]  # 1 is best
    failures: tuple[str, ...]  # "" or the referee's reason, by seat


@dataclass(frozen=True, slots=True)
class PlayedMatch:
    id: int
    round: int
    table: str
    bots: tuple[int, ...]  # bot ids in match order
    finished_at: datetime


@dataclass
class BotTotals:
    """A bot's totals over every stored game of a league (rated or not)."""

    games: int = 0
    wins: int = 0  # games it ranked first in (ties included)
    score: int = 0
    failed: int = 0  # games in which it failed
    reasons: Counter[str] = field(default_factory=Counter)  # failure reason -> games


@dataclass
class LeagueGames:
    """A league's stored matches and games, each bot's games, and each bot's totals."""

    matches: dict[int, PlayedMatch]
    games: list[PlayedGame]  # by match, then index
    by_bot: dict[int, list[PlayedGame]]
    totals: dict[int, BotTotals]
    hidden: frozenset[int] = frozenset()  # ids of the matches of cycles not all stored
    key: tuple[int, int] = (0, 0)  # (matches, highest match id) when read

    @classmethod
    def of(cls, matches: dict[int, PlayedMatch], games: list[PlayedGame]) -> LeagueGames:
        games = sorted(games, key=lambda g: (g.match_id, g.index))
        by_bot: dict[int, list[PlayedGame]] = {}
        totals: dict[int, BotTotals] = {}
        for game in games:
            for seat, bot in enumerate(game.seats):
                by_bot.setdefault(bot, []).append(game)
                t = totals.get(bot)
                if t is None:
                    t = totals[bot] = BotTotals()
                t.games += 1
                t.wins += game.ranks[seat] == 1
                t.score += game.scores[seat]
                if reason := game.failures[seat]:
                    t.failed += 1
                    t.reasons[reason] += 1
        complete = complete_cycles((m.round, m.table) for m in matches.values())
        # what a bot page tells per game, it tells everyone: the results the public may see
        hidden = frozenset(m.id for m in matches.values() if not access.may_see_result(
            None, access.Game(public=(m.table, cycle_number(m.round, m.table)) in complete)))
        return cls(matches, games, by_bot, totals, hidden)


def _match(row: Any) -> PlayedMatch:
    return PlayedMatch(row.id, row.round, row.table, tuple(row.bots), row.finished_at)


def _game(row: Any) -> PlayedGame:
    return PlayedGame(row.id, row.match_id, row.index, tuple(row.seats), tuple(row.scores), tuple(row.ranks),
                      tuple(row.failures))


MATCH_COLUMNS = (Match.id, Match.round, Match.table, Match.bots, Match.finished_at)
GAME_COLUMNS = (Game.id, Game.match_id, Game.index, Game.seats, Game.scores, Game.ranks, Game.failures)


def league_games(store: Store, league_id: int) -> LeagueGames:
    """Every stored match and game of the league ``league_id``.

    Kept in memory per store and league, and brought up to date on each call: one cheap query
    (the count and the highest id of the league's matches: matches are only ever added, each with
    all its games in one transaction) says whether anything was stored since; then only the new
    matches' games are read. The leaderboard and the bot pages read 10,000 games in a few
    microseconds instead of a second."""
    with store.engine.connect() as connection:  # not a Session: this runs on every page view
        count, top = connection.execute(_KEY, {"league": league_id}).one()
    cached = _cached(store, league_id)
    if cached is not None and cached.key == (count, top or 0):
        return cached
    with _refresh_lock:  # one refresh at a time: concurrent requests wait for it, not redo it
        cached = _cached(store, league_id)
        if cached is not None and cached.key == (count, top or 0):
            return cached
        fresh = _refresh(store, league_id, cached)
        _cache.setdefault(store, {})[league_id] = fresh
        return fresh


# built once (building costs more than running it); two subqueries, as each reads the index faster alone
_KEY = select(select(func.count()).select_from(Match).where(Match.league_id == bindparam("league")).scalar_subquery(),
              select(func.max(Match.id)).where(Match.league_id == bindparam("league")).scalar_subquery())
_cache: weakref.WeakKeyDictionary[Store, dict[int, LeagueGames]] = weakref.WeakKeyDictionary()
_refresh_lock = threading.Lock()
IN_CHUNK = 500  # match ids per IN (...) list


def _cached(store: Store, league_id: int) -> LeagueGames | None:
    return _cache.get(store, {}).get(league_id)


def _refresh(store: Store, league_id: int, old: LeagueGames | None) -> LeagueGames:
    # one transaction: the matches read and their games are of the same moment
    with store() as session:
        rows = session.execute(select(*MATCH_COLUMNS).where(Match.league_id == league_id)).all()
        known = old.matches if old is not None else {}
        new = [r.id for r in rows if r.id not in known]
        games = list(old.games) if old is not None else []
        if old is None or len(new) > 4 * IN_CHUNK:
            games = [_game(r) for r in session.execute(select(*GAME_COLUMNS).join(Match)
                                                       .where(Match.league_id == league_id))]
        else:
            for i in range(0, len(new), IN_CHUNK):
                games += [_game(r) for r in session.execute(select(*GAME_COLUMNS)
                                                            .where(Game.match_id.in_(new[i:i + IN_CHUNK])))]
    matches = {r.id: _match(r) for r in rows}
    played = LeagueGames.of(matches, games)
    played.key = (len(matches), max(matches, default=0))
    return played


# -- what a bot's author asks ---------------------------------------------------------------------
@dataclass(frozen=True)
class HistoryPoint:
    game: int  # the bot's n-th rated game, from 1
    game_id: int
    mu: float
    sigma: float


@dataclass(frozen=True)
class HeadToHead:
    """A bot's record against one opponent, over the games they played together.

    ``mean_rank_difference`` is the mean of (opponent's rank - the bot's rank): positive when the
    bot finished ahead on average. ``wins`` are the games the bot finished ahead of the
    opponent, ``losses`` behind it, ``draws`` level with it."""

    opponent_id: int
    opponent: str  # name
    version: str
    games: int
    wins: int
    losses: int
    draws: int
    mean_rank_difference: float


@dataclass(frozen=True)
class RecentMatch:
    match_id: int
    round: int
    finished_at: datetime
    opponents: list[tuple[int, str, str]]  # (bot id, name, version), in match order
    ranks: list[int]  # the bot's rank in each game of the match
    wins: int  # games it ranked first in
    failures: list[str]  # the reason of each game it failed in

    @property
    def mean_rank(self) -> float:
        return sum(self.ranks) / len(self.ranks) if self.ranks else 0.0


def _league_id(store: Store, league: str) -> int:
    with store() as session:
        return get_league(session, league).id


def _labels(store: Store, ids: set[int]) -> dict[int, tuple[str, str]]:
    if not ids:
        return {}
    with store() as session:
        return {r.id: (r.name, r.version)
                for r in session.execute(select(Bot.id, Bot.name, Bot.version).where(Bot.id.in_(ids)))}


def rating_history(store: Store, league: str, bot_id: int) -> list[HistoryPoint]:
    """The bot's rating (mu, sigma) after each of its rated games, in rating order; the games
    of open cycles left out (a point's move tells the game's result), not renumbered."""
    with store() as session:
        league_id = get_league(session, league).id
        rows = session.execute(select(RatingHistory.game_id, RatingHistory.mu, RatingHistory.sigma)
                               .where(RatingHistory.league_id == league_id, RatingHistory.bot_id == bot_id)
                               .order_by(RatingHistory.seq)).all()
    played = league_games(store, league_id)
    hidden = {g.id for g in played.by_bot.get(bot_id, ()) if g.match_id in played.hidden}
    return [HistoryPoint(n, r.game_id, r.mu, r.sigma) for n, r in enumerate(rows, 1) if r.game_id not in hidden]


def head_to_head(store: Store, league: str, bot_id: int) -> list[HeadToHead]:
    """The bot's record against every opponent it has played, most games together first."""
    played = league_games(store, _league_id(store, league))
    return _head_to_head(store, played, bot_id)


def _head_to_head(store: Store, played: LeagueGames, bot_id: int) -> list[HeadToHead]:
    tally: dict[int, list[int]] = {}  # opponent -> [games, wins, losses, draws, rank difference sum]
    for game in played.by_bot.get(bot_id, ()):
        mine = game.ranks[game.seats.index(bot_id)]
        for seat, other in enumerate(game.seats):
            if other == bot_id:
                continue
            t = tally.setdefault(other, [0, 0, 0, 0, 0])
            theirs = game.ranks[seat]
            t[0] += 1
            t[1 if mine < theirs else 2 if mine > theirs else 3] += 1
            t[4] += theirs - mine
    labels = _labels(store, set(tally))
    rows = [HeadToHead(other, *labels.get(other, ("?", "?")), games=t[0], wins=t[1], losses=t[2], draws=t[3],
                       mean_rank_difference=round(t[4] / t[0], 3))
            for other, t in tally.items()]
    return sorted(rows, key=lambda h: (-h.games, h.opponent, h.version))


def recent_matches(store: Store, league: str, bot_id: int, limit: int = 10) -> list[RecentMatch]:
    """The bot's last ``limit`` stored matches in the league whose duplicate cycle is all
    stored, newest first."""
    played = league_games(store, _league_id(store, league))
    return _recent_matches(store, played, bot_id, limit)


def _recent_matches(store: Store, played: LeagueGames, bot_id: int, limit: int) -> list[RecentMatch]:
    mine = [m for m in played.matches.values() if bot_id in m.bots and m.id not in played.hidden]
    mine.sort(key=lambda m: (m.finished_at, m.id), reverse=True)
    mine = mine[:limit]
    games: dict[int, list[PlayedGame]] = {m.id: [] for m in mine}
    for game in played.by_bot.get(bot_id, ()):
        if game.match_id in games:
            games[game.match_id].append(game)
    labels = _labels(store, {b for m in mine for b in m.bots if b != bot_id})
    out = []
    for m in mine:
        seats = [g.seats.index(bot_id) for g in games[m.id]]
        ranks = [g.ranks[s] for g, s in zip(games[m.id], seats, strict=True)]
        out.append(RecentMatch(
            m.id, m.round, m.finished_at,
            [(b, *labels.get(b, ("?", "?"))) for b in m.bots if b != bot_id],
            ranks, sum(r == 1 for r in ranks),
            [g.failures[s] for g, s in zip(games[m.id], seats, strict=True) if g.failures[s]]))
    return out


def failure_reasons(store: Store, league: str, bot_id: int) -> list[tuple[str, int]]:
    """(reason, games) for each way the bot failed in the league, most frequent first; the
    reasons are the referee's (``timeout``, ``crash``, ``illegal``, ...: see ``referee/seats.py``)."""
    played = league_games(store, _league_id(store, league))
    return _failure_reasons(played, bot_id)


def _failure_reasons(played: LeagueGames, bot_id: int) -> list[tuple[str, int]]:
    totals = played.totals.get(bot_id)
    return sorted(totals.reasons.items(), key=lambda kv: (-kv[1], kv[0])) if totals else []


@dataclass(frozen=True)
class BotInLeague:
    """Everything the bot page shows of one league, read at once."""

    totals: BotTotals
    history: list[HistoryPoint]
    head_to_head: list[HeadToHead]
    recent_matches: list[RecentMatch]
    failures: list[tuple[str, int]]


def bot_in_league(store: Store, league: str, bot_id: int, recent: int = 10) -> BotInLeague:
    """:func:`rating_history`, :func:`head_to_head`, :func:`recent_matches` and
    :func:`failure_reasons` of the bot in the league, reading its games once."""
    played = league_games(store, _league_id(store, league))
    return BotInLeague(played.totals.get(bot_id, BotTotals()), rating_history(store, league, bot_id),
                       _head_to_head(store, played, bot_id), _recent_matches(store, played, bot_id, recent),
                       _failure_reasons(played, bot_id))


# -- a bot's games, as one asker may see them -------------------------------------------------------
@dataclass(frozen=True)
class BotGame:
    """One game of a bot, for its page's list of games (each with its replay)."""

    game_id: int
    match_id: int
    round: int
    index: int  # in its match
    finished_at: datetime
    opponents: list[tuple[int, str, str]]  # (bot id, name, version) of the other seats, in seat order
    rank: int
    score: int
    failure: str  # "" or the referee's reason
    public: bool  # its duplicate cycle all stored: everyone sees it


def bot_games(store: Store, league: str, bot_id: int, asker: Account | None, offset: int = 0,
              limit: int = 25) -> tuple[list[BotGame], int]:
    """The bot's games in ``league`` that ``asker`` may see the result of (``access.may_see_result``:
    the public ones, and, to the owner of a bot seated in it, a game whose cycle is still open),
    newest first: ``limit`` of them from ``offset``, and how many there are in all."""
    played = league_games(store, _league_id(store, league))
    mine = played.by_bot.get(bot_id, [])
    seated = {b for g in mine for b in g.seats}
    with store() as session:
        owners = {r.id: _Owned(r.owner_id, r.team_id) for r in session.execute(
            select(Bot.id, Bot.owner_id, Bot.team_id).where(Bot.id.in_(seated)))} if seated else {}
    visible = [g for g in mine if access.may_see_result(asker, access.Game(
        public=g.match_id not in played.hidden, bots=[owners.get(b, _Owned(None)) for b in g.seats]))]
    visible.sort(key=lambda g: (played.matches[g.match_id].finished_at, g.match_id, g.index), reverse=True)
    page = visible[offset:offset + limit]
    labels = _labels(store, {b for g in page for b in g.seats if b != bot_id})
    out = []
    for g in page:
        seat = g.seats.index(bot_id)
        match = played.matches[g.match_id]
        out.append(BotGame(g.id, g.match_id, match.round, g.index, match.finished_at,
                           [(b, *labels.get(b, ("?", "?"))) for b in g.seats if b != bot_id],
                           g.ranks[seat], g.scores[seat], g.failures[seat], g.match_id not in played.hidden))
    return out, len(visible)


@dataclass(frozen=True)
class _Owned:
    owner_id: int | None
    team_id: int | None = None
