"""Teams: the API's ``/teams`` answers, and the command line's ``team list``."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .accounts import AccountName
from .fields import BotId, BotName, Link, Moment, Out, Version

TeamName = Annotated[str, Field(description="the team's name (unique whatever its case; no account has it)")]
Role = Annotated[Literal["owner", "member"], Field(description="owner (manages the team) or member")]


class TeamListed(Out):
    """A team you are in."""

    name: TeamName
    role: Role = Field(description="your role in it")
    url: Link = Field(description="its page")
    api_url: Link = Field(description="its JSON")


class MemberOut(Out):
    """A member of a team."""

    name: AccountName
    role: Role
    added_at: Moment = Field(description="when they joined it")


class TeamBotOut(Out):
    """A bot version of a team's."""

    id: BotId
    name: BotName
    version: Version
    retired: bool = Field(description="it plays no new match")
    url: Link = Field(description="its page")


class TeamOut(Out):
    """A team: its bots for anyone; its members for its members (and admins)."""

    name: TeamName
    created_at: Moment = Field(description="when it was made")
    role: Role | None = Field(description="your role in it; null: you are not in it")
    members: list[MemberOut] | None = Field(description="owners first, then by name; null: not yours to see")
    bots: list[TeamBotOut] = Field(description="every version of its bot names, by name then registration")
    url: Link = Field(description="its page")


class TeamMembersListed(Out):
    """One team, as ``arena team list --json`` lists it."""

    name: TeamName
    created_at: Moment = Field(description="when it was made")
    members: list[MemberOut] = Field(description="owners first, then by name")
