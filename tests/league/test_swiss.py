"""The Swiss format's pairing and board, as pure functions of a field and stored results
(``arena/league/formats/swiss.py``); the run in containers is test_swiss_runs.py's."""

from __future__ import annotations

import itertools
import random

import pytest

from arena.league.formats.base import Field, GameResult, Played, complete_cycles
from arena.league.formats.swiss import BYE_POINTS, Swiss, choose_byes, pair, place_points, tournament
from arena.league.schedule import ScheduleOptions, Slot

SECRET = "ab" * 16
SWISS = Swiss()


def field_of(n: int, k: int, playing: set[int] | None = None, draw: dict | None = None) -> Field:
    bots = tuple(range(1, n + 1))
    return Field(entrants=bots, playing=frozenset(bots if playing is None else playing),
                 names={b: f"b{b}" for b in bots}, players=k, options=ScheduleOptions(format="swiss"),
                 secret=SECRET, draw={"field": list(bots)} if draw is None else draw)


def results(slot: Slot, rng: random.Random, strength: dict[int, float] | None = None) -> list[GameResult]:
    """A match's games (k of them, one deal), random ranks; a stronger bot tends to rank better."""
    games = []
    for i in range(len(slot.table)):
        seats = slot.table[i:] + slot.table[:i]
        noisy = sorted(seats, key=lambda b: -(strength or {}).get(b, 0) - rng.random())
        ranks = tuple(1 + noisy.index(b) for b in seats)
        games.append(GameResult(seats, ranks, tuple(10 - r for r in ranks)))
    return games


def run(field: Field, rounds: int, seed: int, stop: int | None = None) -> dict:
    """Plays the Swiss to ``rounds`` as the runner does (slots not stored, ask again), each match
    a random result; ``stop``: store only this many matches."""
    rng = random.Random(seed)
    matches: dict = {}
    while True:
        todo = [s for s in SWISS.slots(field, rounds, Played(matches)) if (s.round, s.key) not in matches]
        if not todo:
            return matches
        for slot in todo:
            if stop is not None and len(matches) >= stop:
                return matches
            matches[(slot.round, slot.key)] = results(slot, rng)


def tables_by_round(field: Field, rounds: int, matches: dict) -> list[tuple[list[tuple[int, ...]], list[int]]]:
    return [(r.tables, r.byes) for r in tournament(field, rounds, Played(matches)).rounds]


def test_place_points_share_ties() -> None:
    assert place_points([[3], [1], [2]], 3) == {3: 1.0, 1: 0.5, 2: 0.0}
    assert place_points([[3, 1], [2]], 3) == {3: 0.75, 1: 0.75, 2: 0.0}
    assert place_points([[1, 2]], 2) == {1: 0.5, 2: 0.5}
    assert place_points([[1], [2], [3]], 3)[2] == BYE_POINTS


def test_byes_go_to_the_lowest_standing_with_fewest_byes() -> None:
    order = [1, 2, 3, 4, 5]  # best first
    assert next(choose_byes(order, {}, 1)) == [5]
    assert next(choose_byes(order, {5: 1}, 1)) == [4]
    assert next(choose_byes(order, {5: 1, 4: 1, 3: 1, 2: 1}, 2)) == [1, 5]
    assert all(1 in byes for byes in choose_byes(order, {5: 1, 4: 1, 3: 1, 2: 1}, 2))


def test_pairing_takes_tables_in_standing_order_and_avoids_a_repeat() -> None:
    assert pair([4, 2, 1, 3], 2, set(), {}) == ([(2, 4), (1, 3)], [])
    assert pair([4, 2, 1, 3], 2, {(2, 4)}, {}) == ([(1, 4), (2, 3)], [])  # the nearest lower bot instead
    # nothing avoids a repeat: tables in standing order
    assert pair([1, 2, 3, 4], 2, {(1, 2), (1, 3), (1, 4)}, {}) == ([(1, 2), (3, 4)], [])


def no_repeat_exists(order: list[int], k: int, played: set, byes_had: dict) -> bool:
    """Whether some allowed bye set and some split of the rest into tables of k repeats no table."""
    def splits(bots: list[int]):
        if not bots:
            yield []
            return
        for mates in itertools.combinations(bots[1:], k - 1):
            table = tuple(sorted((bots[0], *mates)))
            for rest in splits([b for b in bots[1:] if b not in mates]):
                yield [table, *rest]
    for byes in choose_byes(order, byes_had, len(order) % k):
        rest = [b for b in order if b not in byes]
        if any(not set(tables) & played for tables in splits(rest)):
            return True
    return False


@pytest.mark.parametrize("k", [2, 3])
def test_pairing_properties_exhaustively_on_small_fields(k: int) -> None:
    """4 to 8 bots, tournaments as long as the field has distinct tables for, random results:
    no table repeats while a pairing without one exists; every bot plays every round or has a
    bye; byes rotate; the board's points never increase down the standings."""
    for n in range(4, 9):
        for seed in range(3):
            f = field_of(n, k)
            rounds = 6 if k == 2 else 4
            matches = run(f, rounds, seed)
            t = tournament(f, rounds, Played(matches))
            assert len(t.rounds) == rounds and all(r.done for r in t.rounds)
            played: set[tuple[int, ...]] = set()
            byes_had: dict[int, int] = {}
            records = {b: 0.0 for b in f.entrants}
            for r in t.rounds:
                seated = [b for table in r.tables for b in table]
                assert sorted(seated + r.byes) == list(f.entrants), "every bot plays or has a bye, once"
                assert len(r.byes) == n % k
                assert all(len(table) == k for table in r.tables)
                order = sorted(f.entrants, key=lambda b: -records[b])
                if no_repeat_exists(order, k, played, byes_had):
                    assert not set(r.tables) & played, f"n={n} k={k} seed={seed} round {r.number} repeats"
                others = [b for b in f.entrants if b not in r.byes]
                most = max((byes_had.get(b, 0) for b in r.byes), default=0)
                assert most <= min(byes_had.get(b, 0) for b in others), "byes rotate: no second while another has fewer"
                for b in r.byes:
                    byes_had[b] = byes_had.get(b, 0) + 1
                played |= set(r.tables)
                records = {b: t.records[b].points for b in f.entrants}  # not per round: order only roughly
            board = SWISS.board(f, complete_cycles(Played(matches), k))
            assert board is not None and board["rounds_done"] == rounds
            points = [row["points"] for row in board["rows"]]
            assert points == sorted(points, reverse=True)
            assert sum(points) == pytest.approx(rounds * ((n // k) * k / 2 + (n % k) * BYE_POINTS))
            assert all(row["rounds"] + row["byes"] == rounds for row in board["rows"])


def test_a_round_is_paired_once_the_one_before_is_all_stored() -> None:
    f = field_of(5, 2)
    matches = run(f, 3, 1, stop=3)  # round 0: 2 tables, 4 matches; 3 stored
    slots = SWISS.slots(f, 3, Played(matches))
    assert {s.round // 2 for s in slots} == {0} and len(slots) == 4
    matches = run(f, 3, 1, stop=4)
    assert {s.round // 2 for s in SWISS.slots(f, 3, Played(matches))} == {0, 1}
    assert SWISS.planned_matches(f, 3) == 3 * 2 * 2
    assert len(run(f, 3, 1)) == 12


def test_the_board_counts_complete_cycles_only() -> None:
    f = field_of(6, 3)
    whole = run(f, 2, 4)
    round_1 = sorted(key for key in whole if key[0] >= 3)
    partial = {key: games for key, games in whole.items() if key != round_1[0]}  # one table's cycle open
    board = SWISS.board(f, complete_cycles(Played(partial), 3))
    without = SWISS.board(f, complete_cycles(Played({key: g for key, g in partial.items() if key[1] != round_1[0][1]
                                                     or key[0] < 3}), 3))
    assert board == without
    assert board is not None and board["rounds_done"] == 1 and board["current"]["round"] == 1
    open_table = [int(b) for b in round_1[0][1].split(",")]
    for row in board["rows"]:
        latest = row["tables"][-1]
        assert latest["round"] == 1
        assert latest["stored"] == (latest["table"] != open_table)
    final = SWISS.board(f, complete_cycles(Played(whole), 3))
    assert final is not None and final["rounds_done"] == 2 and final["current"] is None


def test_the_draw_fixes_the_field_and_a_retired_bot_is_not_paired_after() -> None:
    assert SWISS.draw(field_of(4, 2), lambda league: {}) == {"field": [1, 2, 3, 4]}
    f = field_of(5, 2)
    matches = run(f, 1, 2)
    (tables, byes), = tables_by_round(f, 1, matches)
    gone = byes[0]
    retired = field_of(5, 2, playing=set(f.entrants) - {gone})
    # a stored round stands (a retired bot's bye no longer counts: it plays no more)
    assert tables_by_round(retired, 1, matches) == [(tables, [])]
    rounds = tournament(retired, 3, Played(run(retired, 3, 2) | matches)).rounds
    assert len(rounds) == 3 and rounds[0].tables == tables
    for r in rounds[1:]:
        assert {b for table in r.tables for b in table} | set(r.byes) == set(f.entrants) - {gone}
    late = field_of(6, 2, draw={"field": [1, 2, 3, 4, 5]})  # bot 6 entered after the draw: not paired
    for r in tournament(late, 3, Played(run(late, 3, 2))).rounds:
        assert {b for table in r.tables for b in table} | set(r.byes) == {1, 2, 3, 4, 5}


def test_a_bot_retired_mid_round_leaves_its_table_and_the_round_goes_on() -> None:
    f = field_of(4, 2)
    matches = run(f, 2, 3)
    first = [k for k in matches if k[0] == 2][0]  # round 1's first stored match
    partial = {key: g for key, g in matches.items() if key[0] < 2 or key == first}
    gone = int(first[1].split(",")[0])
    left = field_of(4, 2, playing={1, 2, 3, 4} - {gone})
    slots = SWISS.slots(left, 3, Played(partial))
    assert all(gone not in s.table for s in slots if s.round >= 2 and (s.round, s.key) not in partial)
    other = [s for s in slots if s.round in (2, 3) and gone not in s.table]
    assert len(other) == 2, "the round's other table still plays its cycle"
    more = dict(partial)
    rng = random.Random(0)
    for s in other:
        more[(s.round, s.key)] = results(s, rng)
    later = [s for s in SWISS.slots(left, 3, Played(more)) if s.round >= 4]
    assert later and all(gone not in s.table for s in later), "round 1 done without the abandoned cycle"


def test_text_names_every_bot() -> None:
    f = field_of(5, 2)
    board = SWISS.board(f, Played(run(f, 2, 5)))
    assert board is not None
    lines = SWISS.text(board, {b: f"b{b}@1" for b in f.entrants})
    assert len(lines) == 6 and all(f"b{b}@1" in "".join(lines) for b in f.entrants)
    assert "bye" in "".join(lines)


def test_status_counts_a_swiss_rounds(store) -> None:
    """Three bots, 2 a table (a table and a bye a round), to 3 rounds: with round 0 stored and
    round 1 half, 1 round is complete and 2 are left (round 2, not paired yet, among them)."""
    from arena.bots.registry import register_bot
    from arena.league import create_league
    from arena.league.status import league_status

    from .crafted import play_format

    create_league(store, "sw", "sobek", 2, {}, ScheduleOptions(format="swiss"), secret=SECRET)
    for name in ("a", "b", "c"):
        register_bot(store, name=name, version="1", image="none:1", image_digest="sha256:0", language="python",
                     author="a", games=["sobek"], league="sw")
    play_format(store, "sw", 3)
    status = league_status(store, "sw", rounds=3)
    assert status["rounds"] == {"target": 3, "complete": 1, "left": 2}
    assert (status["matches"]["stored"], status["matches"]["left"], status["matches"]["target"]) == (3, 3, 6)
    assert status["cycles"] == {"complete": 1, "open": 1}


def test_a_round_repaired_after_a_retirement_keeps_its_tables_as_they_are_stored() -> None:
    """A bot retired mid-round: the round's tables stay the same whichever of them are stored
    when the runner asks again (as after a kill)."""
    repaired = 0
    for n, seed in itertools.product((7, 8), range(2)):
        f = field_of(n, 2)
        whole = run(f, 3, seed)
        round_2 = sorted({key for r, key in whole if r in (4, 5)})
        for kept, gone in itertools.product(round_2, f.entrants):
            if str(gone) in kept.split(","):
                continue
            first = {key: g for key, g in whole.items() if key[0] < 4 or key == (4, kept)}
            left = field_of(n, 2, playing=set(f.entrants) - {gone})
            before = tournament(left, 3, Played(first)).rounds[2]
            repaired += sorted(before.tables) != sorted(tournament(f, 3, Played(first)).rounds[2].tables)
            assert all(gone not in t for t in before.tables)
            rng = random.Random(seed)
            for table in reversed(before.tables):  # stored from the last: tables finish in any order
                more = dict(first)
                for j in range(2):
                    more[(4 + j, ",".join(map(str, table)))] = results(Slot(4 + j, table), rng)
                after = tournament(left, 3, Played(more)).rounds[2]
                assert (sorted(after.tables), after.byes) == (sorted(before.tables), before.byes)
    assert repaired
