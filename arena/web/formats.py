"""A league's format's own standings, as a page and as JSON: a Swiss' points and tie-breaks, a
bracket, a gauntlet's challengers against the field (``arena/league/formats/``); the ratings
beside them are the leaderboard's. A round robin's and a ladder's standings are the leaderboard."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse, Response

from ..league.formats import standings_of
from ..schemas.leagues import FormatStandings
from .answers import API, render
from .auth import Viewer

router = APIRouter()


def _standings(request: Request, name: str) -> dict:
    data = standings_of(request.app.state.store, name)
    if data["board"] is None:
        raise HTTPException(404, f"a {data['format']} league has no standings but its leaderboard")
    return data


@router.get(API + "/leagues/{name}/standings", tags=["leagues"], response_model=FormatStandings)
def api_standings(request: Request, name: str) -> Response:
    """The league's format's own standings (Swiss, bracket, gauntlet; from complete duplicate
    cycles only), with each entrant's rating beside them; 404 for a round robin or a ladder."""
    return JSONResponse(_standings(request, name))


@router.get("/leagues/{name}/standings", include_in_schema=False)
def standings_page(request: Request, account: Viewer, name: str) -> Response:
    data = _standings(request, name)
    return render(request, "standings.html", {"data": data, "board": data["board"], "ratings": data["ratings"],
                                              "part": f"formats/{data['format']}.html"})
