"""Teams: accounts that hold bot names together. A team has members, each an owner or a plain
member; a bot name is a person's or a team's (``Bot.team_id``) for all its versions.

Every member submits versions of the team's bots and sees what a bot's owner sees (its seats'
views, its results, its output); only owners add and remove members, change roles and retire the
team's bots, and a team keeps at least one owner. What each may do is ``arena/access.py``'s; this
module changes the rows, asking it first. The web server (``arena/web/teams.py``) and the command
line (``arena team``, the operator's, as :data:`OPERATOR`) work through these functions.

A team's name follows the accounts' rule (:data:`arena.accounts.NAME`), is unique whatever its case,
and is no account's name: pages show a team bot's owner as the team's name, so it must not pass
for a person.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from . import access
from .accounts import NAME, Account
from .league import LeagueError, NotAllowed
from .store import Bot, Store, Team, TeamMember, User
from .store.models import TeamRole

ROLES: tuple[TeamRole, ...] = ("owner", "member")


class TeamError(LeagueError):
    """Something the teams refuse; the message says what to do (the web server answers it as a
    LeagueError: 404 for "no ...", else 400)."""


class Operator:
    """The command line on the store's machine: it holds the store, so no rule applies to it."""

    def __repr__(self) -> str:
        return "OPERATOR"


OPERATOR: Final = Operator()
Asker = Account | Operator


@dataclass(frozen=True)
class Member:
    name: str
    role: str
    added_at: datetime


@dataclass(frozen=True)
class TeamBot:
    id: int
    name: str
    version: str
    retired: bool


@dataclass(frozen=True)
class TeamInfo:
    """A team as its page shows it: members only to whom :func:`arena.access.may_see_members` allows."""

    id: int
    name: str
    created_at: datetime
    members: list[Member] | None  # None: not the asker's to see
    bots: list[TeamBot]


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a team's name, or None."""
    if NAME.fullmatch(name):
        return None
    return (f"{name[:80]!r} is not a team name: 1-64 letters, digits, '_', '.' or '-', starting with a letter or "
            "digit")


def name_taken(session: Any, name: str) -> bool:
    """Whether ``name`` is a team's or an account's, whatever its case (sign-up asks it too)."""
    key = name.lower()
    return bool(session.scalar(select(Team.id).where(Team.name_key == key))
                or session.scalar(select(User.id).where(func.lower(User.name) == key)))


def _check(asker: Asker, allowed: bool, message: str) -> None:
    if not isinstance(asker, Operator) and not allowed:
        raise NotAllowed(message)


def get_team(session: Any, name: str) -> Team:
    team = session.scalar(select(Team).where(Team.name_key == name.lower())) if len(name) <= 64 else None
    if team is None:
        raise TeamError(f"no team {name[:80]!r}")
    return team


def _user(session: Any, name: str) -> User:
    user = session.scalar(select(User).where(User.name == name)) if len(name) <= 64 else None
    if user is None:
        raise TeamError(f"no account {name[:80]!r}")
    return user


def _role(role: str) -> TeamRole:
    for known in ROLES:
        if role == known:
            return known
    raise TeamError(f"{role[:20]!r} is not a team role: owner or member")


def create_team(store: Store, name: str, asker: Asker, owner: str | None = None) -> Team:
    """A new team ``name`` whose first owner is ``asker`` (the command line names ``owner``)."""
    if problem := name_problem(name):
        raise TeamError(problem)
    _check(asker, access.may_create_team(asker if isinstance(asker, Account) else None), "sign in to create a team")
    try:
        with store() as session, session.begin():
            if name_taken(session, name):
                raise TeamError(f"the name {name!r} is taken (by a team or an account, in some case): pick another")
            if isinstance(asker, Account):
                owner_id = asker.id
            elif owner is not None:
                owner_id = _user(session, owner).id
            else:
                raise TeamError("a team needs an owner: name one")
            team = Team(name=name, name_key=name.lower())
            session.add(team)
            session.flush()
            session.add(TeamMember(team_id=team.id, user_id=owner_id, role="owner"))
    except IntegrityError:  # another request made it first
        raise TeamError(f"the name {name!r} is taken: pick another") from None
    return team


def add_member(store: Store, team_name: str, user_name: str, asker: Asker, role: str = "member") -> None:
    """Puts account ``user_name`` in the team as ``role`` (its owners only)."""
    role = _role(role)
    with store() as session, session.begin():
        team = get_team(session, team_name)
        _check(asker, access.may_manage_team(asker, team.id) if isinstance(asker, Account) else True,
               f"only an owner of team {team.name} adds members")
        user = _user(session, user_name)
        if session.scalar(select(TeamMember.id).where(TeamMember.team_id == team.id, TeamMember.user_id == user.id)):
            raise TeamError(f"{user.name} is in team {team.name} already (change their role instead)")
        session.add(TeamMember(team_id=team.id, user_id=user.id, role=role))


def _membership(session: Any, team: Team, user_name: str) -> TeamMember:
    user = _user(session, user_name)
    row = session.scalar(select(TeamMember).where(TeamMember.team_id == team.id, TeamMember.user_id == user.id)
                         .with_for_update())
    if row is None:
        raise TeamError(f"no member {user.name} in team {team.name}")
    return row


def _locked(session: Any, team_name: str) -> Team:
    """The team, its row locked to the end of the transaction (PostgreSQL; SQLite has one writer
    at a time): two owners stepping down at once cannot leave it with none."""
    team = get_team(session, team_name)
    session.execute(select(Team.id).where(Team.id == team.id).with_for_update())
    return team


def _keeps_an_owner(session: Any, team: Team) -> None:
    session.flush()
    owners = session.scalar(select(func.count()).where(TeamMember.team_id == team.id, TeamMember.role == "owner"))
    if not owners:
        raise TeamError(f"team {team.name} must keep at least one owner: make another member an owner first")


def remove_member(store: Store, team_name: str, user_name: str, asker: Asker) -> None:
    """Takes ``user_name`` out of the team: an owner does, or that member leaves. Their access to
    the team's bots ends with the transaction (it is read again on their next request)."""
    with store() as session, session.begin():
        team = _locked(session, team_name)
        row = _membership(session, team, user_name)
        _check(asker, access.may_remove_member(asker, team.id, row.user_id) if isinstance(asker, Account) else True,
               f"only an owner of team {team.name} removes members (a member may leave)")
        session.delete(row)
        _keeps_an_owner(session, team)


def set_role(store: Store, team_name: str, user_name: str, role: str, asker: Asker) -> None:
    """Makes ``user_name`` an owner or a plain member of the team (its owners only)."""
    role = _role(role)
    with store() as session, session.begin():
        team = _locked(session, team_name)
        _check(asker, access.may_manage_team(asker, team.id) if isinstance(asker, Account) else True,
               f"only an owner of team {team.name} changes roles")
        _membership(session, team, user_name).role = role
        _keeps_an_owner(session, team)


def teams_of(store: Store, user_id: int) -> list[tuple[Team, str]]:
    """The teams account ``user_id`` is in, with its role in each, by name."""
    with store() as session:
        return [(team, role) for team, role in session.execute(
            select(Team, TeamMember.role).join(TeamMember, TeamMember.team_id == Team.id)
            .where(TeamMember.user_id == user_id).order_by(Team.name_key)).all()]


def all_teams(store: Store) -> list[tuple[Team, list[Member]]]:
    """Every team with its members (the command line's list), by name."""
    with store() as session:
        teams = list(session.scalars(select(Team).order_by(Team.name_key)))
        members = _members(session, [t.id for t in teams])
    return [(team, members.get(team.id, [])) for team in teams]


def _members(session: Any, team_ids: list[int]) -> dict[int, list[Member]]:
    out: dict[int, list[Member]] = {}
    for team_id, name, role, added in session.execute(
            select(TeamMember.team_id, User.name, TeamMember.role, TeamMember.added_at)
            .join(User, User.id == TeamMember.user_id).where(TeamMember.team_id.in_(team_ids))
            .order_by(TeamMember.role.desc(), User.name)):  # owners first
        out.setdefault(team_id, []).append(Member(name, role, added))
    return out


def team_info(store: Store, name: str, asker: Account | None) -> TeamInfo:
    """Team ``name``: its bots (public, as any bot is), and its members if the asker may see them."""
    with store() as session:
        team = get_team(session, name)
        members = _members(session, [team.id]).get(team.id, []) if access.may_see_members(asker, team.id) else None
        bots = [TeamBot(b.id, b.name, b.version, b.retired_at is not None) for b in session.scalars(
            select(Bot).where(Bot.team_id == team.id).order_by(Bot.name, Bot.id))]
    return TeamInfo(team.id, team.name, team.created_at, members, bots)


def team_for_submission(store: Store, account: Account, team_name: str | None, bot_name: str) -> int | None:
    """The team a version of ``bot_name`` is for: the one named (``team_name``, case as any), else
    the name's own if a team holds it, else None (the account's own). Whether the account may
    submit it is :func:`arena.bots.submit.check_may_submit`'s to say."""
    with store() as session:
        if team_name:
            return get_team(session, team_name).id
        return session.scalar(select(Bot.team_id).where(Bot.name == bot_name, Bot.team_id.is_not(None)).limit(1))
