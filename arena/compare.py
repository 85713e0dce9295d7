"""Is bot A better than bot B? A sequential test on duplicate deals (``arena compare``).

**Units.** A and B play cycles like a league's (:mod:`arena.league.schedule`): with k players,
a cycle is k matches of k x ``deals`` games, each match in fresh bot processes with distinct
deals, and every deal of the cycle is played in every seat rotation over its k matches. The
seats hold A, B, A, B, ... (for k > 2 both bots have several seats, each its own process).
One deal, over all its rotations, is one unit: A's score per seat minus B's score per seat
(for an even k, A's total minus B's), summed over the rotations, gives x = 1 (A ahead),
1/2 (level) or 0 (B ahead). The rotations cancel the luck of the cards, so x measures the bots.

**The test.** Sobel and Wald's three-decision test: two sequential probability ratio tests of
H0: E[x] = 1/2, one against H+: E[x] = 1/2 + delta ("A is better"), one against
H-: E[x] = 1/2 - delta ("B is better"), each at (alpha / 2, beta). Each is a generalized SPRT
(GSPRT): x has three outcomes, so its log-likelihood ratio compares the most likely win/tie/loss
distribution whose mean is 1/2 + delta (or 1/2 - delta) with the most likely one whose mean is
1/2, the tie rate being estimated from the deals as they come (:func:`log_likelihood`). Ties
are evidence: a run of ties is unlikely under H+ and H-, which need decisive deals to reach
their means. Wald's bounds: a test accepts its H+/H- once its LLR reaches
log((1 - beta) / (alpha / 2)), and H0 once it falls to log(beta / (1 - alpha / 2)).

Verdicts: "A is better" or "B is better" when a test accepts its alternative; "no difference"
(of at least delta) when both accept H0; "undecided" when ``max_games`` are played first. The
error rates: P(A or B declared better | E[x] = 1/2) <= alpha, and P(no difference, or the other
bot better | E[x] is 1/2 + delta or 1/2 - delta) <= beta (Wald's bounds, approximately: the
tests check them on simulated outcomes).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena_games import GAMES
from referee import cpu, launch
from referee.spec import BotSpec, MatchSpec
from referee.textlog import printable

from .league import LeagueError
from .league.schedule import ScheduleOptions, Slot
from .store import Store

A_BETTER, B_BETTER, NO_DIFFERENCE, UNDECIDED = "A is better", "B is better", "no difference", "undecided"
BUILTIN_GAMES = {"random": (), "heuristic": tuple(sorted(GAMES)), "search": tuple(sorted(GAMES))}  # (): every game
# a comparison's, unless told (`arena compare`'s defaults): players per table, deals per match, and the
# games after which it gives up undecided
PLAYERS, DEALS, MAX_GAMES = 2, 4, 2000


# -- the statistics ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Design:
    """The test's error rates and the difference it is to find, in expected score per deal."""

    alpha: float = 0.05
    beta: float = 0.05
    delta: float = 0.1

    def __post_init__(self) -> None:
        if not (0 < self.alpha < 1 and 0 < self.beta < 1):
            raise ValueError(f"alpha and beta must be between 0 and 1, got {self.alpha} and {self.beta}")
        if not 0 < self.delta < 0.5:
            raise ValueError(f"delta must be between 0 and 0.5 (a difference in expected score per deal), "
                             f"got {self.delta}")

    @property
    def upper(self) -> float:
        """An LLR at or above it accepts the alternative (that bot is better by delta)."""
        return math.log((1 - self.beta) / (self.alpha / 2))

    @property
    def lower(self) -> float:
        """An LLR at or below it accepts H0 against that alternative."""
        return math.log(self.beta / (1 - self.alpha / 2))


def log_likelihood(wins: int, ties: int, losses: int, mean: float) -> float:
    """The log-likelihood of the counts under the most likely (loss, tie, win) distribution
    whose mean (0 x loss + 1/2 x tie + 1 x win) is ``mean``.

    With s = 2 mean - 1 the distribution is (l, 1 - 2l - s, l + s); the log-likelihood is
    concave in l and its derivative's zero is the larger root of 2n l^2 - b l - c = 0 with
    b = W(1 - s) - 2Ts + L(1 - 3s) and c = L s (1 - s), clipped to where l is a distribution."""
    n = wins + ties + losses
    if n == 0:
        return 0.0
    s = 2 * mean - 1
    b = wins * (1 - s) - 2 * ties * s + losses * (1 - 3 * s)
    c = losses * s * (1 - s)
    loss = (b + math.sqrt(max(0.0, b * b + 8 * n * c))) / (4 * n)
    loss = min(max(loss, max(0.0, -s)), (1 - s) / 2)
    total = 0.0
    for count, p in ((losses, loss), (ties, 1 - 2 * loss - s), (wins, loss + s)):
        if count:
            total += count * math.log(max(p, 1e-300))
    return total


@dataclass
class Sprt:
    """The three-decision test, fed one deal's outcome x at a time (see the module's doc)."""

    design: Design = field(default_factory=Design)
    wins: int = 0
    ties: int = 0
    losses: int = 0
    # each side's decision once taken: "" (testing), "H0" or "H1"
    a_side: str = ""
    b_side: str = ""

    @property
    def deals(self) -> int:
        return self.wins + self.ties + self.losses

    @property
    def score(self) -> float:
        """A's mean score per deal so far (1/2: level)."""
        return (self.wins + self.ties / 2) / self.deals if self.deals else 0.5

    def llr(self, better: str) -> float:
        """The LLR of "``better`` (A or B) is better by delta" against H0."""
        d = self.design.delta if better == "A" else -self.design.delta
        counts = (self.wins, self.ties, self.losses)
        return log_likelihood(*counts, 0.5 + d) - log_likelihood(*counts, 0.5)

    def add(self, x: float) -> str:
        """Adds a deal's outcome (1, 1/2 or 0); returns the verdict so far ("" while testing)."""
        if x == 1:
            self.wins += 1
        elif x == 0:
            self.losses += 1
        elif x == 0.5:
            self.ties += 1
        else:
            raise ValueError(f"a deal's outcome is 1, 1/2 or 0, not {x!r}")
        if not self.a_side:
            self.a_side = self._decide(self.llr("A"))
        if not self.b_side:
            self.b_side = self._decide(self.llr("B"))
        return self.verdict

    def _decide(self, llr: float) -> str:
        return "H1" if llr >= self.design.upper else "H0" if llr <= self.design.lower else ""

    @property
    def verdict(self) -> str:
        if self.a_side == "H1":
            return A_BETTER
        if self.b_side == "H1":
            return B_BETTER
        if self.a_side == self.b_side == "H0":
            return NO_DIFFERENCE
        return ""

    def fewest_to_decide(self, limit: int) -> int:
        """About the fewest more deals that could decide (all won, all tied or all lost), or
        ``limit`` if none of those decides in fewer."""
        fewest = limit
        for x in (1.0, 0.5, 0.0):
            test = dataclasses.replace(self)
            for n in range(1, fewest):
                if test.add(x):
                    fewest = n
                    break
        return fewest

    def evidence(self) -> dict[str, Any]:
        return {"deals": self.deals, "wins": self.wins, "ties": self.ties, "losses": self.losses,
                "score": round(self.score, 4),
                "llr": {"a_better": round(self.llr("A"), 4), "b_better": round(self.llr("B"), 4)},
                "decided": {"a_better": self.a_side, "b_better": self.b_side},
                "bounds": {"lower": round(self.design.lower, 4), "upper": round(self.design.upper, 4)}}


def run_test(outcomes: Iterator[float], design: Design, max_deals: int | None = None) -> Sprt:
    """Feeds ``outcomes`` to a :class:`Sprt` until it decides (or ``max_deals`` are used)."""
    test = Sprt(design)
    for x in outcomes:
        if test.add(x) or (max_deals is not None and test.deals >= max_deals):
            break
    return test


# -- the bots ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Contender:
    """A bot to compare: how a referee reaches it, and the games it plays (() = every game)."""

    label: str
    version: str = ""
    builtin: str = ""
    image: str = ""
    games: tuple[str, ...] = ()

    def seat(self, name: str) -> BotSpec:
        return BotSpec(name=name, version=self.version, builtin=self.builtin, image=self.image)


def resolve(text: str, store: Callable[[], Store] | None = None) -> Contender:
    """``builtin:random|heuristic|search`` (in the referee process), ``image:IMAGE`` (its games from its
    ``arena.bot.games`` label) or a registered ``name[@version]`` (its image from the store that
    ``store()`` opens: only then is one opened)."""
    if text.startswith("builtin:"):
        kind = text.removeprefix("builtin:")
        if kind not in BUILTIN_GAMES:
            raise LeagueError(f"builtin bots are {', '.join(BUILTIN_GAMES)}, not {kind!r}")
        return Contender(text, version="builtin", builtin=kind, games=BUILTIN_GAMES[kind])
    if text.startswith("image:"):
        image = text.removeprefix("image:")
        return Contender(text, image=image, games=_image_games(image))
    if store is None:
        raise LeagueError(f"{text!r} names a registered bot, and there is no store")
    from .bots.registry import find_bot

    with store()() as session:
        bot = find_bot(session, text)
        return Contender(bot.label, version=bot.version, image=bot.image, games=tuple(bot.games))


def _image_games(image: str) -> tuple[str, ...]:
    import docker.errors

    from referee import sandbox

    try:
        labels = sandbox.client().api.inspect_image(image)["Config"].get("Labels") or {}
    except docker.errors.ImageNotFound:
        raise LeagueError(f"no image {image!r} on this Docker engine (build it with: arena bot build)") from None
    return tuple(sorted(g for g in labels.get("arena.bot.games", "").split(",") if g in GAMES))


def common_game(a: Contender, b: Contender, game: str | None) -> str:
    """``game`` if both play it; without one, the one game both play."""
    both = sorted(set(a.games or GAMES) & set(b.games or GAMES))
    if game is not None:
        if game not in both:
            raise LeagueError(f"{printable(a.label)} and {printable(b.label)} do not both play {game}")
        return game
    if len(both) != 1:
        raise LeagueError(f"{printable(a.label)} and {printable(b.label)} both play "
                          f"{', '.join(both) or 'no game'}: say which with --game")
    return both[0]


# -- playing -----------------------------------------------------------------------------------
def lineup(a: Contender, b: Contender, players: int) -> list[BotSpec]:
    """The seats of rotation 0: A, B, A, B, ... (named A, B; or A1, B1, A2, ... for more than 2)."""
    seats = []
    for i in range(players):
        side, number = ("A", a) if i % 2 == 0 else ("B", b)
        seats.append(number.seat(side if players == 2 else f"{side}{i // 2 + 1}"))
    return seats


def cycle_specs(cycle: int, seats: list[BotSpec], game: str, settings: dict[str, Any], secret: str,
                options: ScheduleOptions) -> list[MatchSpec]:
    """The k matches of duplicate cycle ``cycle``, exactly as a league's (:class:`Slot`): every
    deal of the cycle in every rotation, each match's deals distinct."""
    k = len(seats)
    specs = []
    for j in range(k):
        slot = Slot(cycle * k + j, tuple(range(k)))
        deal_secret, bot_secret = slot.secrets(secret)
        plan = tuple(slot.plan(options.deals))
        specs.append(MatchSpec(match_id=f"compare-c{cycle}-m{j}", game=game, settings=settings, secret=deal_secret,
                               bot_secret=bot_secret, plan=plan, games=len(plan), bots=tuple(seats),
                               time=options.time_control(),
                               max_restarts=options.max_restarts))
    return specs


def deal_outcomes(results: list[dict[str, Any]]) -> list[tuple[str, float]]:
    """(deal, x) for each deal of a cycle's match results, in deal order: A's score per seat
    against B's, summed over the deal's rotations (A holds the even seats of rotation 0)."""
    sums: dict[str, list[int]] = {}  # deal -> [A's score, A's seats, B's score, B's seats]
    for result in results:
        for g in result["games"]:
            total = sums.setdefault(g["deal"], [0, 0, 0, 0])
            for seat, bot in enumerate(g["bots"]):
                side = 2 * (bot % 2)
                total[side] += g["scores"][seat]
                total[side + 1] += 1
    out = []
    for deal in sorted(sums, key=lambda d: int(d.rsplit("d", 1)[1])):
        a, a_seats, b, b_seats = sums[deal]
        diff = a * b_seats - b * a_seats  # A's per seat minus B's, times both seat counts
        out.append((deal, 1.0 if diff > 0 else 0.0 if diff < 0 else 0.5))
    return out


Play = Callable[[MatchSpec, Path, "str | None"], dict[str, Any]]


def play_in_referee(spec: MatchSpec, out_dir: Path, core: str | None) -> dict[str, Any]:
    """A match in a referee process of its own (:func:`referee.launch`): its result.json."""
    return launch(spec, out_dir, cpu=core).data


@dataclass
class Comparison:
    """What :func:`compare` found."""

    verdict: str
    test: Sprt
    game: str
    players: int
    games: int = 0
    matches: int = 0
    seat_failures: int = 0
    seconds: float = 0.0

    def count(self, result: dict[str, Any]) -> dict[str, Any]:
        """Adds a played match to the counts; returns it."""
        self.matches += 1
        self.games += len(result["games"])
        self.seat_failures += sum(1 for g in result["games"] for f in g["failures"] if f)
        return result

    def as_dict(self, a: Contender, b: Contender, records: Path | None = None) -> dict[str, Any]:
        d = self.test.design
        return {"verdict": self.verdict, "a": a.label, "b": b.label, "game": self.game, "players": self.players,
                "alpha": d.alpha, "beta": d.beta, "delta": d.delta, **self.test.evidence(), "games": self.games,
                "matches": self.matches, "seat_failures": self.seat_failures, "seconds": round(self.seconds, 2),
                **({"records": str(records)} if records else {})}


def compare(a: Contender, b: Contender, game: str, secret: str, out_dir: Path, *, players: int = PLAYERS,
            design: Design | None = None, options: ScheduleOptions | None = None,
            settings: dict[str, Any] | None = None, max_games: int = MAX_GAMES, jobs: int = 1,
            play: Play = play_in_referee,
            on_cycle: Callable[[int, Sprt], None] | None = None,
            match_started: Callable[[MatchSpec], None] | None = None,
            match_ended: Callable[[MatchSpec, dict[str, Any]], None] | None = None) -> Comparison:
    """Plays duplicate cycles of A against B until the test decides or ``max_games`` would be
    passed (at least one cycle is played); ``jobs`` matches at once.

    Outcomes are taken in cycle and deal order whatever order matches end in, so a run from a
    given ``secret`` decides the same way with any ``jobs``. ``on_cycle(cycle, test)`` is told
    the evidence after each cycle (and when the test decides within one); ``match_started(spec)``
    and ``match_ended(spec, result)`` are called as each match starts and as it is counted, in
    the caller's thread."""
    options = options or ScheduleOptions(deals=DEALS)
    test = Sprt(design or Design())
    seats = lineup(a, b, players)
    cycles = max(1, max_games // (players * players * options.deals))
    outcome = Comparison(UNDECIDED, test, game, players)
    start = time.monotonic()
    deals_per_cycle = players * options.deals
    done: dict[int, dict[int, dict[str, Any]]] = {}  # cycle -> match -> result
    next_cycle = 0  # the first cycle whose outcomes the test has not had
    queued: list[tuple[int, int, MatchSpec]] = []  # the matches of the cycles started, not yet started
    started = 0  # cycles started
    cores = [str(c) for c in cpu.allowed()] if cpu.setting() == cpu.AUTO else [None]
    with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="compare") as pool:
        running: dict[Future, tuple[int, int, str | None, MatchSpec]] = {}
        free = [cores[i % len(cores)] for i in range(max(1, jobs))]

        def submit() -> bool:
            """Starts the next match, unless the cycles before it may well decide the test: then
            it would be played for nothing (a running referee cannot be stopped cleanly)."""
            nonlocal started
            # two matches of one cycle deal the same cards: never at once (two live processes of
            # a bot could tell each other the hands), so the next cycle starts beside this one
            busy = {c for c, _, _, _ in running.values()}
            ready = next((q for q in queued if q[0] not in busy), None)
            if ready is None:
                ahead = (started - next_cycle) * deals_per_cycle  # deals played or playing, not yet tested
                if started == cycles or (ahead and ahead >= test.fewest_to_decide(ahead + 1)):
                    return False
                specs = cycle_specs(started, seats, game, settings or {}, secret, options)
                queued.extend((started, j, spec) for j, spec in enumerate(specs))
                ready = queued[-len(specs)]
                started += 1
            queued.remove(ready)
            c, j, spec = ready
            core = free.pop()
            if match_started:
                match_started(spec)
            if jobs == 1:  # in this thread: an in-process referee needs the main thread's signals
                future: Future = Future()
                future.set_result(play(spec, out_dir / f"c{c}-m{j}", core))
            else:
                future = pool.submit(play, spec, out_dir / f"c{c}-m{j}", core)
            running[future] = (c, j, core, spec)
            return True

        while free and submit():
            pass
        while running and not test.verdict:
            finished, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for future in finished:
                c, j, core, spec = running.pop(future)
                free.append(core)
                done.setdefault(c, {})[j] = outcome.count(future.result())
                if match_ended:
                    match_ended(spec, done[c][j])
            while len(done.get(next_cycle, {})) == players and not test.verdict:
                results = [done[next_cycle][j] for j in range(players)]
                for _, x in deal_outcomes(results):
                    if test.add(x):
                        break
                if on_cycle:
                    on_cycle(next_cycle, test)
                del done[next_cycle]
                next_cycle += 1
            while not test.verdict and free and submit():
                pass
        pool.shutdown(wait=True, cancel_futures=True)  # the matches still playing end; nothing new starts
        for future, (_, _, _, spec) in running.items():  # played, though the test had decided: counted
            if future.done() and not future.cancelled() and future.exception() is None:
                outcome.count(future.result())
                if match_ended:
                    match_ended(spec, future.result())
    outcome.verdict = test.verdict or UNDECIDED
    outcome.seconds = time.monotonic() - start
    return outcome
