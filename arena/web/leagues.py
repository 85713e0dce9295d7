"""Leagues and their leaderboards, and the admin's league commands (create, run).

A run started from the server plays in a thread of the server process (``run_league``, its
records under ``WebSettings.runs_dir / "leagues"``; for a ladder ``run_ladder``, its ROUNDS
more matches in whole cycles), one run per league at a time; the server
keeps each league's last run's state (running, finished, failed) until it stops. A server
stopped mid-run loses only the matches being played: running the league again resumes it.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.responses import RedirectResponse, Response
from markupsafe import Markup
from pydantic import AfterValidator, BaseModel, Field
from sqlalchemy import func, select

from arena_games import GAMES
from referee import limits

from .. import access
from ..accounts import Account
from ..league import LEAGUE_NAME, LEAGUE_NAME_RULE, LeagueError, create_league, get_league, league_name_problem
from ..league.confidence import LEVEL, SAMPLES, TOP_K
from ..league.crosstable import crosstable
from ..league.finals import Link, create_finals, link
from ..league.ladder import LadderStatus, run_ladder
from ..league.runner import run_league
from ..league.schedule import (
    DEFAULT_SCHEDULE,
    FAILURE_POLICIES,
    FORMATS,
    LEAGUE_FORMATS,
    FailurePolicy,
    Format,
    ScheduleOptions,
    games_per_match,
)
from ..league.standings import NEW_DAYS, Standings, standings
from ..schemas.leagues import (
    Crosstable,
    CrosstableBot,
    CrosstablePair,
    Leaderboard,
    LeaderboardRow,
    LeagueOut,
    Order,
    RunState,
    SortKey,
)
from ..store import Bot, Entry, Game, League, Match, Store
from ..store.models import now
from .answers import API, render
from .auth import Admin, Viewer
from .charts import interval_bars

router = APIRouter()
log = logging.getLogger(__name__)

MAX_ROUNDS, MAX_JOBS = 1000, 16
MAX_TOP = 10_000  # P(top k): any k (capped at the entrants); bounded, as it keys a cache


# -- what the API takes (its answers are arena/schemas/leagues.py's) -------------------------------
def _league_name(name: str) -> str:
    if problem := league_name_problem(name):  # the command line's check too
        raise ValueError(problem)
    return name


class CreateLeague(BaseModel):
    """What ``arena league create`` takes."""

    name: Annotated[str, AfterValidator(_league_name)] = Field(
        description=LEAGUE_NAME_RULE, json_schema_extra={"pattern": f"^{LEAGUE_NAME.pattern}$"})
    game: str
    players: int = Field(ge=1, le=16, description="players per table")
    settings: dict[str, str | int | float | bool] = Field(default_factory=dict,
                                                          description="the game's [house] settings")
    deals: int = Field(DEFAULT_SCHEDULE.deals, ge=1, le=100, description="games per match = deals x players")
    decision_ms: int = Field(DEFAULT_SCHEDULE.decision_ms, ge=1, le=limits.MAX_DECISION_MS)
    bank_ms: int = Field(DEFAULT_SCHEDULE.bank_ms, ge=0, le=limits.MAX_BANK_MS, description="per seat and game")
    increment_ms: int = Field(DEFAULT_SCHEDULE.increment_ms, ge=0, le=limits.MAX_INCREMENT_MS,
                              description="added to the game bank after each decision answered in time (uncapped)")
    match_bank_ms: int = Field(DEFAULT_SCHEDULE.match_bank_ms, ge=0, le=limits.MAX_BANK_MS,
                               description="per bot and match, spent once the game bank is; 0: none")
    failures: FailurePolicy = DEFAULT_SCHEDULE.failures
    format: Format = Field(DEFAULT_SCHEDULE.format, description="how its tables are drawn: a round robin, a ladder "
                           "(without end, each table picked by matchmaking), swiss, gauntlet, knockout or "
                           "double-elimination (docs/leagues.md)")
    challenger: str = Field(DEFAULT_SCHEDULE.challenger, max_length=64,
                            description="a gauntlet's challenger: the bot name whose versions each play the field")
    seeds_from: str = Field(DEFAULT_SCHEDULE.seeds_from, max_length=64,
                            description="a bracket's seeding: the league whose ratings order the seeds")


class FinalsRequest(BaseModel):
    """What ``arena league finals`` takes."""

    name: Annotated[str, AfterValidator(_league_name)] | None = Field(
        None, description=f"the finals' name (default: the league's name and -finals); {LEAGUE_NAME_RULE}")
    format: Format = Field(DEFAULT_SCHEDULE.format, description="the finals' format: one `arena league run` plays "
                                                                "(not a ladder)")
    challenger: str = Field(DEFAULT_SCHEDULE.challenger, max_length=64, description="a gauntlet's challenger")


class RunRequest(BaseModel):
    rounds: int = Field(1, ge=1, le=MAX_ROUNDS, description="play every round up to this many; a ladder: this "
                                                             "many more matches, in whole cycles")
    jobs: int = Field(1, ge=1, le=MAX_JOBS, description="matches played at once")


# -- reading --------------------------------------------------------------------------------------
def all_leagues(store: Store) -> list[LeagueOut]:
    with store() as session:
        names = session.scalars(select(League.name).order_by(League.name)).all()
    return [_summary(standings(store, name), link(store, name)) for name in names]


def _summary(now: Standings, tied: Link) -> LeagueOut:
    # the secret is never shown; from_dict also drops a pre-0002 league's "seed"
    return LeagueOut(name=now.name, game=now.game, players=now.players, entrants=len(now.rows),
                     # every seat of a game is an entrant's, and each game has ``players`` seats
                     games=sum(r["games"] for r in now.rows) // now.players, settings=now.settings,
                     schedule=ScheduleOptions.from_dict(now.schedule).to_dict(), created_at=now.created_at,
                     closed_at=tied.closed_at, finals=tied.finals, finals_of=tied.finals_of)


# Columns of the leaderboard: (key, heading, kind, order of a first click)
COLUMNS: list[tuple[str, str, str, Order]] = [
    ("rank", "#", "num", "asc"), ("bot", "bot", "text", "asc"), ("version", "version", "text", "asc"),
    ("author", "author", "text", "asc"), ("language", "language", "text", "asc"),
    ("exposure", "μ−3σ", "num", "desc"), ("mu", "μ", "num", "desc"), ("sigma", "σ", "num", "asc"),
    ("upper", "μ ± 3σ", "num", "desc"), ("games", "games", "num", "desc"), ("wins", "wins", "num", "desc"),
    ("failure_rate", "failure rate", "num", "asc"), ("p_first", "P(1st)", "num", "desc"),
    ("p_top", "P(top k)", "num", "desc"), ("rank_high", "90% ranks", "num", "asc"),
]
KIND = {key: kind for key, _, kind, _ in COLUMNS}
# the columns shown only on "all columns": the rest (rank, name, version, author, mu - 3 sigma, games, wins,
# failure rate, P(1st), rank interval) fit a laptop's width; a phone scrolls them inside the table's box
MORE = frozenset({"language", "mu", "sigma", "upper", "p_top"})


def sort_rows(rows: list[dict[str, Any]], sort: str, order: str) -> list[dict[str, Any]]:
    """The rows by column ``sort`` (``upper`` is mu + 3 sigma), ties by rank."""
    def key(row: dict[str, Any]) -> Any:
        if sort == "upper":
            return row["mu"] + 3 * row["sigma"]
        value = row[sort]
        return (value or "").casefold() if KIND[sort] == "text" else value

    by_rank = sorted(rows, key=lambda r: r["rank"])
    return sorted(by_rank, key=key, reverse=order == "desc")


def board(store: Store, name: str, sort: str, order: str, top: int = TOP_K,
          tied: Link | None = None) -> tuple[Leaderboard, str]:
    """The leaderboard (P(top ``top``)), and the version of the standings it was drawn from."""
    now = standings(store, name)
    tied = tied or link(store, name)
    rows = [LeaderboardRow(**r) for r in sort_rows(now.rows_for(top) if top != TOP_K else list(now.rows), sort,
                                                   order)]
    top_k = rows[0].top_k if rows else top
    return Leaderboard(league=_summary(now, tied), sort=sort, order=order, top_k=top_k, rows=rows), now.version


class Drawn:
    """What was drawn from a league's standings (its JSON, its table's HTML), by league, standings
    version, sort and order: a leaderboard is read far more often than it changes."""

    SIZE = 256

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.items: OrderedDict[tuple, Any] = OrderedDict()

    def get(self, store: Store, name: str, sort: str, order: str, kind: str,
            draw: Callable[[Leaderboard], Any], top: int = TOP_K) -> Any:
        """What ``draw`` makes of the league's leaderboard as it is now (the standings' version
        changes with its finals link too: closing a league stores no match)."""
        version = standings(store, name).version
        key = (name, version, sort, order, kind, top)
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        data, version = board(store, name, sort, order, top)
        drawn = draw(data)
        with self.lock:
            self.items[(name, version, sort, order, kind, top)] = drawn
            while len(self.items) > self.SIZE:
                self.items.popitem(last=False)
        return drawn


def crosstable_of(store: Store, name: str) -> Crosstable:
    """The league's crosstable as the API answers it (:mod:`arena.league.crosstable`)."""
    table = crosstable(store, name)
    return Crosstable(league=table.league, games=table.games, hidden_games=table.hidden_games,
                      bots=[CrosstableBot(**bot) for bot in table.bots],
                      pairs=[CrosstablePair(a=p.a, b=p.b, games=p.games, a_ahead=p.a_ahead, b_ahead=p.b_ahead,
                                            level=p.level, mean_rank_difference=p.mean_rank_difference, low=p.low,
                                            high=p.high, p_value=p.p_value) for p in table.pairs])


class DrawnCrosstables:
    """What was drawn from a league's crosstable (its JSON, its page's matrix), by league and
    standings version: as the leaderboard's, drawn once per change of the league."""

    SIZE = 64

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.items: OrderedDict[tuple, Any] = OrderedDict()

    def get(self, store: Store, name: str, kind: str, draw: Callable[[Crosstable], Any]) -> Any:
        key = (name, standings(store, name).version, kind)
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        drawn = draw(crosstable_of(store, name))
        with self.lock:
            self.items[key] = drawn
            while len(self.items) > self.SIZE:
                self.items.popitem(last=False)
        return drawn


def _app_state(request: Request, attribute: str, make: Callable[[], Any]) -> Any:
    with _state_lock:
        if not hasattr(request.app.state, attribute):
            setattr(request.app.state, attribute, make())
        return getattr(request.app.state, attribute)


_state_lock = threading.Lock()


# -- running from the server ----------------------------------------------------------------------
@dataclass
class LeagueRun:
    league: str
    rounds: int
    jobs: int
    status: str = "running"
    games_total: int | None = None
    games_played: int = 0
    seat_failures: int = 0
    error: str = ""
    started_at: datetime = field(default_factory=now)
    finished_at: datetime | None = None

    def state(self) -> RunState:
        return RunState(**self.__dict__)


class Runs:
    """The server's league runs: at most one per league at a time."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.runs: dict[str, LeagueRun] = {}

    def get(self, name: str) -> LeagueRun | None:
        with self.lock:
            return self.runs.get(name)

    def start(self, store: Store, name: str, rounds: int, jobs: int, runs_dir: Path,
              ran_by: int | None = None) -> LeagueRun:
        with store() as session:
            league = get_league(session, name)
            entered = len(league.entries)
            if entered < league.players:
                raise HTTPException(400, f"league {name} has {entered} entrant(s); {league.game} needs "
                                         f"{league.players} per table")
        with self.lock:
            current = self.runs.get(name)
            if current is not None and current.status == "running":
                raise HTTPException(409, f"league {name} is running already ({current.games_played} game(s) "
                                         "played): wait for it to end")
            run = self.runs[name] = LeagueRun(name, rounds, jobs)
        threading.Thread(target=self._run, args=(store, run, runs_dir, ran_by), name=f"league-{name}",
                         daemon=True).start()
        return run

    def _run(self, store: Store, run: LeagueRun, runs_dir: Path, ran_by: int | None = None) -> None:
        def started(total: int) -> None:
            run.games_total = total

        def progress(games: int, failures: int) -> None:
            run.games_played += games
            run.seat_failures = failures

        def ladder_progress(status: LadderStatus) -> None:
            run.games_played, run.seat_failures = status.games_run, status.failures

        try:
            with store() as session:
                league = get_league(session, run.league)
                options, k = ScheduleOptions.from_dict(league.schedule), league.players
                stored = session.execute(select(func.count(Game.id)).join(Match)
                                         .where(Match.league_id == league.id)).scalar_one()
            if options.format == "ladder":  # a ladder's round is one match: ROUNDS more, in whole cycles of k
                run.games_total = -(-run.rounds // k) * k * games_per_match(k, options)
                run_ladder(store, run.league, run.jobs, runs_dir, until=stored + run.games_total,
                           progress=ladder_progress, ran_by=ran_by)
            else:
                run_league(store, run.league, run.rounds, run.jobs, runs_dir, progress=progress, on_start=started,
                           ran_by=ran_by)
            run.status = "finished"
        except Exception as exc:  # noqa: BLE001 - the run's state says why; the server goes on
            if not isinstance(exc, LeagueError):
                log.exception("league %s: the run failed", run.league)
            run.error = str(exc) or type(exc).__name__
            run.status = "failed"
        finally:
            run.finished_at = now()


def runs_of(request: Request) -> Runs:
    return _app_state(request, "league_runs", Runs)


def drawn_of(request: Request) -> Drawn:
    return _app_state(request, "league_boards", Drawn)


def crosstables_of(request: Request) -> DrawnCrosstables:
    return _app_state(request, "league_crosstables", DrawnCrosstables)


def _store(request: Request) -> Store:
    return request.app.state.store


def _runs_dir(request: Request) -> Path:
    return request.app.state.settings.runs_dir / "leagues"


def _create(request: Request, body: CreateLeague, account: Account) -> LeagueOut:
    store = _store(request)
    if body.game not in GAMES:
        raise HTTPException(400, f"unknown game {body.game!r}; known games: {', '.join(sorted(GAMES))}")
    with store() as session:
        if session.scalar(select(League.id).where(League.name == body.name)) is not None:
            raise HTTPException(409, f"a league named {body.name!r} exists already")
    try:
        options = ScheduleOptions(deals=body.deals, decision_ms=body.decision_ms, bank_ms=body.bank_ms,
                                  increment_ms=body.increment_ms, match_bank_ms=body.match_bank_ms,
                                  failures=body.failures, format=body.format, challenger=body.challenger,
                                  seeds_from=body.seeds_from)
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from None
    try:
        create_league(store, body.name, body.game, body.players, dict(body.settings), options,
                      actor_id=account.id)
    except LeagueError as exc:  # bad settings or player count: never a 404, whatever the words
        raise HTTPException(400, str(exc)) from None
    return _summary(standings(store, body.name), link(store, body.name))


def _finals(request: Request, name: str, body: FinalsRequest, account: Account) -> LeagueOut:
    store = _store(request)
    with store() as session:
        get_league(session, name)  # unknown: 404
    try:
        made = create_finals(store, name, body.name, body.format, body.challenger, actor_id=account.id)
    except LeagueError as exc:  # has finals already, a name taken, too few entrants: never a 404
        raise HTTPException(409 if "already" in str(exc) else 400, str(exc)) from None
    return _summary(standings(store, made.name), link(store, made.name))


# -- the API --------------------------------------------------------------------------------------
@router.get(API + "/leagues", tags=["leagues"])
def api_leagues(request: Request) -> list[LeagueOut]:
    """Every league, by name: its game, players per table, entrants and games played."""
    return all_leagues(_store(request))


@router.get(API + "/leagues/{name}/leaderboard", tags=["leagues"], response_model=Leaderboard)
def api_leaderboard(request: Request, name: str, sort: SortKey = "rank", order: Order | None = None,
                    top: Annotated[int, Query(ge=1, le=MAX_TOP, description="the k of P(top k)")] = TOP_K,
                    ) -> Response:
    """The league's leaderboard, best mu - 3 sigma first, or sorted by any column; with each
    bot's P(rank 1), P(top k), 90% rank interval and whether its rank is settled."""
    body = drawn_of(request).get(_store(request), name, sort, order or _default_order(sort), "json",
                                 lambda data: data.model_dump_json().encode(), top)
    return Response(body, media_type="application/json")


@router.get(API + "/leagues/{name}/crosstable", tags=["leagues"], response_model=Crosstable)
def api_crosstable(request: Request, name: str) -> Response:
    """Every pair of the league's entrants head to head: games together, games each finished
    ahead, the mean rank difference with its 95% interval, and a sign test; only public games
    (whose duplicate cycle is all stored) count."""
    body = crosstables_of(request).get(_store(request), name, "json", lambda data: data.model_dump_json().encode())
    return Response(body, media_type="application/json")


@router.post(API + "/leagues", tags=["leagues"], status_code=201)
def api_create(request: Request, account: Admin, body: CreateLeague) -> LeagueOut:
    """Creates a league (admin only), as ``arena league create`` does."""
    return _create(request, body, account)


@router.post(API + "/leagues/{name}/finals", tags=["leagues"], status_code=201)
def api_finals(request: Request, account: Admin, name: str, body: FinalsRequest | None = None) -> LeagueOut:
    """Closes the league to new entrants and creates its finals (admin only), as ``arena league
    finals`` does: its playing entrants, game, settings and time control, on a fresh secret; 409
    if it has finals already. Run them as any league."""
    return _finals(request, name, body or FinalsRequest(), account)


@router.post(API + "/leagues/{name}/run", tags=["leagues"], status_code=202)
def api_run(request: Request, account: Admin, name: str, body: RunRequest | None = None) -> RunState:
    """Starts playing the league's rounds in the server (admin only); 409 while it runs already."""
    body = body or RunRequest()
    return runs_of(request).start(_store(request), name, body.rounds, body.jobs, _runs_dir(request),
                                  account.id).state()


@router.get(API + "/leagues/{name}/run", tags=["leagues"])
def api_run_state(request: Request, account: Admin, name: str) -> RunState:
    """The state of the league's last run started by this server (admin only)."""
    with _store(request)() as session:
        get_league(session, name)
    run = runs_of(request).get(name)
    if run is None:
        raise HTTPException(404, f"no run of league {name} since the server started")
    return run.state()


def _default_order(sort: str) -> Order:
    return next(o for key, _, _, o in COLUMNS if key == sort)


# -- the pages ------------------------------------------------------------------------------------
@router.get("/leagues", include_in_schema=False)
def leagues_page(request: Request, account: Viewer) -> Response:
    return render(request, "leagues.html", {"leagues": all_leagues(_store(request)), "games": sorted(GAMES),
                                            "failure_policies": FAILURE_POLICIES, "defaults": DEFAULT_SCHEDULE,
                                            "formats": FORMATS, "max_bank_ms": limits.MAX_BANK_MS,
                                            "max_increment_ms": limits.MAX_INCREMENT_MS})


@router.get("/leagues/{name}", include_in_schema=False)
def leaderboard_page(request: Request, account: Viewer, name: str, sort: SortKey = "rank",
                     order: Order | None = None) -> Response:
    order = order or _default_order(sort)
    templates = request.app.state.templates

    def table(data: Leaderboard) -> tuple[LeagueOut, Markup]:
        bars = interval_bars((r.bot_id, r.mu, r.sigma) for r in data.rows)
        html = templates.get_template("leaderboard_table.html").render(
            board=data, columns=COLUMNS, more=MORE, bars=bars, new_days=NEW_DAYS, samples=SAMPLES, level=LEVEL)
        return data.league, Markup(html)

    league, table_html = drawn_of(request).get(_store(request), name, sort, order, "html", table)
    run = runs_of(request).get(name) if access.may_manage_leagues(account) else None
    # the other board of a league and its finals, side by side: the finals on fresh deals, the parent's
    # ladder or league going on as the public board (its complete cycles only, as every board)
    other = league.finals or league.finals_of
    beside = board(_store(request), other, "rank", "asc")[0] if other else None
    return render(request, "leaderboard.html", {"league": league, "table": table_html, "run": run,
                                                "max_jobs": MAX_JOBS, "mine": _mine(request, account, name),
                                                "beside": beside, "league_formats": LEAGUE_FORMATS})


def _mine(request: Request, account: Account | None, name: str) -> list[int]:
    """The ids of the league's bots that are the viewer's own (highlighted by static/board.js);
    nobody's for the public, so an anonymous view costs no query."""
    if account is None:
        return []
    with _store(request).engine.connect() as connection:
        rows = connection.execute(select(Bot.id, Bot.owner_id, Bot.team_id).join(Entry, Entry.bot_id == Bot.id)
                                  .join(League, League.id == Entry.league_id).where(League.name == name)).all()
    return [row.id for row in rows if access.is_own(account, row)]


@router.get("/leagues/{name}/crosstable", include_in_schema=False)
def crosstable_page(request: Request, account: Viewer, name: str) -> Response:
    templates = request.app.state.templates

    def matrix(data: Crosstable) -> tuple[Crosstable, Markup]:
        cells: dict[tuple[int, int], dict[str, Any]] = {}
        for p in data.pairs:  # each pair seen from both sides: the row's bot first
            cells[(p.a, p.b)] = {"games": p.games, "ahead": p.a_ahead, "behind": p.b_ahead, "level": p.level,
                                 "diff": p.mean_rank_difference, "low": p.low, "high": p.high, "p": p.p_value}
            cells[(p.b, p.a)] = {"games": p.games, "ahead": p.b_ahead, "behind": p.a_ahead, "level": p.level,
                                 "diff": -p.mean_rank_difference or 0.0, "p": p.p_value,  # or: never "-0.00"
                                 "low": None if p.high is None else -p.high or 0.0,
                                 "high": None if p.low is None else -p.low or 0.0}
        html = templates.get_template("crosstable_table.html").render(table=data, cells=cells)
        return data, Markup(html)

    data, html = crosstables_of(request).get(_store(request), name, "html", matrix)
    return render(request, "crosstable.html", {"table": data, "matrix": html})


def _settings_lines(text: str) -> dict[str, str]:
    """``KEY=VALUE`` a line (or separated by commas) -> a dict; the engine converts the values."""
    out = {}
    for item in re.split(r"[\n,]", text):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise HTTPException(400, f"a setting is KEY=VALUE, not {item.strip()!r}")
        out[key.strip()] = value.strip()
    return out


@router.post("/leagues", include_in_schema=False)
def create_form(request: Request, account: Admin, name: Annotated[str, Form()] = "", game: Annotated[str, Form()] = "",
                players: Annotated[int, Form()] = 0, settings: Annotated[str, Form()] = "",
                deals: Annotated[int, Form()] = DEFAULT_SCHEDULE.deals,
                decision_ms: Annotated[int, Form()] = DEFAULT_SCHEDULE.decision_ms,
                bank_ms: Annotated[int, Form()] = DEFAULT_SCHEDULE.bank_ms,
                increment_ms: Annotated[int, Form()] = DEFAULT_SCHEDULE.increment_ms,
                match_bank_ms: Annotated[int, Form()] = DEFAULT_SCHEDULE.match_bank_ms,
                failures: Annotated[str, Form()] = DEFAULT_SCHEDULE.failures,
                format: Annotated[str, Form()] = DEFAULT_SCHEDULE.format,
                challenger: Annotated[str, Form()] = DEFAULT_SCHEDULE.challenger,
                seeds_from: Annotated[str, Form()] = DEFAULT_SCHEDULE.seeds_from) -> Response:
    try:
        body = CreateLeague(name=name, game=game, players=players, settings=_settings_lines(settings), deals=deals,
                            decision_ms=decision_ms, bank_ms=bank_ms, increment_ms=increment_ms,
                            match_bank_ms=match_bank_ms, failures=failures, format=format,
                            challenger=challenger.strip(), seeds_from=seeds_from.strip())
    except ValueError as exc:
        raise HTTPException(400, _first_problem(exc)) from None
    created = _create(request, body, account)
    return RedirectResponse(f"/leagues/{quote(created.name)}", status_code=303)


@router.post("/leagues/{name}/finals", include_in_schema=False)
def finals_form(request: Request, account: Admin, name: str, finals: Annotated[str, Form()] = "",
                format: Annotated[str, Form()] = DEFAULT_SCHEDULE.format,
                challenger: Annotated[str, Form()] = "") -> Response:
    try:
        body = FinalsRequest(name=finals or None, format=format, challenger=challenger)
    except ValueError as exc:
        raise HTTPException(400, _first_problem(exc)) from None
    made = _finals(request, name, body, account)
    return RedirectResponse(f"/leagues/{quote(made.name, safe='')}", status_code=303)


@router.post("/leagues/{name}/run", include_in_schema=False)
def run_form(request: Request, account: Admin, name: str, rounds: Annotated[int, Form()] = 1,
             jobs: Annotated[int, Form()] = 1) -> Response:
    try:
        body = RunRequest(rounds=rounds, jobs=jobs)
    except ValueError as exc:
        raise HTTPException(400, _first_problem(exc)) from None
    runs_of(request).start(_store(request), name, body.rounds, body.jobs, _runs_dir(request), account.id)
    return RedirectResponse(f"/leagues/{quote(name, safe='')}#run", status_code=303)


def _first_problem(exc: ValueError) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errors())
    return str(exc)
