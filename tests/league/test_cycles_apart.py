"""Two matches of one duplicate cycle never run at once: they deal the same cards, and two live
processes of one bot (one in each rotation) could tell each other the hands through anything
they share while both run (the host's caches, CPU timing). A round robin and a ladder, two
matches at a time, on real referee processes (local-process and built-in bots)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from arena.league.executor import MatchJob, Outcome
from arena.league.ladder import run_ladder
from arena.league.runner import run_league

from ..cli.helpers import ProcessBots, league_of


class Watched(ProcessBots):
    """ProcessBots that notes, as each match starts, which cycles are being played."""

    def __init__(self) -> None:
        super().__init__(think=0.02)
        self.running: dict[str, tuple[str, int]] = {}  # attempt -> (table, cycle)
        self.clashes: list[tuple[str, int]] = []
        self.most = 0

    def play(self, jobs: Iterable[MatchJob | None], parallel: int,
             started: Callable[[MatchJob], None] | None = None) -> Iterator[tuple[MatchJob, Outcome]]:
        def noted(job: MatchJob) -> None:
            cycle = (job.slot.key, job.slot.cycle)
            if cycle in self.running.values():
                self.clashes.append(cycle)
            self.running[job.attempt] = cycle
            self.most = max(self.most, len(self.running))
            if started:
                started(job)

        for job, outcome in super().play(jobs, parallel, noted):
            self.running.pop(job.attempt, None)
            yield job, outcome


def test_a_round_robin_never_plays_two_matches_of_one_cycle_at_once(store, tmp_path):
    league_of(store, "rr", ["a", "b"], game="boss", players=2, deals=2)  # one table, cycles of 2 rounds
    executor = Watched()
    summary = run_league(store, "rr", rounds=6, jobs=2, runs_dir=tmp_path / "runs", executor=executor)
    assert summary.matches_run == 6
    assert not executor.clashes, f"matches of one cycle played at once: {executor.clashes}"
    assert executor.most == 2, "the two slots were not both used"


def test_a_ladder_never_plays_two_matches_of_one_cycle_at_once(store, tmp_path):
    league_of(store, "lad", ["a", "b", "c"], format="ladder", game="boss", players=2, deals=2)
    executor = Watched()
    status = run_ladder(store, "lad", jobs=2, runs_dir=tmp_path / "runs", until=40, executor=executor)
    assert status.matches_run >= 10 and status.open_cycles == 0, status
    assert not executor.clashes, f"matches of one cycle played at once: {executor.clashes}"
    assert executor.most == 2, "the two slots were not both used"
