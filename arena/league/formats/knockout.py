"""``knockout`` and ``double-elimination``: a bracket whose every match is a table's whole
duplicate cycle, so the luck of the deal does not decide who goes through.

- **Seeding** (:meth:`Knockout.draw`, once, before the first match): the bots playing then, by
  their conservative rating (mu - 3 sigma) in ``options.seeds_from`` (another league; ""
  this league's own, usually none yet), best first; bots without a rating after them, in a draw
  from the league's secret. A bot entered after the draw is not in the bracket.
- **Placement**: a k-ary bracket of k^R positions (k = players, R the fewest rounds that hold
  the field); the seeds go into pots of k^(R-1), the first pot in order, the others reversed,
  recursively, so seed 1 meets the lowest seeds and seeds 1 and 2 can only meet in the final
  (for k = 2: the usual 1-v-16, 8-v-9, ... bracket). Empty positions are byes to the top seeds.
  With k > 2 every table must eliminate k - 1 bots: the field must be 1 more than a multiple of
  k - 1 (3 per table: an odd field), or the draw refuses it.
- **A bracket match** is bracket stage S (a round) at one table: cycle S of that table, its
  rounds ``S*k .. S*k + k - 1``. Its winner is the first of :func:`base.cycle_order` over the
  cycle (mean rank, then mean score); a tie there goes to the better seed.
- **Byes and walkovers**: a table short of k bots plays nothing; its best seed still playing
  goes through. A bot retired or disqualified before its table's cycle is complete loses it by
  walkover (the others go through as if it were absent; no match is played); a cycle that was
  complete stands.
- **Double elimination** (2 per table only): a winners' bracket; its losers drop into a losers'
  bracket (the losers of a winners' round enter in reverse order every other round, so pairs
  from the same part of the bracket do not meet again at once); a bot losing twice is out. The
  grand final puts the winners' champion against the losers' champion; if the latter wins it,
  the final is played again (the reset), since the winners' champion had not lost yet. Stages
  are cycles numbered winners' rounds first, then losers' rounds, the grand final, its reset: a
  pair that meets twice meets in two cycles, so on different deals.

Everything here is a pure function of the seeding, who is playing and the stored cycles
(``__init__.py``): a rerun after kill -9 decides the same bracket.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.spec import derive

from .. import LeagueError
from ..schedule import Slot
from .base import CycleScore, Field, Played, cycle_order, ties


class Open(enum.Enum):
    """A place of a table that an undecided table will fill."""

    OPEN = "open"


OPEN = Open.OPEN
Entry = int | None | Open  # a bot id; None: nobody (a bye); OPEN: not decided yet


def placement(size: int, k: int) -> list[int]:
    """The seeds (1-based) in bracket order for ``size`` = k^R positions: each k consecutive
    positions are a first-round table. Built up from one position: each seed s of a bracket of
    m positions becomes the table of s and, for every pot j >= 1, seed (j + 1)·m + 1 - s."""
    order, m = [1], 1
    while m < size:
        order = [seed for s in order for seed in [s] + [(j + 1) * m + 1 - s for j in range(1, k)]]
        m *= k
    return order


def first_round(n: int, k: int) -> list[int | None]:
    """The seeds (1-based; None: nobody) of the first round's positions, k to a table, for ``n``
    bots: a table either is full or holds one seed alone (a bye: the top seeds), since a table
    short of k cannot play. The tables follow :func:`placement` of the second round's m = k^(R-1)
    positions: the t = (n - m) / (k - 1) last of its seeds play, each with one seed of every
    further pot of t (the pots after the first reversed, as in :func:`placement`)."""
    m = k ** (rounds_for(n, k) - 1)
    t = (n - m) // (k - 1)  # the tables that play (field_problem: it divides)
    byes = m - t
    out: list[int | None] = []
    for s in placement(m, k):
        i = s - byes
        out += [s] + ([None] * (k - 1) if i <= 0 else [byes + (j + 1) * t + 1 - i for j in range(1, k)])
    return [s if s is not None and s <= n else None for s in out]


def rounds_for(n: int, k: int) -> int:
    """The fewest bracket rounds for ``n`` bots at tables of ``k`` (at least 1)."""
    rounds, size = 1, k
    while size < n:
        rounds, size = rounds + 1, size * k
    return rounds


def field_problem(n: int, k: int, double: bool) -> str | None:
    """Why ``n`` bots cannot play this bracket at tables of ``k``, or None."""
    if double and k != 2:
        return f"double elimination is played 2 per table, not {k}"
    if n < k:
        return f"a bracket needs at least {k} bots (a table), got {n}"
    if (n - 1) % (k - 1):
        return (f"a knockout at tables of {k} eliminates {k - 1} bots a table, so its field must be 1 more than a "
                f"multiple of {k - 1} (e.g. {n + (k - 1) - (n - 1) % (k - 1)}); it has {n} playing bots: enter or "
                f"retire some before its first run")
    return None


# a place of a stage's table, before it is resolved: a seed's position, a table's winner or loser
Ref = tuple[str, int, int]  # ("seed", position, 0) | ("win", stage, table) | ("lose", stage, table)


@dataclass
class Table:
    """A table of a bracket stage, resolved from what is stored."""

    entries: list[Entry]  # in bracket order
    status: str = "waiting"  # waiting (a place still open), pending, played, bye, walkover, empty
    winner: Entry = OPEN
    loser: Entry = OPEN  # 2 per table: the one that did not go through
    scores: dict[int, CycleScore] = field(default_factory=dict)  # played: each bot's result over the cycle
    out: list[int] = field(default_factory=list)  # walkover: those not playing any more

    @property
    def bots(self) -> tuple[int, ...]:
        return tuple(sorted(e for e in self.entries if isinstance(e, int)))


@dataclass
class Stage:
    bracket: str  # winners (a single elimination's only one), losers, final
    name: str
    cycle: int
    tables: list[Table]


class Bracket:
    """A bracket resolved: its stages in cycle order and its champion (OPEN while undecided)."""

    def __init__(self, seeds: Sequence[int], k: int, double: bool, playing: frozenset[int] | set[int],
                 played: Played, guess: bool = False) -> None:
        """``guess``: decide every table not played yet for its best seed (to count what a
        bracket plays before it does)."""
        self.seeds, self.k, self.double = list(seeds), k, double
        self.seed_of = {bot: i + 1 for i, bot in enumerate(self.seeds)}
        self.playing, self.played, self.guess = playing, played, guess
        self.stages: list[Stage] = []
        self.champion: Entry = OPEN
        n = len(self.seeds)
        rounds = rounds_for(n, k)
        size = k ** rounds
        positions = [None if s is None else self.seeds[s - 1] for s in first_round(n, k)]
        for r in range(rounds):
            tables = size // k ** (r + 1)
            refs = [[("seed", t * k + j, 0) if r == 0 else ("win", r - 1, t * k + j) for j in range(k)]
                    for t in range(tables)]
            last = r == rounds - 1
            name = ("Winners' final" if double else "Final") if last else (
                f"Winners' round {r + 1}" if double else f"Round {r + 1}")
            self._stage("winners", name, refs, positions)
        if not double:
            self.champion = self.stages[-1].tables[0].winner
            return
        final = rounds - 1
        if rounds == 1:
            champion_ref: Ref = ("lose", 0, 0)
        else:
            losers = 1  # the first losers' round pairs the first winners' round's losers
            prev = self._stage("losers", "Losers' round 1",
                               [[("lose", 0, 2 * t), ("lose", 0, 2 * t + 1)] for t in range(size // 4)], positions)
            for j in range(2, rounds + 1):  # then each winners' round's losers meet the losers' survivors
                count = size // 2 ** j
                losers += 1
                name = "Losers' final" if j == rounds else f"Losers' round {losers}"
                # in reverse order every other round: not at once against a bot from the same part of the bracket
                entering = [("lose", j - 1, count - 1 - t if j % 2 == 0 else t) for t in range(count)]
                drop = self._stage("losers", name, [[("win", prev, t), entering[t]] for t in range(count)], positions)
                prev = drop
                if j < rounds:  # and the survivors play each other, halving them
                    losers += 1
                    prev = self._stage("losers", f"Losers' round {losers}",
                                       [[("win", drop, 2 * t), ("win", drop, 2 * t + 1)] for t in range(count // 2)],
                                       positions)
            champion_ref = ("win", prev, 0)
        grand = [("win", final, 0), champion_ref]
        first = self._stage("final", "Grand final", [grand], positions)
        gf = self.stages[first].tables[0]
        lb_champion = gf.entries[1]
        if gf.status == "played" and gf.winner == lb_champion:
            # the winners' champion had not lost yet: the final is played again, on new deals
            reset = self._stage("final", "Grand final reset", [grand], positions)
            self.champion = self.stages[reset].tables[0].winner
        else:
            self.champion = OPEN if gf.status in ("waiting", "pending") else gf.winner

    def _stage(self, bracket: str, name: str, refs: list[list[Any]], positions: list[int | None]) -> int:
        cycle = len(self.stages)
        tables = [self._resolve([self._entry(ref, positions) for ref in table], cycle) for table in refs]
        self.stages.append(Stage(bracket, name, cycle, tables))
        return cycle

    def _entry(self, ref: Ref, positions: list[int | None]) -> Entry:
        kind, a, b = ref
        if kind == "seed":
            return positions[a]
        table = self.stages[a].tables[b]
        return table.winner if kind == "win" else table.loser

    def _by_seed(self, bots: Sequence[int]) -> list[int]:
        return sorted(bots, key=lambda b: self.seed_of.get(b, len(self.seed_of) + 1))

    def _resolve(self, entries: list[Entry], cycle: int) -> Table:
        table = Table(entries)
        if any(e is OPEN for e in entries):
            return table
        present = [e for e in entries if isinstance(e, int)]
        alive = self._by_seed([b for b in present if b in self.playing])
        if len(present) == self.k:
            bots = tuple(sorted(present))
            if self.played.cycle_complete(bots, cycle):  # a complete cycle stands, whoever retired since
                order = cycle_order(self.played.cycle_games(bots, cycle))
                table.scores = {c.bot_id: c for c in order}
                ranked = [b for group in ties(order) for b in self._by_seed(group)]  # a tie: the better seed
                table.status, table.winner, table.loser = "played", ranked[0], ranked[1]
                return table
            if len(alive) == self.k:
                if not self.guess:
                    table.status = "pending"
                    return table
                table.status, table.winner, table.loser = "pending", alive[0], alive[1]
                return table
        table.out = [b for b in present if b not in self.playing]
        table.status = "empty" if not present else "walkover" if table.out else "bye"
        table.winner = alive[0] if alive else None
        rest = self._by_seed([b for b in present if b != table.winner])
        table.loser = rest[-1] if rest else None
        return table

    def slots(self) -> list[Slot]:
        """The slots of every table played or to be played now, stage by stage."""
        k = self.k
        return [Slot(stage.cycle * k + j, table.bots) for stage in self.stages for table in stage.tables
                if table.status in ("played", "pending") for j in range(k)]


class Knockout:
    """Single elimination (``double=False``) or double elimination."""

    def __init__(self, double: bool = False) -> None:
        self.double = double

    @property
    def name(self) -> str:
        return "double-elimination" if self.double else "knockout"

    def draw(self, field: Field, ratings_of: Callable[[str], Mapping[int, float]]) -> dict[str, Any]:
        bots = field.playing_ids
        if problem := field_problem(len(bots), field.players, self.double):
            raise LeagueError(f"{self.name}: {problem}")
        ratings = ratings_of(field.options.seeds_from)
        rated = sorted((b for b in bots if b in ratings), key=lambda b: (-ratings[b], _lot(field.secret, b)))
        unrated = sorted((b for b in bots if b not in ratings), key=lambda b: _lot(field.secret, b))
        return {"seeds": rated + unrated, "rated": len(rated), "seeds_from": field.options.seeds_from}

    def bracket(self, field: Field, played: Played, guess: bool = False) -> Bracket | None:
        """The bracket of the league's draw (None before its first run draws it)."""
        seeds = field.draw.get("seeds")
        if not seeds:
            return None
        return Bracket(seeds, field.players, self.double, field.playing, played, guess)

    def slots(self, field: Field, rounds: int, played: Played) -> list[Slot]:
        bracket = self.bracket(field, played)  # ``rounds`` is ignored: a bracket plays to its end
        return bracket.slots() if bracket else []

    def planned_matches(self, field: Field, rounds: int) -> int | None:
        if self.double:
            return None  # the grand final's reset depends on who wins it
        seeds = field.draw.get("seeds") or field.playing_ids
        if field_problem(len(seeds), field.players, False):
            return None
        guessed = Bracket(seeds, field.players, False, field.playing, Played(), guess=True)
        return len(guessed.slots())

    def board(self, field: Field, played: Played) -> dict[str, Any] | None:
        bracket = self.bracket(field, played)
        names = {str(b): field.names.get(b, str(b)) for b in field.entrants}
        if bracket is None:
            return {"format": self.name, "players": field.players, "drawn": False, "seeds": [], "rated": 0,
                    "seeds_from": field.options.seeds_from, "stages": [], "champion": None, "names": names}
        seed_of = bracket.seed_of

        def place(entry: Entry, table: Table) -> dict[str, Any]:
            if not isinstance(entry, int):
                return {"bot": None, "seed": None, "state": "open" if entry is OPEN else "none"}
            score = table.scores.get(entry)
            return {"bot": entry, "seed": seed_of.get(entry), "state": "bot",
                    "mean_rank": None if score is None else score.mean_rank,
                    "mean_score": None if score is None else -score.minus_score,
                    "winner": entry == table.winner, "out": entry in table.out}

        stages = [{"bracket": s.bracket, "name": s.name, "cycle": s.cycle,
                   "tables": [{"status": t.status, "winner": t.winner if isinstance(t.winner, int) else None,
                               "bots": [place(e, t) for e in t.entries]} for t in s.tables]}
                  for s in bracket.stages]
        return {"format": self.name, "players": field.players, "drawn": True,
                "seeds": [{"bot": b, "seed": i + 1} for i, b in enumerate(bracket.seeds)],
                "rated": field.draw.get("rated", 0), "seeds_from": field.draw.get("seeds_from", ""),
                "stages": stages, "champion": bracket.champion if isinstance(bracket.champion, int) else None,
                "names": names}

    def text(self, board: dict[str, Any], labels: Mapping[int, str]) -> list[str]:
        def label(bot: int | None) -> str:
            return "-" if bot is None else labels.get(bot) or board["names"].get(str(bot), str(bot))

        if not board["drawn"]:
            return [f"{board['format']}: not drawn yet (the first `arena league run` draws the seeding)"]
        champion = board["champion"]
        lines = [f"{board['format']}, {board['players']} per table; champion: "
                 + (label(champion) if champion is not None else "not decided yet")]
        for stage in board["stages"]:
            lines.append(f"{stage['name']} (cycle {stage['cycle']}):")
            for table in stage["tables"]:
                places = []
                for p in table["bots"]:
                    if p["bot"] is None:
                        places.append("(to be decided)" if p["state"] == "open" else "(bye)")
                        continue
                    rank = f" {p['mean_rank']:.2f}" if p.get("mean_rank") is not None else ""
                    places.append(f"[{p['seed']}] {label(p['bot'])}{rank}" + (" (out)" if p.get("out") else ""))
                status = table["status"]
                verdict = {"played": "wins", "bye": "goes through (bye)", "walkover": "goes through (walkover)"}
                end = (f" -> {label(table['winner'])} {verdict[status]}" if table["winner"] is not None
                       and status in verdict else f" -> {status}")
                lines.append("  " + " v ".join(places) + end)
        return lines


def _lot(secret: str, bot: int) -> int:
    """A bot's place in the seeding's draw: from the league's secret, so the same on every run and
    unknown to anyone without it."""
    return derive(secret, "seeding", bot)
