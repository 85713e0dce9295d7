"""Where a league's run stands: what is done and left, how fast it goes, what failed, what runs.

:func:`league_status` returns a plain dict, the document ``arena league status NAME --json``
prints (its schema: docs/cli.md); the CLI renders the same dict as text.

**What "left" is measured against.** ``arena league run NAME --rounds N`` (and ``arena ladder
run NAME --until/--for``, and a run started from the server) remembers what it was asked to play
in the league's schedule JSON, under ``last_run`` (:func:`remember_run`): the last run's target
is the one a user means by "left", and it needs no migration (``ScheduleOptions.from_dict``
ignores the key, and nothing else reads it). A round robin's target is every match of rounds
0..N-1 over the entrants not retired, as ``run_league`` schedules it; a ladder's is ``--until``
games, or ``--for``'s deadline; a ladder run with neither has no end, so nothing is "left".

**Rate.** Games per second over the stored matches that finished in the last :data:`WINDOW`
seconds before the latest one did: their games over the time from the earliest of their starts
to that finish, so that matches played side by side count as the throughput they are. The ETA
is the games left at that rate.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select

from ..replays import games_so_far
from ..store import Bot, Entry, Game, League, LiveMatch, Match, Store
from . import get_league, live
from .formats import field_of, league_format
from .formats.base import read_played
from .schedule import ScheduleOptions, games_per_match

WINDOW = 600.0  # seconds of recent matches the rate is measured over


def remember_run(store: Store, league_id: int, target: dict[str, Any]) -> None:
    """Keeps what a run was asked to play (``{"rounds": N}``; a ladder's ``{"until": GAMES}``,
    ``{"deadline": ISO}`` or ``{}``) as the league's ``last_run``, with the time it started."""
    with store() as session, session.begin():
        league = session.get(League, league_id)
        assert league is not None
        # a new dict: SQLAlchemy sees a JSON column change only when it is assigned
        league.schedule = {**league.schedule, "last_run": {**target, "at": _iso(_now())}}


def match_name(league: str, round_: int, table: str) -> str:
    """How ``arena watch`` names a match of a league: ``LEAGUE/ROUND/TABLE``."""
    return f"{league}/{round_}/{table}"


def league_status(store: Store, name: str, rounds: int | None = None, now: datetime | None = None) -> dict[str, Any]:
    """The status of league ``name`` (see the module's doc). ``rounds`` replaces a round robin's
    remembered target."""
    now = now or _now()
    with store() as session:
        league = get_league(session, name)
        options = ScheduleOptions.from_dict(league.schedule)
        last_run: dict[str, Any] = dict(league.schedule.get("last_run") or {})
        k, per_match = league.players, games_per_match(league.players, options)
        entrants = {b.id: b for b in session.scalars(select(Bot).join(Entry, Entry.bot_id == Bot.id)
                                                     .where(Entry.league_id == league.id))}
        matches = session.execute(select(Match.id, Match.round, Match.table, Match.started_at, Match.finished_at)
                                  .where(Match.league_id == league.id)).all()
        games = session.execute(select(Game.match_id, Game.seats, Game.failures).join(Match)
                                .where(Match.league_id == league.id)).all()
        rows = live.running(session.scalars(select(LiveMatch).where(LiveMatch.league_id == league.id)
                                            .order_by(LiveMatch.round, LiveMatch.table)))
        ids = {b for g in games for b in g.seats} | {b for r in rows for b in r.bots}
        bots = {**{b.id: b for b in session.scalars(select(Bot).where(Bot.id.in_(ids - set(entrants))))}, **entrants}
        league_name, league_game, ladder = league.name, league.game, options.format == "ladder"
        league_id, field = league.id, field_of(league)

    def label(bot_id: int) -> str:
        return bots[bot_id].label if bot_id in bots else f"bot {bot_id}"

    games_of: Counter[int] = Counter(g.match_id for g in games)
    running = [_running(league_name, row, k, per_match, label, now) for row in rows]
    in_running = sum(r["games_done"] or 0 for r in running)
    stored = {(m.round, m.table) for m in matches}

    cycles: Counter[tuple[int, str]] = Counter((m.round // k, m.table) for m in matches)
    complete = sum(1 for n in cycles.values() if n >= k)
    out: dict[str, Any] = {
        "league": league_name, "game": league_game, "players": k,
        "format": options.format, "games_per_match": per_match, "now": _iso(now),
        "last_run": last_run or None,
        "target": None, "rounds": None,
        "cycles": {"complete": complete, "open": len(cycles) - complete},
        "matches": {"stored": len(matches), "running": len(running), "left": None, "target": None},
        "games": {"stored": len(games), "in_running": in_running, "left": None},
        "rate": _rate(matches, games_of),
        "eta": None,
        "failures": _failures(games, label),
        "running": running,
    }
    games_left: int | None = None
    why = ""
    if not ladder:
        target = rounds if rounds is not None else last_run.get("rounds")
        if target is None:
            why = "no target: no run has remembered its --rounds yet (give status --rounds N)"
        else:
            out["target"] = {"rounds": target, "from": "option" if rounds is not None else "last_run"}
            playing = sorted(b for b, bot in entrants.items() if bot.plays)
            enough = len(playing) >= k
            fmt = league_format(options)
            slots = fmt.slots(field, target, read_played(store, league_id)) if enough else []
            left = [s for s in slots if (s.round, s.key) not in stored]
            # a format that pairs by results knows only the slots its stored results decide: the
            # rest of its target is what it plans in all, less what is stored
            planned = fmt.planned_matches(field, target) if enough else None
            unplanned = max(0, planned - len(slots)) if planned is not None else 0
            # a round robin's rounds; a Swiss' or a bracket's rounds are cycles (formats/)
            per_round = 1 if options.format in ("round-robin", "gauntlet") else k
            unfinished = {s.round // per_round for s in left}
            if unplanned:  # the rounds its stored results do not decide yet (a Swiss' next) are left too
                unfinished |= set(range(1 + max((s.round // per_round for s in slots), default=-1), target))
            if options.format not in ("knockout", "double-elimination"):  # a bracket plays to its end
                out["rounds"] = {"target": target, "complete": target - len(unfinished) if enough else None,
                                 "left": len(unfinished) if enough else None}
            if enough:
                out["matches"].update(left=len(left) + unplanned, target=max(len(slots), planned or 0))
            live_left = {(r["round"], r["table"]) for r in running} & {(s.round, s.key) for s in left}
            games_left = (len(left) + unplanned) * per_match - sum(r["games_done"] or 0 for r in running
                                                     if (r["round"], r["table"]) in live_left)
            if not enough:
                games_left = None
                why = f"fewer entrants not retired ({len(playing)}) than a table ({k}): nothing can be played"
    else:
        until, deadline = last_run.get("until"), last_run.get("deadline")
        if until is not None:
            out["target"] = {"until": until, "from": "last_run"}
            # the ladder completes the cycles it picked: it may end up to about a cycle per job past it
            games_left = max(0, until - len(games) - in_running)
        elif deadline is not None:
            out["target"] = {"deadline": deadline, "from": "last_run"}
            seconds = max(0.0, (_parse(deadline) - now).total_seconds())
            out["eta"] = {"seconds": seconds, "at": deadline, "why": "the run's --for: no match starts after it; "
                          "those being played finish"}
        else:
            why = "a ladder run without --until or --for plays until it is stopped"
    out["games"]["left"] = None if games_left is None else max(0, games_left)
    if out["eta"] is None:
        out["eta"] = _eta(games_left, out["rate"]["games_per_second"], now, why)
    return out


def _running(league: str, row: LiveMatch, k: int, per_match: int, label: Callable[[int], str],
             now: datetime) -> dict[str, Any]:
    """A match being played, with its games so far read from the records being written (None
    when its folder is not on this machine: a worker's, elsewhere)."""
    folder = Path(row.record_dir)
    so_far = games_so_far(folder) if folder.is_dir() else None
    current = next((g for g in so_far or [] if not g.over), None)
    since = _aware(row.started_at)
    return {
        "match": match_name(league, row.round, row.table), "round": row.round, "cycle": row.round // k,
        "table": row.table, "bots": [label(b) for b in row.bots], "host": row.host, "pid": row.pid,
        "since": _iso(since), "seconds": max(0.0, (now - since).total_seconds()),
        "games": per_match, "games_done": None if so_far is None else sum(1 for g in so_far if g.over),
        "game": None if current is None else current.index,
        "decisions": None if current is None else current.decisions,
        "record_dir": row.record_dir,
    }


def _rate(matches: Sequence[Any], games_of: Counter[int]) -> dict[str, Any]:
    out: dict[str, Any] = {"games_per_second": None, "window_seconds": WINDOW, "matches": 0, "games": 0,
                           "since": None, "until": None}
    if not matches:
        return out
    end = max(_aware(m.finished_at) for m in matches)
    recent = [m for m in matches if _aware(m.finished_at) >= end - timedelta(seconds=WINDOW)]
    start = min(_aware(m.started_at) for m in recent)
    played = sum(games_of[m.id] for m in recent)
    span = (end - start).total_seconds()
    out.update(matches=len(recent), games=played, since=_iso(start), until=_iso(end))
    if span > 0 and played:
        out["games_per_second"] = played / span
    return out


def _eta(games_left: int | None, rate: float | None, now: datetime, why: str) -> dict[str, Any]:
    if games_left is None:
        return {"seconds": None, "at": None, "why": why}
    if games_left <= 0:
        return {"seconds": 0.0, "at": _iso(now), "why": "nothing left to play"}
    if not rate:
        return {"seconds": None, "at": None, "why": "no finished match to measure a rate from yet"}
    seconds = games_left / rate
    return {"seconds": seconds, "at": _iso(now + timedelta(seconds=seconds)), "why": "the games left at the rate"}


def _failures(games: Sequence[Any], label: Callable[[int], str]) -> dict[str, Any]:
    """Seat failures of the stored games, by reason and by bot (a bot's games: its seats)."""
    by_reason: Counter[str] = Counter()
    by_bot: dict[int, dict[str, Any]] = {}
    failed_games = 0
    for g in games:
        failed_games += any(g.failures)
        for bot, reason in zip(g.seats, g.failures, strict=True):
            entry = by_bot.setdefault(bot, {"bot": label(bot), "bot_id": bot, "games": 0, "failures": 0,
                                            "by_reason": Counter()})
            entry["games"] += 1
            if reason:
                by_reason[reason] += 1
                entry["failures"] += 1
                entry["by_reason"][reason] += 1
    bots = sorted((e for e in by_bot.values() if e["failures"]), key=lambda e: (-e["failures"], e["bot"]))
    return {"seats": sum(by_reason.values()), "games": failed_games,
            "by_reason": dict(sorted(by_reason.items(), key=lambda kv: (-kv[1], kv[0]))),
            "by_bot": [{**e, "by_reason": dict(sorted(e["by_reason"].items()))} for e in bots]}


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(moment: datetime) -> datetime:
    """SQLite gives naive UTC times, PostgreSQL aware ones."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def _parse(text: str) -> datetime:
    return _aware(datetime.fromisoformat(text))
