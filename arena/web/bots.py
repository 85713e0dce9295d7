"""Bot pages: a bot version's details, its rating in each league it entered and, for one league
at a time, its rating history (an SVG chart drawn here), head-to-head table, recent matches
and failure reasons; and retiring a bot (its owner only).

Everything shown is of stored, finished games: nothing hidden, nothing a bot printed.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import RedirectResponse, Response
from markupsafe import Markup
from sqlalchemy import bindparam, func, select

from .. import access
from ..accounts import Account
from ..bots.config import AUTHOR_CHARS
from ..bots.registry import retire_bot
from ..league import NotAllowed
from ..league.standings import Standings, standings
from ..league.stats import bot_games, bot_in_league
from ..owners import owner_label
from ..schemas.bots import (
    BotLeagueOut,
    BotOut,
    FailureCountOut,
    HeadToHeadOut,
    HistoryOut,
    Opponent,
    RecentMatchOut,
    Retired,
    VersionOut,
)
from ..scrimmage import held_by
from ..store import Bot, Entry, League, Team, User
from .answers import API, render
from .auth import SignedIn, Viewer
from .charts import rating_chart
from .ids import Id

router = APIRouter()
RECENT = 10  # matches on a bot page


@dataclass(frozen=True)
class Details:
    """A bot's details in one league, as the page and the JSON show them."""

    history: list[HistoryOut]
    head_to_head: list[HeadToHeadOut]
    recent_matches: list[RecentMatchOut]
    failures: list[FailureCountOut]
    html: Markup  # the page's section of them, with the rating chart


class DetailsCache:
    """:class:`Details` by (league, version of its standings, bot): they change only when the
    league's games or ratings do, and a bot's rating history is hundreds of points."""

    SIZE = 512

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.items: OrderedDict[tuple[str, str, int], Details] = OrderedDict()

    def get(self, request: Request, league: str, version: str, bot_id: int) -> Details:
        key = (league, version, bot_id)
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        details = _details(request, league, bot_id)
        with self.lock:
            self.items[key] = details
            while len(self.items) > self.SIZE:
                self.items.popitem(last=False)
        return details


def _details(request: Request, league: str, bot_id: int) -> Details:
    stats = bot_in_league(request.app.state.store, league, bot_id, RECENT)
    history = [HistoryOut(game=p.game, game_id=p.game_id, mu=round(p.mu, 3), sigma=round(p.sigma, 3))
               for p in stats.history]
    details = Details(
        history=history,
        head_to_head=[HeadToHeadOut(**h.__dict__) for h in stats.head_to_head],
        recent_matches=[
            RecentMatchOut(match_id=m.match_id, round=m.round, finished_at=m.finished_at,
                           opponents=[Opponent(id=i, name=n, version=v) for i, n, v in m.opponents],
                           ranks=m.ranks, mean_rank=round(m.mean_rank, 3), wins=m.wins, failures=m.failures)
            for m in stats.recent_matches],
        failures=[FailureCountOut(reason=r, games=n) for r, n in stats.failures],
        html=Markup())
    html = request.app.state.templates.get_template("bot_league.html").render(
        bot=SimpleNamespace(league=league, **{k: getattr(details, k) for k in ("head_to_head", "recent_matches",
                                                                                "failures")}),
        chart=rating_chart(history, title=f"Rating in {league}"))
    return dataclasses.replace(details, html=Markup(html))


_cache_lock = threading.Lock()


def _details_cache(request: Request) -> DetailsCache:
    with _cache_lock:
        if not hasattr(request.app.state, "bot_details"):
            request.app.state.bot_details = DetailsCache()
        return request.app.state.bot_details


# built once: building a statement costs more than running these
_BOT = (select(Bot.id, Bot.name, Bot.version, Bot.author, Bot.language, Bot.owner_id, Bot.team_id, Bot.created_at,
               Bot.retired_at, Bot.disqualified_at, Bot.disqualified_reason, Bot.games,
               func.coalesce(Team.name, User.name).label("owner"), Team.name.label("team"))
        .outerjoin(User, User.id == Bot.owner_id).outerjoin(Team, Team.id == Bot.team_id)
        .where(Bot.id == bindparam("bot")))
_VERSIONS = (select(Bot.id, Bot.version, Bot.created_at, Bot.retired_at)
             .where(Bot.name == bindparam("name"), Bot.id != bindparam("bot")).order_by(Bot.id.desc()))
_LEAGUES = (select(League.name, League.game).join(Entry, Entry.league_id == League.id)
            .where(Entry.bot_id == bindparam("bot")).order_by(League.name))


def bot_page_data(request: Request, bot_id: int, league: str | None,
                  account: Account | None = None, read: dict[str, Standings] | None = None,
                  ) -> tuple[BotOut, Any, Markup | None]:
    """The bot page's data for ``account``, and the page's section of the details; ``league`` picks
    the league of the details (by default the one it has played most in). ``read``, if given, is
    filled with the standings of each of its leagues, as read (for the page's other sections)."""
    store = request.app.state.store
    with store.engine.connect() as connection:  # plain rows: no Session's bookkeeping on every page view
        bot = connection.execute(_BOT, {"bot": bot_id}).one_or_none()
        if bot is None:
            raise HTTPException(404, f"no bot {bot_id}")
        versions = [VersionOut(id=b.id, version=b.version, created_at=b.created_at, retired=b.retired_at is not None)
                    for b in connection.execute(_VERSIONS, {"name": bot.name, "bot": bot_id})]
        leagues = connection.execute(_LEAGUES, {"bot": bot_id}).all()
    ranked: list[BotLeagueOut] = []
    version_of = {}
    for name, game in leagues:
        now = standings(store, name)
        version_of[name] = now.version
        if read is not None:
            read[name] = now
        row = next(r for r in now.rows if r["bot_id"] == bot_id)
        ranked.append(BotLeagueOut(league=name, game=game, rank=row["rank"], entrants=len(now.rows),
                                   **{k: row[k] for k in ("exposure", "mu", "sigma", "games", "wins",
                                                          "failure_rate")}))
    if league is not None and league not in version_of:
        raise HTTPException(404, f"bot {bot_id} is not in league {league!r}")
    if league is None and ranked:
        league = max(ranked, key=lambda s: s.games).league  # the first by name among equals
    out = BotOut(id=bot.id, name=bot.name, version=bot.version, author=bot.owner,
                 declared_author=bot.author[:AUTHOR_CHARS], language=bot.language, owner=bot.owner, team=bot.team,
                 created_at=bot.created_at, retired_at=bot.retired_at, disqualified_at=bot.disqualified_at,
                 disqualified_reason=bot.disqualified_reason if bot.disqualified_at is not None
                 and access.may_see_disqualification(account, bot) else None, games=list(bot.games or []),
                 versions=versions, leagues=ranked, league=league, history=[], head_to_head=[],
                 recent_matches=[], failures=[])
    html = None
    if league is not None:
        details = _details_cache(request).get(request, league, version_of[league], bot_id)
        out.history, out.head_to_head = details.history, details.head_to_head
        out.recent_matches, out.failures, html = details.recent_matches, details.failures, details.html
    return out, bot, html


@router.get(API + "/bots/{bot_id}", tags=["bots"], response_model=BotOut)
def api_bot(request: Request, account: Viewer, bot_id: Id, league: str | None = None) -> Response:
    """A bot version: its details, its standing in each league it entered, and, for ``league``
    (by default the one it has played most in), its rating history, head to head against every
    opponent, recent matches and failure reasons."""
    # serialized here, once: FastAPI would dump, validate and dump again hundreds of history points
    return Response(bot_page_data(request, bot_id, league, account)[0].model_dump_json(),
                    media_type="application/json")


@router.post(API + "/bots/{bot_id}/retire", tags=["bots"])
def api_retire(request: Request, account: SignedIn, bot_id: Id) -> Retired:
    """Retires the bot (its owner only; an admin for a bot registered on the command line): it
    plays no new match; its games and ratings stay."""
    bot = _retire(request, account, bot_id)
    return Retired(id=bot.id, name=bot.name, version=bot.version, retired_at=bot.retired_at)


def _retire(request: Request, account: Account, bot_id: int) -> Bot:
    try:
        return retire_bot(request.app.state.store, bot_id, account)
    except NotAllowed as exc:
        raise HTTPException(403, str(exc)) from None


class GamesCache:
    """A page of a bot's games (:func:`~arena.league.stats.bot_games`), drawn, by league, version of
    its standings, bot, page and asker (the public's shared by every anonymous view): a bot page is
    read far more often than its league changes."""

    SIZE = 1024

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.items: OrderedDict[tuple, Markup] = OrderedDict()

    def get(self, request: Request, league: str, version: str, bot_id: int, asker: Account | None,
            page: int) -> Markup:
        """``version``: of the league's standings, as the page read them."""
        key = (league, version, bot_id, page, None if asker is None else asker.id)
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        games, total = bot_games(request.app.state.store, league, bot_id, asker, (page - 1) * GAMES_PAGE,
                                 GAMES_PAGE)
        html = Markup(request.app.state.templates.get_template("bot_games.html").render(
            bot=SimpleNamespace(league=league), games=games, games_total=total, games_page=page,
            games_pages=max(1, -(-total // GAMES_PAGE))))
        with self.lock:
            self.items[key] = html
            while len(self.items) > self.SIZE:
                self.items.popitem(last=False)
        return html


def _games_cache(request: Request) -> GamesCache:
    with _cache_lock:
        if not hasattr(request.app.state, "bot_games"):
            request.app.state.bot_games = GamesCache()
        return request.app.state.bot_games


GAMES_PAGE = 25  # games a page of a bot's list of games
MAX_GAMES_PAGE = 100_000  # pages: past the last shows none


def compare_versions(request: Request, data: BotOut, known: dict[str, Standings]) -> list[dict[str, Any]]:
    """Every version of the bot's name side by side, in each league any of them entered: its rank,
    rating, games, wins and failure rate there; by league, then newest version first. ``known``:
    the standings versions already read (of the bot's own leagues), not read again."""
    store = request.app.state.store
    ids = [data.id, *(v.id for v in data.versions)]
    labels = {data.id: (data.version, data.retired_at is not None),
              **{v.id: (v.version, v.retired) for v in data.versions}}
    with store.engine.connect() as connection:
        entries = connection.execute(_VERSION_ENTRIES, {"ids": ids}).all()
    out = []
    rows_of: dict[str, dict[int, dict[str, Any]]] = {}
    for bot_id, league in entries:
        if league not in rows_of:  # standings are kept in memory: this is a lookup once per league
            now = known[league] if league in known else standings(store, league)
            rows_of[league] = {r["bot_id"]: r for r in now.rows}
        row = rows_of[league].get(bot_id)
        if row is None:
            continue
        version, retired = labels[bot_id]
        out.append({"league": league, "bot_id": bot_id, "version": version, "retired": retired,
                    "current": bot_id == data.id, "rank": row["rank"], "entrants": len(rows_of[league]),
                    **{k: row[k] for k in ("exposure", "mu", "sigma", "games", "wins", "failure_rate")}})
    return sorted(out, key=lambda r: (r["league"], -r["bot_id"]))


_VERSION_ENTRIES = (select(Entry.bot_id, League.name).join(League, League.id == Entry.league_id)
                    .where(Entry.bot_id.in_(bindparam("ids", expanding=True))))


@router.get("/bots/{bot_id}", include_in_schema=False)
def bot_page(request: Request, account: Viewer, bot_id: Id, league: str | None = None,
             games: Annotated[int, Query(ge=1, le=MAX_GAMES_PAGE, description="the page of its games")] = 1,
             ) -> Response:
    read: dict[str, Standings] = {}
    data, bot, details = bot_page_data(request, bot_id, league, account, read)
    games_html = None if data.league is None else _games_cache(request).get(
        request, data.league, read[data.league].version, bot_id, account, games)
    return render(request, "bot.html", {"bot": data, "details": details,
                                        "may_retire": bot.retired_at is None
                                        and access.may_retire(account, bot),
                                        "moderating": access.may_moderate(account),
                                        "owner": owner_label(bot.owner),
                                        "games_html": games_html,
                                        "versions": compare_versions(request, data, read) if data.versions else [],
                                        "scrimmage": _scrimmage_with(request, account, bot, data)})


def _scrimmage_with(request: Request, account: Account | None, bot: Any, data: BotOut) -> dict[str, Any] | None:
    """What the bot page offers for a scrimmage (``bot``: its row): with this bot if it is the
    asker's, against it (with one of the asker's bots) if it is on a leaderboard; None: nothing."""
    if account is None or bot.retired_at is not None or bot.disqualified_at is not None:
        return None
    label = f"{bot.name}@{bot.version}"
    if access.may_scrimmage(account, bot):
        return {"own": True, "label": label}
    if not data.leagues:
        return None
    with request.app.state.store() as session:
        mine = [b.label for b in session.scalars(select(Bot).where(held_by(account), Bot.plays)
                                                 .order_by(Bot.name, Bot.id)) if access.may_scrimmage(account, b)]
    return {"own": False, "label": label, "mine": mine} if mine else None


@router.post("/bots/{bot_id}/retire", include_in_schema=False)
def retire_form(request: Request, account: SignedIn, bot_id: Id) -> Response:
    _retire(request, account, bot_id)
    return RedirectResponse(f"/bots/{bot_id}", status_code=303)
