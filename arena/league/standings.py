"""A league's standings: its ratings, rebuilt from the stored games, and its leaderboard."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, select

from ..store import Entry, Game, Match, Rating, RatingHistory, Store
from . import get_league
from .ratings import ENV, RatedGame, rate
from .schedule import ScheduleOptions


def rated_games(session: Any, league_id: int) -> list[Game]:
    """The league's games in rating order: (round, schedule order of the table, game index)."""
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


def leaderboard(store: Store, name: str) -> list[dict[str, Any]]:
    """One row per entrant, best conservative rating (mu - 3 sigma) first, with its rank; an
    entrant that has not played yet (entered since the league last ran) has the prior rating.

    ``new`` marks the newest version of a bot name that has older versions in the league, for
    :data:`NEW_DAYS` days after it entered; ``retired`` a retired bot (it plays no new match)."""
    with store() as session:
        league = get_league(session, name)
        rated = session.scalar(select(func.count(RatingHistory.id)).where(RatingHistory.league_id == league.id))
        stored = session.scalar(select(func.count(Game.id)).join(Match).where(Match.league_id == league.id))
    if not rated and stored:  # killed before its ratings were computed: do it now
        rebuild_ratings(store, name)
    with store() as session:
        league = get_league(session, name)
        stats: dict[int, dict[str, float]] = {}
        for game in rated_games(session, league.id):
            for seat, bot in enumerate(game.seats):
                s = stats.setdefault(bot, {"games": 0, "wins": 0, "score": 0, "failures": 0})
                s["games"] += 1
                s["wins"] += game.ranks[seat] == 1
                s["score"] += game.scores[seat]
                s["failures"] += bool(game.failures[seat])
        ratings = {r.bot_id: r for r in session.scalars(select(Rating).where(Rating.league_id == league.id))}
        prior = ENV.create_rating()
        newest = _new_versions(league.entries)
        rows = []
        for entry in league.entries:
            bot = entry.bot
            rating = ratings.get(bot.id)
            mu, sigma = (rating.mu, rating.sigma) if rating else (prior.mu, prior.sigma)
            exposure = rating.exposure if rating else prior.mu - 3 * prior.sigma
            s = stats.get(bot.id, {"games": 0, "wins": 0, "score": 0, "failures": 0})
            rows.append({
                "bot_id": bot.id, "bot": bot.name, "version": bot.version, "author": bot.author,
                "language": bot.language,
                "exposure": round(exposure, 3), "mu": round(mu, 3), "sigma": round(sigma, 3),
                "games": int(s["games"]), "wins": int(s["wins"]),
                "average_score": round(s["score"] / s["games"], 1) if s["games"] else 0.0,
                "failure_rate": round(s["failures"] / s["games"], 3) if s["games"] else 0.0,
                "new": bot.id in newest, "retired": bot.retired_at is not None,
            })
    rows.sort(key=lambda r: (-r["exposure"], -r["mu"], r["bot"], r["version"]))
    for i, row in enumerate(rows, 1):
        row["rank"] = i
    return rows


def _new_versions(entries: list[Entry]) -> set[int]:
    """The bot ids marked new: see :func:`leaderboard`."""
    since = datetime.now(UTC) - timedelta(days=NEW_DAYS)
    by_name: dict[str, list[Entry]] = {}
    for entry in entries:
        by_name.setdefault(entry.bot.name, []).append(entry)
    new = set()
    for versions in by_name.values():
        latest = max(versions, key=lambda e: e.bot_id)  # registered last
        joined = latest.joined_at if latest.joined_at.tzinfo else latest.joined_at.replace(tzinfo=UTC)
        if len(versions) > 1 and joined >= since:
            new.add(latest.bot_id)
    return new
