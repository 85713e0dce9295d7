"""A league's standings: its ratings, rebuilt from the stored games, and its leaderboard."""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, delete, func, select
from sqlalchemy.orm import Session, aliased

from referee import limits

from ..store import Bot, Entry, Game, League, Match, Rating, RatingHistory, Store, Team, User
from . import get_league
from .confidence import TOP_K, RankOdds, rank_odds
from .ratings import ENV, RatedGame, rate
from .schedule import ScheduleOptions
from .stats import BotTotals, league_games


def rated_games(session: Any, league_id: int) -> list[Game]:
    """The league's games in rating order: a round robin's (round, schedule order of the table,
    game index); a ladder's the order its matches were stored (match id, game index), in which
    its runner added them to the ratings (``ladder.py``)."""
    if ScheduleOptions.from_dict(session.get(League, league_id).schedule).format == "ladder":
        return list(session.scalars(select(Game).join(Match).where(Match.league_id == league_id)
                                    .order_by(Match.id, Game.index)))
    rows = session.execute(
        select(Game, Match.round, Match.table).join(Match).where(Match.league_id == league_id)
    ).all()

    def order(row: Any) -> tuple:
        game, rnd, table = row
        return (rnd, tuple(int(b) for b in table.split(",")), game.index)

    return [row[0] for row in sorted(rows, key=order)]


def rebuild_ratings(store: Store, name: str) -> dict[int, Any]:
    """Recomputes the league's ratings and their history from the stored games."""
    with store() as session, session.begin():
        league = get_league(session, name)
        options = ScheduleOptions.from_dict(league.schedule)
        games = rated_games(session, league.id)
        history: list[tuple[int, int, int, float, float]] = []
        ratings = rate((RatedGame(g.id, g.seats, g.ranks, g.failures) for g in games), options.failures, history)
        session.execute(delete(Rating).where(Rating.league_id == league.id))
        session.execute(delete(RatingHistory).where(RatingHistory.league_id == league.id))
        for entry in league.entries:
            r = ratings.get(entry.bot_id)
            if r is None:  # not rated yet: the prior
                prior = ENV.create_rating()
                session.add(Rating(league_id=league.id, bot_id=entry.bot_id, mu=prior.mu, sigma=prior.sigma,
                                   exposure=prior.mu - 3 * prior.sigma, games=0))
            else:
                session.add(Rating(league_id=league.id, bot_id=entry.bot_id, mu=r.mu, sigma=r.sigma,
                                   exposure=r.exposure, games=r.games))
        session.add_all(RatingHistory(league_id=league.id, bot_id=bot, game_id=gid, seq=seq, mu=mu, sigma=sigma)
                        for seq, gid, bot, mu, sigma in history)
    return ratings


NEW_DAYS = 14  # a new version of a bot is marked "new" on the leaderboard this long after it entered


@dataclass(frozen=True)
class Standings:
    """A league and its leaderboard rows (see :func:`leaderboard`), as of ``version``."""

    league_id: int
    name: str
    game: str
    players: int
    settings: dict[str, Any]
    schedule: dict[str, Any]
    created_at: datetime
    rows: tuple[dict[str, Any], ...]  # shared by every caller: never change them
    version: str  # changes whenever the rows may have: for caches of what is drawn from them
    odds: RankOdds | None = field(default=None, compare=False)  # the rows' drawn ranks: P(top k) for any k

    def rows_for(self, top: int = TOP_K) -> list[dict[str, Any]]:
        """Copies of the rows, with P(top ``top``) (see :func:`leaderboard`)."""
        rows = [dict(row) for row in self.rows]
        if self.odds is not None and rows and min(top, len(rows)) != rows[0]["top_k"]:
            for row in rows:
                odds = self.odds.of(row["bot_id"], top)
                row["p_top"], row["top_k"] = odds["p_top"], odds["top_k"]
        return rows


def standings(store: Store, name: str) -> Standings:
    """League ``name`` and its leaderboard, kept in memory and read again only when the league's
    state changed: one query (:func:`_fingerprint`) says whether it did."""
    with store.engine.connect() as connection:  # not a Session: this runs on every page view
        print_ = _fingerprint(connection, name)
    cached = _standings.get(store, {}).get(name)
    if cached is not None and cached.version == print_:
        return cached
    if _unrated(print_):  # killed before its ratings were computed: do it now
        rebuild_ratings(store, name)
        with store.engine.connect() as connection:
            print_ = _fingerprint(connection, name)
    with store() as session:
        league = get_league(session, name)
    rows, odds = _rows(store, league.id)
    fresh = Standings(league.id, league.name, league.game, league.players, league.settings, league.schedule,
                      league.created_at, tuple(rows), print_, odds)
    _standings.setdefault(store, {})[name] = fresh
    return fresh


_standings: weakref.WeakKeyDictionary[Store, dict[str, Standings]] = weakref.WeakKeyDictionary()


def leaderboard(store: Store, name: str, top: int = TOP_K) -> list[dict[str, Any]]:
    """One row per entrant, best conservative rating (mu - 3 sigma) first, with its rank; an
    entrant that has not played yet (entered since the league last ran) has the prior rating.

    How sure the ranks are (:mod:`arena.league.confidence`, drawn from the rating posteriors):
    ``p_first`` (P(rank 1)), ``p_top`` (P(rank <= ``top_k``), ``top`` capped at the entrants),
    the 90% rank interval ``rank_low``..``rank_high``, and ``settled``: that interval is the
    shown rank alone (in over 90% of the draws the bot takes exactly that rank).

    ``new`` marks the newest version of a bot name that has older versions in the league, for
    :data:`NEW_DAYS` days after it entered; ``retired`` a retired bot (it plays no new match),
    ``disqualified`` one an admin disqualified (retired too).
    Games, wins, average score and failure rate count every stored game; mu and sigma are of the
    last :func:`rebuild_ratings`."""
    return standings(store, name).rows_for(top)


def _fingerprint(connection: Any, name: str) -> str:
    """A string that changes whenever league ``name``'s leaderboard may: matches are only added
    (their count and highest id), ratings replaced by each rebuild (their count, and the sums of
    their games, mu and sigma: a rebuild after new games changes the games and every sigma),
    entrants only added, bots retired or disqualified, the league closed or given its finals; and
    "new" marks expire by the hour. One query."""
    row = connection.execute(_FINGERPRINT, {"name": name}).one_or_none()
    if row is None:
        with Session(connection) as session:
            get_league(session, name)  # raises, naming the leagues there are
    hour = int(time.time() // 3600)
    return ":".join(map(str, [*row[1:], hour, row[0]]))


def _of(table: Any, column: Any, where: Any, *join: Any) -> Any:
    query = select(column).select_from(table)
    return (query.join(*join) if join else query).where(where).scalar_subquery()


# built once: building a statement costs more than running this one
_FINALS = aliased(League)
_FINGERPRINT = select(
    League.id,
    _of(Match, func.count(), Match.league_id == League.id),
    _of(Match, func.max(Match.id), Match.league_id == League.id),
    _of(Rating, func.count(), Rating.league_id == League.id),
    _of(Rating, func.coalesce(func.sum(Rating.games), 0), Rating.league_id == League.id),
    _of(Rating, func.sum(Rating.mu), Rating.league_id == League.id),
    _of(Rating, func.sum(Rating.sigma), Rating.league_id == League.id),
    _of(Entry, func.count(), Entry.league_id == League.id),
    _of(Entry, func.count(), (Entry.league_id == League.id) & Bot.retired_at.is_not(None), Bot, Bot.id == Entry.bot_id),
    _of(Entry, func.count(), (Entry.league_id == League.id) & Bot.disqualified_at.is_not(None), Bot,
        Bot.id == Entry.bot_id),
    League.closed_at,  # closed, and given finals (a league's finals_of never changes): finals.py's Link
    _of(_FINALS, func.max(_FINALS.id), _FINALS.finals_of == League.id),
).where(League.name == bindparam("name"))


def _unrated(print_: str) -> bool:
    """Matches stored but no rated game (the fingerprint's fields 0 and 3)."""
    fields = print_.split(":")
    return fields[0] != "0" and fields[3] == "0"


def _rows(store: Store, league_id: int) -> tuple[list[dict[str, Any]], RankOdds]:
    totals = league_games(store, league_id).totals
    with store() as session:
        entries = session.execute(
            select(Entry.joined_at, Bot, Rating, func.coalesce(Team.name, User.name))
            .join(Bot, Bot.id == Entry.bot_id)
            .outerjoin(User, User.id == Bot.owner_id)
            .outerjoin(Team, Team.id == Bot.team_id)
            .outerjoin(Rating, (Rating.league_id == Entry.league_id) & (Rating.bot_id == Entry.bot_id))
            .where(Entry.league_id == league_id).order_by(Entry.bot_id)).all()
    prior = ENV.create_rating()
    newest = _new_versions([(joined, bot) for joined, bot, _, _ in entries])
    rows: list[dict[str, Any]] = []
    posteriors: list[tuple[int, float, float]] = []
    for _, bot, rating, owner in entries:
        mu, sigma = (rating.mu, rating.sigma) if rating else (prior.mu, prior.sigma)
        posteriors.append((bot.id, mu, sigma))
        exposure = rating.exposure if rating else prior.mu - 3 * prior.sigma
        t = totals.get(bot.id) or BotTotals()
        rows.append({
            "bot_id": bot.id, "bot": bot.name, "version": bot.version,
            # the author is the owning account or team (None: the operator's); bot.toml's is anyone's free text
            "author": owner, "declared_author": bot.author[:limits.AUTHOR_CHARS], "language": bot.language,
            "exposure": round(exposure, 3), "mu": round(mu, 3), "sigma": round(sigma, 3),
            "games": t.games, "wins": t.wins,
            "average_score": round(t.score / t.games, 1) if t.games else 0.0,
            "failure_rate": round(t.failed / t.games, 3) if t.games else 0.0,
            "new": bot.id in newest, "retired": bot.retired_at is not None,
            "disqualified": bot.disqualified_at is not None,
        })
    rows.sort(key=lambda r: (-r["exposure"], -r["mu"], r["bot"], r["version"]))
    odds = rank_odds(posteriors)
    for i, row in enumerate(rows, 1):
        row["rank"] = i
        row.update(odds.of(row["bot_id"]))
        row["settled"] = row["rank_low"] == row["rank_high"] == i
    return rows, odds


def _new_versions(entries: list[tuple[datetime, Bot]]) -> set[int]:
    """The bot ids marked new: see :func:`leaderboard`."""
    since = datetime.now(UTC) - timedelta(days=NEW_DAYS)
    by_name: dict[str, list[tuple[datetime, Bot]]] = {}
    for joined, bot in entries:
        by_name.setdefault(bot.name, []).append((joined, bot))
    new = set()
    for versions in by_name.values():
        joined, latest = max(versions, key=lambda v: v[1].id)  # registered last
        joined = joined if joined.tzinfo else joined.replace(tzinfo=UTC)  # SQLite gives naive UTC
        if len(versions) > 1 and joined >= since:
            new.add(latest.id)
    return new
