"""The gauntlet's pairing and board, pure Python: one challenger version and k − 1 of the field at
every table, every such combination; the field never plays itself; two versions never meet."""

from __future__ import annotations

import itertools

import pytest

from arena.league import LeagueError
from arena.league.formats import league_format
from arena.league.formats.base import Field, Played, played_from_rows
from arena.league.schedule import ScheduleOptions

OPTIONS = ScheduleOptions(format="gauntlet", challenger="champ")


def field_of(names: dict[int, str], players: int, retired: frozenset[int] = frozenset()) -> Field:
    return Field(entrants=tuple(sorted(names)), playing=frozenset(names) - retired, names=names, players=players,
                 options=OPTIONS, secret="ab" * 16)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_challenger_version_meets_every_combination_of_the_field_and_nothing_else(players):
    names = {1: "a", 2: "champ", 3: "b", 4: "c", 5: "champ", 6: "d", 7: "champ"}
    field = field_of(names, players)
    fmt = league_format(OPTIONS)
    rounds = 2 * players  # two duplicate cycles of each table
    slots = fmt.slots(field, rounds, Played())
    challengers, others = [2, 5, 7], [1, 3, 4, 6]
    tables = {s.table for s in slots}
    assert tables == {tuple(sorted((c, *rest))) for c in challengers
                      for rest in itertools.combinations(others, players - 1)}
    for table in tables:
        assert len([b for b in table if b in challengers]) == 1, table  # no field-only table, no two versions
        assert sorted({s.round for s in slots if s.table == table}) == list(range(rounds))  # whole cycles
    assert len(slots) == len(set(slots)) == fmt.planned_matches(field, rounds)
    assert fmt.slots(field, rounds, Played()) == slots  # a pure function: a rerun asks the same


def test_retired_versions_play_no_new_table():
    field = field_of({1: "a", 2: "champ", 3: "b", 4: "champ"}, 2, retired=frozenset({2}))
    assert {s.table for s in league_format(OPTIONS).slots(field, 2, Played())} == {(1, 4), (3, 4)}


def test_a_gauntlet_needs_its_challenger_and_enough_of_a_field():
    with pytest.raises(ValueError, match="a gauntlet needs its challenger"):
        ScheduleOptions(format="gauntlet")
    fmt = league_format(OPTIONS)
    with pytest.raises(LeagueError, match="no version of the challenger 'champ' is entered"):
        fmt.slots(field_of({1: "a", 2: "b", 3: "c"}, 2), 2, Played())
    with pytest.raises(LeagueError, match="the field has 1 bot.*a table of 3 needs 2 besides the challenger"):
        fmt.slots(field_of({1: "a", 2: "champ", 3: "champ"}, 3), 3, Played())


def test_the_board_counts_each_version_against_each_field_bot():
    field = field_of({1: "a", 2: "champ", 3: "b", 4: "champ"}, 2)
    # (round, table, seats, ranks, scores): version 2 beats 1 twice and splits with 3; version 4 loses to 1
    played = played_from_rows([
        (0, "1,2", (1, 2), (2, 1), (0, 5)), (1, "1,2", (2, 1), (1, 2), (5, 0)),
        (0, "2,3", (2, 3), (1, 2), (3, 1)), (1, "2,3", (3, 2), (1, 2), (4, 2)),
        (0, "1,4", (1, 4), (1, 2), (5, 0)), (1, "1,4", (4, 1), (1, 1), (3, 3)),
    ])
    fmt = league_format(OPTIONS)
    board = fmt.board(field, played)
    assert board is not None
    assert board["challenger"] == "champ" and board["field"] == [1, 3]
    assert [v["bot_id"] for v in board["versions"]] == [2, 4]  # best mean rank difference first
    two, four = board["versions"]
    assert two["games"] == 4 and two["mean_rank_difference"] == 0.5
    assert two["against"] == [
        {"bot_id": 1, "games": 2, "mean_rank_difference": 1.0, "ahead": 2, "behind": 0, "level": 0},
        {"bot_id": 3, "games": 2, "mean_rank_difference": 0.0, "ahead": 1, "behind": 1, "level": 0}]
    assert four["against"] == [
        {"bot_id": 1, "games": 2, "mean_rank_difference": -0.5, "ahead": 0, "behind": 1, "level": 1}]
    lines = fmt.text(board, {1: "a@1", 2: "champ@1", 3: "b@1", 4: "champ@2"})
    assert "champ@1: 4 game(s) against the field, mean rank difference +0.50" in lines
    assert "  vs a@1: 2 game(s), -0.50, ahead 0, behind 1, level 1" in lines
