"""The in-process league simulation plays what the referee would, and measures what it says."""

from __future__ import annotations

import dataclasses

from arena.league import runner
from arena.league.schedule import ScheduleOptions, Slot
from arena.league.simulate import Point, SimBot, _play, games_to, kendall_tau
from arena.store import Bot
from arena_games import get_game
from referee.match import run_match
from referee.spec import BotSpec, dev_secret


def test_a_simulated_match_is_the_refereed_match(tmp_path):
    """The same slot of a league, played by the referee with in-process seats and by the
    simulation: the same seats, scores and ranks in every game (so the same deals, rotations
    and bot seeds)."""
    slot, kinds = Slot(round=4, table=(2, 5, 7)), ("heuristic", "random", "heuristic")
    entrants = {b: Bot(name=f"bot{b}", version="1", image="") for b in slot.table}
    settings = get_game("prohis").validate(3).to_dict()
    spec = runner.match_spec("l", "prohis", settings, dev_secret(11), slot, entrants, ScheduleOptions(deals=2))
    refereed = run_match(dataclasses.replace(spec, bots=tuple(
        BotSpec(name=b.name, version="1", builtin=kind) for b, kind in zip(spec.bots, kinds, strict=True))), tmp_path)
    simulated = _play(spec, [SimBot(kind, p=0 if kind == "heuristic" else 1) for kind in kinds], slot.table, 0)
    assert len(simulated) == len(refereed["games"]) == 6
    for game, sim in zip(refereed["games"], simulated, strict=True):
        assert [slot.table[b] for b in game["bots"]] == sim.seats
        assert game["ranks"] == sim.ranks and not any(game["failures"])


def test_kendall_tau_and_the_games_to_reach_it():
    assert kendall_tau([4, 3, 2, 1]) == 1 and kendall_tau([1, 2, 3, 4]) == -1
    assert kendall_tau([4, 3, 1, 2]) == (5 - 1) / 6  # one pair of six the wrong way round
    assert kendall_tau([2, 2, 1]) == 2 / 3  # a tie counts as neither
    trajectory = [Point(10, .5), Point(20, .95), Point(30, .8), Point(40, .92), Point(60, .95), Point(90, .91)]
    assert games_to(trajectory, hold=1) == 20  # first reached
    assert games_to(trajectory) == 40  # reached, and held through 80 games
    assert games_to(trajectory[:5]) is None  # not yet known to hold
    assert games_to([*trajectory, Point(95, .85)]) == 40 and games_to([*trajectory[:5], Point(70, .85)]) is None
