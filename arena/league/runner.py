"""Running a league: every match of its schedule not yet stored, then its ratings.

A run is safe to kill at any moment and to run again: a match is stored with its games in
one transaction when it ends, and a rerun plays only what is not stored.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar, overload

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from referee import MatchResult, NoSpaceLeft, RefereeFailed
from referee.spec import BotSpec, MatchSpec
from referee.textlog import printable

from .. import notifications
from ..store import Bot, Game, League, Match, Store
from . import LeagueError, get_league, lease, live
from .executor import Executor, LocalExecutor, MatchJob
from .formats import drawn_field, league_format
from .formats.base import read_played
from .schedule import ScheduleOptions, Slot, games_per_match
from .standings import rebuild_ratings
from .status import remember_run
from .waiting import DiskFull, finally_with_store, stopped, wait_for_room, with_store

T = TypeVar("T")
log = logging.getLogger("arena.league")


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
    matches_withdrawn: int = 0  # scheduled, but not started when a bot of theirs was disqualified: not played


def run_league(store: Store, name: str, rounds: int, jobs: int, runs_dir: Path,
               progress: Callable[[int, int], None] | None = None,
               on_start: Callable[[int], None] | None = None, executor: Executor | None = None,
               match_started: Callable[[MatchJob], None] | None = None,
               match_ended: Callable[[MatchJob, MatchResult | None], None] | None = None,
               ran_by: int | None = None) -> RunSummary:
    """Plays every match of rounds 0..rounds-1 not yet stored, ``jobs`` at a time, on
    ``executor`` (default: this machine's, :class:`LocalExecutor`).

    ``on_start(games)`` is called with the number of games to play, and
    ``progress(games, failures)`` as each match is stored. For a display of the matches in
    flight, ``match_started(job)`` is called as a match is handed to the executor and
    ``match_ended(job, result)`` as it ends, with its result if this run stored it (None if its
    referee failed or another runner stored it first). A referee that fails does not stop
    the others: once all have ended, the first failure is raised (its match is not stored, so
    the next run plays it again).

    A run that played something tells the owners of the league's bots, and ``ran_by`` (the
    account of the admin who started it from the server), that it finished, then owners of their
    bots' rank changes; one that failed tells ``ran_by`` why (:mod:`arena.notifications`).
    """
    executor = executor or LocalExecutor()
    start = time.monotonic()
    with store() as session:
        league = get_league(session, name)
        options = ScheduleOptions.from_dict(league.schedule)
        if options.format == "ladder":
            raise LeagueError(f"{printable(name)} is a ladder: run it with `arena ladder run {printable(name)}`")
        entrants = playing(league)
    with lease.acquire(store, league.id, name, "league run") as held:  # one runner per league
        try:
            summary = _play(store, name, rounds, jobs, runs_dir, progress, on_start, executor, match_started,
                            match_ended, league, options, entrants, held, start)
        except Exception as exc:
            if ran_by is not None:  # the operator on the command line sees it there
                tell_run_ended(store, name, 0, 0, ran_by, str(exc) or type(exc).__name__)
            raise
    if summary.games_run:
        tell_run_ended(store, name, summary.games_run, summary.failures, ran_by)
    return summary


def tell_run_ended(store: Store, name: str, games: int, failures: int, ran_by: int | None, error: str = "") -> None:
    """:func:`arena.notifications.run_finished`, which never fails the run it reports."""
    try:
        notifications.run_finished(store, name, games, failures, ran_by, error)
    except Exception:
        log.exception("league %s: telling of the run's end failed", name)


def _play(store: Store, name: str, rounds: int, jobs: int, runs_dir: Path,
          progress: Callable[[int, int], None] | None, on_start: Callable[[int], None] | None, executor: Executor,
          match_started: Callable[[MatchJob], None] | None,
          match_ended: Callable[[MatchJob, MatchResult | None], None] | None, league: League,
          options: ScheduleOptions, entrants: dict[int, Bot], held: lease.Lease, start: float) -> RunSummary:
    """:func:`run_league`'s work, once it holds the league's lease (what is stored is read then):
    the format's slots not stored, batch after batch, each batch's slots decided by what the
    earlier ones stored (``formats/``), until a batch has nothing left to play."""
    league_id, per_match = league.id, games_per_match(league.players, options)
    fmt = league_format(options)
    field = drawn_field(store, name)
    remember_run(store, league_id, {"rounds": rounds})  # what `arena league status` counts "left" against
    summary = RunSummary(0, 0, 0, 0, 0.0, dict.fromkeys(
        ("referee", "match", "startup", "round_trips", "engine", "store", "ratings"), 0.0))
    started_count = False
    while True:
        played = with_store(store, lambda: read_played(store, league_id))
        slots = fmt.slots(field, rounds, played)
        todo = [s for s in slots if not played.stored(s)]
        if not started_count:
            started_count = True
            summary.matches_skipped = len(slots) - len(todo)
            if on_start:
                planned = fmt.planned_matches(field, rounds)
                left = len(todo) if planned is None else max(len(todo), planned - len(played.matches))
                on_start(left * per_match)
        if not todo:
            break
        batch = _play_batch(store, name, jobs, runs_dir, progress, executor, match_started, match_ended, league,
                            options, entrants, held, todo, summary)
        if not batch:  # nothing stored (every match left withdrawn): asking again would ask the same
            break
    t_ratings = time.perf_counter()
    with_store(store, lambda: rebuild_ratings(store, name))
    summary.timings["ratings"] = time.perf_counter() - t_ratings
    summary.seconds = time.monotonic() - start
    return summary


def _play_batch(store: Store, name: str, jobs: int, runs_dir: Path, progress: Callable[[int, int], None] | None,
                executor: Executor, match_started: Callable[[MatchJob], None] | None,
                match_ended: Callable[[MatchJob, MatchResult | None], None] | None, league: League,
                options: ScheduleOptions, entrants: dict[int, Bot], held: lease.Lease, todo: list[Slot],
                summary: RunSummary) -> int:
    """Plays ``todo``, ``jobs`` at a time, adding to ``summary``; the number of matches it stored.
    Raises as :func:`run_league` says once every match has ended."""
    league_id = league.id
    jobs_list = [match_job(name, league, s, entrants, options, runs_dir) for s in todo]

    withdrawn: list[MatchJob] = []  # not played: a bot of theirs was disqualified once the run had started
    full: list[NoSpaceLeft] = []  # the records' disk was full: no match starts until it has room again

    # the (table, cycle) of each match being played: two matches of one cycle deal the same
    # cards, so they never run at once (two live processes of a bot could tell each other the
    # hands; docs/leagues.md, "Duplicate deals")
    busy: set[tuple[str, int]] = set()

    def feed() -> Iterator[MatchJob | None]:
        waiting = list(jobs_list)
        while waiting:
            if held.lost:  # another runner has taken the lease over
                return
            if full:
                if not wait_for_room(full[-1].folder):
                    return
                full.clear()
            if out := with_store(store, lambda: disqualified(store, {b for j in waiting for b in j.slot.table})):
                # an admin disqualified a bot since the schedule was made: its matches not started are not played
                withdrawn.extend(j for j in waiting if out & set(j.slot.table))
                waiting[:] = [j for j in waiting if not out & set(j.slot.table)]
                continue
            job = next((j for j in waiting if (j.slot.key, j.slot.cycle) not in busy), None)
            if job is None:
                yield None  # every match left shares a cycle with one being played: ask again as one ends
                continue
            waiting.remove(job)
            busy.add((job.slot.key, job.slot.cycle))
            yield job

    timings = summary.timings
    stored_count = 0
    # the matches being played, for the web server (live.py): a row as each referee starts,
    # gone with its stored match, when it fails, and when this run ends however it ends
    live.clear_stale(store, league_id)

    def started(job: MatchJob) -> None:
        if not executor.remote:  # a worker writes its own row, with its host
            with_store(store, lambda: live.started(store, league_id, job.slot.round, job.slot.key,
                                                   list(job.slot.table), str(job.out_dir)))
        if match_started:
            match_started(job)

    referee_failures: list[RefereeFailed] = []
    try:
        for job, result in executor.play(feed(), jobs, started):
            busy.discard((job.slot.key, job.slot.cycle))
            if isinstance(result, RefereeFailed):
                with_store(store, partial(live.ended, store, league_id, job.slot.round, job.slot.key))
                if isinstance(result, NoSpaceLeft):
                    full.append(result)
                else:
                    referee_failures.append(result)
                if match_ended:
                    match_ended(job, None)
                continue
            t_store = time.perf_counter()
            stored = with_store(store, partial(store_match, store, league_id, job, result)) is not None
            timings["store"] += time.perf_counter() - t_store
            timings["referee"] += result.seconds
            match_timings = result.data.get("timings", {})
            timings["match"] += match_timings.get("total", 0.0)
            for key in ("startup", "round_trips", "engine"):
                timings[key] += match_timings.get(key, 0.0)
            if stored:
                stored_count += 1
                summary.matches_run += 1
                summary.games_run += len(result.games)
                summary.failures += sum(1 for g in result.games for f in g["failures"] if f)
                if progress:
                    progress(len(result.games), summary.failures)
            if match_ended:
                match_ended(job, result if stored else None)
    finally:
        if todo:
            finally_with_store(store, lambda: live.ended(store, league_id))
    held.check()
    if full:
        raise DiskFull(stopped(str(full[-1].folder)))
    if referee_failures:
        raise failed_matches(referee_failures, len(todo))
    summary.matches_withdrawn += len(withdrawn)
    return stored_count


def failed_matches(failures: list[RefereeFailed], matches: int) -> RefereeFailed:
    """One error for the matches of a run whose referee failed (each one's own sentence, the first
    few): none of them is stored, so the next run plays them again."""
    shown = "\n".join(f"- {failure}" for failure in failures[:FAILURES_SHOWN])
    more = f"\n- and {len(failures) - FAILURES_SHOWN} more" if len(failures) > FAILURES_SHOWN else ""
    again = "it" if len(failures) == 1 else "them"
    return RefereeFailed(f"{len(failures)} of {matches} match(es) failed (none is stored: the next run plays {again} "
                         f"again):\n{shown}{more}")


FAILURES_SHOWN = 5


def playing(league: League) -> dict[int, Bot]:
    """The league's entrants that play new matches, by bot id: a retired bot plays no new
    match (its stored games and ratings stay), nor a disqualified one (retired too). Refuses a
    league with fewer than a table."""
    entrants = {e.bot.id: e.bot for e in league.entries if e.bot.plays}
    if len(entrants) < league.players:
        retired = len(league.entries) - len(entrants)
        raise LeagueError(f"league {printable(league.name)} has {len(entrants)} entrant(s)"
                          + (f" not retired ({retired} retired)" if retired else "")
                          + f"; {league.game} needs {league.players} per table")
    return entrants


def disqualified(store: Store, bot_ids: set[int]) -> set[int]:
    """Those of ``bot_ids`` an admin has disqualified (``arena/moderation.py``): asked before each
    match starts, so a bot disqualified during a run plays none of its matches not started yet."""
    if not bot_ids:
        return set()
    with store() as session:
        return set(session.scalars(select(Bot.id).where(Bot.id.in_(bot_ids), Bot.disqualified_at.is_not(None))))


def match_job(name: str, league: League, slot: Slot, entrants: dict[int, Bot], options: ScheduleOptions,
              runs_dir: Path) -> MatchJob:
    """The job that plays ``slot``, its records in a fresh folder under ``runs_dir/name``."""
    return MatchJob(slot=slot, spec=match_spec(name, league.game, league.settings, league.secret, slot, entrants,
                                               options),
                    out_dir=runs_dir / name / f"r{slot.round}-{slot.key.replace(',', '-')}" / _attempt(),
                    league_id=league.id)


def _attempt() -> str:
    """A fresh folder per attempt: a killed run's referee may still be writing the old one."""
    return f"attempt-{os.getpid()}-{time.time_ns()}"


def match_spec(league: str, game: str, settings: dict[str, Any], league_secret: str, slot: Slot,
               entrants: dict[int, Bot], options: ScheduleOptions) -> MatchSpec:
    """The match a slot of the schedule plays: its deals and bot seeds from the league's secret
    (see :meth:`Slot.secrets`), which itself never leaves the store."""
    deal_secret, bot_secret = slot.secrets(league_secret)
    plan = tuple(slot.plan(options.deals))
    return MatchSpec(
        match_id=f"{league}-r{slot.round}-{slot.key.replace(',', '-')}",
        game=game,
        settings=settings,
        secret=deal_secret,
        bot_secret=bot_secret,
        plan=plan,
        games=len(plan),
        bots=tuple(BotSpec(name=entrants[b].label, version=entrants[b].version, image=entrants[b].image)
                   for b in slot.table),
        time=options.time_control(),
        max_restarts=options.max_restarts,
    )


@overload
def store_match(store: Store, league_id: int, job: MatchJob, result: MatchResult,
                also: None = None) -> bool | None: ...
@overload
def store_match(store: Store, league_id: int, job: MatchJob, result: MatchResult,
                also: Callable[[Session, Match, list[Game]], T]) -> T | None: ...
def store_match(store: Store, league_id: int, job: MatchJob, result: MatchResult,
                also: Callable[[Session, Match, list[Game]], T] | None = None) -> T | bool | None:
    """Stores a finished match and its games atomically, and what ``also(session, match, games)``
    writes in the same transaction (it is called once they are flushed: they have ids). Returns
    what ``also`` returned (True without it); None if the match was stored already."""
    table = list(job.slot.table)
    try:
        with store() as session, session.begin():
            if also is not None and session.get_bind().dialect.name == "postgresql":
                # what ``also`` reads must not change before this commits: one writer per league
                session.execute(select(League.id).where(League.id == league_id).with_for_update())
            match = Match(league_id=league_id, round=job.slot.round, table=job.slot.key, bots=table,
                          record_dir=str(job.out_dir), restarts=[t["restarts"] for t in result.totals],
                          started_at=result.started_at, attempt=job.attempt)
            session.add(match)
            session.flush()
            games = [Game(match_id=match.id, index=g["index"], seed=str(g["seed"]), deal=g["deal"],
                          seats=[table[b] for b in g["bots"]], scores=g["scores"], ranks=g["ranks"],
                          failures=g["failures"], record_path=str(job.out_dir / g["record"])) for g in result.games]
            session.add_all(games)
            session.execute(live.slot(league_id, job.slot.round, job.slot.key))  # played: no longer live
            notifications.after_match(session, league_id, games)  # a bot failing too often: its owner is told
            if also is None:
                return True
            session.flush()
            return also(session, match, games)
    except IntegrityError:
        live.ended(store, league_id, job.slot.round, job.slot.key)
        return None  # another runner stored this match first
