"""Matches, games and their replays; the games being played; a bot's captured output.

- ``/matches/{id}``: a match (league, round, bots, each game's scores, ranks and failures);
- ``/games/{id}``: a game with the replay viewer (``static/replay.js``): every decision, the
  table as one seat saw it (``arena/replays.py`` rebuilds it from the record), the full table
  once the game is over. With JavaScript off, ``?seat=S&step=N`` renders one step here;
- ``/leagues/{name}/live``: the matches being played (``LiveMatch`` rows, ``arena/league/live.py``)
  and their games so far, read from the records being written; each running game has a page
  like a stored game's, under ``/leagues/{name}/live/{round}/{table}/games/{index}``;
- ``/api/v1/matches/{id}/output/{bot_index}``: what a bot printed in a match, to its owner only.

Hidden information: who may see what is ``arena/access.py``'s. A game is public for it once it has
ended *and* its table's whole duplicate cycle is stored (``arena/league/cycles.py``: the k
matches of a cycle deal the same cards, rotated, so a game of a cycle not all stored shows the
hands a match still to be played will deal). A game being played is never public: even once
over, its match may be played again from its first game, with the same deals.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import PlainTextResponse, RedirectResponse, Response
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena_games import get_game
from arena_games.scene import Text
from referee.limits import LOG_CAP
from referee.match import log_name
from referee.records import RecordError, read_record
from referee.spec import SpecError, load_spec
from referee.textlog import format_score

from .. import access, replays, tables
from ..accounts import Account
from ..league import cycles, get_league, live
from ..schemas.games import GameOut, LiveOut, MatchOut, ReplayOut
from ..store import Bot, Game, League, LiveMatch, Match, Team, User
from .answers import API, render
from .auth import Viewer
from .ids import Id, Number

router = APIRouter()
PRIVATE = {"cache-control": "private, no-store"}  # an answer with a seat's cards or a bot's output

# A view's table shows each game's first fields (its GameSpec's view_first: a seat's own cards, then
# the table's), then everything else as is; a field among the spec's seat_fields shows a seat's name.
META = ("game", "seat", "num_players", "events", "players")  # shown in the heading, the players table, the log


# -- a game, stored or being played ---------------------------------------------------------------
@dataclass
class SeatInfo:
    seat: int
    bot: Bot
    owner: str | None
    bot_index: int  # the bot's place in its match (its output file's number)


@dataclass
class GameInfo:
    """What the pages and the API know of a game before replaying it."""

    id: int | None  # None while its match is being played
    league: League | None  # None: a scrimmage's game (``scrimmage``)
    match_id: int | None
    round: int
    table: str
    index: int
    deal: str
    record: Path
    seats: list[SeatInfo]
    over: bool
    public: bool  # over, and its whole duplicate cycle stored: arena/access.py's "public"
    cycle: cycles.Cycle
    scores: list[int] | None = None
    ranks: list[int] | None = None
    failures: list[str] | None = None
    live_key: tuple[str, int, str] | None = None  # (league, round, table) of a match being played
    details: list[dict[str, Any]] = field(default_factory=list)  # the record's failure lines
    decisions: int = 0  # in the record, as far as it is written
    scrimmage: tuple[int, str] | None = None  # (id, game) of a scrimmage's game: never public (access.py)
    of: int | None = None  # the games of its match, when known

    @property
    def game(self) -> str:
        return self.league.game if self.league is not None else self.scrimmage[1] if self.scrimmage else ""

    @property
    def home(self) -> tuple[str, str]:
        """What the game belongs to, in words, and its page."""
        if self.scrimmage is not None:
            return f"scrimmage {self.scrimmage[0]}", f"/scrimmages/{self.scrimmage[0]}"
        name = self.league.name if self.league is not None else ""
        return f"league {name}", f"/leagues/{name}"

    @property
    def page(self) -> str:
        if self.scrimmage is not None:
            return f"/scrimmages/{self.scrimmage[0]}/games/{self.index}"
        if self.id is not None:
            return f"/games/{self.id}"
        league, round_, table = self.live_key or ("", 0, "")
        return f"/leagues/{league}/live/{round_}/{table}/games/{self.index}"

    @property
    def api(self) -> str:
        return API + self.page

    def names(self) -> list[str]:
        return [s.bot.label for s in self.seats]

    def subject(self) -> access.Game:
        return access.Game(self.public, [s.bot for s in self.seats])

    def may_see(self, account: Account | None, seat: int) -> bool:
        return access.may_see_seat(account, self.subject(), seat)

    def may_see_table(self, account: Account | None) -> bool:
        return access.may_see_table(account, self.subject())

    def told(self, account: Account | None) -> bool:
        """Whether the asker is told the game's length, and once it is over its result."""
        return access.may_see_result(account, self.subject())


def _bots(session: Session, ids: list[int]) -> dict[int, tuple[Bot, str | None]]:
    """Each bot by id, with its owner's name (its team's, for a team's bot): one query."""
    rows = session.execute(select(Bot, func.coalesce(Team.name, User.name)).outerjoin(User, Bot.owner_id == User.id)
                           .outerjoin(Team, Bot.team_id == Team.id).where(Bot.id.in_(set(ids)))).all()
    return {bot.id: (bot, owner) for bot, owner in rows}


def _seats(session: Session, seat_bots: list[int], match_bots: list[int]) -> list[SeatInfo]:
    bots = _bots(session, match_bots)
    return [SeatInfo(s, *bots[b], match_bots.index(b)) for s, b in enumerate(seat_bots)]


def stored_game(session: Session, game_id: int) -> GameInfo:
    game = session.get(Game, game_id)
    if game is None:
        raise HTTPException(404, f"no game {game_id}")
    match = game.match
    league = session.get(League, match.league_id)
    assert league is not None
    path = Path(game.record_path)
    try:
        record = read_record(path)
        details, decisions = record.failures, len(record.decisions)
    except RecordError:
        details, decisions = [], 0
    cycle = cycles.cycle_of(session, league.id, match.round, match.table)
    return GameInfo(game.id, league, match.id, match.round, match.table, game.index, game.deal, path,
                    _seats(session, game.seats, match.bots), over=True, public=cycle.complete, cycle=cycle,
                    scores=game.scores, ranks=game.ranks, failures=game.failures, details=details,
                    decisions=decisions, of=len(match.games))


class Moved(Exception):
    """A game that was being played is stored now: it lives at ``/games/{id}``."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id


def live_match(session: Session, league: League, round_: int, table: str) -> LiveMatch | None:
    row = session.scalar(select(LiveMatch).where(LiveMatch.league_id == league.id, LiveMatch.round == round_,
                                                 LiveMatch.table == table))
    return row if row is not None and live.alive(row) else None


def live_game(session: Session, league_name: str, round_: int, table: str, index: int) -> GameInfo:
    league = get_league(session, league_name)
    row = live_match(session, league, round_, table)
    if row is None:
        stored = session.scalar(select(Game.id).join(Match).where(
            Match.league_id == league.id, Match.round == round_, Match.table == table, Game.index == index))
        if stored is not None:
            raise Moved(stored)
        raise HTTPException(404, f"no match of league {league.name} is being played at round {round_}, "
                                 f"table {table}")
    record_dir = Path(row.record_dir)
    path = record_dir / f"game-{index:03d}.jsonl"
    try:
        record = read_record(path, growing=True)
        spec = load_spec(record_dir / "spec.json")
        seat_bots = [row.bots[spec.bot_at(index, s)] for s in range(spec.num_players)]
    except (RecordError, SpecError, IndexError):
        raise HTTPException(404, f"game {index} of that match has not started") from None
    over = record.result is not None
    result = record.result or {}
    return GameInfo(None, league, None, round_, table, index, str(record.header.get("deal", "")), path,
                    _seats(session, seat_bots, row.bots), over=over, public=False,
                    cycle=cycles.cycle_of(session, league.id, round_, table),
                    scores=result.get("scores"), ranks=result.get("ranks"), failures=result.get("failures"),
                    live_key=(league.name, round_, table), details=record.failures,
                    decisions=len(record.decisions))


def live_or_moved(request: Request, name: str, round_: int, table: str, index: int, stored: str,
                  keep_query: bool = True, status: int = 307) -> GameInfo | RedirectResponse:
    """A game being played, or, its match stored since, a redirect to ``stored`` (its ``{id}`` the
    stored game's), with the asked query kept."""
    with request.app.state.store() as session:
        try:
            return live_game(session, name, round_, table, index)
        except Moved as moved:
            query = f"?{request.url.query}" if keep_query and request.url.query else ""
            return RedirectResponse(stored.format(id=moved.game_id) + query, status_code=status)


# -- what an asker may see ------------------------------------------------------------------------
def parse_seat(info: GameInfo, seat: str | None) -> int | None:
    """``seat`` as asked: a seat number, or None for the full table (``all`` or nothing)."""
    if seat is None or seat == "all":
        return None
    try:
        number = int(seat)
    except ValueError:
        raise HTTPException(422, f"seat must be a seat number or 'all', not {seat!r}") from None
    if not 0 <= number < len(info.seats):
        raise HTTPException(404, f"no seat {number}: the game has seats 0 to {len(info.seats) - 1}")
    return number


def check_seat(info: GameInfo, account: Account | None, seat: int | None) -> None:
    """Refuses (403) a seat's view or the full table the asker may not see yet."""
    if seat is None:
        if not info.may_see_table(account):
            raise HTTPException(403, "the full table is shown once the game is over and its table's whole "
                                     "duplicate cycle is stored (the matches that deal its cards in other seats): "
                                     "to nobody before, admins included")
    elif not info.may_see(account, seat):
        raise HTTPException(403, f"only the owner of the bot in seat {seat} sees its view before the game is over "
                                 "and its duplicate cycle stored")


def default_seat(info: GameInfo, account: Account | None) -> int | None | bool:
    """What a page shows when no seat is asked for: the full table if it may, else the asker's
    first seat, else nothing (False)."""
    if info.may_see_table(account):
        return None
    for s in range(len(info.seats)):
        if info.may_see(account, s):
            return s
    return False


def debug_seats(info: GameInfo, account: Account | None) -> list[int]:
    """The seats whose bots' debug texts the asker may read (``access.may_read_debug``): its own."""
    return [s.seat for s in info.seats if access.may_read_debug(account, s.bot)]


def load_replay(info: GameInfo, seat: int | None, account: Account | None) -> replays.Replay:
    """The replay of ``seat`` (checked already), with the debug texts of the asker's own seats."""
    try:
        return replays.load(info.record, seat, info.names(), info.public, debug_seats(info, account))
    except RecordError as exc:
        raise HTTPException(500, f"the game's record cannot be replayed: {exc}") from None


def failure_details(info: GameInfo, account: Account | None) -> list[dict[str, Any]]:
    """The record's failures; a detail (it may quote the bot's last output) to its owner only."""
    out = []
    told = info.over and info.told(account)
    for f in info.details:
        seat = f.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < len(info.seats):
            continue
        if not (told or info.may_see(account, seat)):
            continue  # that a seat failed is told to the others at the game's end
        mine = access.may_read_output(account, info.seats[seat].bot)
        out.append({"seat": seat, "reason": str(f.get("reason", "")), "at": str(f.get("at", "start")),
                    "detail": str(f.get("detail", "")) if mine else None})
    return out


def output_url(match_id: int | None, seat: SeatInfo, account: Account | None, base: str | None = None) -> str | None:
    """The path of what ``seat``'s bot printed in its match (``base``: a scrimmage game's API path)."""
    if (match_id is None and base is None) or not access.may_read_output(account, seat.bot):
        return None
    return f"{base}/output/{seat.bot_index}" if base else f"{API}/matches/{match_id}/output/{seat.bot_index}"


def output_answer(path: Path, missing: HTTPException, name: str) -> Response:
    """A bot's captured output as plain text (its first ``LOG_CAP`` bytes), private, never sniffed."""
    try:
        with open(path, "rb") as f:
            data = f.read(LOG_CAP + 1)
    except OSError:
        raise missing from None
    return Response(data.decode("utf-8", "replace"), media_type="text/plain; charset=utf-8",
                    headers={**PRIVATE, "x-content-type-options": "nosniff",
                             "content-disposition": f'inline; filename="{name}.log"'})


# -- building the answers ------------------------------------------------------------------------------
def game_out(info: GameInfo, account: Account | None) -> dict[str, Any]:
    shown = info.told(account)
    told = info.over and shown  # scores and failures are told to every seat at the game's end
    seats = [{
        "seat": s.seat, "bot_id": s.bot.id, "bot": s.bot.name, "version": s.bot.version, "owner": s.owner,
        "score": info.scores[s.seat] if told and info.scores else None,
        "rank": info.ranks[s.seat] if told and info.ranks else None,
        "failure": info.failures[s.seat] if told and info.failures else None,
        "visible": info.may_see(account, s.seat),
        "output": output_url(info.match_id, s, account, info.api if info.scrimmage else None),
    } for s in info.seats]
    links = {"self": info.page, "replay": f"{info.api}/replay"}
    league = info.league.name if info.league is not None else ""
    if info.scrimmage is not None:
        links["scrimmage"] = info.home[1]
    elif info.match_id is not None:
        links["league"], links["match"] = f"/leagues/{league}", f"/matches/{info.match_id}"
    else:
        links["league"], links["live"] = f"/leagues/{league}", f"/leagues/{league}/live"
    return {"id": info.id, "league": league, "scrimmage": info.scrimmage[0] if info.scrimmage else None,
            "game": info.game, "match": info.match_id,
            "round": info.round, "index": info.index, "deal": info.deal, "over": info.over, "public": info.public,
            "decisions": info.decisions if shown else None, "seats": seats, "failures": failure_details(info, account),
            "full_table": info.may_see_table(account), "links": links}


def replay_answer(request: Request, info: GameInfo, account: Account | None, seat: str | None,
                  step: int | None) -> Response:
    number = parse_seat(info, seat)
    check_seat(info, account, number)
    replay = load_replay(info, number, account)
    headers = {} if info.public and not replay.debug else dict(PRIVATE)  # a bot's debug text is its owner's
    if step is not None:  # one step: small, made for the asking
        data = replay.to_dict()
        data["steps"] = [replay.steps[min(max(step, 0), len(replay.steps) - 1)]]
        return Response(json.dumps(data, separators=(",", ":")), media_type="application/json", headers=headers)
    headers["vary"] = "accept-encoding"
    if "gzip" in request.headers.get("accept-encoding", ""):  # browsers do: made once, cached
        headers["content-encoding"] = "gzip"
        return Response(replay.gzipped, media_type="application/json", headers=headers)
    return Response(replay.json(), media_type="application/json", headers=headers)


def table_answer(request: Request, info: GameInfo, account: Account | None, seat: str | None, step: int | None,
                 download: bool, narrow: bool = False) -> Response:
    """One step of the replay drawn as SVG (``arena/tables``): the same seat rules as the replay
    (no seat asked: the page's default, the full table if it may, else the asker's first seat)."""
    if seat is None:
        chosen = default_seat(info, account)
        if chosen is False:
            check_seat(info, account, None)  # refuses: nothing of this game is the asker's to see
            chosen = None
    else:
        chosen = parse_seat(info, seat)
        check_seat(info, account, chosen)
    assert chosen is not False
    replay = load_replay(info, chosen, account)
    at = len(replay.steps) - 1 if step is None else min(max(step, 0), len(replay.steps) - 1)
    from ..tables.svg import svg  # the drawer loads on the first picture, not with every page

    try:
        picture = svg(tables.scene_of(replay, at), replay.names, tables.frame_of(replay, at), narrow=narrow)
    except ValueError as exc:  # a game without a drawn table
        raise HTTPException(404, str(exc)) from None
    # a picture of a game not public yet shows what only some may see; a seat's cards, kept private anyway
    headers = dict(PRIVATE) if not info.public or chosen is not None else {}
    if download:
        where = f"game-{info.id}" if info.id is not None and info.scrimmage is None else \
            f"{info.home[0].replace(' ', '-')}-game-{info.index}"
        view = "full" if chosen is None else f"seat{chosen}"
        headers["content-disposition"] = f'attachment; filename="{where}-{view}-step{at}.svg"'
    headers["vary"] = "accept-encoding"
    if "gzip" in request.headers.get("accept-encoding", ""):  # 20-40 kB of repetitive XML: a sixth or less
        headers["content-encoding"] = "gzip"
        return Response(gzip.compress(picture.encode(), compresslevel=6), media_type="image/svg+xml", headers=headers)
    return Response(picture, media_type="image/svg+xml", headers=headers)


def _iso(value: Any) -> str:
    return value.isoformat() if value is not None else ""


def match_out(session: Session, match_id: int, account: Account | None) -> tuple[dict[str, Any], League]:
    match = session.get(Match, match_id)
    if match is None:
        raise HTTPException(404, f"no match {match_id}")
    league = session.get(League, match.league_id)
    assert league is not None
    bots = _bots(session, match.bots)
    public = cycles.cycle_of(session, league.id, match.round, match.table).complete
    told = access.may_see_result(account, access.Game(public, [bots[b][0] for b in match.bots]))
    out_bots = [{"index": i, "bot_id": b, "bot": bots[b][0].name, "version": bots[b][0].version,
                 "owner": bots[b][1], "output": output_url(match.id, SeatInfo(0, bots[b][0], bots[b][1], i), account)}
                for i, b in enumerate(match.bots)]
    games = [{"id": g.id, "index": g.index, "deal": g.deal, "bots": g.seats, "scores": g.scores if told else None,
              "ranks": g.ranks if told else None, "failures": g.failures if told else None, "url": f"/games/{g.id}"}
             for g in match.games]
    data = {"id": match.id, "league": league.name, "game": league.game, "round": match.round,
            "cycle": cycles.cycle_number(match.round, match.table), "public": public, "table": match.table,
            "started_at": _iso(match.started_at),
            "finished_at": _iso(match.finished_at), "restarts": match.restarts, "bots": out_bots, "games": games,
            "links": {"self": f"/matches/{match.id}", "league": f"/leagues/{league.name}"}}
    return data, league


def live_out(session: Session, league_name: str, account: Account | None) -> dict[str, Any]:
    league = get_league(session, league_name)
    rows = live.running(session.scalars(select(LiveMatch).where(LiveMatch.league_id == league.id)
                                        .order_by(LiveMatch.round, LiveMatch.table)))
    bots = _bots(session, [b for row in rows for b in row.bots])
    matches = []
    for row in rows:
        base = f"/leagues/{league.name}/live/{row.round}/{row.table}/games"
        # a game being played is not public: its progress and scores go to its bots' owners
        told = access.may_see_result(account, access.Game(False, [bots[b][0] for b in row.bots]))
        games = [{"index": g.index, "over": g.over, "decisions": g.decisions if told else None,
                  "scores": g.scores if told else None, "url": f"{base}/{g.index}"}
                 for g in replays.games_so_far(row.record_dir)]
        matches.append({"round": row.round, "table": row.table, "started_at": _iso(row.started_at), "games": games,
                        "bots": [{"index": i, "bot_id": b, "bot": bots[b][0].name, "version": bots[b][0].version,
                                  "owner": bots[b][1], "output": None} for i, b in enumerate(row.bots)]})
    return {"league": league.name, "matches": matches}


# -- the API ---------------------------------------------------------------------------------------------
SeatQuery = Annotated[str | None, Query(description="a seat number, or 'all' (the default): the full table")]
StepQuery = Annotated[int | None, Query(description="one step only (0 is the first decision)")]
DownloadQuery = Annotated[bool, Query(description="1: sent as a file to save (content-disposition: attachment)")]
NarrowQuery = Annotated[bool, Query(description="1: drawn for a phone's width (the seats in one column)")]


@router.get(API + "/matches/{match_id}", tags=["games"], response_model=MatchOut)
def api_match(request: Request, response: Response, match_id: Id, account: Viewer) -> dict[str, Any]:
    """A stored match: its league, round, bots, and every game's scores, ranks and failures
    (before its duplicate cycle is stored: to the owners of its bots only)."""
    with request.app.state.store() as session:
        data = match_out(session, match_id, account)[0]
    if not data["public"]:
        response.headers.update(PRIVATE)
    return data


@router.get(API + "/matches/{match_id}/output/{bot_index}", tags=["games"], response_class=PlainTextResponse,
            responses={404: {"description": "no such output, or not yours: the same answer"}})
def api_output(request: Request, match_id: Id, bot_index: Number, account: Viewer) -> Response:
    """What bot ``bot_index`` of the match (its place in the match, 0 first) printed, as plain
    text: to the bot's owner only; anyone else gets 404, as if there were none."""
    missing = HTTPException(404, f"no output of bot {bot_index} in match {match_id}")
    with request.app.state.store() as session:
        match = session.get(Match, match_id)
        if match is None or not 0 <= bot_index < len(match.bots):
            raise missing
        bot = session.get(Bot, match.bots[bot_index])
        if bot is None or not access.may_read_output(account, bot):
            raise missing
        path = Path(match.record_dir) / log_name(bot_index, bot.label)
    return output_answer(path, missing, f"match{match_id}-bot{bot_index}")


@router.get(API + "/games/{game_id}", tags=["games"], response_model=GameOut)
def api_game(request: Request, game_id: Id, account: Viewer) -> dict[str, Any]:
    """A stored game: its seats (bots, owners, scores, ranks, failures), what you may see of it."""
    with request.app.state.store() as session:
        info = stored_game(session, game_id)
    return game_out(info, account)


@router.get(API + "/games/{game_id}/replay", tags=["games"], response_model=ReplayOut,
            responses={403: {"description": "a seat's view or the full table you may not see yet"}})
def api_replay(request: Request, game_id: Id, account: Viewer, seat: SeatQuery = None,
               step: StepQuery = None) -> Response:
    """Every step of the game as ``seat`` saw it, or as the full table (``all``, once the game
    is over)."""
    with request.app.state.store() as session:
        info = stored_game(session, game_id)
    return replay_answer(request, info, account, seat, step)


@router.get(API + "/leagues/{name}/live", tags=["games"], response_model=LiveOut)
def api_live(request: Request, response: Response, name: str, account: Viewer) -> dict[str, Any]:
    """The league's matches being played, and their games so far (their decisions and scores:
    to the owners of the match's bots only)."""
    with request.app.state.store() as session:
        data = live_out(session, name, account)
    response.headers.update(PRIVATE)
    return data


LIVE_GAME = "/leagues/{name}/live/{round_}/{table}/games/{index}"


@router.get(API + LIVE_GAME, tags=["games"], response_model=GameOut)
def api_live_game(request: Request, name: str, round_: Number, table: str, index: Number, account: Viewer) -> Response:
    """A game of a match being played (once the match is stored: a redirect to its game)."""
    info = live_or_moved(request, name, round_, table, index, f"{API}/games/{{id}}", keep_query=False)
    if isinstance(info, RedirectResponse):
        return info
    return Response(GameOut(**game_out(info, account)).model_dump_json(),
                    media_type="application/json", headers=PRIVATE)


@router.get(API + LIVE_GAME + "/replay", tags=["games"], response_model=ReplayOut,
            responses={403: {"description": "a seat's view or the full table you may not see yet"}})
def api_live_replay(request: Request, name: str, round_: Number, table: str, index: Number, account: Viewer,
                    seat: SeatQuery = None, step: StepQuery = None) -> Response:
    """A running game so far, as ``seat`` saw it: to the owner of that seat's bot only until the
    game is over. The full table is refused to everyone while it is played."""
    info = live_or_moved(request, name, round_, table, index, f"{API}/games/{{id}}/replay")
    if isinstance(info, RedirectResponse):
        return info
    return replay_answer(request, info, account, seat, step)


# -- a step drawn -----------------------------------------------------------------------------------------
@router.get("/games/{game_id}/table.svg", include_in_schema=False)  # a page's picture (docs/api.md)
def game_table(request: Request, game_id: Id, account: Viewer, seat: SeatQuery = None, step: StepQuery = None,
               download: DownloadQuery = False, narrow: NarrowQuery = False) -> Response:
    """The table at step ``step`` (default: the last) as ``seat`` saw it, or the full table
    (``all``), drawn as SVG; no seat: the replay page's default (the full table if you may see it,
    else your first seat)."""
    with request.app.state.store() as session:
        info = stored_game(session, game_id)
    return table_answer(request, info, account, seat, step, download, narrow)


@router.get(LIVE_GAME + "/table.svg", include_in_schema=False)
def live_game_table(request: Request, name: str, round_: Number, table: str, index: Number, account: Viewer,
                    seat: SeatQuery = None, step: StepQuery = None, download: DownloadQuery = False,
                    narrow: NarrowQuery = False) -> Response:
    """A running game's table at a step, as ``seat`` saw it (to the owner of its bot only); once
    its match is stored, a redirect to the stored game's."""
    info = live_or_moved(request, name, round_, table, index, "/games/{id}/table.svg")
    if isinstance(info, RedirectResponse):
        return info
    return table_answer(request, info, account, seat, step, download, narrow)


# -- the pages ---------------------------------------------------------------------------------------------
def _render(request: Request, template: str, context: dict[str, Any], private: bool = False) -> Response:
    response = render(request, template, context)
    if private:
        response.headers.update(PRIVATE)
    return response


@router.get("/matches/{match_id}", include_in_schema=False)
def match_page(request: Request, match_id: Id, account: Viewer) -> Response:
    with request.app.state.store() as session:
        data, league = match_out(session, match_id, account)
    names = {b["bot_id"]: f"{b['bot']}@{b['version']}" for b in data["bots"]}
    return _render(request, "match.html", {"match": data, "names": names, "score": scorer(league.game)},
                   private=not data["public"])


@router.get("/games/{game_id}", include_in_schema=False)
def game_page(request: Request, game_id: Id, account: Viewer, seat: str | None = None,
              step: int | None = None) -> Response:
    with request.app.state.store() as session:
        info = stored_game(session, game_id)
    return game_page_of(request, info, account, seat, step)


@router.get("/leagues/{name}/live", include_in_schema=False)
def live_page(request: Request, name: str, account: Viewer) -> Response:
    with request.app.state.store() as session:
        data = live_out(session, name, account)
        league = get_league(session, name)
        pictures = live_pictures(session, league, data, account)
    return _render(request, "live.html", {"live": data, "score": scorer(league.game), "pictures": pictures},
                   private=True)


def live_pictures(session: Session, league: League, data: dict[str, Any], account: Account | None) -> dict[str, str]:
    """Each running game's drawn table, at its last step, as the asker's first seat in it sees it
    (``access.may_see_seat``): {game page: picture}. A running game is never public, so nobody
    else gets one, and the full table nobody."""
    if get_game(league.game).table is None:
        return {}
    out = {}
    for m in data["matches"]:
        row = live_match(session, league, m["round"], m["table"])
        if row is None:
            continue
        try:
            spec = load_spec(Path(row.record_dir) / "spec.json")
        except SpecError:
            continue
        bots = _bots(session, row.bots)
        for g in m["games"]:
            if g["over"]:
                continue
            seat_bots = [bots[row.bots[spec.bot_at(g["index"], s)]][0] for s in range(spec.num_players)]
            seen = access.Game(False, seat_bots)
            seat = next((s for s in range(len(seat_bots)) if access.may_see_seat(account, seen, s)), None)
            if seat is not None:
                out[g["url"]] = f"{g['url']}/table.svg?seat={seat}"
    return out


@router.get(LIVE_GAME, include_in_schema=False)
def live_game_page(request: Request, name: str, round_: Number, table: str, index: Number, account: Viewer,
                   seat: str | None = None, step: int | None = None) -> Response:
    info = live_or_moved(request, name, round_, table, index, "/games/{id}", status=303)
    if isinstance(info, RedirectResponse):
        return info
    return game_page_of(request, info, account, seat, step)


def game_page_of(request: Request, info: GameInfo, account: Account | None, seat: str | None,
               step: int | None) -> Response:
    if seat is None:
        chosen = default_seat(info, account)
    else:
        chosen = parse_seat(info, seat)
        check_seat(info, account, chosen)
    replay = None if chosen is False else load_replay(info, chosen, account)
    if replay is not None:
        info.decisions = replay.decisions  # the record may have grown since it was first read
    game = game_out(info, account)
    context: dict[str, Any] = {"info": info, "game": game, "replay": replay, "seat": chosen,
                               "seat_param": "all" if chosen is None else chosen, "score": scorer(info.game)}
    spec = get_game(info.game)
    context["heading"] = heading(info)
    if replay is not None:
        last = len(replay.steps) - 1
        at = last if step is None else min(max(step, 0), last)
        drawn = spec.table is not None
        context.update(step=replay.steps[at], at=at, last=last, drawn=drawn, picture=f"{info.page}/table.svg",
                       layout=layout(info.game, replay, replay.steps[at]), **summary(replay, drawn),
                       config={"api": f"{info.api}/replay", "names": info.names(),
                               "svg": f"{info.page}/table.svg" if drawn else None,
                               "first": list(spec.view_first), "seat_fields": list(spec.seat_fields),
                               "meta": list(META), "live": not info.over})
    return _render(request, "game.html", context, private=not info.public or bool(replay and replay.debug))


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def heading(info: GameInfo) -> dict[str, Any]:
    """The page's title in words, counted as a person counts (the 1st game, not game 0); a stored
    game is named by its id, as its address is."""
    nth = ordinal(info.index + 1)
    if info.scrimmage is not None:
        title = f"{nth} game of scrimmage {info.scrimmage[0]}"
    elif info.id is not None:
        title = f"Game {info.id} · {nth} of match {info.match_id}"
    else:
        title = f"{nth} game of a match being played"
    found = re.fullmatch(r"c\d+d(\d+)", info.deal)  # arena/league/schedule.py's codes: the round tells the cycle
    deal = f"deal {int(found[1]) + 1}" if found else f"deal {info.deal}"
    return {"title": title[0].upper() + title[1:], "nth": nth, "of": info.of, "deal": deal}


def summary(replay: replays.Replay, drawn: bool) -> dict[str, Any]:
    """The end of the game as the replay's seat knows it: a line a seat, best first, and the
    scoring as the game's drawn table breaks it down at the end (its zones titled "Scoring...",
    the table's and each seat's: ``[(whose, title, lines)]``)."""
    if replay.result is None:
        return {"summary": (), "breakdown": ()}
    last = len(replay.steps) - 1
    breakdown: list[tuple[str, str, list[str]]] = []
    if drawn:
        try:
            scene = tables.scene_of(replay, last)
        except Exception:  # noqa: BLE001 - a drawing that fails leaves the page as it was
            scene = None
        areas = [("the table", scene.centre)] if scene else []
        areas += [(f"seat {a.seat} · {replay.names[a.seat]}", a.zones) for a in scene.seats] if scene else []
        breakdown = [(whose, zone.title, [item.text for item in zone.items if isinstance(item, Text)])
                     for whose, zones in areas for zone in zones if zone.title.startswith("Scoring")]
    return {"summary": tables.frame_of(replay, last).result, "breakdown": breakdown}


def scorer(game: str) -> Callable[[int], str]:
    """A score as the game counts it ("$12,000" in Prohis, "7 points" elsewhere)."""
    spec = get_game(game)
    return lambda score: format_score(spec, score)


# -- the table of one step, laid out (replay.js lays it out the same way) -----------------------------------
def ordered(game: str, keys: list[str]) -> list[str]:
    """A view's fields in the order shown: the game's first fields, then the rest as they come."""
    first = [k for k in get_game(game).view_first if k in keys]
    return first + [k for k in keys if k not in first and k not in META]


def layout(game: str, replay: replays.Replay, step: dict[str, Any]) -> dict[str, Any]:
    """For one seat: its fields. For the full table: the fields every seat sees alike (shown
    once), and each seat's own."""
    if replay.seat is not None:
        return {"fields": ordered(game, list(step["view"])), "players": step["view"].get("players")}
    views = step["views"]
    keys = ordered(game, list(views[0]))
    shared = [k for k in keys if all(v.get(k) == views[0].get(k) for v in views)]
    own = [k for k in keys if k not in shared]
    if all(v.get("players") == views[0].get("players") for v in views):
        return {"fields": shared, "own": own, "players": views[0].get("players")}
    return {"fields": shared, "own": [*own, "players"], "players": None}
