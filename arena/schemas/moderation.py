"""Moderation: the API's disqualifications, accounts as an admin sees them, and the audit log;
the command line's ``audit --json``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from .accounts import UserListed
from .fields import BotId, BotName, Moment, Out, Version


class DisqualifyIn(BaseModel):
    """What an admin sends to disqualify a bot."""

    reason: str = Field("", max_length=500, description="why (shown to the bot's owner and to admins)")


class Disqualified(Out):
    """A bot version's moderation state, once disqualified or requalified."""

    id: BotId
    name: BotName
    version: Version
    retired_at: Moment | None = Field(description="when it was retired (it plays no new match); null: it plays")
    disqualified_at: Moment | None = Field(description="when an admin disqualified it; null: not disqualified")
    reason: str = Field(description="the admin's reason; \"\" when not disqualified")


class UsersOut(Out):
    """Every account, by name (admins only)."""

    users: list[UserListed] = Field(description="the accounts")


class AuditEntryOut(Out):
    """One change: who, what, when, from where (never a secret)."""

    id: int = Field(ge=1, description="the entry's id: newer entries have greater ids")
    at: Moment = Field(description="when")
    actor: str = Field(description="the account's name; \"operator\" for the command line; \"-\" for nobody signed in")
    via: str = Field(description="web (a page's form), api, or cli")
    address: str = Field(description="the client's address; user@host for the command line")
    action: str = Field(description="http (a state-changing request), cli (a command that wrote to the store), or "
                                    "a domain action: bot.disqualify, user.disable, league.create, ...")
    method: str = Field(description="the HTTP method of an http entry; \"\" otherwise")
    route: str = Field(description="the route's template of an http entry (/api/v1/bots/{bot_id}/retire), or the "
                                   "command of a cli entry")
    target: str = Field(description="what it changed: ids and names")
    status: int | None = Field(description="the HTTP status of an http entry; null otherwise")
    detail: dict[str, Any] = Field(description="more about it (a reason, the tables written); no secrets")


class AuditPage(Out):
    """A page of the audit log, newest first."""

    entries: list[AuditEntryOut] = Field(description="the entries")
    next_before: int | None = Field(description="pass as ?before= for the next (older) page; null: no more")
