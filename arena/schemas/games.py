"""Matches, games and replays: the API's (what the asker may see of them: ``arena/access.py``'s
rules) and the command line's ``show match`` and ``show game`` (the operator's: everything)."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from .fields import (
    BotId,
    BotName,
    Cycle,
    Deal,
    GameIndex,
    GameName,
    Language,
    LeagueName,
    Link,
    Links,
    Moment,
    Out,
    Owner,
    Reason,
    RecordDir,
    Restarts,
    Round,
    Seat,
    Table,
    Version,
)

HIDDEN = "null: not told you yet (the game is not public, and no seat of it is yours)"


class SeatOut(Out):
    """One seat of a game, and what you may see of it."""

    seat: Seat
    bot_id: BotId
    bot: BotName
    version: Version
    owner: Owner
    score: int | None = Field(description=f"its score in the game's unit; {HIDDEN}")
    rank: int | None = Field(description=f"1 is best; {HIDDEN}")
    failure: str | None = Field(description=f"why it failed (\"timeout\", \"crash\", ...); \"\" it did not; {HIDDEN}")
    visible: bool = Field(description="whether you may see this seat's view now")
    output: str | None = Field(description="the path of the bot's captured output in this match: its owner or "
                                           "team only")


class FailureOut(Out):
    """A seat's failure in a game."""

    seat: Seat
    reason: Reason
    at: str = Field(description="\"start\" (bringing the bot up) or \"decision\"")
    detail: str | None = Field(description="what happened, which may quote the bot's output: to the bot's owner or "
                                           "team only")


class GameOut(Out):
    """A game, stored or being played, and what you may see of it."""

    id: int | None = Field(ge=1, description="the game's id; null while its match is being played")
    league: LeagueName = Field(description="its league's name; \"\" for a scrimmage's game")
    scrimmage: int | None = Field(None, ge=1, description="its scrimmage's id; null for a league's game")
    game: GameName
    match: int | None = Field(ge=1, description="its match's id; null while it is being played")
    round: Round
    index: GameIndex
    deal: Deal
    over: bool = Field(description="the game has ended")
    public: bool = Field(description="over, and its duplicate cycle all stored: every seat, the full table and the "
                                     "result are shown")
    decisions: int | None = Field(ge=0, description=f"decisions made; {HIDDEN}")
    seats: list[SeatOut] = Field(description="by seat")
    failures: list[FailureOut] = Field(description="the seats that failed, once the game is over")
    full_table: bool = Field(description="whether you may see the full table")
    links: Links


class StepOut(Out):
    """One step of a replay: a decision and the table just before it, or the table after the game."""

    model_config = ConfigDict(extra="allow")  # it describes arena/replays.py's steps, which are sent as they are
    step: int = Field(ge=0, description="the decision's number, from 0")
    seat: int = Field(ge=-1, description="who decides; -1 after the game")
    action: str | None = Field(description="the action; null: after the game, pending, or another seat's while the "
                                           "game is not public")
    said: str | None = Field(None, description="the action in the game's words, as this replay's seat may know it: "
                                               "another seat's secret is left out (a convoy's size, not its cards), "
                                               "even in a public game; the full table says all")
    ms: float | None = Field(description="its think time as the referee charged it")
    fallback: bool | None = Field(description="the referee played it for a failed seat")
    failure: str | None = Field(description="the seat failed at this decision: the reason")
    debug: str | None = Field(None, description="the deciding bot's debug text for this decision, escaped and cut "
                                                "(docs/protocol.md); present only when you may read some seat's "
                                                "(`debug_seats`), and null for the others' steps")
    end: bool = Field(description="the table after the game")
    pending: bool = Field(description="the decision being waited for, while the game is played")
    sent: bool | None = Field(None, description="one seat: this view is the one it was asked this decision with")
    legal: list[str] | None = Field(None, description="one seat: the legal actions it was sent, when sent")
    view: dict[str, Any] | None = Field(None, description="one seat's view (the protocol's, as plain data)")
    views: list[dict[str, Any]] | None = Field(None, description="the full table: every seat's view")
    events: list[str] = Field(description="the events, in words: since the seat's last decision; every one, for the "
                                          "full table")


class ResultOut(Out):
    """A game's result, by seat."""

    scores: list[int] = Field(description="in the game's unit")
    ranks: list[int] = Field(description="1 is best")
    failures: list[str] = Field(description="the reason each seat failed; \"\" it did not")


class ReplayOut(Out):
    """A game step by step, as one seat saw it or as the full table."""

    game: GameName
    title: str = Field(description="the game's title")
    names: list[str] = Field(description="each seat's bot, NAME@VERSION")
    seat: int | str = Field(description="the seat it is seen from, or \"all\": the full table")
    debug_seats: list[int] | None = Field(None, description="the seats whose bots' debug texts the steps show: those "
                                                            "of your bots, public game or not; absent when none")
    over: bool = Field(description="the game has ended")
    decisions: int = Field(ge=0, description="decisions made")
    steps: list[StepOut] = Field(description="every decision, then the table after the game (or the decision "
                                             "pending)")
    result: ResultOut | None = Field(description="null until the game is over")


class MatchGameOut(Out):
    """One game of a match."""

    id: int = Field(ge=1, description="the game's id")
    index: GameIndex
    deal: Deal
    bots: list[int] = Field(description="bot id by seat")
    scores: list[int] | None = Field(description="by seat; null before the cycle is stored, but to the owners of "
                                                 "the match's bots")
    ranks: list[int] | None = Field(description="by seat, 1 is best; null as scores")
    failures: list[str] | None = Field(description="by seat, the reason or \"\"; null as scores")
    url: Link = Field(description="the game's page")


class MatchBotOut(Out):
    """One bot of a match's table."""

    index: int = Field(ge=0, description="its place in the match, 0 first")
    bot_id: BotId
    bot: BotName
    version: Version
    owner: Owner
    output: str | None = Field(description="the path of its captured output, to its owner or team only")


class MatchOut(Out):
    """A stored match and its games, and what you may see of them."""

    id: int = Field(ge=1, description="the match's id")
    league: LeagueName
    game: GameName
    round: Round
    cycle: Cycle
    public: bool = Field(description="its table's whole duplicate cycle is stored: its games are public")
    table: Table
    started_at: str = Field(description="when it started (ISO 8601, as stored)")
    finished_at: str = Field(description="when it finished (ISO 8601, as stored)")
    restarts: Restarts
    bots: list[MatchBotOut] = Field(description="in the table's order")
    games: list[MatchGameOut] = Field(description="in the order played")
    links: Links


class LiveGameOut(Out):
    """A game of a match being played, so far."""

    index: GameIndex
    over: bool = Field(description="the game has ended")
    decisions: int | None = Field(description="decisions made; to the owners of the match's bots only")
    scores: list[int] | None = Field(description="by seat, once over; to the owners of the match's bots only")
    url: Link = Field(description="the game's page")


class LiveMatchOut(Out):
    """A match being played."""

    round: Round
    table: Table
    bots: list[MatchBotOut] = Field(description="in the table's order")
    started_at: str = Field(description="when it started (ISO 8601, as stored)")
    games: list[LiveGameOut] = Field(description="its games so far")


class LiveOut(Out):
    """A league's matches being played."""

    league: LeagueName
    matches: list[LiveMatchOut] = Field(description="by round and table")


# -- the command line's: the operator sees everything ----------------------------------------------
class TableBotOut(Out):
    """One bot of the table."""

    bot_id: BotId
    bot: BotName
    version: Version
    language: Language


class StoredSeatOut(Out):
    """One seat of the game."""

    seat: Seat
    bot_id: BotId
    bot: BotName
    version: Version
    language: Language
    score: int = Field(description="the seat's score in the game's unit")
    rank: int = Field(ge=1, description="1 is best; a failed seat ranks last")
    failure: str = Field(description="why the seat failed (\"timeout\", \"crash\", ...); \"\" when it did not")


class StoredGameOut(Out):
    """One stored game: its deal and every seat's result."""

    id: int = Field(ge=1, description="the game's id")
    match_id: int = Field(ge=1, description="its match's id")
    index: GameIndex
    deal: Deal
    seed: str = Field(description="the game's seed (decimal digits)")
    record_path: str = Field(description="its game record (arena replay)")
    cycle_complete: bool = Field(description="its table's duplicate cycle is all stored; until it is, the game shows "
                                             "deals that the cycle's other matches play, and arena serve and arena "
                                             "watch hide it")
    seats: list[StoredSeatOut] = Field(description="by seat")


class StoredMatchOut(Out):
    """One stored match: its slot, its bots and every game."""

    id: int = Field(ge=1, description="the match's id")
    league: LeagueName = Field(description="its league's name")
    game: GameName
    round: Round
    cycle: Cycle
    cycle_complete: bool = Field(description="that cycle's matches are all stored: its games are public")
    bots: list[TableBotOut] = Field(description="in the table's order (the seat rotations start from it)")
    restarts: Restarts
    record_dir: RecordDir
    started_at: Moment = Field(description="when it started")
    finished_at: Moment = Field(description="when it finished")
    games: list[StoredGameOut] = Field(description="in the order played")
