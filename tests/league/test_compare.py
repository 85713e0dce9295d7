"""``arena compare`` (arena/compare.py): the sequential test's error rates on simulated outcome
streams, its verdicts on real games played in process, and the command end to end in containers.

Stated figures (alpha = beta = 0.05, delta = 0.1; two players; 4 deals a match, so a cycle is
2 matches of 8 games and 8 deal units):
- a bot that wins every deal is found better after 20 deals: 3 cycles, 48 games;
- a deterministic bot against itself ties every deal: "no difference" after 14 deals, 2 cycles,
  32 games;
- two equal bots with no ties (random against itself) take about 230 deals on average.
"""

from __future__ import annotations

import json
import math
import random
import threading
import time
from collections.abc import Iterator

import pytest
from click.testing import CliRunner

from arena.bots.registry import register_bot
from arena.cli import main as arena
from arena.compare import (
    A_BETTER,
    B_BETTER,
    NO_DIFFERENCE,
    UNDECIDED,
    Design,
    common_game,
    compare,
    deal_outcomes,
    log_likelihood,
    play_in_referee,
    resolve,
    run_test,
)
from arena.league import LeagueError
from referee.match import run_match
from referee.spec import dev_secret

RUNS = 1000  # simulated runs per hypothesis
# Allowed excess over a stated rate: three standard errors of a rate estimated from RUNS runs
# when the true rate is the stated one (0.021 for 0.05), so that a test whose rates are the
# stated ones passes with probability 99.9%. Wald's bounds are approximations (each decision
# overshoots its bound; the tie rate is estimated from the data), so the true rates are near
# the stated ones, not exactly them: measured here, 0.049 to 0.056.
MARGIN = 3 * math.sqrt(0.05 * 0.95 / RUNS)


def outcomes(seed: int, loss: float, tie: float) -> Iterator[float]:
    rng = random.Random(seed)
    while True:
        u = rng.random()
        yield 0.0 if u < loss else 0.5 if u < loss + tie else 1.0


def verdicts(loss: float, tie: float) -> tuple[dict[str, float], float]:
    """The share of each verdict over RUNS fixed-seed runs, and the mean number of deals."""
    counts: dict[str, int] = {}
    deals = 0
    for seed in range(RUNS):
        test = run_test(outcomes(seed, loss, tie), Design(), max_deals=50_000)
        counts[test.verdict or UNDECIDED] = counts.get(test.verdict or UNDECIDED, 0) + 1
        deals += test.deals
    return {v: n / RUNS for v, n in counts.items()}, deals / RUNS


def test_the_likelihood_is_the_best_distribution_with_that_mean():
    """The closed form against a search over every (loss, tie, win) distribution of the mean."""

    def likelihood(counts: tuple[int, int, int], probabilities: tuple[float, float, float]) -> float:
        if any(n and p <= 0 for n, p in zip(counts, probabilities, strict=True)):
            return -math.inf
        return sum(n * math.log(p) for n, p in zip(counts, probabilities, strict=True) if n)

    for wins, ties, losses in [(5, 3, 2), (0, 7, 0), (4, 0, 0), (0, 0, 6), (1, 10, 0), (12, 1, 9)]:
        for mean in (0.4, 0.5, 0.6):
            s = 2 * mean - 1
            low, high = max(0.0, -s), (1 - s) / 2  # the loss share: every other share stays in [0, 1]
            grid = [low + i / 4000 * (high - low) for i in range(4001)]
            best = max(likelihood((losses, ties, wins), (p, 1 - 2 * p - s, p + s)) for p in grid)
            assert log_likelihood(wins, ties, losses, mean) == pytest.approx(best, abs=1e-3), (wins, ties, losses)


def test_the_error_rates_hold_on_simulated_outcomes():
    """Equal bots (E[x] = 1/2) are declared different at most alpha of the time; a difference of
    delta (E[x] = 0.6 or 0.4) is missed at most beta of the time; ties are half of the deals."""
    equal, deals_equal = verdicts(loss=0.25, tie=0.5)
    assert equal.get(A_BETTER, 0) + equal.get(B_BETTER, 0) <= 0.05 + MARGIN, equal
    a_better, deals_a = verdicts(loss=0.15, tie=0.5)  # mean 0.35 + 0.25 = 0.6
    assert 1 - a_better.get(A_BETTER, 0) <= 0.05 + MARGIN and a_better.get(B_BETTER, 0) <= 0.025, a_better
    b_better, _ = verdicts(loss=0.35, tie=0.5)  # mean 0.4
    assert 1 - b_better.get(B_BETTER, 0) <= 0.05 + MARGIN and b_better.get(A_BETTER, 0) <= 0.025, b_better
    assert UNDECIDED not in equal | a_better | b_better
    assert 40 < deals_equal < 200 and 40 < deals_a < 200, (deals_equal, deals_a)
    # ties are evidence: nothing but ties decides "no difference", in 14 deals
    assert [(t.verdict, t.deals) for t in [run_test(iter([0.5] * 100), Design())]] == [(NO_DIFFERENCE, 14)]
    # and nothing but wins decides for A in 20
    assert (run_test(iter([1.0] * 100), Design()).verdict, run_test(iter([1.0] * 100), Design()).deals) == \
        (A_BETTER, 20)


def in_process(spec, out_dir, core):
    """A match played by a referee inside this process (its builtin bots too)."""
    return run_match(spec, out_dir)


def test_real_games_in_process_give_the_right_verdicts(tmp_path):
    """Boss, two players, the referee's own match loop and builtin bots, 3 fixed deal secrets each:
    the heuristic is better than random in 48 games every time (whichever seat order), and the
    heuristic against itself ties every deal: no difference in 32 games."""
    heuristic, rand = resolve("builtin:heuristic"), resolve("builtin:random")
    runs = {}
    for label, a, b in (("h-r", heuristic, rand), ("r-h", rand, heuristic), ("h-h", heuristic, heuristic)):
        for seed in range(3):
            found = compare(a, b, "boss", dev_secret(seed), tmp_path / f"{label}-{seed}", play=in_process)
            runs.setdefault(label, []).append((found.verdict, found.games, found.test.deals))
    assert runs["h-r"] == [(A_BETTER, 48, 20)] * 3, runs
    assert runs["r-h"] == [(B_BETTER, 48, 20)] * 3, runs
    assert runs["h-h"] == [(NO_DIFFERENCE, 32, 14)] * 3, runs
    # random against itself: equal bots with no ties to help, so it takes longer, within 1,000 games
    found = compare(rand, rand, "boss", dev_secret(0), tmp_path / "r-r", play=in_process, max_games=1000)
    assert found.verdict == NO_DIFFERENCE and found.games <= 1000, found.test.evidence()


def test_which_game_and_what_a_deal_is_worth(store):
    heuristic, rand = resolve("builtin:heuristic"), resolve("builtin:random")
    with pytest.raises(LeagueError, match="say which with --game"):
        common_game(heuristic, rand, None)
    register_bot(store, name="sobek-only", version="2", image="none:1", image_digest="x", language="python",
                 author="a", games=["sobek"], league=None)
    mine = resolve("sobek-only", lambda: store)
    assert (mine.label, mine.image, common_game(mine, rand, None)) == ("sobek-only@2", "none:1", "sobek")
    with pytest.raises(LeagueError, match="do not both play boss"):
        common_game(mine, heuristic, "boss")
    with pytest.raises(LeagueError, match="no registered bot"):
        resolve("nobody", lambda: store)
    # three seats hold A, B, A: A's score per seat against B's; deal 0 is level, deal 1 is B's
    games = [{"deal": "c0d0", "bots": [0, 1, 2], "scores": [4, 3, 2]},  # A: 4 + 2 in 2 seats, B: 3
             {"deal": "c0d1", "bots": [0, 1, 2], "scores": [1, 5, 1]},
             {"deal": "c0d0", "bots": [1, 2, 0], "scores": [3, 3, 3]}]
    assert deal_outcomes([{"games": games}]) == [("c0d0", 0.5), ("c0d1", 0.0)]


def test_arena_compare_end_to_end_in_containers(store, db_url, sample_images, tmp_path):
    """The Boss (its decisions are the fewest), 10 deals a match: a cycle is 2 matches of 20 games,
    20 deal units, both matches played at once. The Boss's heuristic sample bot (registered in
    the store) against the random one's image: A is better in one cycle, 40 games (it wins every
    deal: 20 are needed); the first-legal image against itself: no difference in one cycle, 40
    games (it is deterministic, so every deal ties: 14 are needed)."""
    heuristic = sample_images["boss_heuristic"]
    name, version = heuristic.removeprefix("arena-bot/").split(":")
    register_bot(store, name=name, version=version, image=heuristic, image_digest="x", language="python",
                 author="Arena", games=["boss"], league=None)
    runner = CliRunner()
    found = runner.invoke(arena, ["compare", name, f"image:{sample_images['random']}", "--deals", "10", "--jobs", "2",
                                  "--seed", "3", "--json", "--db", db_url, "--out", str(tmp_path / "h-r")])
    assert found.exit_code == 0, found.output
    verdict = json.loads(found.output)
    assert (verdict["verdict"], verdict["game"], verdict["a"]) == (A_BETTER, "boss", f"{name}@{version}")
    assert (verdict["games"], verdict["deals"], verdict["seat_failures"]) == (40, 20, 0), verdict
    itself = f"image:{sample_images['first_legal']}"
    found = runner.invoke(arena, ["compare", itself, itself, "--game", "boss", "--deals", "10", "--jobs", "2",
                                  "--out", str(tmp_path / "self")])
    assert found.exit_code == 0, found.output
    lines = found.output.splitlines()
    assert lines[2].startswith("cycle 0: 14 deals, A 0 won 14 tied 0 lost, score 0.500; LLR A better -3.12 "
                               "(rejected), B better -3.12 (rejected)"), lines
    assert lines[-1].startswith("no difference of at least 0.1: A scored 0.500 per deal over 14 deals (40 games, "
                                "0 seat failures"), lines
    records = sorted(p.parent.name for p in (tmp_path / "self").glob("c*-m*/game-*.jsonl"))
    assert records == ["c0-m0"] * 20 + ["c0-m1"] * 20  # each match in containers of its own


def test_two_matches_of_one_cycle_are_never_played_at_once(tmp_path):
    """compare --jobs 2: the matches of a cycle deal the same cards, so they never run side by
    side (two live processes of a bot could tell each other the hands); the next cycle's do."""
    lock, running, clashes, most = threading.Lock(), [], [], [0]

    def watched(spec, out_dir, core):
        cycle = spec.match_id.rsplit("-", 1)[0]  # compare-c<cycle>-m<match>
        with lock:
            clashes.extend([cycle] if cycle in running else [])
            running.append(cycle)
            most[0] = max(most[0], len(running))
        try:
            time.sleep(0.05)  # long enough for the other slot to start one
            return play_in_referee(spec, out_dir, core)  # a referee process: compare's own way
        finally:
            with lock:
                running.remove(cycle)

    rand = resolve("builtin:random")
    found = compare(rand, rand, "boss", dev_secret(1), tmp_path / "c", play=watched, jobs=2, max_games=64)
    assert found.matches >= 4
    assert not clashes, f"matches of one cycle played at once: {clashes}"
    assert most[0] == 2, "the two slots were not both used"
