"""``swiss``: rounds that pair bots of similar points into tables of k, a given number of rounds.

Swiss round R is duplicate cycle R of each of its tables: a table plays schedule rounds R·k ..
R·k + k − 1 (``Slot(R*k + j, table)``), so each of the round's deals is played in every seat
rotation. Round R + 1 is paired only once every table of round R has its whole cycle stored (or
lost a bot to retirement or disqualification: that cycle is never completed).

- **Points** per round, from the table's cycle (:func:`base.cycle_order`): the best of k gets 1,
  the last 0, place p (0 best) (k − 1 − p)/(k − 1); bots tied share the mean of their places'
  points. A **bye** (the playing bots are not a multiple of k) is worth :data:`BYE_POINTS`, a
  middle place's; it goes to the lowest-standing bots among those with the fewest byes.
- **Pairing** (:func:`pair`): bots ordered by points, then Buchholz (the sum over its rounds of
  its tablemates' points), then a draw from the league's secret; tables of k taken top down,
  each the highest bot left with the nearest lower ones that make a table not played before,
  searched so that no table repeats while a pairing without a repeat exists.
- **The field** is the entrants playing at the draw (made before the first match and kept:
  ``field.draw["field"]``); a bot cannot join once it is drawn (``arena/bots/registry.py``);
  a retired or disqualified bot is not paired in the rounds after.

Everything is a pure function of the field and the stored results (the package's doc).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.spec import derive

from ..schedule import Slot
from .base import Field, Played, cycle_order, ties

BYE_POINTS = 0.5
"""A bye's points: a middle place's (and the mean points of a seat at any table)."""
SEARCH_BUDGET = 20_000
"""Tables tried in looking for a pairing without a repeat before taking the one in standing
order: exhaustive for small fields, bounded for large ones (where a repeat is rarely forced)."""


@dataclass
class Round:
    """One Swiss round as paired: its tables (bot ids sorted) and byes."""

    number: int
    tables: list[tuple[int, ...]]
    byes: list[int]
    done: bool = False  # every table's cycle stored (or abandoned by a bot no longer playing)


@dataclass
class Record:
    """A bot's Swiss record over the rounds done."""

    points: float = 0.0
    byes: int = 0
    rounds: int = 0  # rounds played at a table whose cycle is stored
    ranks: list[float] = field(default_factory=list)  # its mean rank at each such table
    mates: list[tuple[int, ...]] = field(default_factory=list)  # its tablemates, each such table
    tables: list[dict[str, Any]] = field(default_factory=list)  # what the board shows, round by round


def place_points(order_ties: Sequence[Sequence[int]], k: int) -> dict[int, float]:
    """Each bot's points at a table of k from its cycle's order (groups of tied bots, best
    first): place p gets (k − 1 − p)/(k − 1); a tied group shares the mean of its places'."""
    points: dict[int, float] = {}
    place = 0
    for group in order_ties:
        share = sum((k - 1 - p) / (k - 1) for p in range(place, place + len(group))) / len(group)
        points.update(dict.fromkeys(group, share))
        place += len(group)
    return points


def table_key(table: Sequence[int]) -> tuple[int, ...]:
    return tuple(sorted(table))


def choose_byes(order: Sequence[int], byes_had: Mapping[int, int], count: int) -> Iterator[list[int]]:
    """The bye sets allowed, best first: ``count`` bots among those with the fewest byes (none
    gets a second while another has had fewer), the lowest-standing first."""
    if count == 0:
        yield []
        return
    # lowest standing first among the fewest byes; a bot with more byes only once fewer are not enough
    ranked = sorted(order, key=lambda b: (byes_had.get(b, 0), -order.index(b)))
    need = byes_had.get(ranked[count - 1], 0)  # the bye count the last one chosen must have
    sure = [b for b in ranked if byes_had.get(b, 0) < need]
    pool = [b for b in ranked if byes_had.get(b, 0) == need]
    for rest in itertools.combinations(pool, count - len(sure)):
        yield sure + list(rest)


def _tables_without_repeat(order: Sequence[int], k: int, played: set[tuple[int, ...]],
                           budget: list[int]) -> list[tuple[int, ...]] | None:
    """Tables of k over ``order`` (best first), none in ``played``: the highest bot left with the
    nearest lower bots that allow it, depth first; None if there is none within ``budget``."""
    if not order:
        return []
    top, rest = order[0], order[1:]
    for mates in itertools.combinations(range(len(rest)), k - 1):
        if budget[0] <= 0:
            return None
        budget[0] -= 1
        table = table_key([top, *(rest[i] for i in mates)])
        if table in played:
            continue
        left = [b for i, b in enumerate(rest) if i not in mates]
        below = _tables_without_repeat(left, k, played, budget)
        if below is not None:
            return [table, *below]
    return None


def pair(order: Sequence[int], k: int, played: set[tuple[int, ...]],
         byes_had: Mapping[int, int]) -> tuple[list[tuple[int, ...]], list[int]]:
    """A round's tables and byes for the bots ``order`` (best standing first): byes as
    :func:`choose_byes` allows, then tables of k in standing order, without a table of
    ``played`` when some choice of byes and tables avoids it; else the tables in standing order
    (the top k, the next k, ...) with the preferred byes."""
    count = len(order) % k
    budget = [SEARCH_BUDGET]
    preferred: list[int] | None = None
    for byes in choose_byes(order, byes_had, count):
        preferred = byes if preferred is None else preferred
        rest = [b for b in order if b not in byes]
        tables = _tables_without_repeat(rest, k, played, budget)
        if tables is not None:
            return tables, sorted(byes)
        if budget[0] <= 0:
            break
    byes = preferred or []
    rest = [b for b in order if b not in byes]
    return [table_key(rest[i:i + k]) for i in range(0, len(rest), k)], sorted(byes)


def _draw(field: Field, round_: int, bot: int) -> int:
    return derive(field.secret, "swiss", round_, bot)


def swiss_field(field: Field) -> list[int]:
    """The Swiss' field: the bots playing when it was drawn (the bots playing now, before)."""
    return sorted(field.draw["field"]) if "field" in field.draw else field.playing_ids


@dataclass
class Tournament:
    """The rounds paired so far and each bot's record over the rounds done."""

    rounds: list[Round]
    records: dict[int, Record]

    def buchholz(self, bot: int) -> float:
        return sum(self.records[m].points for mates in self.records[bot].mates for m in mates)

    def mean_rank(self, bot: int) -> float | None:
        ranks = self.records[bot].ranks
        return sum(ranks) / len(ranks) if ranks else None


def tournament(field: Field, rounds: int, played: Played) -> Tournament:
    """Pairs rounds 0 .. ``rounds`` − 1 in turn from ``played``, each once the one before is
    done; stops at the first round not done (it is in the result, paired) or with too few bots."""
    k = field.players
    bots = swiss_field(field)
    records = {b: Record() for b in bots}
    done_tables: set[tuple[int, ...]] = set()
    out = Tournament([], records)
    for number in range(rounds):
        active = [b for b in bots if b in field.playing]
        stored = sorted({tuple(int(b) for b in key.split(",")) for r, key in played.matches
                         if number * k <= r < number * k + k})
        if len(active) < k and not stored:
            break
        draws = {b: _draw(field, number, b) for b in active}
        order = sorted(active, key=lambda b: (-records[b].points, -out.buchholz(b), draws[b]))
        tables, byes = pair(order, k, done_tables, {b: records[b].byes for b in bots})
        if not set(stored) <= set(tables):
            # the field changed since this round was paired (a bot retired or disqualified mid-round):
            # its stored tables stand, and the bots left sit in standing order, byes first, with no
            # search: so the same tables whichever of them are stored when a run asks again
            rest = [b for b in order if b not in {b for t in stored for b in t}]
            byes = sorted(next(choose_byes(rest, {b: records[b].byes for b in bots}, len(rest) % k)))
            rest = [b for b in rest if b not in byes]
            tables = [*stored, *(table_key(rest[i:i + k]) for i in range(0, len(rest), k))]
        current = Round(number, tables, byes)
        out.rounds.append(current)
        results: dict[tuple[int, ...], dict[int, tuple[int, float, float]]] = {}  # bot: place, points, mean rank
        for table in tables:
            stored_ = played.cycle_complete(table, number)
            if stored_:
                order_ = cycle_order(played.cycle_games(table, number))
                points = place_points(ties(order_), k)
                results[table] = {c.bot_id: (place, points[c.bot_id], c.mean_rank) for place, c in enumerate(order_, 1)}
            for b in table:
                place, got = results[table][b][:2] if stored_ else (None, None)
                records.setdefault(b, Record()).tables.append({"round": number, "table": list(table), "place": place,
                                                               "points": got, "stored": stored_})
        for b in byes:
            records[b].tables.append({"round": number, "table": None, "place": None, "points": BYE_POINTS,
                                      "stored": True})
        current.done = all(played.cycle_complete(t, number) or not set(t) <= field.playing for t in tables)
        if not current.done:
            break
        for table in tables:  # the round is done: its points count
            done_tables.add(table)
            for b, (_, got, mean_rank) in results.get(table, {}).items():  # none at a table abandoned
                record = records[b]
                record.points += got
                record.rounds += 1
                record.ranks.append(mean_rank)
                record.mates.append(tuple(m for m in table if m != b))
        for b in byes:
            records[b].points += BYE_POINTS
            records[b].byes += 1
    return out


class Swiss:
    def draw(self, field: Field, ratings_of: Callable[[str], Mapping[int, float]]) -> dict[str, Any]:
        return {"field": field.playing_ids}  # the entrants at the first round are the field

    def slots(self, field: Field, rounds: int, played: Played) -> list[Slot]:
        k = field.players
        return [Slot(r.number * k + j, table) for r in tournament(field, rounds, played).rounds for table in r.tables
                if set(table) <= field.playing or played.cycle_complete(table, r.number) for j in range(k)]

    def planned_matches(self, field: Field, rounds: int) -> int | None:
        playing = sum(1 for b in swiss_field(field) if b in field.playing)
        return rounds * (playing // field.players) * field.players

    def board(self, field: Field, played: Played) -> dict[str, Any] | None:
        # the rounds with a complete cycle: not the pairing of a round none of whose cycles is stored
        # (the tournament may be over: the board does not know the rounds it is run to)
        t = tournament(field, 1 + max((r // field.players for r, _ in played.matches), default=-1), played)
        done = [r for r in t.rounds if r.done]
        rows: list[dict[str, Any]] = []
        for b, record in t.records.items():
            rows.append({"bot_id": b, "bot": field.names.get(b, f"bot {b}"), "points": record.points,
                         "buchholz": t.buchholz(b), "mean_rank": t.mean_rank(b), "rounds": record.rounds,
                         "byes": record.byes, "playing": b in field.playing, "tables": record.tables})
        rows.sort(key=lambda row: (-row["points"], -row["buchholz"],
                                   row["mean_rank"] if row["mean_rank"] is not None else float("inf"), row["bot_id"]))
        for place, row in enumerate(rows, 1):
            row["place"] = place
        current = t.rounds[-1] if t.rounds and not t.rounds[-1].done else None
        return {"players": field.players, "rounds_done": len(done), "bye_points": BYE_POINTS, "rows": rows,
                "current": None if current is None else {"round": current.number,
                                                         "tables": [list(x) for x in current.tables],
                                                         "byes": current.byes}}

    def text(self, board: dict[str, Any], labels: Mapping[int, str]) -> list[str]:
        def label(b: int) -> str:
            return labels.get(b, f"bot {b}")

        lines = [f"Swiss: {board['rounds_done']} round(s) done; a place at a table of {board['players']} is worth "
                 f"1 (best) down to 0 (last), a bye {board['bye_points']}"]
        for row in board["rows"]:
            rounds = []
            for t in row["tables"]:
                if t["table"] is None:
                    rounds.append(f"R{t['round'] + 1} bye")
                else:
                    mates = "+".join(label(m) for m in t["table"] if m != row["bot_id"])
                    got = f"{t['place']}. {t['points']:g}" if t["stored"] else "not stored"
                    rounds.append(f"R{t['round'] + 1} {got} vs {mates}")
            mean = "-" if row["mean_rank"] is None else f"{row['mean_rank']:.2f}"
            gone = "" if row["playing"] else " (retired)"
            lines.append(f"{row['place']:>3}. {label(row['bot_id'])}{gone}  points {row['points']:g}  "
                         f"Buchholz {row['buchholz']:g}  mean rank {mean}  byes {row['byes']}  |  " + "; ".join(rounds))
        return lines
