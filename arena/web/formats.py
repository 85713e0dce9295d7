"""A league's format's own standings, as a page and as JSON: a Swiss' points and tie-breaks, a
bracket, a gauntlet's challengers against the field (``arena/league/formats/``); the ratings
beside them are the leaderboard's. A round robin's and a ladder's standings are the leaderboard."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy import select

from ..league.formats import standings_of
from ..league.standings import standings
from ..schemas.leagues import FormatStandings
from ..store import League, Store
from .answers import API, render
from .auth import Viewer
from .leagues import _app_state

router = APIRouter()


class Computed:
    """Each league's format standings, by standings version and the format's draw (made before
    the first match, which the version does not see): a Swiss' pairing or a bracket is computed
    from every stored game, once per change of the league, not once per request."""

    SIZE = 64

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.items: OrderedDict[tuple, dict[str, Any]] = OrderedDict()

    def get(self, store: Store, name: str) -> dict[str, Any]:
        version = standings(store, name).version  # an unknown league: LeagueError, a 404
        with store.engine.connect() as connection:
            schedule = connection.execute(select(League.schedule).where(League.name == name)).scalar_one()
        key = (name, version, json.dumps(schedule.get("draw"), sort_keys=True))
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        data = standings_of(store, name)
        with self.lock:
            self.items[key] = data
            while len(self.items) > self.SIZE:
                self.items.popitem(last=False)
        return data


def _standings(request: Request, name: str) -> dict:
    data = _app_state(request, "league_format_standings", Computed).get(request.app.state.store, name)
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
