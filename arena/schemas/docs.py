"""The docs' tables of fields, drawn from the models' JSON Schema: docs/cli.md's section on each
listing's ``--json`` (``python -m arena.schemas.docs cli``) and docs/api.md's on each answer
(``python -m arena.schemas.docs api``); tests check that the pages hold exactly this text.

:data:`LISTINGS` names the command line's listings (a command that prints a list of things, or one
stored record) and the model of each one's ``--json``; a test of the command tree holds every
other command to a stated reason for having none. :data:`ANSWERS` are the API's answers, which a
test holds every route of ``/api/v1/`` to.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter

from .accounts import (
    AccountOut,
    InviteOut,
    NewInvite,
    NewToken,
    PasswordChanged,
    SignedUp,
    SubmissionOut,
    SubmissionSummary,
    TokenOut,
    UserListed,
)
from .bots import BaseImageOut, BotListed, BotOut, Retired, StarterOut
from .fields import Out
from .games import GameOut, LiveOut, MatchOut, ReplayOut, StoredGameOut, StoredMatchOut
from .leagues import (
    Crosstable,
    FormatStandings,
    Leaderboard,
    LeaderboardRow,
    LeagueListed,
    LeagueOut,
    LeagueStatus,
    RunState,
)
from .moderation import AuditEntryOut, AuditPage, Disqualified, UsersOut
from .notifications import DeliveryOut, FeedOut, Inbox, WebhookOut
from .scrimmages import ScrimmageOut
from .teams import TeamListed, TeamMembersListed, TeamOut


@dataclass(frozen=True)
class Listing:
    """A listing's ``--json``: a list of ``model``, or one ``model``."""

    model: type[Out]
    about: str | None = None  # what the list holds; None: one record, which its model's docstring says

    @property
    def shape(self) -> Any:
        return self.model if self.about is None else list[self.model]  # type: ignore[name-defined]


# the command line's listings, by command path; "bot new --list-languages" is a listing of an option
LISTINGS: dict[str, Listing] = {
    "audit": Listing(AuditEntryOut, "The audit log's entries, newest first."),
    "bot list": Listing(BotListed, "Every registered bot version (of NAME only, if given), by name then "
                                   "registration."),
    "bot new --list-languages": Listing(StarterOut, "Every language arena bot new writes a starter in."),
    "images list": Listing(BaseImageOut, "Every base image bots are built on."),
    "leaderboard": Listing(LeaderboardRow, "The league's entrants, best mu - 3 sigma first (the rows of the API's "
                                           "leaderboard)."),
    "league list": Listing(LeagueListed, "Every league, by name."),
    "league standings": Listing(FormatStandings),
    "league status": Listing(LeagueStatus),
    "scrimmage": Listing(ScrimmageOut),
    "show game": Listing(StoredGameOut),
    "show match": Listing(StoredMatchOut),
    "team list": Listing(TeamMembersListed, "Every team, by name, with its members."),
    "user invite": Listing(NewInvite),
    "user invites": Listing(InviteOut, "Every invite code, newest first (never the codes)."),
    "user list": Listing(UserListed, "Every account, by name."),
}

# the API's answers (a list of one: the same table)
ANSWERS: tuple[type[Out], ...] = (AccountOut, SignedUp, TokenOut, NewToken, PasswordChanged, InviteOut, NewInvite,
                                  LeagueOut, Leaderboard, Crosstable, FormatStandings, RunState, BotOut, Retired,
                                  MatchOut, GameOut,
                                  ReplayOut, LiveOut, SubmissionSummary, SubmissionOut, TeamListed, TeamOut,
                                  Disqualified, UsersOut, UserListed, AuditPage, Inbox, FeedOut, WebhookOut,
                                  DeliveryOut, ScrimmageOut)

HEADER = "| field | type | meaning |\n|---|---|---|\n"


def markdown(page: str) -> str:
    """The tables of docs/``page``.md (``cli`` or ``api``)."""
    if page == "cli":
        return "\n".join(_section(f"`arena {command} --json`", listing.shape, listing.about)
                         for command, listing in sorted(LISTINGS.items()))
    if page == "api":
        return "\n".join(_section(f"`{model.__name__}`", model) for model in ANSWERS)
    raise ValueError(f"no tables for {page!r}: cli or api")


def _section(title: str, shape: Any, about: str | None = None) -> str:
    schema = TypeAdapter(shape).json_schema(mode="serialization")
    defs = schema.get("$defs", {})
    about = about or _resolve(schema, defs)["description"]
    root = "[]" if schema.get("type") == "array" else ""
    fields = _children(schema, defs, root)
    rows = "\n".join(f"| `{path}` | {kind} | {_cell(meaning)} |" for path, kind, meaning in fields)
    return f"### {title}\n\n{_one_line(about)}\n\n{HEADER}{rows}\n"


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """A schema with its ``$ref`` followed (the field's own description kept)."""
    if "$ref" not in schema:
        return schema
    target = defs[schema["$ref"].rsplit("/", 1)[-1]]
    return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}


def _branches(schema: dict[str, Any]) -> list[dict[str, Any]]:
    branches: list[dict[str, Any]] = schema.get("anyOf", [schema])
    return branches


def _children(schema: dict[str, Any], defs: dict[str, Any], path: str) -> list[tuple[str, str, str]]:
    """(path, type, meaning) of every field inside ``schema`` (an object, an array of objects,
    either or null), depth first."""
    out = []
    for branch in (_resolve(b, defs) for b in _branches(_resolve(schema, defs))):
        if branch.get("type") == "array":
            out += _children(branch["items"], defs, path if path.endswith("[]") else path + "[]")
        elif branch.get("type") == "object":
            required = set(branch.get("required", ()))
            for key, field in branch.get("properties", {}).items():
                name = f"{path}.{key}" if path else key
                # a field's own description, else its model's docstring as a phrase ("The pace." -> "the pace")
                meaning = field.get("description") or _phrase(_resolve(field, defs).get("description", ""))
                if not meaning:
                    raise ValueError(f"{name}: no description (Field(description=...) or the model's docstring)")
                optional = "" if key in required else ", optional"
                out.append((name, _kind(field, defs) + optional, meaning))
                out += _children(field, defs, name)
    return out


def _kind(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """A field's type in words: ``integer >= 1``, ``string or null``, ``array of strings``, ..."""
    schema = _resolve(schema, defs)
    if "anyOf" in schema:
        return " or ".join(_kind(branch, defs) for branch in schema["anyOf"])
    kind = str(schema.get("type", "any"))
    if kind == "string" and schema.get("format") == "date-time":
        kind = "date-time string"
    elif kind == "array":
        kind = "array of " + _plural(_kind(schema["items"], defs))
    elif kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        kind = "object of " + _plural(_kind(schema["additionalProperties"], defs))
    if "enum" in schema:
        kind += ": " + " or ".join(f"`{value}`" for value in schema["enum"])
    if "minimum" in schema:
        kind += f" >= {schema['minimum']}"
    return kind


def _plural(kind: str) -> str:
    head, rest = re.match(r"([\w -]+?)((?: >=|:| or ).*)?$", kind).groups()  # type: ignore[union-attr]
    return f"{head}s{rest or ''}"


def _phrase(text: str) -> str:
    text = _one_line(text).removesuffix(".")
    return text[:1].lower() + text[1:]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _cell(text: str) -> str:
    return _one_line(text).replace("|", "\\|")


if __name__ == "__main__":  # the tables of docs/cli.md or docs/api.md
    print(markdown(sys.argv[1] if sys.argv[1:] else "cli"), end="")
