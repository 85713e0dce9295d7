"""Teams: create one, list yours, a team's page (its bots for anyone, its members for its
members), and its owners' forms: add a member by account name, change a role, remove a member;
any member may leave. The rules are ``arena/access.py``'s and the changes ``arena/teams.py``'s;
every form and API call that changes something goes through :data:`~.auth.SignedIn`, so a
cookie request shows the session's CSRF token and comes from this site.

A member removed loses the team's bots at their next request: the account's teams are read with
it on every request (``arena/accounts.py``)."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, Field

from .. import teams
from ..accounts import Account
from ..schemas.teams import MemberOut, TeamBotOut, TeamListed, TeamOut
from .answers import API, render
from .auth import SignedIn, Viewer

router = APIRouter()
TEAMS = API + "/teams"


class CreateTeam(BaseModel):
    name: str = Field(description="1-64 letters, digits, '_', '.' or '-', a letter or digit first; no team's or "
                                  "account's name in any case")


class AddMember(BaseModel):
    name: str = Field(description="the account's name")
    role: str = Field("member", description="owner or member")


class ChangeRole(BaseModel):
    role: str = Field(description="owner or member")


def _page(name: str) -> str:
    return f"/teams/{quote(name, safe='')}"


def _team_out(request: Request, name: str, account: Account | None) -> TeamOut:
    info = teams.team_info(request.app.state.store, name, account)
    role = next((m.role for m in info.members or [] if account is not None and m.name == account.name), None)
    return TeamOut(name=info.name, created_at=info.created_at, role=role,
                   members=None if info.members is None else
                   [MemberOut(name=m.name, role=m.role, added_at=m.added_at)
                    for m in info.members],
                   bots=[TeamBotOut(id=b.id, name=b.name, version=b.version, retired=b.retired, url=f"/bots/{b.id}")
                         for b in info.bots], url=_page(info.name))


def _mine(request: Request, account: Account) -> list[TeamListed]:
    return [TeamListed(name=team.name, role=role, url=_page(team.name),
                       api_url=f"{TEAMS}/{quote(team.name, safe='')}")
            for team, role in teams.teams_of(request.app.state.store, account.id)]


# -- the API --------------------------------------------------------------------------------------
@router.get(TEAMS, tags=["teams"])
def api_my_teams(request: Request, account: SignedIn) -> list[TeamListed]:
    """The teams you are in, by name, with your role in each."""
    return _mine(request, account)


@router.post(TEAMS, tags=["teams"], status_code=201)
def api_create(request: Request, account: SignedIn, body: CreateTeam) -> TeamOut:
    """Creates a team; you are its first owner."""
    team = teams.create_team(request.app.state.store, body.name, account)
    return _team_out(request, team.name, _reloaded(request, account))


@router.get(TEAMS + "/{name}", tags=["teams"])
def api_team(request: Request, account: Viewer, name: str) -> TeamOut:
    """A team: its bots; its members if you are one of them."""
    return _team_out(request, name, account)


@router.post(TEAMS + "/{name}/members", tags=["teams"], status_code=201)
def api_add_member(request: Request, account: SignedIn, name: str, body: AddMember) -> TeamOut:
    """Adds an account to the team (its owners only)."""
    teams.add_member(request.app.state.store, name, body.name, account, body.role)
    return _team_out(request, name, account)


@router.patch(TEAMS + "/{name}/members/{member}", tags=["teams"])
def api_change_role(request: Request, account: SignedIn, name: str, member: str, body: ChangeRole) -> TeamOut:
    """Makes a member an owner or a plain member (the team's owners only; it keeps at least one owner)."""
    teams.set_role(request.app.state.store, name, member, body.role, account)
    return _team_out(request, name, _reloaded(request, account))


@router.delete(TEAMS + "/{name}/members/{member}", tags=["teams"])
def api_remove_member(request: Request, account: SignedIn, name: str, member: str) -> TeamOut:
    """Removes a member (the team's owners), or leaves it (your own name). Their access to the
    team's bots ends at once. The team keeps at least one owner."""
    teams.remove_member(request.app.state.store, name, member, account)
    return _team_out(request, name, _reloaded(request, account))


def _reloaded(request: Request, account: Account) -> Account:
    """The asker as the store says now: a change to their own membership shows in the answer."""
    from ..accounts import account_of
    from ..store import User

    with request.app.state.store() as session:
        user = session.get(User, account.id)
        return account_of(session, user) if user is not None else account


# -- the pages ------------------------------------------------------------------------------------
@router.get("/teams", include_in_schema=False)
def teams_page(request: Request, account: SignedIn) -> Response:
    return render(request, "teams.html", {"teams": _mine(request, account)})


@router.post("/teams", include_in_schema=False)
def create_form(request: Request, account: SignedIn, name: Annotated[str, Form()] = "") -> Response:
    team = teams.create_team(request.app.state.store, name.strip(), account)
    return RedirectResponse(_page(team.name), status_code=303)


@router.get("/teams/{name}", include_in_schema=False)
def team_page(request: Request, account: Viewer, name: str) -> Response:
    team = _team_out(request, name, account)
    return render(request, "team.html", {"team": team, "roles": teams.ROLES,
                                         "manages": team.role == "owner"})


@router.post("/teams/{name}/members", include_in_schema=False)
def add_form(request: Request, account: SignedIn, name: str, member: Annotated[str, Form()] = "",
             role: Annotated[str, Form()] = "member") -> Response:
    teams.add_member(request.app.state.store, name, member.strip(), account, role)
    return RedirectResponse(_page(name), status_code=303)


@router.post("/teams/{name}/members/{member}/role", include_in_schema=False)
def role_form(request: Request, account: SignedIn, name: str, member: str,
              role: Annotated[str, Form()] = "") -> Response:
    teams.set_role(request.app.state.store, name, member, role, account)
    return RedirectResponse(_page(name), status_code=303)


@router.post("/teams/{name}/members/{member}/remove", include_in_schema=False)
def remove_form(request: Request, account: SignedIn, name: str, member: str) -> Response:
    teams.remove_member(request.app.state.store, name, member, account)
    return RedirectResponse("/teams" if member == account.name else _page(name), status_code=303)
