"""Brackets (``arena/league/formats/knockout.py``), pure Python: placement, byes, advancement by
whole duplicate cycles, double elimination's losers' bracket and grand final, walkovers, and
the seeding's draw."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pytest

from arena.league import LeagueError, create_league
from arena.league.formats import league_format
from arena.league.formats.base import Field, GameResult, Played, complete_cycles, cycle_order
from arena.league.formats.knockout import OPEN, Bracket, Knockout, field_problem, placement
from arena.league.schedule import Format, ScheduleOptions, Slot

from .helpers import SECRET

Winner = Callable[[tuple[int, ...], int], tuple[int, ...]]  # (table, cycle) -> the table, best first


def by_id(table: tuple[int, ...], cycle: int) -> tuple[int, ...]:
    """The lowest id wins every game."""
    return tuple(sorted(table))


def field_of(seeds: list[int], players: int = 2, fmt: Format = "knockout", playing: set[int] | None = None,
             secret: str = SECRET) -> Field:
    return Field(entrants=tuple(sorted(seeds)), playing=frozenset(seeds if playing is None else playing),
                 names={b: f"bot{b}" for b in seeds}, players=players, options=ScheduleOptions(format=fmt),
                 secret=secret, draw={"seeds": seeds, "rated": 0, "seeds_from": ""})


def play(fmt: Knockout, field: Field, winner: Winner = by_id, matches: dict | None = None,
         limit: int | None = None) -> dict[tuple[int, str], list[GameResult]]:
    """As the runner does: the slots not stored, batch after batch, each match one game whose
    ranks are ``winner``'s order for its (table, cycle); stops after ``limit`` matches."""
    matches = {} if matches is None else matches
    while True:
        todo = [s for s in fmt.slots(field, 1, Played(matches)) if (s.round, s.key) not in matches]
        if not todo:
            return matches
        for slot in todo:
            if limit is not None and len(matches) >= limit:
                return matches
            order = winner(slot.table, slot.cycle)
            ranks = tuple(order.index(b) + 1 for b in slot.table)
            matches[(slot.round, slot.key)] = [GameResult(slot.table, ranks, tuple(10 - r for r in ranks))]


def resolved(fmt: Knockout, field: Field, matches: Mapping) -> Bracket:
    bracket = fmt.bracket(field, Played(matches))
    assert bracket is not None
    return bracket


def tables(bracket: Bracket, name: str) -> list[tuple[list, str, object]]:
    stage = next(s for s in bracket.stages if s.name == name)
    return [(t.entries, t.status, t.winner) for t in stage.tables]


def test_placement_is_the_standard_bracket_for_two_and_its_pots_for_more():
    assert placement(2, 2) == [1, 2]
    assert placement(4, 2) == [1, 4, 2, 3]
    assert placement(8, 2) == [1, 8, 4, 5, 2, 7, 3, 6]
    sixteen = placement(16, 2)
    assert sixteen[:2] == [1, 16] and sorted(sixteen) == list(range(1, 17))
    assert 1 in sixteen[:8] and 2 in sixteen[8:]  # seeds 1 and 2 meet in the final at the earliest
    assert [set(sixteen[i:i + 4]) & {1, 2, 3, 4} for i in range(0, 16, 4)] == [{1}, {4}, {2}, {3}]  # a quarter each
    # every first-round pair sums to 17: the top seeds meet the lowest
    assert {a + b for a, b in zip(sixteen[::2], sixteen[1::2], strict=True)} == {17}
    three = placement(9, 3)
    assert [three[i:i + 3] for i in range(0, 9, 3)] == [[1, 6, 9], [2, 5, 8], [3, 4, 7]]


def test_byes_go_to_the_top_seeds_and_only_full_tables_play():
    fmt = Knockout()
    field = field_of([11, 12, 13, 14, 15])  # seeds 1..5 are bots 11..15
    bracket = resolved(fmt, field, {})
    assert tables(bracket, "Round 1") == [([11, None], "bye", 11), ([14, 15], "pending", OPEN),
                                          ([12, None], "bye", 12), ([13, None], "bye", 13)]
    # the first round's only full table, and seeds 2 and 3 who meet in round 2 whoever wins it
    assert bracket.slots() == [Slot(0, (14, 15)), Slot(1, (14, 15)), Slot(2, (12, 13)), Slot(3, (12, 13))]
    assert fmt.planned_matches(field, 1) == 2 * 4  # 5 bots: 4 tables of 2 matches
    matches = play(fmt, field)
    assert len(matches) == 8 and resolved(fmt, field, matches).champion == 11


def test_a_table_is_won_by_the_best_over_its_whole_cycle_and_the_winner_advances():
    fmt = Knockout()
    field = field_of([1, 2, 3, 4, 5, 6, 7, 8])
    strength = {1: 5, 2: 7, 3: 1, 4: 8, 5: 2, 6: 6, 7: 3, 8: 4}  # higher is better: 4 should win it all

    def split(table: tuple[int, ...], cycle: int) -> tuple[int, ...]:
        return tuple(sorted(table, key=lambda b: -strength[b]))

    matches = play(fmt, field, split)
    bracket = resolved(fmt, field, matches)
    assert bracket.champion == 4
    played = Played(matches)
    for stage in bracket.stages:
        for table in stage.tables:
            order = cycle_order(played.cycle_games(table.bots, stage.cycle))
            assert table.status == "played" and table.winner == order[0].bot_id  # the one whose cycle it won
    # round r's tables are the winners of round r - 1, in bracket order
    assert tables(bracket, "Round 2") == [([1, 4], "played", 4), ([2, 6], "played", 2)]
    assert tables(bracket, "Final") == [([4, 2], "played", 4)]
    assert sorted({s.round for s in fmt.slots(field, 1, played)}) == list(range(6))  # 3 cycles of 2 rounds


def test_a_split_cycle_goes_to_the_better_seed():
    fmt = Knockout()
    field = field_of([7, 3])  # bot 7 is seed 1
    matches = {(r, "3,7"): [GameResult((3, 7), ranks, (5, 5))] for r, ranks in ((0, (1, 2)), (1, (2, 1)))}
    assert [c.bot_id for c in cycle_order(Played(matches).cycle_games((3, 7), 0))] == [3, 7]  # a tie: by id
    assert resolved(fmt, field, matches).champion == 7  # the better seed


def test_a_knockout_of_three_per_table_needs_an_odd_field():
    assert field_problem(5, 3, False) is None and field_problem(9, 3, False) is None
    assert "1 more than a multiple of 2" in (field_problem(4, 3, False) or "")
    assert field_problem(4, 2, False) is None and field_problem(3, 2, True) is None
    assert "2 per table" in (field_problem(4, 3, True) or "")
    fmt = Knockout()
    with pytest.raises(LeagueError, match="enter or retire"):
        fmt.draw(field_of([1, 2, 3, 4], players=3), lambda name: {})
    field = field_of([1, 2, 3, 4, 5], players=3)
    bracket = resolved(fmt, field, {})
    # 5 at 3 a table: one first-round table of 3 (the lowest seeds), byes to seeds 1 and 2; no table short of 3
    assert tables(bracket, "Round 1") == [([1, None, None], "bye", 1), ([2, None, None], "bye", 2),
                                          ([3, 4, 5], "pending", OPEN)]
    assert fmt.planned_matches(field, 1) == 2 * 3
    matches = play(fmt, field)
    assert tables(resolved(fmt, field, matches), "Final") == [([1, 2, 3], "played", 1)]
    assert len(matches) == 2 * 3  # two tables of 3 rounds each
    seven = resolved(fmt, field_of(list(range(1, 8)), players=3), {})
    assert [e for e, _, _ in tables(seven, "Round 1")] == [[1, None, None], [2, 5, 7], [3, 4, 6]]


def test_a_bot_out_before_its_match_loses_it_by_walkover_and_a_complete_cycle_stands():
    fmt = Knockout()
    seeds = [1, 2, 3, 4]
    matches = play(fmt, field_of(seeds), limit=4)  # round 1 played: 1 and 2 through
    field = field_of(seeds, playing={1, 3, 4})  # then bot 2 retires
    bracket = resolved(fmt, field, matches)
    assert tables(bracket, "Round 1") == [([1, 4], "played", 1), ([2, 3], "played", 2)]  # its cycle stands
    assert tables(bracket, "Final") == [([1, 2], "walkover", 1)] and bracket.champion == 1
    assert fmt.slots(field, 1, Played(matches)) == [Slot(r, t) for r, t in ((0, (1, 4)), (1, (1, 4)),
                                                                            (0, (2, 3)), (1, (2, 3)))]
    # retired in the middle of its cycle: the cycle is not complete, the other goes through
    half = {(0, "1,4"): matches[(0, "1,4")]}
    bracket = resolved(fmt, field_of(seeds, playing={2, 3, 4}), half)
    assert tables(bracket, "Round 1")[0] == ([1, 4], "walkover", 4)
    assert bracket.stages[0].tables[0].out == [1]


def test_double_elimination_drops_a_loser_once_and_ends_with_the_grand_final():
    fmt = Knockout(double=True)
    field = field_of([1, 2, 3, 4], fmt="double-elimination")
    matches = play(fmt, field)  # the lowest id always wins: 1 never loses
    bracket = resolved(fmt, field, matches)
    assert [s.name for s in bracket.stages] == ["Winners' round 1", "Winners' final", "Losers' round 1",
                                                "Losers' final", "Grand final"]
    assert [s.cycle for s in bracket.stages] == list(range(5))
    assert tables(bracket, "Losers' round 1") == [([4, 3], "played", 3)]  # the first round's losers
    assert tables(bracket, "Losers' final") == [([3, 2], "played", 2)]  # with the winners' final's loser
    assert tables(bracket, "Grand final") == [([1, 2], "played", 1)] and bracket.champion == 1
    assert len(matches) == 2 * 6  # no reset: the winners' champion won the grand final


def test_the_grand_final_is_played_again_when_the_losers_champion_wins_it_on_new_deals():
    fmt = Knockout(double=True)
    field = field_of([1, 2, 3, 4], fmt="double-elimination")

    def comeback(table: tuple[int, ...], cycle: int) -> tuple[int, ...]:
        if table == (1, 2) and cycle >= 3:  # 2 beats 1 in the losers' final? no: in the grand final and reset
            return (2, 1)
        return tuple(sorted(table))

    matches = play(fmt, field, comeback)
    bracket = resolved(fmt, field, matches)
    assert [s.name for s in bracket.stages][-2:] == ["Grand final", "Grand final reset"]
    assert tables(bracket, "Grand final") == [([1, 2], "played", 2)]
    assert tables(bracket, "Grand final reset") == [([1, 2], "played", 2)] and bracket.champion == 2
    # bots 1 and 2 met three times (winners' final, grand final, reset): each in its own cycle, so on its own deals
    met = sorted({s.cycle for s in fmt.slots(field, 1, Played(matches)) if s.table == (1, 2)})
    assert met == [1, 4, 5]
    deals = {Slot(c * 2, (1, 2)).secrets(SECRET)[0] for c in met}
    assert len(deals) == 3
    # a reset lost by the losers' champion: the winners' champion takes it
    matches = play(fmt, field, lambda t, c: (2, 1) if t == (1, 2) and c == 4 else tuple(sorted(t)))
    assert resolved(fmt, field, matches).champion == 1


def test_double_elimination_with_byes_and_a_bot_that_loses_twice_is_out():
    fmt = Knockout(double=True)
    field = field_of([1, 2, 3, 4, 5, 6], fmt="double-elimination")
    matches = play(fmt, field)
    bracket = resolved(fmt, field, matches)
    assert bracket.champion == 1
    losses: dict[int, int] = {}
    for stage in bracket.stages:  # in the order they are played: nobody plays after a second loss
        for table in stage.tables:
            assert all(losses.get(b, 0) < 2 for b in table.bots), (stage.name, table)
            if table.status == "played":
                loser = next(b for b in table.bots if b != table.winner)
                losses[loser] = losses.get(loser, 0) + 1
    assert losses == {2: 2, 3: 2, 4: 2, 5: 2, 6: 2}  # every bot but the champion lost twice
    assert fmt.planned_matches(field, 1) is None


def test_the_seeding_is_the_ratings_then_a_draw_from_the_secret_the_same_every_time():
    fmt = Knockout()
    field = field_of([1, 2, 3, 4, 5, 6, 7, 8])
    asked: list[str] = []

    def ratings(name: str) -> Mapping[int, float]:
        asked.append(name)
        return {5: 3.0, 2: 9.5, 8: -1.0, 42: 99.0}  # 42 is not in this league

    drawn = fmt.draw(field, ratings)
    assert drawn["seeds"][:3] == [2, 5, 8] and drawn["rated"] == 3 and asked == [""]
    assert sorted(drawn["seeds"][3:]) == [1, 3, 4, 6, 7]
    assert fmt.draw(field, ratings) == drawn  # the same on every run
    unrated = fmt.draw(field, lambda name: {})
    assert sorted(unrated["seeds"]) == list(range(1, 9)) and unrated == fmt.draw(field, lambda name: {})
    others = {tuple(fmt.draw(field_of(list(range(1, 9)), secret=f"{i:032x}"), lambda name: {})["seeds"])
              for i in range(1, 6)}
    assert len(others) > 1  # the secret decides the draw
    seeded = Field(**{**field.__dict__, "options": ScheduleOptions(format="knockout", seeds_from="ladder")})
    fmt.draw(seeded, ratings)
    assert asked[-1] == "ladder"


def test_the_board_shows_complete_cycles_only_and_its_text_names_the_champion():
    fmt = league_format(ScheduleOptions(format="knockout"))
    field = field_of([1, 2, 3, 4])
    matches = play(fmt, field, limit=3)  # table 1,4's cycle complete, table 2,3's half played
    board = fmt.board(field, complete_cycles(Played(matches), 2))
    assert board is not None and board["drawn"] and board["champion"] is None
    first = board["stages"][0]["tables"]
    assert [t["status"] for t in first] == ["played", "pending"]
    assert [p["mean_rank"] for p in first[0]["bots"]] == [1.0, 2.0]
    assert [p["mean_rank"] for p in first[1]["bots"]] == [None, None]  # an open cycle is secret
    assert board["stages"][1]["tables"][0]["bots"][1]["state"] == "open"
    whole = fmt.board(field, complete_cycles(Played(play(fmt, field)), 2))
    assert whole is not None and whole["champion"] == 1
    lines = fmt.text(whole, {1: "one@1", 2: "two@1"})
    assert lines[0] == "knockout, 2 per table; champion: one@1"
    assert "  [1] one@1 1.00 v [2] two@1 2.00 -> one@1 wins" in lines
    undrawn = fmt.board(Field(**{**field.__dict__, "draw": {}}), Played())
    assert undrawn is not None and not undrawn["drawn"] and "not drawn yet" in fmt.text(undrawn, {})[0]


def test_a_league_refuses_double_elimination_but_two_a_table_and_an_unknown_seeding(store):
    with pytest.raises(LeagueError, match="2 per table, not 3"):
        create_league(store, "de", "sobek", 3, {}, ScheduleOptions(format="double-elimination"))
    with pytest.raises(LeagueError, match="'nowhere', does not exist"):
        create_league(store, "ko", "sobek", 2, {}, ScheduleOptions(format="knockout", seeds_from="nowhere"))
    create_league(store, "ladder", "sobek", 2, {}, ScheduleOptions(format="ladder"))
    create_league(store, "ko", "sobek", 2, {}, ScheduleOptions(format="knockout", seeds_from="ladder"))


def test_double_elimination_of_two_is_a_final_then_the_grand_final():
    fmt = Knockout(double=True)
    field = field_of([5, 6], fmt="double-elimination")
    bracket = resolved(fmt, field, play(fmt, field))
    assert [(s.name, s.cycle) for s in bracket.stages] == [("Winners' final", 0), ("Grand final", 1)]
    assert tables(bracket, "Grand final") == [([5, 6], "played", 5)] and bracket.champion == 5
    upset = play(fmt, field, lambda t, c: (6, 5) if c >= 1 else t)
    bracket = resolved(fmt, field, upset)
    assert [s.name for s in bracket.stages][-1] == "Grand final reset" and bracket.champion == 6
    assert len(upset) == 2 * 3


def test_a_table_of_three_with_a_bot_out_goes_to_its_best_seed_still_playing():
    fmt = Knockout()
    field = field_of([1, 2, 3, 4, 5], players=3, playing={1, 2, 3, 5})
    bracket = resolved(fmt, field, {})
    assert tables(bracket, "Round 1")[2] == ([3, 4, 5], "walkover", 3)
    assert bracket.stages[0].tables[2].out == [4]
    assert bracket.slots() == [Slot(r, (1, 2, 3)) for r in (3, 4, 5)]  # the final, at once
