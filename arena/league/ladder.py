"""Running a ladder: duplicate cycles without end, each table picked by ``matchmaking.py``.

A ladder is a league whose format is ``ladder``. It plays *cycles*: it picks a table T of k
bots (:func:`~arena.league.matchmaking.pick_table`), numbers the pick with its next cycle
number c, and plays the k matches ``Slot(round=c*k + j, table=T)``, j = 0..k-1: a round
robin's cycle (``schedule.py``), so every deal of the cycle is played in every rotation, each
match by fresh containers that are dealt distinct deals. Matches are stored as a round
robin's, so a match's cycle is its round // k.

**Ratings** follow the order the matches were stored in, (match id, game index): each match is
stored with its games, its bots' new ratings and their history rows in one transaction, the
ratings computed from those the store had (``rate(start=...)``), so a rebuild gives the same
numbers and no kill leaves them out of step with the games.

**When a slot frees**, the runner starts the next unplayed match of a cycle it picked already
(at start: the incomplete cycles a killed run left), else picks a new cycle from the entrants
read again (bots entered since join with the prior rating; retired bots leave). A cycle one of
whose bots was retired is not completed. The entrants are read before each match starts, so a
bot retired while the ladder runs plays no match started after that.
"""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from referee import MatchResult, NoSpaceLeft, RefereeFailed
from referee.spec import derive_secret
from referee.textlog import printable

from ..store import Bot, Entry, Game, League, Match, Rating, RatingHistory, Store
from . import LeagueError, get_league, lease, live
from .executor import Executor, LocalExecutor, MatchJob
from .matchmaking import Candidate, pick_table
from .ratings import ENV, BotRating, RatedGame, rate
from .runner import match_job, playing, store_match
from .schedule import ScheduleOptions, Slot, games_per_match
from .standings import rebuild_ratings
from .status import remember_run
from .waiting import DiskFull, finally_with_store, stopped, wait_for_room, with_store

POLL = 2.0  # seconds between looks at the entrants while fewer than a table may play
REFEREE_FAILURES = 3  # in a row, no match stored between them: the ladder stops rather than spin
TOP = 3  # bots shown in the progress display


@dataclass
class LadderStatus:
    """What a ladder's run has done so far: the progress display's line, and its summary."""

    games: int  # stored in the ladder, by every run
    cycles: int  # complete: every match stored
    open_cycles: int  # picked, not complete (being played, or left by a killed run)
    in_flight: int  # matches being played
    games_run: int = 0  # stored by this run
    matches_run: int = 0
    failures: int = 0  # seat failures in this run's games
    reasons: dict[str, int] = field(default_factory=dict)  # those failures by reason (timeout, crash, ...)
    referee_failures: int = 0  # matches whose referee failed (played again)
    abandoned: int = 0  # cycles left incomplete because one of their bots was retired
    seconds: float = 0.0
    top: list[tuple[str, float]] = field(default_factory=list)  # (name@version, mu - 3 sigma), best first
    playing: list[list[str]] = field(default_factory=list)  # the tables in flight, as name@version (unescaped)
    waiting: bool = False  # fewer entrants not retired than a table: waiting for one to join
    stopped: str = ""  # why the run ended: "until", "for", "interrupted"; "" while it runs

    @property
    def rate(self) -> float:
        """Games stored per second by this run."""
        return self.games_run / self.seconds if self.seconds > 0 else 0.0


def run_ladder(store: Store, name: str, jobs: int, runs_dir: Path, until: int | None = None,
               duration: float | None = None, progress: Callable[[LadderStatus], None] | None = None,
               executor: Executor | None = None) -> LadderStatus:
    """Plays ladder ``name``, ``jobs`` matches at a time, and returns what it did.

    ``until``: no new cycle is picked once the games stored, in flight and still to play in
    the cycles picked reach this many; those cycles are completed. ``duration`` (seconds): no
    match starts after it; those in flight finish, and the next run completes their cycles.
    With neither, it plays until interrupted (KeyboardInterrupt, which the CLI raises on
    SIGTERM too): the matches in flight are dropped, nothing half stored, and their referees
    end with this process. ``progress(status)`` is called as each match starts and ends.
    ``executor`` plays the matches (default: this machine's, :class:`LocalExecutor`).
    """
    ladder = _Ladder(store, name, jobs, runs_dir, until,
                     None if duration is None else time.monotonic() + duration, progress, executor or LocalExecutor())
    with ladder.lease:
        # what `arena league status` measures "left" against: GAMES, the deadline, or no end
        deadline = None if duration is None else datetime.now(UTC) + timedelta(seconds=duration)
        remember_run(store, ladder.league.id, {"until": until} if until is not None else
                     {"deadline": deadline.isoformat(timespec="seconds")} if deadline is not None else {})
        status = ladder.run()
        ladder.lease.check()
        return status


def ratings_current(session: Any, league_id: int, failures: str) -> bool:
    """Whether the stored ratings account for every stored game of the league: each rated game
    has its history rows, and the ratings count its seats."""
    games = session.execute(select(Game.seats, Game.failures).join(Match).where(Match.league_id == league_id)).all()
    rated = [g for g in games if not (failures == "exclude" and any(g.failures))]
    in_history = session.scalar(select(func.count(func.distinct(RatingHistory.game_id)))
                                .where(RatingHistory.league_id == league_id))
    counted = session.scalar(select(func.coalesce(func.sum(Rating.games), 0)).where(Rating.league_id == league_id))
    return in_history == len(rated) and counted == sum(len(g.seats) for g in rated)


class _Ladder:
    """One run of a ladder: what it has queued and in flight, and the ratings as stored."""

    def __init__(self, store: Store, name: str, jobs: int, runs_dir: Path, until: int | None,
                 deadline: float | None, progress: Callable[[LadderStatus], None] | None,
                 executor: Executor) -> None:
        self.store, self.name, self.jobs, self.runs_dir = store, name, jobs, runs_dir
        self.executor = executor
        self.until, self.deadline, self.progress = until, deadline, progress
        self.started = time.monotonic()
        with store() as session:
            league = get_league(session, name)
            self.options = ScheduleOptions.from_dict(league.schedule)
            if self.options.format != "ladder":
                raise LeagueError(f"{printable(name)} is a round robin: run it with "
                                  f"`arena league run {printable(name)}`")
            playing(league)  # refuses a ladder with fewer than a table of entrants not retired
            self.league: League = league
            self.bots: dict[int, Bot] = {e.bot.id: e.bot for e in league.entries}
        self.k = league.players
        self.per_match = games_per_match(self.k, self.options)
        self.lease = lease.acquire(store, league.id, name, "ladder run")  # one runner per ladder
        try:
            self._prepare()
        except BaseException:
            self.lease.release(wait=False)
            raise

    def _prepare(self) -> None:
        """What the runner reads and mends before it plays, holding the lease."""
        store, name, league = self.store, self.name, self.league
        live.clear_stale(store, league.id)
        with store() as session:
            current = ratings_current(session, league.id, self.options.failures)
        if not current:  # e.g. a store copied mid-way, or games stored by an older Arena
            rebuild_ratings(store, name)
        self.queue: deque[Slot] = deque()  # matches of cycles picked, to play first
        self.in_flight: dict[tuple[int, str], Slot] = {}
        self.stored_in_cycle: dict[tuple[int, str], int] = {}  # (cycle, table) -> matches stored
        self.abandoned: set[tuple[int, str]] = set()  # (cycle, table) of retired bots: not completed
        self.status = LadderStatus(games=0, cycles=0, open_cycles=0, in_flight=0)
        self._load()
        self.referee_failures_in_row = 0
        self.full: NoSpaceLeft | None = None  # the records' disk was full: no match starts until it has room

    # -- reading the store ---------------------------------------------------------------------
    def _load(self) -> None:
        """The ratings, the games stored, and the cycles: incomplete ones are queued."""
        self._load_ratings()
        with self.store() as session:
            stored = session.execute(select(Match.round, Match.table).where(Match.league_id == self.league.id)).all()
        rounds: dict[tuple[int, str], set[int]] = {}
        for rnd, table in stored:
            rounds.setdefault((rnd // self.k, table), set()).add(rnd)
        self.stored_in_cycle = {key: len(done) for key, done in rounds.items()}
        self.next_cycle = max((c for c, _ in rounds), default=-1) + 1
        for (c, table), done in sorted(rounds.items()):
            bots = tuple(int(b) for b in table.split(","))
            self.queue.extend(Slot(r, bots) for r in range(c * self.k, (c + 1) * self.k) if r not in done)
        self._count_cycles()

    def _entrants(self) -> dict[int, Bot]:
        """The entrants that play (neither retired nor disqualified: ``Bot.plays``), read again: bots
        may join, retire or be disqualified while the ladder runs."""
        def read() -> list[Bot]:
            with self.store() as session:
                return list(session.scalars(select(Bot).join(Entry, Entry.bot_id == Bot.id)
                                            .where(Entry.league_id == self.league.id)))

        bots = with_store(self.store, read)
        self.bots.update((b.id, b) for b in bots)
        return {b.id: b for b in bots if b.plays}

    # -- choosing the next match ---------------------------------------------------------------
    def feed(self) -> Iterator[MatchJob | None]:
        """The next match to start, each time a slot frees (see :func:`.executor.play`)."""
        while True:
            entrants = self._entrants()
            slot = self._next_slot(entrants)
            self.status.waiting = slot is None and len(entrants) < self.k
            if slot is None:
                if self.in_flight:
                    yield None  # ask again as a match ends (one that failed is played again)
                elif self._stopping():
                    return
                else:
                    self._report()
                    time.sleep(POLL)  # nothing runs, nothing to start: wait for an entrant
                continue
            self.in_flight[slot.round, slot.key] = slot
            yield match_job(self.name, self.league, slot, self.bots, self.options, self.runs_dir)

    def _stopping(self) -> bool:
        if self.lease.lost:  # another runner took the lease over: it plays on
            return True
        if self.full is not None:  # the records' disk was full, and has no room yet
            return True
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self.status.stopped = "for"
            return True
        # the games stored, being played, and still to play in the cycles picked
        if self.until is not None and (self.status.games + self.per_match * (len(self.in_flight) + len(self.queue))
                                       >= self.until):
            self.status.stopped = "until"
            return True
        return False

    def _next_slot(self, entrants: dict[int, Bot]) -> Slot | None:
        """A queued match, else the first of a new cycle; None if none may start now."""
        if self.lease.lost:
            return None
        if self.full is not None:
            if self.in_flight or not wait_for_room(self.full.folder):
                return None  # the matches in flight end first; then it stops, unless there is room again
            self.full = None
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return None  # --for: nothing starts after it; the next run completes the cycles
        retired = {(s.cycle, s.key) for s in self.queue if not all(b in entrants for b in s.table)}
        if retired:  # a bot of these cycles was retired: they are not completed
            self.queue = deque(s for s in self.queue if (s.cycle, s.key) not in retired)
            self.abandoned |= retired
            self.status.abandoned = len(self.abandoned)
            for key in retired:
                self.stored_in_cycle.pop(key, None)
            self._count_cycles()
        # a match of a cycle being played waits: the cycle's matches deal the same cards, and two
        # live processes of a bot could tell each other the hands (docs/leagues.md)
        busy = {(s.cycle, s.key) for s in self.in_flight.values()}
        ready = next((s for s in self.queue if (s.cycle, s.key) not in busy), None)
        if ready is not None:
            self.queue.remove(ready)
            return ready
        if self._stopping() or len(entrants) < self.k:
            return None
        cycle = self.next_cycle
        self.next_cycle += 1
        prior = ENV.create_rating()
        candidates = [Candidate(b, r.mu, r.sigma, r.games)
                      for b in sorted(entrants) for r in [self.ratings.get(b, BotRating(prior.mu, prior.sigma))]]
        rng = random.Random(derive_secret(self.league.secret, "matchmaking", cycle))
        table = pick_table(candidates, self.k, rng, exclude={s.table for s in self.in_flight.values()})
        first, *rest = (Slot(cycle * self.k + j, tuple(table)) for j in range(self.k))
        self.queue.extend(rest)
        self.stored_in_cycle[cycle, first.key] = 0
        self._count_cycles()
        return first

    # -- playing and storing -------------------------------------------------------------------
    def run(self) -> LadderStatus:
        league_id = self.league.id

        def started(job: MatchJob) -> None:
            if not self.executor.remote:  # a worker writes its own row, with its host
                with_store(self.store, lambda: live.started(self.store, league_id, job.slot.round, job.slot.key,
                                                            list(job.slot.table), str(job.out_dir)))
            self._report()

        try:
            for job, outcome in self.executor.play(self.feed(), self.jobs, started):
                self.in_flight.pop((job.slot.round, job.slot.key), None)
                if isinstance(outcome, RefereeFailed):
                    self._failed(job, outcome)
                else:
                    self._stored(job, outcome)
                self._report()
        except KeyboardInterrupt:
            self.status.stopped = "interrupted"
        finally:
            finally_with_store(self.store, lambda: live.ended(self.store, league_id))
        self.in_flight.clear()
        self._report()
        if self.full is not None:
            raise DiskFull(stopped(str(self.full.folder)))
        return self.status

    def _failed(self, job: MatchJob, failure: RefereeFailed) -> None:
        """A referee failed: its match is not stored; play it again, unless they all fail, or
        once there is room again on the records' disk, if it was full."""
        with_store(self.store, lambda: live.ended(self.store, self.league.id, job.slot.round, job.slot.key))
        if isinstance(failure, NoSpaceLeft):
            self.full = failure
            self.queue.appendleft(job.slot)
            return
        self.status.referee_failures += 1
        self.referee_failures_in_row += 1
        if self.referee_failures_in_row >= REFEREE_FAILURES:
            raise failure
        self.queue.appendleft(job.slot)

    def _stored(self, job: MatchJob, result: MatchResult) -> None:
        rated = with_store(self.store, lambda: store_match(self.store, self.league.id, job, result, self._rate))
        self.referee_failures_in_row = 0
        if rated is None:  # another runner stored this match first: take the store's word
            self._load_ratings()
            return
        ratings, games = rated
        self.ratings.update(ratings)
        self.status.games = games
        self.status.games_run += len(result.games)
        self.status.matches_run += 1
        for reason in (f for g in result.games for f in g["failures"] if f):
            self.status.failures += 1
            self.status.reasons[reason] = self.status.reasons.get(reason, 0) + 1
        key = (job.slot.cycle, job.slot.key)
        if key in self.stored_in_cycle:  # not if abandoned meanwhile
            self.stored_in_cycle[key] += 1
        self._count_cycles()

    def _rate(self, session: Any, match: Match, games: list[Game]) -> tuple[dict[int, BotRating], int]:
        """In the match's transaction: its bots' ratings after its games, from those stored, and
        their history rows; returns those ratings and the games the ladder now has."""
        league_id = self.league.id
        total = session.scalar(select(func.count(Game.id)).join(Match).where(Match.league_id == league_id))
        table = list(match.bots)
        rows = {r.bot_id: r for r in session.scalars(select(Rating).where(Rating.league_id == league_id,
                                                                           Rating.bot_id.in_(table)))}
        history: list[tuple[int, int, int, float, float]] = []
        after = rate((RatedGame(g.id, g.seats, g.ranks, g.failures) for g in games), self.options.failures, history,
                     start={b: BotRating(r.mu, r.sigma, r.games) for b, r in rows.items()},
                     first_seq=total - len(games))
        prior = ENV.create_rating()
        for bot in table:
            r = after.get(bot, BotRating(prior.mu, prior.sigma))
            row = rows.get(bot) or Rating(league_id=league_id, bot_id=bot)
            row.mu, row.sigma, row.exposure, row.games = r.mu, r.sigma, r.exposure, r.games
            session.add(row)
        # entrants that have not played have the prior, as a rebuild writes them
        unrated = session.scalars(select(Entry.bot_id).where(
            Entry.league_id == league_id, Entry.bot_id.not_in(table),
            ~select(Rating.id).where(Rating.league_id == league_id, Rating.bot_id == Entry.bot_id).exists())).all()
        session.add_all(Rating(league_id=league_id, bot_id=bot, mu=prior.mu, sigma=prior.sigma,
                               exposure=prior.mu - 3 * prior.sigma, games=0) for bot in unrated)
        session.add_all(RatingHistory(league_id=league_id, bot_id=bot, game_id=gid, seq=seq, mu=mu, sigma=sigma)
                        for seq, gid, bot, mu, sigma in history)
        return {b: after[b] for b in table if b in after}, total

    def _load_ratings(self) -> None:
        """The ratings as stored, and the games they account for."""
        with self.store() as session:
            self.ratings = {r.bot_id: BotRating(r.mu, r.sigma, r.games)
                            for r in session.scalars(select(Rating).where(Rating.league_id == self.league.id))}
            self.status.games = session.execute(select(func.count(Game.id)).join(Match)
                                                .where(Match.league_id == self.league.id)).scalar_one()

    # -- reporting -----------------------------------------------------------------------------
    def _count_cycles(self) -> None:
        self.status.cycles = sum(1 for n in self.stored_in_cycle.values() if n >= self.k)
        self.status.open_cycles = len(self.stored_in_cycle) - self.status.cycles

    def _report(self) -> None:
        self.status.in_flight = len(self.in_flight)
        self.status.playing = [[self.bots[b].label for b in slot.table] for slot in self.in_flight.values()]
        self.status.seconds = time.monotonic() - self.started
        prior = ENV.create_rating()
        best = sorted(self.bots, key=lambda b: -self.ratings.get(b, BotRating(prior.mu, prior.sigma)).exposure)
        self.status.top = [(self.bots[b].label, self.ratings.get(b, BotRating(prior.mu, prior.sigma)).exposure)
                           for b in best[:TOP]]
        if self.progress:
            self.progress(self.status)
