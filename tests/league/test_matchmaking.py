"""The ladder's matchmaking policy: new entrants first, close uncertain tables, exclusions, determinism."""

from __future__ import annotations

import random

import pytest

from arena.league.matchmaking import Candidate, pick_table, quality, table_score
from arena.league.ratings import ENV


def settled(mus: list[float], sigma: float = 0.8, first_id: int = 1) -> list[Candidate]:
    """Bots that have played a while: distinct mus, small sigmas."""
    return [Candidate(first_id + i, mu, sigma, 300) for i, mu in enumerate(mus)]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_quality_is_trueskills_match_quality(players):
    rng = random.Random(players)
    for _ in range(20):
        table = [Candidate(i, rng.gauss(25, 5), rng.uniform(0.5, 8.4), 10) for i in range(players)]
        assert quality(table) == pytest.approx(
            ENV.quality([(ENV.create_rating(c.mu, c.sigma),) for c in table]), rel=1e-9)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_new_entrant_anchors_the_next_table(players):
    pool = settled([30 - 1.5 * i for i in range(12)])
    newcomer = Candidate(99, ENV.mu, ENV.sigma, 0)
    for seed in range(10):
        assert 99 in pick_table([*pool, newcomer], players, random.Random(seed))
    # still new after a few games; no longer once it has NEW_GAMES
    assert all(99 in pick_table([*pool, Candidate(99, 27.0, 4.0, 5)], players, random.Random(s)) for s in range(5))


def test_a_table_of_close_bots_beats_a_lopsided_one():
    close = settled([25.0, 25.3, 25.6], sigma=1.5)
    lopsided = settled([15.0, 25.0, 35.0], sigma=1.5)
    assert table_score(close) > 10 * table_score(lopsided)
    # with equal mus, the uncertain table teaches more
    assert table_score(settled([25.0, 25.3, 25.6], sigma=3.0)) > table_score(close)
    # in a league spread wide, the close trio is the one picked, whatever the rng
    pool = [*settled([10.0, 40.0, 18.0, 32.0]), *settled([25.0, 25.3, 25.6], sigma=1.5, first_id=11)]
    for seed in range(10):
        assert pick_table(pool, 3, random.Random(seed)) == (11, 12, 13)


def test_exclude_is_respected_unless_every_table_is_excluded():
    pool = [*settled([10.0, 40.0, 18.0, 32.0]), *settled([25.0, 25.3, 25.6], sigma=1.5, first_id=11)]
    for seed in range(10):
        table = pick_table(pool, 3, random.Random(seed), exclude={(11, 12, 13)})
        assert table != (11, 12, 13) and len(set(table)) == 3
    two = settled([25.0, 26.0])
    assert pick_table(two, 2, random.Random(0), exclude={(1, 2)}) == (1, 2)  # the only table there is


def test_the_same_rng_picks_the_same_table():
    rng = random.Random(7)
    pool = [Candidate(i, rng.gauss(25, 4), rng.uniform(0.7, 8.3), rng.randrange(30)) for i in range(1, 60)]
    picks = {pick_table(pool, 3, random.Random(123)) for _ in range(5)}
    assert len(picks) == 1
    (table,) = picks
    assert table == tuple(sorted(table)) and len(set(table)) == 3
    assert pick_table(list(reversed(pool)), 3, random.Random(123)) == table  # the order given does not matter
    with pytest.raises(ValueError, match="2 candidate"):
        pick_table(pool[:2], 3, random.Random(0))
