"""Rank confidence (arena/league/confidence.py): P(rank 1), P(top k) and the 90% rank interval,
drawn from the rating posteriors, on ratings whose answer is known."""

from __future__ import annotations

import numpy as np
import pytest

from arena.league.confidence import SAMPLES, rank_odds

PRIOR = (25.0, 25 / 3)


def odds_of(ratings, top=3):
    odds = rank_odds(ratings)
    return {bot: odds.of(bot, top) for bot, _, _ in ratings}


def settled(o: dict, rank: int) -> bool:
    return o["rank_low"] == o["rank_high"] == rank


def test_far_apart_bots_are_certain_and_settled():
    odds = odds_of([(7, 40.0, 1.0), (3, 25.0, 1.5), (9, 10.0, 1.0)], top=1)
    assert odds[7]["p_first"] == 1.0 and odds[3]["p_first"] == odds[9]["p_first"] == 0.0
    assert [settled(odds[b], r) for b, r in ((7, 1), (3, 2), (9, 3))] == [True, True, True]
    assert odds[7]["p_top"] == 1.0 and odds[3]["p_top"] == 0.0  # top 1 is first


def test_equal_ratings_give_each_bot_one_chance_in_n_and_no_settled_rank():
    n = 5
    odds = odds_of([(bot, *PRIOR) for bot in range(1, n + 1)])
    # one standard error of a share of 10,000 draws is at most 0.005: 4 of them
    assert all(abs(o["p_first"] - 1 / n) < 0.02 for o in odds.values()), odds
    assert all(abs(o["p_top"] - 3 / n) < 0.02 for o in odds.values()), odds
    assert all((o["rank_low"], o["rank_high"]) == (1, n) for o in odds.values())
    assert not any(settled(o, r) for r in range(1, n + 1) for o in odds.values())


@pytest.mark.parametrize("n", [2, 8, 50])
def test_the_shares_add_up_and_are_deterministic(n):
    rng = np.random.default_rng(n)
    ratings = [(int(b), float(rng.normal(25, 4)), float(rng.uniform(0.5, 8))) for b in rng.permutation(1000)[:n] + 1]
    odds = rank_odds(ratings)
    rows = [odds.of(bot) for bot, _, _ in ratings]
    assert sum(r["p_first"] for r in rows) == pytest.approx(1.0, abs=n * 5e-5)  # each rounded to 4 places
    assert sum(r["p_top"] for r in rows) == pytest.approx(min(3, n), abs=n * 5e-5)  # k places in each draw
    for bot, _, _ in ratings:
        tops = [odds.of(bot, k)["p_top"] for k in range(1, n + 1)]
        assert tops[0] == odds.of(bot)["p_first"] and tops == sorted(tops) and tops[-1] == 1.0
        assert 1 <= odds.of(bot)["rank_low"] <= odds.of(bot)["rank_high"] <= n
    assert odds.of(ratings[0][0], 99)["top_k"] == n  # k is at most the entrants
    again = rank_odds(ratings)
    assert np.array_equal(odds.cumulative, again.cumulative)  # the same ratings draw the same ranks
    assert int(odds.cumulative[:, -1].min()) == SAMPLES


def test_a_bot_joining_far_below_changes_nobody_elses_odds():
    """Each bot's draws depend on its id alone, so a newcomer that never outranks anyone leaves the
    others' figures exactly as they were: a page does not reshuffle when a bot joins."""
    ratings = [(1, 30.0, 3.0), (2, 29.0, 2.0), (3, 27.0, 4.0)]
    before = odds_of(ratings)
    after = odds_of([*ratings, (4, -100.0, 1.0)])
    assert {b: after[b] for b in before} == before
    assert settled(after[4], 4) and after[4]["p_top"] == 0.0
