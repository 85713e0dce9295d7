"""Leagues: the API's league, leaderboard and run; the command line's ``league list``,
``leaderboard`` (its rows are the API's) and ``league status``."""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from ..league.confidence import LEVEL, TOP_K
from ..league.schedule import Format
from ..league.standings import NEW_DAYS
from .fields import (
    BotId,
    BotName,
    Cycle,
    DeclaredAuthor,
    Exposure,
    FailureRate,
    GameName,
    GamesPlayed,
    Label,
    Language,
    LeagueName,
    Moment,
    Mu,
    Out,
    Owner,
    Players,
    Rank,
    Round,
    Schedule,
    Settings,
    Sigma,
    Table,
    Version,
    Wins,
)

PERCENT = round(100 * LEVEL)  # the rank interval's level


class LeagueOut(Out):
    """A league: its game, players per table, entrants and games played (never its secret)."""

    name: LeagueName
    game: GameName
    players: Players
    entrants: int = Field(ge=0, description="bot versions entered")
    games: int = Field(ge=0, description="games stored")
    settings: Settings
    schedule: Schedule
    created_at: Moment = Field(description="when it was created")
    closed_at: Moment | None = Field(None, description="when it was closed to new entrants (null: open); see "
                                                       "docs/leagues.md, \"Finals on fresh deals\"")
    finals: LeagueName | None = Field(None, description="the name of its finals, ranked on fresh deals (null: none)")
    finals_of: LeagueName | None = Field(None, description="the league it is the finals of (null: none)")


class LeaderboardRow(Out):
    """One entrant of a league: a row of the API's leaderboard and of ``arena leaderboard --json``."""

    rank: Rank
    bot_id: BotId
    bot: BotName
    version: Version
    author: Owner
    declared_author: DeclaredAuthor
    language: Language
    exposure: Exposure
    mu: Mu
    sigma: Sigma
    games: GamesPlayed
    wins: Wins
    average_score: float = Field(description="its mean score per game")
    failure_rate: FailureRate
    new: bool = Field(description=f"the newest version of a name with older versions in the league, entered in the "
                                  f"last {NEW_DAYS} days")
    retired: bool = Field(description="retired: it plays no new match")
    disqualified: bool = Field(description="disqualified by an admin: it plays no new match (retired is true too)")
    p_first: float = Field(ge=0, description="P(rank 1): the share of draws from the rating posteriors in which it "
                                             "ranks first")
    p_top: float = Field(ge=0, description="P(rank <= top_k), from the same draws")
    top_k: int = Field(ge=1, description=f"the k of p_top: the top asked for (default {TOP_K}), at most the entrants")
    rank_low: int = Field(ge=1, description=f"the {PERCENT}% rank interval from the same draws: its best end")
    rank_high: int = Field(ge=1, description=f"the {PERCENT}% rank interval's worst end")
    settled: bool = Field(description=f"the {PERCENT}% rank interval is the rank alone (it takes that rank in over "
                                      f"{PERCENT}% of the draws)")


SortKey = Literal["rank", "bot", "version", "author", "language", "exposure", "mu", "sigma", "upper", "games",
                  "wins", "failure_rate", "p_first", "p_top", "rank_high"]
Order = Literal["asc", "desc"]


class Leaderboard(Out):
    """A league and its leaderboard, sorted as asked."""

    league: LeagueOut = Field(description="the league")
    sort: SortKey = Field(description="the column sorted on (upper: mu + 3 sigma)")
    order: Order = Field(description="the order")
    top_k: int = Field(ge=1, description="the k of each row's p_top")
    rows: list[LeaderboardRow] = Field(description="one per entrant")


class StandingsRating(Out):
    """An entrant's rating beside a format's standings, as the leaderboard has it."""

    bot: BotName
    version: Version
    rank: Rank
    mu: Mu
    sigma: Sigma
    exposure: Exposure
    games: GamesPlayed


class FormatStandings(Out):
    """A league's format's own standings (``arena league standings --json``, ``GET
    /api/v1/leagues/{name}/standings``), from complete duplicate cycles only, with the ratings."""

    league: LeagueName
    format: Format = Field(description="round-robin, ladder, swiss, gauntlet, knockout or double-elimination")
    board: dict[str, Any] | None = Field(description="the format's own standings, bots by id (docs/leagues.md, "
                                                     "each format's section); null for a round robin or a ladder, "
                                                     "whose standings are the leaderboard")
    ratings: dict[str, StandingsRating] = Field(description="each entrant's rating, by bot id")


class CrosstableBot(Out):
    """An entrant of the crosstable, in leaderboard order."""

    bot_id: BotId
    bot: BotName
    version: Version
    author: Owner
    rank: Rank


class CrosstablePair(Out):
    """Two entrants' head to head over the public games they played together (``a`` ranks higher
    on the leaderboard)."""

    a: BotId
    b: BotId
    games: int = Field(ge=1, description="public games they played together")
    a_ahead: int = Field(ge=0, description="games a finished ahead of b (a lower rank)")
    b_ahead: int = Field(ge=0, description="games b finished ahead of a")
    level: int = Field(ge=0, description="games they finished level (the same rank)")
    mean_rank_difference: float = Field(description="the mean of b's rank minus a's: positive when a finished "
                                                    "ahead on average")
    low: float | None = Field(description="the 95% interval of that mean (mean +- 1.96 standard errors): its "
                                          "low end; null under 2 games")
    high: float | None = Field(description="its high end; null under 2 games")
    p_value: float = Field(ge=0, le=1, description="the sign test: the two-sided binomial p-value of a_ahead among "
                                                   "the games not level, under neither being better")


class Crosstable(Out):
    """A league's crosstable: every pair of entrants' head to head, counting only public games (those
    whose duplicate cycle is all stored)."""

    league: LeagueName
    games: int = Field(ge=0, description="public games counted")
    hidden_games: int = Field(ge=0, description="stored games left out: their duplicate cycle is not all stored yet")
    bots: list[CrosstableBot] = Field(description="every entrant, best rank first")
    pairs: list[CrosstablePair] = Field(description="every pair that played a public game together, by a's rank "
                                                    "then b's")


class RunState(Out):
    """A league's run started by the server, and how far it got."""

    league: LeagueName
    status: Literal["running", "finished", "failed"] = Field(description="what it is doing")
    rounds: int = Field(ge=1, description="the rounds asked for (a ladder: more matches)")
    jobs: int = Field(ge=1, description="matches played at once")
    games_total: int | None = Field(description="games to play; null until the schedule is read")
    games_played: int = Field(ge=0, description="games played so far")
    seat_failures: int = Field(ge=0, description="seats that failed so far")
    error: str = Field(description="why it failed; \"\" otherwise")
    started_at: Moment = Field(description="when it started")
    finished_at: Moment | None = Field(description="when it ended; null while it runs")


# -- the command line's ----------------------------------------------------------------------------
class EntrantOut(Out):
    """One bot version entered."""

    bot_id: BotId
    bot: BotName
    version: Version


class LeagueListed(Out):
    """One league or ladder, as ``arena league list --json`` lists it."""

    name: LeagueName
    format: Format = Field(description="how its tables are drawn: round-robin, ladder (without end), swiss, "
                                       "gauntlet, knockout or double-elimination")
    game: GameName
    players: Players
    settings: Settings
    schedule: Schedule
    created_at: Moment = Field(description="when it was created")
    closed_at: Moment | None = Field(description="when it was closed to new entrants (null: open)")
    finals: LeagueName | None = Field(description="the name of its finals, ranked on fresh deals (null: none)")
    finals_of: LeagueName | None = Field(description="the league it is the finals of (null: none)")
    entrants: list[EntrantOut] = Field(description="in entry order")




# league status: its ``last_run`` and ``target`` are TypedDicts, whose keys are there or not (never null)
@with_config(ConfigDict(extra="forbid"))
class StatusLastRun(TypedDict):
    """What the last run was asked: rounds, until or deadline, or none of them (a ladder without end)."""

    rounds: NotRequired[Annotated[int, Field(ge=1, description="--rounds: every round up to this many")]]
    until: NotRequired[Annotated[int, Field(ge=1, description="a ladder's --until: this many games stored")]]
    deadline: NotRequired[Annotated[Moment, Field(description="a ladder's --for: no match starts after it")]]
    at: Annotated[Moment, Field(description="when the run started")]


StatusTarget = TypedDict("StatusTarget", {  # "from" is a keyword: the functional syntax
    "rounds": NotRequired[Annotated[int, Field(ge=1, description="every round up to this many")]],
    "until": NotRequired[Annotated[int, Field(ge=1, description="this many games stored")]],
    "deadline": NotRequired[Annotated[Moment, Field(description="no match starts after it")]],
    "from": Annotated[Literal["last_run", "option"], Field(description="the last run's, or the option --rounds")],
})
StatusTarget.__doc__ = "What left is measured against: rounds, until or deadline, and where it comes from."
StatusTarget.__pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[attr-defined]  # with_config's work

Count = Annotated[int, Field(ge=0)]


class StatusRounds(Out):
    """A round robin's target: its rounds, those with every match stored, those with matches left."""

    target: int = Field(ge=1, description="the rounds of the target")
    complete: int | None = Field(ge=0, description="rounds with every match stored (null: too few entrants)")
    left: int | None = Field(ge=0, description="rounds with matches left (null: too few entrants)")


class StatusCycles(Out):
    """(table, duplicate cycle) pairs."""

    complete: int = Field(ge=0, description="pairs with all their matches stored")
    open: int = Field(ge=0, description="pairs with some")


class StatusMatches(Out):
    """The league's matches."""

    stored: int = Field(ge=0, description="stored")
    running: int = Field(ge=0, description="being played")
    left: int | None = Field(ge=0, description="left of the target (null: no round-robin target)")
    target: int | None = Field(ge=0, description="in the target (null: no round-robin target)")


class StatusGames(Out):
    """The league's games."""

    stored: int = Field(ge=0, description="stored")
    in_running: int = Field(ge=0, description="over in the matches being played")
    left: int | None = Field(ge=0, description="left (null: no target)")


class StatusRate(Out):
    """The pace, measured on the stored matches that finished in a window before the latest."""

    games_per_second: float | None = Field(ge=0, description="games a second (null: nothing to measure yet)")
    window_seconds: float = Field(ge=0, description="the window")
    matches: int = Field(ge=0, description="matches measured")
    games: int = Field(ge=0, description="their games")
    since: Moment | None = Field(description="the earliest start measured")
    until: Moment | None = Field(description="the latest finish measured")


class StatusEta(Out):
    """When the target will be reached, or why that is not known."""

    seconds: float | None = Field(ge=0, description="how long from now (null: not known)")
    at: Moment | None = Field(description="when (null: not known)")
    why: str = Field(description="what the ETA is, or why there is none")


class StatusBotFailures(Out):
    """One bot with a failure."""

    bot: Label
    bot_id: BotId
    games: GamesPlayed
    failures: int = Field(ge=1, description="its failed seats")
    by_reason: dict[str, Count] = Field(description="its failed seats by reason")


class StatusFailures(Out):
    """The seats of stored games that failed."""

    seats: int = Field(ge=0, description="failed seats")
    games: int = Field(ge=0, description="games with a failed seat")
    by_reason: dict[str, Count] = Field(description="failed seats by reason (timeout, crash, ...: the reason's text)")
    by_bot: list[StatusBotFailures] = Field(description="most failures first")


class StatusRunning(Out):
    """One match being played."""

    match: str = Field(description="LEAGUE/ROUND/TABLE: what arena watch takes")
    round: Round
    cycle: Cycle = Field(description="its duplicate cycle")
    table: Table
    bots: list[Label] = Field(description="in match order")
    host: str = Field(description="the host playing it")
    pid: int = Field(ge=0, description="its process there")
    since: Moment = Field(description="when it started")
    seconds: float = Field(ge=0, description="for how long")
    games: int = Field(ge=1, description="games in the match")
    games_done: int | None = Field(ge=0, description="games over (null: records on another host)")
    game: int | None = Field(ge=0, description="the game being played (null: between games)")
    decisions: int | None = Field(ge=0, description="its decisions so far (null: between games)")
    record_dir: str = Field(description="where its records are written")


class LeagueStatus(Out):
    """Where a league's run stands: done, left, rate, ETA, failures, matches being played (null:
    unknown or not applicable; durations in seconds)."""

    league: LeagueName
    game: GameName
    players: Players
    format: Format = Field(description="round-robin, ladder, swiss, gauntlet, knockout or double-elimination")
    games_per_match: int = Field(ge=1, description="players x deals")
    now: Moment = Field(description="when the status was read")
    last_run: StatusLastRun | None = Field(description="what the last run was asked; null: none remembered")
    target: StatusTarget | None = Field(description="what left is measured against; null: no target")
    rounds: StatusRounds | None = Field(description="a round robin with a target; null otherwise")
    cycles: StatusCycles
    matches: StatusMatches
    games: StatusGames
    rate: StatusRate
    eta: StatusEta | None = Field(description="null: no target")
    failures: StatusFailures
    running: list[StatusRunning] = Field(description="by round and table")
