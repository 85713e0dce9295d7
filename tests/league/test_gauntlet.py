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


def test_the_cli_prints_a_gauntlets_standings_from_complete_cycles_only(store, db_url):
    """Two cycles stored for one table, half of a cycle for the other: only complete cycles count."""
    from datetime import UTC, datetime

    from click.testing import CliRunner

    from arena.bots.registry import register_bot
    from arena.cli import main as arena
    from arena.league import create_league
    from arena.store import Game, Match

    league = create_league(store, "g", "sobek", 2, {}, OPTIONS)
    ids = [register_bot(store, name=name, version="1", image="img", image_digest="", language="python", author="t",
                        games=[], league="g").id for name in ("champ", "fa", "fb")]
    with store() as session, session.begin():
        for rival, rounds in ((ids[1], (0, 1, 2, 3)), (ids[2], (0,))):
            table = sorted((ids[0], rival))
            for round_ in rounds:
                match = Match(league_id=league.id, round=round_, table=",".join(map(str, table)), bots=table,
                              record_dir="x", restarts=[0, 0], started_at=datetime.now(UTC))
                session.add(match)
                session.flush()
                session.add(Game(match_id=match.id, index=0, seed=str(round_), deal="d", seats=[ids[0], rival],
                                 scores=[1, 0], ranks=[1, 2], failures=["", ""], record_path="x"))
    printed = CliRunner().invoke(arena, ["league", "standings", "g", "--db", db_url])
    assert printed.exit_code == 0, printed.output
    assert "champ@1: 4 game(s) against the field, mean rank difference +1.00" in printed.output
    assert "  vs fa@1: 4 game(s), +1.00, ahead 4, behind 0, level 0" in printed.output
    assert "vs fb@1" not in printed.output  # its cycle is open: secret
