"""Scrimmages over HTTP: ask for one (API, or the form reached from a bot's page or a
leaderboard), follow it, and open its games with the replay pages of ``games.py``.

The domain is ``arena/scrimmage.py`` (its rules, quotas and :class:`~arena.scrimmage.Player`,
which this server starts with ``WebSettings.scrimmages_at_once`` threads); who sees what is
``arena/access.py``'s: a scrimmage to whoever asked for it and to its bots' owners (anyone else
gets 404, as if there were none), each game's seats to their bots' owners, never the full table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import PlainTextResponse, RedirectResponse, Response
from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session

from arena_games import GAMES
from referee.match import log_name

from .. import access
from .. import scrimmage as domain
from ..accounts import Account
from ..league import cycles
from ..schemas.games import GameOut, ReplayOut
from ..schemas.scrimmages import CreateScrimmage, ScrimmageOut
from ..store import Bot, Entry
from .answers import API, render
from .auth import SignedIn, Viewer
from .games import (
    PRIVATE,
    DownloadQuery,
    GameInfo,
    NarrowQuery,
    SeatInfo,
    SeatQuery,
    StepQuery,
    game_out,
    game_page_of,
    output_answer,
    replay_answer,
    table_answer,
)
from .ids import Id, Number

router = APIRouter()


def _store(request: Request) -> Any:
    return request.app.state.store


def _quota(request: Request) -> domain.Quota:
    settings = request.app.state.settings
    return domain.Quota(games_per_day=settings.scrimmage_games_per_day, pending=settings.scrimmages_per_author,
                        max_games=settings.scrimmage_max_games)


def _create(request: Request, account: Account, body: CreateScrimmage) -> int:
    player: domain.Player | None = getattr(request.app.state, "scrimmages", None)
    if player is None:
        raise HTTPException(503, "this server plays no scrimmages (its operator set --scrimmages 0)")
    try:
        scrimmage_id = domain.create_scrimmage(_store(request), account, body.bot, body.opponents, body.game or None,
                                               body.games, _quota(request))
    except domain.ScrimmageError as exc:
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
        raise HTTPException(exc.status, str(exc), headers=headers) from None
    player.submit(scrimmage_id)
    return scrimmage_id


def _seen(session: Session, account: Account | None, scrimmage_id: int) -> domain.Seen:
    seen = domain.visible(session, account, scrimmage_id)
    if seen is None:  # not yours, or none: the same answer
        raise HTTPException(404, f"no scrimmage {scrimmage_id}")
    return seen


def scrimmage_out(seen: domain.Seen, account: Account | None) -> dict[str, Any]:
    row = seen.row
    seated = [bot for bot, _ in seen.bots]
    told = access.may_see_result(account, access.Game(False, seated))  # every game seats all its bots
    lines = {s.bot_id: s for s in domain.standings(row.bots, seen.games)}
    bots = [{"index": i, "bot_id": bot.id, "bot": bot.name, "version": bot.version, "owner": owner,
             **({"games": lines[bot.id].games, "wins": lines[bot.id].wins, "mean_rank": lines[bot.id].mean_rank,
                 "total_score": lines[bot.id].total_score, "failures": lines[bot.id].failures} if told else
                dict.fromkeys(("games", "wins", "mean_rank", "total_score", "failures")))}
            for i, (bot, owner) in enumerate(seen.bots)]
    url = f"/scrimmages/{row.id}"
    results = [{"number": g.number, "round": g.round, "deal": g.deal, "seats": g.seats,
                "scores": g.scores if told else None, "ranks": g.ranks if told else None,
                "failures": g.failures if told else None, "url": f"{url}/games/{g.number}"} for g in seen.games]
    return {"id": row.id, "url": url, "api_url": API + url, "status": row.status, "error": row.error,
            "challenger": seen.challenger, "game": row.game, "players": row.players, "games": row.games,
            "played": len(seen.games), "ahead": seen.ahead, "created_at": row.created_at,
            "started_at": row.started_at, "finished_at": row.finished_at, "bots": bots, "results": results,
            "links": {"self": url, "games": f"{url}/games/0"}}


def scrimmage_game(session: Session, account: Account | None, scrimmage_id: int, number: int) -> GameInfo:
    """A stored game of a scrimmage the asker may see, as the replay pages take it: never public."""
    seen = _seen(session, account, scrimmage_id)
    game = next((g for g in seen.games if g.number == number), None)
    if game is None:
        raise HTTPException(404, f"no game {number} of scrimmage {scrimmage_id} (yet)")
    bots = {bot.id: (bot, owner) for bot, owner in seen.bots}
    seats = [SeatInfo(s, *bots[b], game.match_bots.index(b)) for s, b in enumerate(game.seats)]
    placeholder = cycles.Cycle(",".join(map(str, game.match_bots)), 0, seen.row.players, frozenset())
    return GameInfo(game.id, None, None, game.round, ",".join(map(str, game.match_bots)), game.number, game.deal,
                    Path(game.record_path), seats, over=True, public=False, cycle=placeholder, scores=game.scores,
                    ranks=game.ranks, failures=game.failures, scrimmage=(seen.row.id, seen.row.game),
                    decisions=_decisions(game.record_path))


def _decisions(path: str) -> int:
    from referee.records import RecordError, read_record

    try:
        return len(read_record(Path(path)).decisions)
    except RecordError:
        return 0


# -- the API --------------------------------------------------------------------------------------
@router.post(API + "/scrimmages", tags=["scrimmages"], status_code=201, response_model=ScrimmageOut,
             responses={429: {"description": "over a quota: the message says which and when to ask again"}})
def api_create(request: Request, account: SignedIn, body: CreateScrimmage) -> Response:
    """Asks for a scrimmage: your bot against the opponents, unrated, queued until the server
    plays it (follow it at ``api_url``)."""
    scrimmage_id = _create(request, account, body)
    with _store(request)() as session:
        data = scrimmage_out(_seen(session, account, scrimmage_id), account)
    return Response(ScrimmageOut(**data).model_dump_json(), status_code=201, media_type="application/json",
                    headers=PRIVATE)


@router.get(API + "/scrimmages", tags=["scrimmages"], response_model=list[ScrimmageOut])
def api_list(request: Request, account: SignedIn) -> Response:
    """Your scrimmages: those you asked for and those your bots played in, newest first."""
    with _store(request)() as session:
        data = [ScrimmageOut(**scrimmage_out(_seen(session, account, i), account))
                for i in domain.mine(session, account)]
    return Response("[" + ",".join(d.model_dump_json() for d in data) + "]", media_type="application/json",
                    headers=PRIVATE)


@router.get(API + "/scrimmages/{scrimmage_id}", tags=["scrimmages"], response_model=ScrimmageOut)
def api_scrimmage(request: Request, scrimmage_id: Id, account: Viewer) -> Response:
    """A scrimmage: its state, its bots with the result table, and its games so far (to whoever
    asked for it and the owners of its bots; 404 to anyone else)."""
    with _store(request)() as session:
        data = scrimmage_out(_seen(session, account, scrimmage_id), account)
    return Response(ScrimmageOut(**data).model_dump_json(), media_type="application/json", headers=PRIVATE)


@router.get(API + "/scrimmages/{scrimmage_id}/games/{number}", tags=["scrimmages"], response_model=GameOut)
def api_game(request: Request, scrimmage_id: Id, number: Number, account: Viewer) -> Response:
    """A scrimmage's game: its seats and what you may see of it (never public)."""
    with _store(request)() as session:
        info = scrimmage_game(session, account, scrimmage_id, number)
    return Response(GameOut(**game_out(info, account)).model_dump_json(), media_type="application/json",
                    headers=PRIVATE)


@router.get(API + "/scrimmages/{scrimmage_id}/games/{number}/replay", tags=["scrimmages"],
            response_model=ReplayOut, responses={403: {"description": "a seat that is not yours, or the full table"}})
def api_replay(request: Request, scrimmage_id: Id, number: Number, account: Viewer, seat: str | None = None,
               step: int | None = None) -> Response:
    """A scrimmage's game as one of your seats saw it (the full table: never)."""
    with _store(request)() as session:
        info = scrimmage_game(session, account, scrimmage_id, number)
    return replay_answer(request, info, account, seat, step)


@router.get(API + "/scrimmages/{scrimmage_id}/games/{number}/output/{bot_index}", tags=["scrimmages"],
            response_class=PlainTextResponse,
            responses={404: {"description": "no such output, or not yours: the same answer"}})
def api_output(request: Request, scrimmage_id: Id, number: Number, bot_index: Number, account: Viewer) -> Response:
    """What bot ``bot_index`` (its place in the game's match, 0 first) printed in the match of this
    game, as plain text: to the bot's owner only; anyone else gets 404, as if there were none."""
    missing = HTTPException(404, f"no output of bot {bot_index} in game {number} of scrimmage {scrimmage_id}")
    with _store(request)() as session:
        try:
            info = scrimmage_game(session, account, scrimmage_id, number)
        except HTTPException:
            raise missing from None
    seat = next((s for s in info.seats if s.bot_index == bot_index), None)
    if seat is None or not access.may_read_output(account, seat.bot):
        raise missing
    return output_answer(info.record.parent / log_name(bot_index, seat.bot.label), missing,
                         f"scrimmage{scrimmage_id}-game{number}-bot{bot_index}")


# -- the pages ------------------------------------------------------------------------------------
def _choices(session: Session, account: Account) -> tuple[list[Bot], list[Bot]]:
    """The asker's bots that may play (not retired), and every possible opponent (entered, not retired)."""
    mine = [b for b in session.scalars(select(Bot).where(domain.held_by(account), Bot.plays)
                                       .order_by(Bot.name, Bot.id)) if access.may_scrimmage(account, b)]
    entered = select(Entry.bot_id)
    opponents = list(session.scalars(select(Bot).where(Bot.id.in_(entered), Bot.plays).order_by(Bot.name, Bot.id)))
    return mine, opponents


@router.get("/scrimmages", include_in_schema=False)
def scrimmages_page(request: Request, account: SignedIn, opponent: str = "", bot: str = "") -> Response:
    with _store(request)() as session:
        mine, opponents = _choices(session, account)
        listed = [scrimmage_out(_seen(session, account, i), account) for i in domain.mine(session, account, 50)]
    response = render(request, "scrimmages.html", {
        "mine": mine, "opponents": opponents, "games": sorted(GAMES), "listed": listed, "chosen_opponent": opponent,
        "chosen_bot": bot, "max_games": _quota(request).max_games})
    response.headers.update(PRIVATE)
    return response


@router.post("/scrimmages", include_in_schema=False)
def create_form(request: Request, account: SignedIn, bot: Annotated[str, Form()] = "",
                opponents: Annotated[list[str] | None, Form()] = None, game: Annotated[str, Form()] = "",
                games: Annotated[str, Form()] = "") -> Response:
    try:
        body = CreateScrimmage(bot=bot, opponents=[o for o in opponents or [] if o], game=game or None,
                               games=int(games) if games.strip() else None)
    except ValueError as exc:  # pydantic's ValidationError, or int() of a word
        raise HTTPException(400, _problem(exc)) from None
    scrimmage_id = _create(request, account, body)
    return RedirectResponse(f"/scrimmages/{scrimmage_id}", status_code=303)


def _problem(exc: ValueError) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
    return "games must be a number"


@router.get("/scrimmages/{scrimmage_id}", include_in_schema=False)
def scrimmage_page(request: Request, scrimmage_id: Id, account: Viewer) -> Response:
    with _store(request)() as session:
        data = scrimmage_out(_seen(session, account, scrimmage_id), account)
    names = {b["bot_id"]: f"{b['bot']}@{b['version']}" for b in data["bots"]}
    response = render(request, "scrimmage.html", {"s": data, "names": names})
    response.headers.update(PRIVATE)
    return response


@router.get("/scrimmages/{scrimmage_id}/games/{number}/table.svg", include_in_schema=False)
def game_table(request: Request, scrimmage_id: Id, number: Number, account: Viewer, seat: SeatQuery = None,
               step: StepQuery = None, download: DownloadQuery = False, narrow: NarrowQuery = False) -> Response:
    """A scrimmage's game at a step, drawn as SVG, as one of your seats saw it (the full table: never)."""
    with _store(request)() as session:
        info = scrimmage_game(session, account, scrimmage_id, number)
    return table_answer(request, info, account, seat, step, download, narrow)


@router.get("/scrimmages/{scrimmage_id}/games/{number}", include_in_schema=False)
def game_page(request: Request, scrimmage_id: Id, number: Number, account: Viewer, seat: str | None = None,
              step: int | None = None) -> Response:
    with _store(request)() as session:
        info = scrimmage_game(session, account, scrimmage_id, number)
    return game_page_of(request, info, account, seat, step)
