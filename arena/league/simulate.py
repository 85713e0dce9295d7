"""A league played in process, to measure how fast a format learns the true order of its bots.

It is for tuning and checking matchmaking (``matchmaking.py``), not for rating anyone: bots of
known strength (the game's heuristic, random, first-legal, and heuristics handicapped by a
random legal action with probability p) play a round robin or a ladder with the league's own
machinery, and after each match the Kendall tau of the ratings' mu order against the true
order says how much the games so far have taught. ``bench/ladder.py`` and
``tests/league/test_ladder_efficiency.py`` compare the two formats with it.

What is the league's own: the schedule (:func:`schedule.schedule`, :class:`schedule.Slot`),
each match's spec (:func:`runner.match_spec`: deals, rotations, game and bot seeds from the
league's secret, exactly as the referee derives them), the ratings (:func:`ratings.rate`, in
each format's rating order: a round robin's (round, table, game) is its playing order, and a
ladder's is its matches in the order played, each cycle's k matches in round order), and the
ladder's tables (:func:`matchmaking.pick_table` on the current ratings, with the ladder's rng
for the cycle). What is not: containers, time limits and the store. Each bot gets a fresh
strategy per match (as a container lives for one match) and the seed the referee would send.
"""

from __future__ import annotations

import copy
import itertools
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from arena_games import get_game
from arenabot.strategies import Strategy, make_strategy
from referee.spec import MatchSpec, derive, dev_secret

from ..store import Bot
from .confidence import rank_odds
from .matchmaking import Candidate, pick_table
from .ratings import ENV, BotRating, RatedGame, rate
from .runner import match_spec
from .schedule import FORMATS, Format, ScheduleOptions, Slot, schedule


@dataclass(frozen=True)
class SimBot:
    """A bot of known kind: the game's heuristic playing a uniformly random legal action
    instead with probability ``p`` (0: the heuristic, 1: random), first-legal, or the search bot
    with a fixed budget of ``search`` iterations a decision (``arenabot.search.ISMCTS``)."""

    name: str
    p: float = 0.0
    first_legal: bool = False
    search: int = 0

    def strategy(self, game: str) -> Strategy:
        if self.first_legal:
            return FirstLegal()
        if self.search:
            from arenabot.search import ISMCTS  # imports the engines' samplers: only when asked

            return ISMCTS(iterations=self.search)
        if self.p >= 1:
            return make_strategy("random", game)
        if self.p <= 0:
            return make_strategy("heuristic", game)
        return Handicapped(make_strategy("heuristic", game), self.p)


class FirstLegal(Strategy):
    """The first legal action, always (``sample_bots/python/first_legal``)."""

    def decide(self, view: dict[str, Any], legal_actions: list[str]) -> str:
        return legal_actions[0]


class Handicapped(Strategy):
    """``inner``, except that with probability ``p`` it plays a random legal action; the coin
    and the random action come from the game's bot seed, apart from ``inner``'s own rng."""

    def __init__(self, inner: Strategy, p: float) -> None:
        super().__init__()
        self.inner, self.p = inner, p

    def start_game(self, info: dict[str, Any]) -> None:
        self.inner.start_game(info)
        self.rng.seed(f"handicap:{info.get('seed', 0)}")

    def decide(self, view: dict[str, Any], legal_actions: list[str]) -> str:
        if self.rng.random() < self.p:
            return self.rng.choice(legal_actions)
        return self.inner.decide(view, legal_actions)

    def end_game(self, result: dict[str, Any]) -> None:
        self.inner.end_game(result)


def known_bots(n: int) -> list[SimBot]:
    """The 8 or 16 bots of known strength that ``bench/ladder.py`` and the efficiency test
    play in Prohis, 3 a table, strongest first: the heuristic, heuristics handicapped by p
    (spaced to be about equally far apart in strength) and random; first-legal among the 8.
    ``python -m bench.ladder --truth`` establishes the order (and its docstring has the figures)."""
    grades = {8: (0, .10, .21, .33, .46, "first-legal", .78, 1),
              16: (0, .04, .08, .12, .17, .22, .27, .32, .37, .43, .49, .56, .64, .73, .84, 1)}[n]
    return [SimBot("first-legal", first_legal=True) if isinstance(g, str)
            else SimBot("heuristic" if g == 0 else "random" if g == 1 else f"heuristic-p{round(100 * g):02d}", g)
            for g in grades]


def uneven_bots() -> list[SimBot]:
    """7 of :func:`known_bots` (16)'s bots in three clusters far apart, strongest first: the
    heuristic, p.04, p.08 (mean scores 80.6, 76.0, 71.9 in the 16's long round robin); p.43, p.49
    (44.5, 41.0); p.84 and random (25.5, 20.0): neighbours within a cluster 3.5 to 5.5 points
    apart, the clusters 27 and 15."""
    names = ("heuristic", "heuristic-p04", "heuristic-p08", "heuristic-p43", "heuristic-p49", "heuristic-p84",
             "random")
    return [b for b in known_bots(16) if b.name in names]


@dataclass(frozen=True)
class Point:
    """Where a league stands after a match: games played, and the tau of its mu order."""

    games: int
    tau: float


def kendall_tau(scores: Sequence[float]) -> float:
    """Kendall's tau-a of ``scores`` (higher is better) against the order they are listed in
    (best first): 1 when they fall in that order, -1 reversed; a tie counts as neither."""
    n = len(scores)
    if n < 2:
        return 1.0
    concordant = sum((a > b) - (a < b) for a, b in itertools.combinations(scores, 2))
    return concordant / (n * (n - 1) / 2)


def games_to(trajectory: Sequence[Point], tau: float = 0.9, hold: float = 2.0) -> int | None:
    """The games G after which the trajectory reached ``tau`` and stayed at or above it through
    ``hold`` x G games (hold 1: the first time it reached it); None if it never did, or the
    trajectory ends before ``hold`` x G.

    Why not "to the end": TrueSkill's dynamics keep every sigma above ~0.7, so the mu order of
    close bots flickers as long as they play, in either format, and the last dip below ``tau``
    depends on how long one looks."""
    start = None  # the first point of the current run at or above tau
    for point in trajectory:
        if point.tau < tau:
            if start is not None and point.games > hold * start:
                return start
            start = None
        elif start is None:
            start = point.games
    return start if start is not None and trajectory[-1].games >= hold * start else None


class SimLeague:
    """A league of ``bots`` (listed in their true order, strongest first) in ``format``, played
    match by match in process (:meth:`matches`), with its ratings after each.

    The league's secret is ``dev_secret(seed)``: a seed gives the same deals, bot seeds and
    ladder tables on every run. ``pick`` goes to :func:`matchmaking.pick_table` as keyword
    arguments (to try a policy's parameters).
    """

    def __init__(self, game: str, players: int, bots: Sequence[SimBot], format: Format, seed: int = 0,
                 deals: int = 1, settings: dict[str, Any] | None = None, **pick: Any) -> None:
        if format not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {format!r}")
        self.game, self.players, self.bots, self.format, self.pick = game, players, list(bots), format, pick
        self.settings = get_game(game).validate(players, settings).to_dict()
        self.options = ScheduleOptions(deals=deals, format=format)
        self.secret = dev_secret(seed)
        # bot ids as a store numbers them, 1.., in an order of entry unrelated to strength (the
        # round robin plays its tables in the order of their ids)
        self.ids = list(range(1, len(bots) + 1))
        random.Random(seed).shuffle(self.ids)  # ids[i]: the id of bots[i]
        self.by_id = dict(zip(self.ids, self.bots, strict=True))
        self.entrants = {i: Bot(name=self.by_id[i].name, version="1", image="") for i in sorted(self.ids)}
        self.ratings: dict[int, BotRating] = {}
        self.played = 0
        self.cycles = 0  # the ladder's cycles picked so far (a later call of matches() goes on from there)

    def join(self, bot: SimBot) -> int:
        """A new entrant (not part of :meth:`tau`'s true order): its id, the next one."""
        bot_id = max(self.by_id) + 1
        self.by_id[bot_id] = bot
        self.entrants[bot_id] = Bot(name=bot.name, version="1", image="")
        return bot_id

    def matches(self, slots: Iterable[Slot] | None = None) -> Iterator[list[RatedGame]]:
        """Plays the league's matches in order (or ``slots``), without end; yields each match's
        games once they are in :attr:`ratings`."""
        if slots is None:
            slots = self._round_robin() if self.format == "round-robin" else self._ladder()
        for slot in slots:
            spec = match_spec("sim", self.game, self.settings, self.secret, slot, self.entrants, self.options)
            games = _play(spec, [self.by_id[b] for b in slot.table], slot.table, self.played)
            self.ratings = rate(games, start=self.ratings)
            self.played += len(games)
            yield games

    def tau(self) -> float:
        """Kendall tau of the ratings' mu order against the true order."""
        return kendall_tau([self.ratings[b].mu if b in self.ratings else ENV.mu for b in self.ids])

    def _round_robin(self) -> Iterator[Slot]:
        """The round robin's matches in schedule (and rating) order, round after round: each
        round is round 0's tables (``schedule``'s order), as ``schedule`` makes every round."""
        tables = [slot.table for slot in schedule(sorted(self.ids), self.players, 1)]
        for r in itertools.count():
            yield from (Slot(r, table) for table in tables)

    def newcomer_round_robin(self, bot_id: int) -> Iterator[Slot]:
        """What a round robin must add for a newcomer: every table of all the entrants that has
        it, in schedule order, round after round (so cycle after cycle)."""
        tables = [slot.table for slot in schedule(sorted(self.by_id), self.players, 1) if bot_id in slot.table]
        for r in itertools.count():
            yield from (Slot(r, table) for table in tables)

    def _ladder(self) -> Iterator[Slot]:
        """The ladder's matches: cycle c picks a table from the ratings after cycle c-1, and
        plays its k matches, rounds c*k .. c*k+k-1."""
        k = self.players
        while True:
            cycle = self.cycles
            self.cycles += 1
            candidates = [Candidate(b, r.mu, r.sigma, r.games) if (r := self.ratings.get(b))
                          else Candidate(b, ENV.mu, ENV.sigma, 0) for b in sorted(self.by_id)]
            rng = random.Random(derive(self.secret, "matchmaking", cycle))
            table = pick_table(candidates, k, rng, **self.pick)
            for j in range(k):
                yield Slot(round=cycle * k + j, table=table)


def simulate(game: str, players: int, bots: Sequence[SimBot], format: Format, games: int, seed: int = 0,
             deals: int = 1, settings: dict[str, Any] | None = None,
             stop: Callable[[list[Point]], bool] | None = None, **pick: Any) -> list[Point]:
    """The trajectory of a :class:`SimLeague` (same arguments) until at least ``games`` games
    are played, or ``stop(trajectory)`` is true: a point after each match."""
    league = SimLeague(game, players, bots, format, seed, deals, settings, **pick)
    trajectory: list[Point] = []
    for _ in league.matches():
        trajectory.append(Point(league.played, league.tau()))
        if league.played >= games or (stop and stop(trajectory)):
            break
    return trajectory


def settle(game: str, players: int, bots: Sequence[SimBot], games: int, seed: int = 0, **pick: Any) -> SimLeague:
    """A ladder of ``bots`` that has played ``games`` games (rounded up to a whole cycle)."""
    league = SimLeague(game, players, bots, "ladder", seed, **pick)
    for matches, _ in enumerate(league.matches(), 1):
        if league.played >= games and matches % players == 0:
            break
    return league


@dataclass(frozen=True)
class Placing:
    """Where a newcomer stands after a match: games since it joined, its 90% rank interval and
    its sigma."""

    games: int
    low: int
    high: int
    sigma: float


def place(settled: SimLeague, newcomer: SimBot, format: Format, games: int,
          stop: Callable[[list[Placing]], bool] | None = None, **pick: Any) -> list[Placing]:
    """``newcomer`` joins a copy of ``settled`` and ``format`` places it: the ladder goes on
    (its matchmaking with ``pick``), a round robin plays the tables it must add
    (:meth:`SimLeague.newcomer_round_robin`). A point after each match: the games since it
    joined and its 90% rank interval as the leaderboard computes it (:func:`confidence.rank_odds`),
    until ``games`` games or ``stop(trajectory)``."""
    league = copy.deepcopy(settled)
    league.pick = pick
    bot_id = league.join(newcomer)
    slots = league.newcomer_round_robin(bot_id) if format == "round-robin" else None
    start = league.played
    trajectory: list[Placing] = []
    for _ in league.matches(slots):
        rows = [(b, r.mu, r.sigma) if (r := league.ratings.get(b)) else (b, ENV.mu, ENV.sigma)
                for b in sorted(league.by_id)]
        odds = rank_odds(rows).of(bot_id)
        trajectory.append(Placing(league.played - start, int(odds["rank_low"]), int(odds["rank_high"]),
                                  league.ratings[bot_id].sigma if bot_id in league.ratings else ENV.sigma))
        if league.played - start >= games or (stop and stop(trajectory)):
            break
    return trajectory


def placed(trajectory: Sequence[Placing], rank: int, within: int = 1, hold: float = 2.0) -> int | None:
    """The games after which the newcomer's rank interval lay within ``rank`` ± ``within`` (its
    true rank, 1 the best) and stayed there through ``hold`` x as many (:func:`games_to`)."""
    return games_to([Point(p.games, float(rank - within <= p.low and p.high <= rank + within))
                     for p in trajectory], 0.5, hold)


def _play(spec: MatchSpec, bots: list[SimBot], table: tuple[int, ...], first_id: int) -> list[RatedGame]:
    """The match's games, as the referee plays them with in-process seats: one strategy per bot
    for the whole match, told each game's start with the seat's bot seed."""
    engine = get_game(spec.game)
    strategies = [b.strategy(spec.game) for b in bots]
    names = [b.name for b in spec.bots]
    wire_settings = {k: str(v) for k, v in spec.settings.items()}
    out = []
    for g in range(spec.games):
        seated = [spec.bot_at(g, s) for s in range(spec.num_players)]  # bot index by seat
        for s, b in enumerate(seated):
            strategies[b].start_game({"game": spec.game, "game_index": g, "seat": s, "num_players": len(seated),
                                      "players": [names[o] for o in seated], "seed": spec.bot_seed(g, s),
                                      "settings": wire_settings})
        state = engine.new_game(len(seated), spec.game_seed(g), spec.settings)
        while not state.is_terminal():
            s = state.current_player()
            state.apply(strategies[seated[s]].decide(state.view(s), state.legal_actions()))
        scores, ranks = state.scores(), state.ranks()
        for b in seated:
            strategies[b].end_game({"scores": scores, "ranks": ranks, "failures": [""] * len(seated), "events": []})
        out.append(RatedGame(first_id + g, [table[b] for b in seated], ranks, [""] * len(seated)))
    return out
