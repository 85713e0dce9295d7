"""TrueSkill, free-for-all: ties are draws, failures count as the league says, same input same output."""

from __future__ import annotations

import math

import pytest

from arena.league.ratings import ENV, RatedGame, rate


def games():
    return [RatedGame(1, [1, 2, 3], [1, 2, 3], ["", "", ""]),
            RatedGame(2, [2, 3, 1], [1, 1, 3], ["", "", "crash"]),
            RatedGame(3, [3, 1, 2], [2, 1, 3], ["", "", ""])]


def test_ranks_order_ratings_and_ties_are_draws():
    after_draw = rate([RatedGame(1, [1, 2], [1, 1], ["", ""])])
    assert after_draw[1].mu == pytest.approx(after_draw[2].mu)
    assert after_draw[1].sigma < ENV.sigma
    after_win = rate([RatedGame(1, [1, 2], [1, 2], ["", ""])])
    assert after_win[1].mu > ENV.mu > after_win[2].mu


def test_exposure_is_mu_minus_three_sigma():
    r = rate(games())[1]
    assert r.exposure == pytest.approx(r.mu - 3 * r.sigma)


def test_same_games_same_numbers_and_history():
    history_a, history_b = [], []
    assert rate(games(), history=history_a) == rate(games(), history=history_b)
    assert history_a == history_b and len(history_a) == 9


def test_failure_policy_exclude_skips_games_with_a_failure():
    last = rate(games(), failures="last")
    excluded = rate(games(), failures="exclude")
    assert last[1].games == 3 and excluded[1].games == 2
    assert last[1].mu != excluded[1].mu


def test_lopsided_updates_do_not_overflow():
    # a bot that always wins against a bot that always loses: the default backend can overflow
    many = [RatedGame(i, [1, 2], [1, 2], ["", ""]) for i in range(300)]
    ratings = rate(many)
    assert ratings[1].mu > ratings[2].mu


def test_rating_in_two_steps_equals_rating_at_once():
    # a ladder adds each match's games to the ratings it has: that must equal a rebuild
    all_games = [RatedGame(i, [1 + i % 3, 2 + i % 2, 4], [1 + (i % 2), 2 - (i % 2), 3], ["", "", ""])
                 for i in range(12)]
    once, history_once = {}, []
    once = rate(all_games, history=history_once)
    history_steps: list = []
    first = rate(all_games[:5], history=history_steps)
    both = rate(all_games[5:], history=history_steps, start=first, first_seq=5)
    assert both == once and history_steps == history_once


def test_extreme_updates_fall_back_to_the_precise_backend():
    # a mu 200 apart with a tiny sigma: floats lose the tail that mpmath keeps
    from arena.league.ratings import BotRating
    start = {1: BotRating(250.0, 0.05, 10), 2: BotRating(-250.0, 0.05, 10)}
    after = rate([RatedGame(0, [1, 2], [2, 1], ["", ""])], start=start)  # the upset
    assert all(map(math.isfinite, (after[1].mu, after[1].sigma, after[2].mu, after[2].sigma)))
    assert after[1].mu < 250.0 < after[2].mu + 500.0
