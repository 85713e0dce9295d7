"""What the models share: the base of every object (:class:`Out`: exactly its fields), a time
(:data:`Moment`), and the fields that several answers have, each defined once with its meaning.
A model that means something narrower overrides the description (``bot_id: BotId =
Field(description=...)``) and keeps the type and bounds."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field


class Out(BaseModel):
    """An object of an answer: exactly these fields, so a key added or missing fails validation."""

    model_config = ConfigDict(extra="forbid")


def as_utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)  # SQLite gives naive UTC


Moment = Annotated[datetime, AfterValidator(as_utc)]  # a time in an answer: always with its zone (UTC)

# -- a bot version ---------------------------------------------------------------------------------
BotId = Annotated[int, Field(ge=1, description="the bot version's id in the store")]
BotName = Annotated[str, Field(description="the bot's name (its author's text)")]
Version = Annotated[str, Field(description="the bot's version (its author's text)")]
Language = Annotated[str, Field(description="bot.toml's language")]
Label = Annotated[str, Field(description="a bot's label, NAME@VERSION")]
Owner = Annotated[str | None, Field(description="the account that owns it (that submitted it over HTTP), or the "
                                                "team's name for a team's bot; null: registered on the command line, "
                                                "the operator's")]
DeclaredAuthor = Annotated[str, Field(description="bot.toml's author: the author's own free text, not an identity")]
ClaimedGames = Annotated[list[str], Field(description="the games it claims to play; [] means all")]

# -- a league and its ratings ----------------------------------------------------------------------
LeagueName = Annotated[str, Field(description="the league's name")]
GameName = Annotated[str, Field(description="the game's name")]
Players = Annotated[int, Field(ge=1, description="players per table")]
Settings = Annotated[dict[str, Any], Field(description="the game's settings, complete")]
Schedule = Annotated[dict[str, Any], Field(description="deals, time control and failure policy (never the "
                                                         "league's secret)")]
Rank = Annotated[int, Field(ge=1, description="on the league's leaderboard, by mu - 3 sigma, best first")]
Exposure = Annotated[float, Field(description="mu - 3 sigma: the conservative rating")]
Mu = Annotated[float, Field(description="TrueSkill's mean")]
Sigma = Annotated[float, Field(description="TrueSkill's standard deviation")]
GamesPlayed = Annotated[int, Field(ge=0, description="stored games it played")]
Wins = Annotated[int, Field(ge=0, description="games it ranked first in, ties included")]
FailureRate = Annotated[float, Field(ge=0, description="the share of its games in which it failed")]

# -- a match and its games -------------------------------------------------------------------------
Round = Annotated[int, Field(ge=0, description="the schedule's round, from 0")]
Cycle = Annotated[int, Field(ge=0, description="the table's duplicate cycle, from 0")]
Table = Annotated[str, Field(description="the table: its bots' ids")]
GameIndex = Annotated[int, Field(ge=0, description="its place in the match, from 0")]
Deal = Annotated[str, Field(description="the deal's label: the same label in a table's cycle deals the same cards")]
Seat = Annotated[int, Field(ge=0, description="the seat, from 0")]
Reason = Annotated[str, Field(description="why a seat failed, as the referee records it (timeout, crash, illegal, "
                                          "malformed, ...)")]
Restarts = Annotated[list[Annotated[int, Field(ge=0)]],
                     Field(description="how often each bot's container was restarted, in the table's order")]
RecordDir = Annotated[str, Field(description="the folder of its records")]
Link = Annotated[str, Field(description="a path on this server")]
Links = Annotated[dict[str, str], Field(description="paths on this server, by what they show (self, league, ...)")]
