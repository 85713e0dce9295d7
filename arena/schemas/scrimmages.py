"""Scrimmages: what the API takes to ask for one and what it answers (``arena/scrimmage.py``; who
sees what: ``arena/access.py``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .fields import BotId, BotName, Deal, GameName, Link, Links, Moment, Out, Owner, Players, Round, Version

ScrimmageStatus = Literal["queued", "running", "done", "failed"]
BOT_REF = "a bot: NAME (its newest version that plays) or NAME@VERSION"
HIDDEN = "null: not told you (no bot of this game is yours)"


class CreateScrimmage(BaseModel):
    """What ``POST /api/v1/scrimmages`` and ``arena scrimmage`` take."""

    bot: str = Field(max_length=200, description=f"your player: {BOT_REF}, one of your own")
    opponents: list[str] = Field(min_length=1, max_length=15, description=f"each {BOT_REF}, entered in a league "
                                                                          "and not retired")
    game: str | None = Field(None, max_length=32, description="the game; default: the game of a league your bot "
                                                              "is entered in that every bot plays")
    games: int | None = Field(None, ge=1, description="games to play: a multiple of the seats, at most the server's "
                                                      "--scrimmage-max-games; default one duplicate cycle (seats x "
                                                      "seats)")


class ScrimmageBotOut(Out):
    """A bot of a scrimmage, and its line of the result table."""

    index: int = Field(ge=0, description="its place in the scrimmage: 0 is the challenger's bot")
    bot_id: BotId
    bot: BotName
    version: Version
    owner: Owner
    games: int | None = Field(ge=0, description=f"games it played; {HIDDEN}")
    wins: float | None = Field(ge=0, description=f"games it ranked first in (a tie for first shares it); {HIDDEN}")
    mean_rank: float | None = Field(description=f"its mean rank, 1 is best; null before a game; {HIDDEN}")
    total_score: int | None = Field(description=f"its scores summed; {HIDDEN}")
    failures: int | None = Field(ge=0, description=f"games in which it failed; {HIDDEN}")


class ScrimmageGameOut(Out):
    """A stored game of a scrimmage."""

    number: int = Field(ge=0, description="its place in the scrimmage, from 0")
    round: Round = Field(description="its match, from 0 (each match is one seat rotation of the cycle)")
    deal: Deal
    seats: list[BotId] = Field(description="the bot in each seat")
    scores: list[int] | None = Field(description=f"by seat; {HIDDEN}")
    ranks: list[int] | None = Field(description=f"by seat, 1 is best; {HIDDEN}")
    failures: list[str] | None = Field(description=f"by seat: \"\" or why it failed; {HIDDEN}")
    url: Link = Field(description="its page, with its replay")


class ScrimmageOut(Out):
    """A scrimmage: unrated games of a challenger's bot against opponents; never public."""

    id: int = Field(ge=1, description="the scrimmage's id")
    url: Link = Field(description="its page")
    api_url: Link = Field(description="this answer")
    status: ScrimmageStatus = Field(description="queued, running (its games so far are stored), then done or failed")
    error: str = Field(description="why it failed; \"\" otherwise")
    challenger: str = Field(description="the account that asked for it")
    game: GameName
    players: Players
    games: int = Field(ge=1, description="games asked for")
    played: int = Field(ge=0, description="games stored so far")
    ahead: int = Field(ge=0, description="scrimmages queued before it (0 once it plays)")
    created_at: Moment = Field(description="when it was asked for")
    started_at: Moment | None = Field(description="when its first match started; null while queued")
    finished_at: Moment | None = Field(description="when it ended; null before")
    bots: list[ScrimmageBotOut] = Field(description="the challenger's first, then the opponents")
    results: list[ScrimmageGameOut] = Field(description="its stored games, in order")
    links: Links
