"""Leagues: entrants, the round-robin schedule, running it, and the ratings it yields.

The functions here are what the CLI calls; each takes the store and does one thing in
as few transactions as possible, raising :class:`LeagueError` with a sentence a user can
act on for anything it refuses.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from referee.games import GameError, get_game
from referee.spec import SpecError, check_secret, new_secret

from ..store import Bot, Entry, Game, League, Match, Rating, RatingHistory, Store
from .executor import MatchJob, run_jobs
from .ratings import ENV, RatedGame, rate
from .schedule import ScheduleOptions, Slot, games_per_match, schedule


class LeagueError(Exception):
    pass


# -- leagues and entrants ----------------------------------------------------------------------
def create_league(store: Store, name: str, game: str, players: int, settings: dict[str, Any],
                  options: ScheduleOptions, secret: str | None = None) -> League:
    """A new league. Its deals and bot seeds derive from ``secret`` (hex, at least 128 bits);
    by default a fresh one from the operating system. Give one only to make a league
    reproducible (tests): whoever knows it knows every deal."""
    try:
        spec = get_game(game)
        spec.check_players(players)
        full_settings = spec.settings.from_mapping(settings).to_dict()
        spec.new_game(players, 0, full_settings)  # some settings must also fit the player count
        secret = new_secret() if secret is None else check_secret(secret, "the league's secret")
    except (GameError, SpecError) as exc:
        raise LeagueError(str(exc)) from None
    with store() as session, session.begin():
        if session.scalar(select(League).where(League.name == name)):
            raise LeagueError(f"a league named {name!r} exists already")
        league = League(name=name, game=spec.name, players=players, settings=full_settings,
                        schedule=options.to_dict(), secret=secret)
        session.add(league)
    return league


def get_league(session: Any, name: str) -> League:
    league = session.scalar(select(League).where(League.name == name))
    if league is None:
        known = session.scalars(select(League.name).order_by(League.name)).all()
        raise LeagueError(f"unknown league {name!r}; leagues: {', '.join(known) or 'none yet'}")
    return league


def find_bot(session: Any, label: str) -> Bot:
    """``name@version`` (or ``name``: its newest version)."""
    name, _, version = label.partition("@")
    query = select(Bot).where(Bot.name == name)
    if version:
        query = query.where(Bot.version == version)
    bot = session.scalars(query.order_by(Bot.id.desc())).first()
    if bot is None:
        raise LeagueError(f"no registered bot {label!r}")
    return bot


def register_bot(store: Store, *, name: str, version: str, image: str, image_digest: str,
                 language: str, author: str, games: list[str], league: str | None) -> Bot:
    """Records a built and validated bot version, and enters it in ``league``."""
    with store() as session, session.begin():
        target = get_league(session, league) if league else None
        if session.scalar(select(Bot).where(Bot.name == name, Bot.version == version)):
            raise LeagueError(f"bot {name} version {version} is registered already: give it a new version")
        bot = Bot(name=name, version=version, image=image, image_digest=image_digest, language=language,
                  author=author, games=games)
        session.add(bot)
        session.flush()
        if target is not None:
            _check_plays(bot, target)
            session.add(Entry(league_id=target.id, bot_id=bot.id))
    return bot


def check_new_version(store: Store, name: str, version: str) -> None:
    with store() as session:
        if session.scalar(select(Bot).where(Bot.name == name, Bot.version == version)):
            raise LeagueError(f"bot {name} version {version} is registered already: give it a new version")


def join_league(store: Store, league: str, bot_label: str) -> Bot:
    with store() as session, session.begin():
        target = get_league(session, league)
        bot = find_bot(session, bot_label)
        _check_plays(bot, target)
        if session.scalar(select(Entry).where(Entry.league_id == target.id, Entry.bot_id == bot.id)):
            raise LeagueError(f"{bot.label} is in league {league} already")
        session.add(Entry(league_id=target.id, bot_id=bot.id))
    return bot


def _check_plays(bot: Bot, league: League) -> None:
    if bot.games and league.game not in bot.games:
        raise LeagueError(f"{bot.label} plays {', '.join(bot.games)}, not {league.game}")


# -- running --------------------------------------------------------------------------------------
@dataclass
class RunSummary:
    matches_run: int
    games_run: int
    failures: int
    matches_skipped: int  # already stored by an earlier run
    seconds: float
    # seconds summed over matches: referee processes (wall), and inside them container
    # start, round trips, engine; then the league runner's store and ratings work
    timings: dict[str, float] = field(default_factory=dict)


def run_league(store: Store, name: str, rounds: int, jobs: int, runs_dir: Path,
               progress: Callable[[int, int], None] | None = None,
               on_start: Callable[[int], None] | None = None) -> RunSummary:
    """Plays every match of rounds 0..rounds-1 not yet stored, ``jobs`` at a time.

    Safe to kill at any moment and to rerun: a match is stored with its games in one
    transaction when it ends, and a rerun plays only what is not stored.
    ``progress(games, failures)`` is called as each match is stored.
    """
    start = time.monotonic()
    with store() as session:
        league = get_league(session, name)
        entrants = {e.bot.id: e.bot for e in league.entries}
        if len(entrants) < league.players:
            raise LeagueError(f"league {name} has {len(entrants)} entrant(s); {league.game} needs "
                              f"{league.players} per table")
        options = ScheduleOptions.from_dict(league.schedule)
        done = {(m.round, m.table) for m in session.scalars(select(Match).where(Match.league_id == league.id))}
        league_id, game, players, settings, secret = (league.id, league.game, league.players, league.settings,
                                                      league.secret)
    slots = schedule(list(entrants), players, rounds)
    todo = [s for s in slots if (s.round, s.key) not in done]
    if on_start:
        on_start(len(todo) * games_per_match(players, options))
    jobs_list = [MatchJob(slot=s, spec=_match_spec(name, game, settings, secret, s, entrants, options),
                          out_dir=runs_dir / name / f"r{s.round}-{s.key.replace(',', '-')}" / _attempt())
                 for s in todo]
    games_run = failures = 0
    timings = dict.fromkeys(("referee", "match", "startup", "round_trips", "engine", "store", "ratings"), 0.0)
    for job, result in run_jobs(jobs_list, jobs):
        t_store = time.perf_counter()
        stored = _store_match(store, league_id, job, result)
        timings["store"] += time.perf_counter() - t_store
        timings["referee"] += job.seconds
        match_timings = result.get("timings", {})
        timings["match"] += match_timings.get("total", 0.0)
        for key in ("startup", "round_trips", "engine"):
            timings[key] += match_timings.get(key, 0.0)
        if stored:
            games_run += len(result["games"])
            failures += sum(1 for g in result["games"] for f in g["failures"] if f)
            if progress:
                progress(len(result["games"]), failures)
    t_ratings = time.perf_counter()
    rebuild_ratings(store, name)
    timings["ratings"] = time.perf_counter() - t_ratings
    return RunSummary(len(todo), games_run, failures, len(slots) - len(todo), time.monotonic() - start, timings)


def _attempt() -> str:
    """A fresh folder per attempt: a killed run's referee may still be writing the old one."""
    return f"attempt-{os.getpid()}-{time.time_ns()}"


def _match_spec(league: str, game: str, settings: dict[str, Any], league_secret: str, slot: Slot,
                entrants: dict[int, Bot], options: ScheduleOptions) -> dict[str, Any]:
    deal_secret, bot_secret = slot.secrets(league_secret)
    return {
        "match_id": f"{league}-r{slot.round}-{slot.key.replace(',', '-')}",
        "game": game,
        "settings": settings,
        "secret": deal_secret,
        "bot_secret": bot_secret,
        "plan": slot.plan(options.deals),
        "bots": [{"name": entrants[b].label, "version": entrants[b].version, "image": entrants[b].image}
                 for b in slot.table],
        "time": {"startup_ms": options.startup_ms, "decision_ms": options.decision_ms,
                 "bank_ms": options.bank_ms},
        "max_restarts": options.max_restarts,
    }


def _store_match(store: Store, league_id: int, job: MatchJob, result: dict[str, Any]) -> bool:
    """Stores a finished match and its games atomically; False if it was stored already."""
    table = list(job.slot.table)
    try:
        with store() as session, session.begin():
            match = Match(league_id=league_id, round=job.slot.round, table=job.slot.key, bots=table,
                          record_dir=str(job.out_dir), restarts=[t["restarts"] for t in result["totals"]],
                          started_at=job.started_at)
            session.add(match)
            session.flush()
            for g in result["games"]:
                session.add(Game(match_id=match.id, index=g["index"], seed=str(g["seed"]), deal=g["deal"],
                                 seats=[table[b] for b in g["bots"]], scores=g["scores"], ranks=g["ranks"],
                                 failures=g["failures"], record_path=str(job.out_dir / g["record"])))
    except IntegrityError:
        return False  # another runner stored this match first
    return True


# -- ratings ---------------------------------------------------------------------------------------
def rated_games(session: Any, league_id: int) -> list[tuple[Game, int]]:
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


# -- the leaderboard ---------------------------------------------------------------------------------
def leaderboard(store: Store, name: str) -> list[dict[str, Any]]:
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
        rows = []
        for rating in session.scalars(select(Rating).where(Rating.league_id == league.id)):
            s = stats.get(rating.bot_id, {"games": 0, "wins": 0, "score": 0, "failures": 0})
            bot = rating.bot
            rows.append({
                "bot": bot.name, "version": bot.version, "language": bot.language,
                "exposure": round(rating.exposure, 3), "mu": round(rating.mu, 3), "sigma": round(rating.sigma, 3),
                "games": int(s["games"]), "wins": int(s["wins"]),
                "average_score": round(s["score"] / s["games"], 1) if s["games"] else 0.0,
                "failure_rate": round(s["failures"] / s["games"], 3) if s["games"] else 0.0,
            })
    rows.sort(key=lambda r: (-r["exposure"], -r["mu"], r["bot"], r["version"]))
    for i, row in enumerate(rows, 1):
        row["rank"] = i
    return rows


def dump(value: Any) -> str:
    return json.dumps(value, indent=1, default=str)
