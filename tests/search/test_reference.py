"""Each game's reference league (the bots of ``arena demo --game G --reference``: random,
first-legal, the game's heuristic and its search bot) separates real skill: after the games
stated in :data:`GAMES_PLAYED`, the leaderboard's order, mu - 3 sigma, puts random below the
heuristic and the heuristic below search.

The league is played in process by the league's own machinery (:mod:`arena.league.simulate`:
its schedule, duplicate deals and seat rotations, seeds and TrueSkill), with the search bot on
a fixed budget, so the test is deterministic. Its confidence is the ratings' own: for each of
the two steps, the posterior probability that the stronger bot's skill exceeds the weaker's,
P = Phi((mu_a - mu_b) / sqrt(sigma_a^2 + sigma_b^2)). After these 24 games (12 per bot) it is
at least :data:`HEURISTIC_OVER_RANDOM` for heuristic over random in every game; for search over
the heuristic (search on 40 iterations, Prohis 200) 0.83 in Sobek, 0.85 in The Boss and 0.53 in Bandits (search and
heuristic are close there), so the test asserts only that it is over one half: the mu order.
"""

from __future__ import annotations

import math

import pytest

from arena.league.simulate import SimBot, SimLeague
from arena_games import get_game

ITERATIONS = {"prohis": 200, "sobek": 40, "boss": 40, "bandits": 40}  # a decision (the built-in player's: 200)
GAMES_PLAYED = {"prohis": 24, "sobek": 24, "boss": 24, "bandits": 24}  # two round-robin rounds
HEURISTIC_OVER_RANDOM = 0.95
SEARCH_OVER_HEURISTIC = 0.5


def bots(game: str) -> list[SimBot]:
    return [SimBot("search", search=ITERATIONS[game]), SimBot("heuristic"), SimBot("first-legal", first_legal=True),
            SimBot("random", p=1.0)]


def better(a, b) -> float:
    """P(skill of a > skill of b) under the ratings' posteriors."""
    return 0.5 * (1 + math.erf((a.mu - b.mu) / math.sqrt(2 * (a.sigma ** 2 + b.sigma ** 2))))


@pytest.mark.parametrize("game", list(GAMES_PLAYED))
def test_the_reference_league_orders_random_heuristic_search(game: str):
    players = get_game(game).min_players
    entered = bots(game)
    league = SimLeague(game, players, entered, "round-robin", seed=18)
    for _ in league.matches():
        if league.played >= GAMES_PLAYED[game]:
            break
    rating = {bot.name: league.ratings[league.ids[i]] for i, bot in enumerate(entered)}
    shown = {name: r.mu - 3 * r.sigma for name, r in rating.items()}
    summary = ", ".join(f"{name} {r.mu:.1f}±{r.sigma:.1f}" for name, r in rating.items())
    assert shown["random"] < shown["heuristic"] < shown["search"], summary
    assert better(rating["search"], rating["heuristic"]) > SEARCH_OVER_HEURISTIC, summary
    assert better(rating["heuristic"], rating["random"]) >= HEURISTIC_OVER_RANDOM, summary
