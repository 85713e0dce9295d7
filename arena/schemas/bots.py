"""Bots: the API's bot page and retirement; the command line's ``bot list``, ``bot new
--list-languages`` and ``images list``."""

from __future__ import annotations

from pydantic import Field

from ..bots.config import BotProtocol
from .fields import (
    BotId,
    BotName,
    ClaimedGames,
    DeclaredAuthor,
    Exposure,
    FailureRate,
    GameName,
    GamesPlayed,
    Language,
    LeagueName,
    Moment,
    Mu,
    Out,
    Owner,
    Rank,
    Reason,
    Round,
    Sigma,
    Version,
    Wins,
)


class VersionOut(Out):
    """Another version of the bot's name."""

    id: BotId
    version: Version
    created_at: Moment = Field(description="when it was registered")
    retired: bool = Field(description="retired: it plays no new match")


class BotLeagueOut(Out):
    """The bot's standing in one league."""

    league: LeagueName
    game: GameName
    rank: Rank
    entrants: int = Field(ge=1, description="bot versions entered in the league")
    exposure: Exposure
    mu: Mu
    sigma: Sigma
    games: GamesPlayed
    wins: Wins
    failure_rate: FailureRate


class HistoryOut(Out):
    """Its rating after one rated game."""

    game: int = Field(ge=1, description="the bot's n-th rated game, from 1")
    game_id: int = Field(ge=1, description="the game's id")
    mu: Mu
    sigma: Sigma


class HeadToHeadOut(Out):
    """Its record against one opponent, over the games they played together."""

    opponent_id: BotId = Field(description="the opponent's id")
    opponent: BotName = Field(description="the opponent's name")
    version: Version = Field(description="the opponent's version")
    games: int = Field(ge=0, description="games played together")
    wins: int = Field(ge=0, description="games this bot finished ahead of the opponent")
    losses: int = Field(ge=0, description="games it finished behind")
    draws: int = Field(ge=0, description="games it finished level")
    mean_rank_difference: float = Field(description="mean of (opponent's rank - this bot's rank): positive when "
                                                    "this bot finishes ahead on average")


class Opponent(Out):
    """A bot version it met."""

    id: BotId
    name: BotName
    version: Version


class RecentMatchOut(Out):
    """One of its recent matches."""

    match_id: int = Field(ge=1, description="the match's id")
    round: Round
    finished_at: Moment = Field(description="when it finished")
    opponents: list[Opponent] = Field(description="the other bots of the table")
    ranks: list[int] = Field(description="the bot's rank in each game of the match")
    mean_rank: float = Field(description="their mean")
    wins: int = Field(ge=0, description="games of the match it ranked first in")
    failures: list[str] = Field(description="the reason of each game it failed in")


class FailureCountOut(Out):
    """A reason the bot failed for, and how often."""

    reason: Reason
    games: int = Field(ge=1, description="games it failed in for this reason")


class BotOut(Out):
    """A bot version, its standing in each league it entered, and its record in one of them."""

    id: BotId
    name: BotName
    version: Version
    author: Owner
    declared_author: DeclaredAuthor
    language: Language
    owner: Owner = Field(description="the same as author (the account that submitted it, or its team; null: "
                                     "registered on the command line)")
    team: str | None = Field(description="the team whose bot name it is (author and owner are then its name too); "
                                         "null: a person's or the operator's")
    created_at: Moment = Field(description="when it was registered")
    retired_at: Moment | None = Field(description="when it was retired; null: not retired")
    disqualified_at: Moment | None = Field(description="when an admin disqualified it (it plays no new match, and its "
                                                       "name takes no new version); null: not disqualified")
    disqualified_reason: str | None = Field(description="the admin's reason, for its owner and admins; null for "
                                                        "anyone else, or when not disqualified")
    games: ClaimedGames
    versions: list[VersionOut] = Field(description="the other versions of its name, newest first")
    leagues: list[BotLeagueOut] = Field(description="every league it entered, by name")
    league: LeagueName | None = Field(description="the league the details below are of (null: none entered)")
    history: list[HistoryOut] = Field(description="its rating after each rated game of that league")
    head_to_head: list[HeadToHeadOut] = Field(description="against every opponent it met there")
    recent_matches: list[RecentMatchOut] = Field(description="its last matches there, newest first")
    failures: list[FailureCountOut] = Field(description="its failures there, by reason")


class Retired(Out):
    """A bot version, retired."""

    id: BotId
    name: BotName
    version: Version
    retired_at: Moment = Field(description="when it was retired")


# -- the command line's ----------------------------------------------------------------------------
class BotListed(Out):
    """One registered bot version, as ``arena bot list --json`` lists it."""

    bot_id: BotId
    bot: BotName
    version: Version
    language: Language
    author: DeclaredAuthor
    owner: Owner
    games: ClaimedGames
    image: str = Field(description="its container image (tag)")
    image_digest: str = Field(description="the image's ID it was registered with (sha256:...)")
    archived: bool = Field(description="its image is kept in the store for workers (arena images archive)")
    created_at: Moment = Field(description="when it was registered")
    retired_at: Moment | None = Field(description="when it was retired (it plays no new match); null: not retired")
    leagues: list[str] = Field(description="the leagues it entered, by name")


class StarterOut(Out):
    """One starter of ``arena bot new``."""

    language: str = Field(description="the --language that picks it (bot.toml's language)")
    protocol: BotProtocol = Field(description="what the bot speaks")
    base: str = Field(description="the base image its Dockerfile builds on")
    description: str = Field(description="what it builds on")


class BaseImageOut(Out):
    """One base image bots are built on."""

    language: str = Field(description="bot.toml's language that selects it")
    image: str = Field(description="its tag: name and recipe digest")
    present: bool = Field(description="whether this host's Docker engine has it")
    description: str = Field(description="what it holds")
