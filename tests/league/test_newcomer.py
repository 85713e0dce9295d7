"""A newcomer joining a settled ladder: the measure behind ``bench.ladder``'s newcomer figures.

A ladder of the 8 known bots settles (240 games), then a heuristic handicapped by p = .27 joins
(true rank 4 of 9: between p.21 and p.33); the ladder goes on, and a round robin plays the
tables it must add (every table with the newcomer). What the bench found over 15 cases holds on
this one: TrueSkill's sigma shrinks with the newcomer's games, hardly with whom it plays, so a
round robin that seats it in every game narrows its rank interval almost as fast as the ladder.
"""

from __future__ import annotations

from arena.league.simulate import Placing, SimBot, place, placed, settle
from arena.league.simulate import known_bots as bots

GAMES = 45


def test_a_newcomer_is_placed_by_both_formats_the_ladder_no_slower():
    settled = settle("prohis", 3, bots(8), 240, seed=0)
    assert settled.played % 9 == 0  # whole cycles
    newcomer = SimBot("newcomer-p27", .27)
    ladder = place(settled, newcomer, "ladder", GAMES)
    round_robin = place(settled, newcomer, "round-robin", GAMES)
    for trajectory in (ladder, round_robin):
        assert [p.games for p in trajectory] == list(range(3, GAMES + 1, 3))
        assert all(1 <= p.low <= p.high <= 9 for p in trajectory)
        assert trajectory[0].high - trajectory[0].low >= 3  # a match in, still unplaced
        assert trajectory[-1].high - trajectory[-1].low <= 3 and trajectory[-1].sigma < 1.05
        assert placed(trajectory, 4, within=2, hold=1) is not None
    # measured: sigma 0.94 (ladder) and 0.97 (round robin) after 45 games
    assert ladder[-1].sigma <= round_robin[-1].sigma < 1.1 * ladder[-1].sigma
    assert settled.played == 243 and 10 not in settled.by_id  # place() played on a copy


def test_placed_is_the_first_interval_within_the_true_rank_held():
    trajectory = [Placing(3, 1, 9, 5.0), Placing(6, 3, 6, 2.0), Placing(9, 3, 5, 1.5), Placing(12, 4, 6, 1.2),
                  Placing(15, 2, 5, 1.1), Placing(18, 3, 5, 1.0)]
    assert placed(trajectory, 4, hold=1) == 9  # [3, 5] lies within 4 ± 1
    assert placed(trajectory, 4) is None  # it left 3..5 at 15 games, before twice 9
    assert placed(trajectory, 4, within=2) == 6 and placed(trajectory, 5, hold=1) == 12
