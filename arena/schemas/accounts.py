"""Accounts and their submissions: the API's ``/me`` and submissions; the command line's ``user
list``."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field

from ..store.models import SubmissionStatus
from .fields import BotId, BotName, Link, Moment, Out, Version

AccountName = Annotated[str, Field(description="the account's name")]
Admin = Annotated[bool, Field(description="an admin: may create and run leagues")]


class AccountOut(Out):
    """The account a request's token belongs to."""

    name: AccountName
    admin: Admin


class UserListed(Out):
    """One account of the web server, as ``arena user list --json`` lists it."""

    name: AccountName
    admin: Admin
    created_at: Moment = Field(description="when it was made")
    disabled_at: Moment | None = Field(description="when an admin disabled it; null: enabled")


class SubmissionSummary(Out):
    """A submission, without its log and report."""

    id: int = Field(ge=1, description="the submission's id")
    author: AccountName = Field(description="the account that uploaded it")
    team: str | None = Field(description="the team it is for (its members see it too); null: its author's own")
    status: SubmissionStatus = Field(description="queued, building, checking, then entered; or refused at any step")
    finished: bool = Field(description="entered or refused: it changes no more")
    bot_name: BotName = Field(description="the bot's name, from its bot.toml")
    bot_version: Version = Field(description="the bot's version, from its bot.toml")
    bot_id: BotId | None = Field(description="the registered bot, once entered")
    leagues: list[str] = Field(description="the leagues to enter it in")
    retire_previous: bool = Field(description="retire the name's earlier versions once this one is entered")
    error: str = Field(description="why it was refused; \"\" otherwise")
    created_at: datetime = Field(description="when it was uploaded (UTC)")
    updated_at: datetime = Field(description="when it last changed (UTC)")
    url: Link = Field(description="its page")
    api_url: Link = Field(description="its JSON")
    bot_url: Link | None = Field(description="the registered bot's page, once entered")


class SubmissionOut(SubmissionSummary):
    """A submission, with its build's output and its check's report."""

    log: str = Field(description="the build's output (the author's bot's words: escaped when stored, shown as text)")
    report: str = Field(description="the check's report")
