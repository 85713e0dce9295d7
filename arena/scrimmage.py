"""Scrimmages: an unrated series of matches an author asks for, their bot against opponents of
their choice (any bot entered in a league and not retired), played on the league's executor
with the league's duplicate-deal rules.

- **Schedule**: k bots (the challenger's first) play N games as N / k matches of k games each,
  the league's schedule for one table (:class:`~arena.league.schedule.Slot`, one deal per seat
  rotation): match r plays deals ``c{r // k}d{i}`` in rotation (i + r) mod k, so k matches are
  one duplicate cycle in which every bot plays every hand from every seat. Each match has fresh
  containers; the matches are played one after another, so two processes of a bot never hold
  the same deal at once. N defaults to one whole cycle (k * k games).
- **Secrets**: a scrimmage has a secret of its own (256 bits from the operating system, never a
  league's), from which its deals and bot seeds derive as a league's do; it is never shown or
  sent to a bot, and neither is a seed.
- **Unrated**: its games are :class:`~arena.store.ScrimmageGame` rows, apart from the leagues'
  ``games``: no rating, leaderboard, rating history, bot statistics or league slot reads them.
- **Who sees what**: ``arena/access.py`` (:func:`~arena.access.may_see_scrimmage`; each game is
  never public: a seat to its bot's owner, the results to the bots' owners, the full table to
  nobody).
- **Quotas** (``Quota``; the server's settings, defaults in ``referee/limits.py``): games per
  account in any 24 hours, scrimmages queued or playing per account, games per scrimmage; and
  :class:`Player` plays at most ``at_once`` scrimmages at a time (the rest wait, queued), so
  they cannot take the machine from the leagues.

Every refusal is a :class:`ScrimmageError` raised before anything is written. When a scrimmage
ends, done or failed, :func:`on_done` is called once.
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.orm import Session

from arena_games import GAMES, GameError, get_game
from referee import MatchResult, NoSpaceLeft, RefereeFailed, limits
from referee.spec import new_secret
from referee.textlog import printable

from . import access, notifications
from .league.executor import Executor, LocalExecutor, MatchJob
from .league.runner import match_spec
from .league.schedule import ScheduleOptions, Slot
from .store import Bot, Entry, League, Scrimmage, ScrimmageGame, Store, User
from .store.models import now

if TYPE_CHECKING:  # not at run time: accounts loads argon2
    from .accounts import Account

log = logging.getLogger(__name__)
DAY = timedelta(hours=24)
FINISHED = ("done", "failed")
NAME_CHARS = 200  # of a bot reference as asked, quoted back in a refusal


class ScrimmageError(Exception):
    """A scrimmage refused (nothing written), with the HTTP status that says why."""

    def __init__(self, message: str, status: int = 400, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


@dataclass(frozen=True)
class Quota:
    """What one account may ask of a server (``WebSettings``; defaults in referee/limits.py)."""

    games_per_day: int = limits.SCRIMMAGE_GAMES_PER_DAY
    pending: int = limits.SCRIMMAGES_PENDING_PER_AUTHOR
    max_games: int = limits.SCRIMMAGE_MAX_GAMES


# -- asking for one -----------------------------------------------------------------------------------
def _quoted(ref: str) -> str:
    """A name as asked, quoted back: control characters escaped, its length capped."""
    return f"'{printable(ref, NAME_CHARS)}'"


def _candidates(session: Session, ref: str) -> list[Bot]:
    """The versions ``ref`` (``name`` or ``name@version``) names, newest first."""
    name, _, version = ref.strip().partition("@")
    query = select(Bot).where(Bot.name == name)
    if version:
        query = query.where(Bot.version == version)
    return list(session.scalars(query.order_by(Bot.id.desc())))


def own_bot(session: Session, asker: Account, ref: str) -> Bot:
    """The challenger's bot ``ref``: its newest version not retired (or the one named)."""
    versions = _candidates(session, ref)
    if not versions:
        raise ScrimmageError(f"no bot {_quoted(ref)}: give one of your bots (name, or name@version)", 404)
    mine = [b for b in versions if access.may_scrimmage(asker, b)]
    if not mine:
        raise ScrimmageError(f"{_quoted(ref)} is not your bot: a scrimmage is asked for with a bot of your own "
                             "(its opponents may be anyone's)", 403)
    playing = [b for b in mine if b.plays]
    if not playing:
        raise ScrimmageError(f"{printable(mine[0].label)} is {_why_not(mine[0])}: it plays no new match "
                             "(submit a new version, or name another)", 400)
    return playing[0]


def opponent(session: Session, ref: str) -> Bot:
    """Opponent ``ref``: the newest version (or the one named) entered in a league and not retired."""
    versions = _candidates(session, ref)
    if not versions:
        raise ScrimmageError(f"no bot {_quoted(ref)}: an opponent is a bot on a leaderboard (name, or "
                             "name@version)", 404)
    entered = set(session.scalars(select(Entry.bot_id).where(Entry.bot_id.in_([b.id for b in versions]))))
    on_board = [b for b in versions if b.id in entered]
    if not on_board:
        raise ScrimmageError(f"{_quoted(ref)} is in no league: an opponent is a bot entered in a league", 400)
    playing = [b for b in on_board if b.plays]
    if not playing:
        raise ScrimmageError(f"{printable(on_board[0].label)} is {_why_not(on_board[0])}: it plays no new match, so "
                             "it cannot be an opponent", 400)
    return playing[0]


def _why_not(bot: Bot) -> str:
    return "disqualified" if bot.disqualified_at is not None else "retired"


def held_by(asker: Account) -> ColumnElement[bool]:
    """The bots ``asker`` holds, as an SQL clause: their own, and their teams' (``access.may_scrimmage``
    decides; this only narrows what is read)."""
    return or_(and_(Bot.team_id.is_(None), Bot.owner_id == asker.id), Bot.team_id.in_(asker.teams))


def _plays(bot: Bot, game: str) -> bool:
    return not bot.games or game in bot.games


def choose_game(session: Session, bots: Sequence[Bot], game: str | None) -> tuple[str, dict[str, Any]]:
    """The game (and its complete default settings) for ``bots``: ``game`` if given, else the game
    of a league the challenger's bot (then each opponent) is entered in, else the first game
    every bot plays at this many seats."""
    k = len(bots)
    if game:
        if game not in GAMES:
            raise ScrimmageError(f"unknown game {_quoted(game)}; known games: {', '.join(sorted(GAMES))}", 400)
        for bot in bots:
            if not _plays(bot, game):
                raise ScrimmageError(f"{printable(bot.label)} does not play {game} (it plays "
                                     f"{', '.join(map(str, bot.games))})", 400)
        try:
            return game, get_game(game).validate(k, {}).to_dict()
        except GameError as exc:
            raise ScrimmageError(f"{game} cannot seat this scrimmage's {k} bots: {exc}", 400) from None
    leagues = [g for bot in bots for g in session.scalars(
        select(League.game).join(Entry, Entry.league_id == League.id).where(Entry.bot_id == bot.id)
        .order_by(League.id))]
    for name in dict.fromkeys([*leagues, *sorted(GAMES)]):
        if all(_plays(b, name) for b in bots):
            try:
                return name, get_game(name).validate(k, {}).to_dict()
            except GameError:
                continue
    raise ScrimmageError(f"no game is played by all of these {k} bots at {k} seats: name one with --game "
                         "(a game each bot claims)", 400)


def create_scrimmage(store: Store, asker: Account, bot: str, opponents: Sequence[str], game: str | None = None,
                     games: int | None = None, quota: Quota | None = None) -> int:
    """Checks and records a scrimmage (queued; :class:`Player` plays it); returns its id. Raises
    :class:`ScrimmageError` for anything refused, having written nothing."""
    quota = quota or Quota()
    if not opponents:
        raise ScrimmageError("name at least one opponent", 400)
    with _creating, store() as session, session.begin():
        mine = own_bot(session, asker, bot)
        others = [opponent(session, ref) for ref in opponents]
        seated = [mine, *others]
        seen: set[int] = set()
        for b in seated:
            if b.id in seen:
                raise ScrimmageError(f"{printable(b.label)} is named twice: a bot plays one seat of each game "
                                     "(name another opponent)", 400)
            seen.add(b.id)
        chosen, settings = choose_game(session, seated, game)
        k = len(seated)
        total = k * k if games is None else games
        if total > quota.max_games:
            raise ScrimmageError(f"a scrimmage plays at most {quota.max_games} games on this server", 400)
        if total % k or total < k:
            raise ScrimmageError(f"games must be a multiple of {k} (the seats: each match plays one game in every "
                                 f"seat rotation), such as {k * k} (one duplicate cycle), not {total}", 400)
        _check_quota(session, asker, total, quota)
        row = Scrimmage(user_id=asker.id, game=chosen, players=k, settings=settings,
                        schedule=ScheduleOptions().to_dict(), secret=new_secret(), bots=[b.id for b in seated],
                        games=total, status="queued")
        session.add(row)
        session.flush()
        return row.id


_creating = threading.Lock()  # the quota's count and the new row, one at a time (one server process)


def _check_quota(session: Session, asker: Account, games: int, quota: Quota) -> None:
    pending = session.scalar(select(func.count()).select_from(Scrimmage).where(
        Scrimmage.user_id == asker.id, Scrimmage.status.not_in(FINISHED))) or 0
    if pending >= quota.pending:
        raise ScrimmageError(f"you have {pending} scrimmage(s) queued or being played, the most this server takes "
                             f"from one account at once: ask again when one is done (your scrimmages: /scrimmages)",
                             429, retry_after=60)
    since = now() - DAY
    recent = sorted((_utc(t), n) for t, n in session.execute(select(Scrimmage.created_at, Scrimmage.games).where(
        Scrimmage.user_id == asker.id, Scrimmage.created_at > since)))
    used = sum(n for _, n in recent)
    if used + games <= quota.games_per_day:
        return
    if games > quota.games_per_day:
        raise ScrimmageError(f"this server plays at most {quota.games_per_day} scrimmage games a day for one account: "
                             f"ask for fewer than {games}", 429)
    freed, at = used, now()  # the games must age out, oldest first, until this one fits
    for created, n in recent:
        freed -= n
        at = created + DAY
        if freed + games <= quota.games_per_day:
            break
    wait = max(1, math.ceil((at - now()).total_seconds()))
    raise ScrimmageError(f"you have played {used} of the {quota.games_per_day} scrimmage games this server gives one "
                         f"account in 24 hours, and this one asks for {games}: it fits from {at:%Y-%m-%d %H:%M} UTC "
                         f"(in {_duration(wait)}), or ask for fewer games", 429, retry_after=wait)


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)  # SQLite gives naive UTC


def _duration(seconds: int) -> str:
    hours, minutes = divmod(math.ceil(seconds / 60), 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"


# -- playing it -----------------------------------------------------------------------------------------
def play_scrimmage(store: Store, scrimmage_id: int, runs_dir: Path, executor: Executor | None = None) -> None:
    """Plays every match of the scrimmage not stored yet, one at a time (a server stopped half way
    resumes it: a match is stored with its games in one transaction), then marks it done, or
    failed with the reason; then :func:`on_done`. Its records go under ``runs_dir/<id>``."""
    executor = executor or LocalExecutor()
    with store() as session, session.begin():
        row = session.get(Scrimmage, scrimmage_id)
        if row is None or row.status in FINISHED:
            return
        row.status, row.started_at = "running", row.started_at or now()
        row.record_dir = str(runs_dir / str(scrimmage_id))
        entrants = {b.id: b for b in session.scalars(select(Bot).where(Bot.id.in_(row.bots)))}
        stored = set(session.scalars(select(ScrimmageGame.round).where(ScrimmageGame.scrimmage_id == scrimmage_id)))
        options = ScheduleOptions.from_dict(row.schedule)
        table, game, settings, secret = tuple(row.bots), row.game, dict(row.settings), row.secret
        rounds = row.games // row.players
        folder = Path(row.record_dir)
    try:
        jobs = [MatchJob(slot=(slot := Slot(r, table)),
                         spec=match_spec(f"scrimmage{scrimmage_id}", game, settings, secret, slot, entrants, options),
                         out_dir=folder / f"r{r}" / f"attempt-{time.time_ns()}")
                for r in range(rounds) if r not in stored]
        for job, outcome in executor.play(jobs, 1):  # one at a time: a cycle's matches deal the same cards
            if isinstance(outcome, RefereeFailed):
                log.error("scrimmage %d, match %d: %s", scrimmage_id, job.slot.round, outcome)
                raise _Failed("the server's disk is full" if isinstance(outcome, NoSpaceLeft) else
                              f"match {job.slot.round + 1} could not be played (its referee failed; the server's log "
                              "says why)")
            _store_match(store, scrimmage_id, job, outcome)
        _finish(store, scrimmage_id, "done", "")
    except _Failed as failed:
        _finish(store, scrimmage_id, "failed", str(failed))
    except Exception:
        log.exception("scrimmage %d failed", scrimmage_id)
        _finish(store, scrimmage_id, "failed", "the server failed to play it (its log says why)")
        raise
    finally:
        on_done(store, scrimmage_id)


class _Failed(Exception):
    pass


def _store_match(store: Store, scrimmage_id: int, job: MatchJob, result: MatchResult) -> None:
    table, k = list(job.slot.table), len(job.slot.table)
    with store() as session, session.begin():
        session.add_all(ScrimmageGame(
            scrimmage_id=scrimmage_id, number=job.slot.round * k + g["index"], round=job.slot.round, index=g["index"],
            deal=g["deal"], seats=[table[b] for b in g["bots"]], match_bots=table, scores=g["scores"],
            ranks=g["ranks"], failures=g["failures"], record_path=str(job.out_dir / g["record"]))
            for g in result.games)


def _finish(store: Store, scrimmage_id: int, status: str, error: str) -> None:
    with store() as session, session.begin():
        row = session.get(Scrimmage, scrimmage_id)
        if row is not None:
            row.status, row.error, row.finished_at = status, error, now()


def on_done(store: Store, scrimmage_id: int) -> None:
    """Called once as a scrimmage ends, done or failed, after its state is stored: "scrimmage done"
    goes to the challenger and to the holders of each of its bots (who may see it:
    :func:`~arena.access.may_see_scrimmage`), with only what all of them may know: its bots, its
    game and that it is over (each one's results are on its page, as each may see them)."""
    try:
        with store() as session, session.begin():
            row = session.get(Scrimmage, scrimmage_id)
            if row is None:
                return
            bots = [session.get(Bot, bot_id) for bot_id in row.bots]
            labels = [bot.label if bot is not None else f"#{bot_id}"
                      for bot, bot_id in zip(bots, row.bots, strict=True)]
            told = [row.user_id, *(holder for bot in bots if bot is not None
                                   for holder in notifications.holders(session, bot))]
            state = "done" if row.status == "done" else "failed"
            notifications.scrimmage_done(
                session, told, scrimmage_id,
                f"scrimmage {scrimmage_id} ({row.game}): {labels[0]} against {', '.join(labels[1:])}: {state}",
                f"/scrimmages/{scrimmage_id}", {"game": row.game, "bots": labels, "status": state})
    except Exception:  # noqa: BLE001 - telling of it is not the scrimmage's: it stays stored
        log.exception("scrimmage %d: its notification failed", scrimmage_id)


class Player:
    """Plays the queued scrimmages, ``at_once`` at a time (each one match at a time), in threads of
    this process; the others wait, queued, in the order they were asked for."""

    def __init__(self, store: Store, runs_dir: Path, at_once: int = limits.SCRIMMAGES_AT_ONCE,
                 executor: Executor | None = None) -> None:
        self.store, self.runs_dir, self.executor = store, runs_dir, executor
        self.pool = ThreadPoolExecutor(max(1, at_once), thread_name_prefix="scrimmage")

    def submit(self, scrimmage_id: int) -> None:
        self.pool.submit(self._play, scrimmage_id)

    def resume(self) -> None:
        """Queues again those a stopped server left queued or half played."""
        with self.store() as session:
            for scrimmage_id in session.scalars(select(Scrimmage.id).where(Scrimmage.status.not_in(FINISHED))
                                                .order_by(Scrimmage.id)):
                self.submit(scrimmage_id)

    def _play(self, scrimmage_id: int) -> None:
        with contextlib.suppress(Exception):  # logged; the scrimmage is marked failed
            play_scrimmage(self.store, scrimmage_id, self.runs_dir, self.executor)

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


# -- reading it ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Seen:
    """A scrimmage as one asker may see it."""

    row: Scrimmage
    challenger: str
    bots: list[tuple[Bot, str | None]]  # (bot, its owner's name), challenger's first
    games: list[ScrimmageGame]
    ahead: int  # scrimmages queued before it (0 once it plays)


def visible(session: Session, asker: Account | None, scrimmage_id: int) -> Seen | None:
    """The scrimmage, if ``asker`` may see it (else None: the caller says "no such scrimmage")."""
    row = session.get(Scrimmage, scrimmage_id)
    if row is None:
        return None
    owners = dict(session.execute(select(Bot.id, User.name).outerjoin(User, Bot.owner_id == User.id)
                                  .where(Bot.id.in_(row.bots))).all())
    bots = {b.id: b for b in session.scalars(select(Bot).where(Bot.id.in_(row.bots)))}
    seated = [bots[b] for b in row.bots]
    if not access.may_see_scrimmage(asker, row, seated):
        return None
    challenger = session.scalar(select(User.name).where(User.id == row.user_id)) or ""
    ahead = 0
    if row.status == "queued":
        ahead = session.scalar(select(func.count()).select_from(Scrimmage).where(
            Scrimmage.status.not_in(FINISHED), Scrimmage.id < row.id)) or 0
    return Seen(row, challenger, [(b, owners.get(b.id)) for b in seated], list(row.results), ahead)


def mine(session: Session, asker: Account, limit: int = 100, scanned: int = 2000) -> list[int]:
    """The ids of the scrimmages ``asker`` may see (asked for, or a bot of theirs played in it),
    newest first, among the newest ``scanned`` (bot ids are a JSON column: read, not indexed)."""
    own = set(session.scalars(select(Bot.id).where(held_by(asker))))
    found = []
    for row_id, user_id, bots in session.execute(select(Scrimmage.id, Scrimmage.user_id, Scrimmage.bots)
                                                 .order_by(Scrimmage.id.desc()).limit(scanned)):
        if user_id == asker.id or own & set(bots):
            found.append(row_id)
            if len(found) >= limit:
                break
    return found


@dataclass(frozen=True)
class Standing:
    """One bot's line of a scrimmage's result table."""

    bot_id: int
    games: int
    wins: float  # a tie for first shares the win
    mean_rank: float | None
    total_score: int
    failures: int


def standings(bot_ids: Sequence[int], games: Sequence[ScrimmageGame]) -> list[Standing]:
    """Each bot's games, wins, mean rank, total score and failed games, in the scrimmage's order."""
    out = []
    for bot_id in bot_ids:
        played = [(g, g.seats.index(bot_id)) for g in games if bot_id in g.seats]
        wins = sum(1 / sum(1 for r in g.ranks if r == 1) for g, s in played if g.ranks[s] == 1)
        ranks = [g.ranks[s] for g, s in played]
        out.append(Standing(bot_id, len(played), round(wins, 3),
                            round(sum(ranks) / len(ranks), 3) if ranks else None,
                            sum(int(g.scores[s]) for g, s in played), sum(1 for g, s in played if g.failures[s])))
    return out
