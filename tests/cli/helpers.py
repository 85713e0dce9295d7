"""Real leagues without Docker, for the CLI's tests: the league runner, its store and its referee
processes as they are, with each match's bots turned into a local process and built-in bots
(the images registered are never run)."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from arena.bots.registry import register_bot
from arena.league import create_league
from arena.league.executor import LocalExecutor, MatchJob, Outcome
from arena.league.schedule import Format, ScheduleOptions
from arena.store import Store
from referee.spec import BotSpec

SECRET = "3c" * 16
# A random bot as a process of its own (a match with a bot out of process writes its records line
# by line, as a league's containers do). It waits for a gate file first, if it is given one (up
# to 12 s: a match's start-up limit is 15 s), and sleeps THINK seconds before each decision. Run
# with -c, not as sample_bots/python/random/bot.py, whose processes tests/referee counts.
RANDOM_PROCESS = """
import random, sys, time
from pathlib import Path
from arenabot import run
gate, think = sys.argv[1], float(sys.argv[2])
until = time.monotonic() + 12
while gate and not Path(gate).exists() and time.monotonic() < until:
    time.sleep(0.02)
rng = random.Random(0)
def decide(view, legal):
    time.sleep(think)
    return rng.choice(legal)
run(decide, name="random", version="1")
"""


class ProcessBots(LocalExecutor):
    """The local executor, each match's first bot a local process and the others built-in random.
    ``gates`` holds the process bot of a round back until a file exists; ``think`` slows it."""

    def __init__(self, think: float = 0.0, gates: dict[int, Path] | None = None) -> None:
        self.think, self.gates = think, gates or {}

    def play(self, jobs: Iterable[MatchJob | None], parallel: int,
             started: Callable[[MatchJob], None] | None = None) -> Iterator[tuple[MatchJob, Outcome]]:
        def local(job: MatchJob | None) -> MatchJob | None:
            if job is None:
                return None
            process = (sys.executable, "-c", RANDOM_PROCESS, str(self.gates.get(job.slot.round, "")), str(self.think))
            bots = tuple(BotSpec(name=b.name, version=b.version,
                                 **({"command": process} if i == 0 else {"builtin": "random"}))
                         for i, b in enumerate(job.spec.bots))
            return dataclasses.replace(job, spec=dataclasses.replace(job.spec, bots=bots))

        return super().play(map(local, jobs), parallel, started)


def league_of(store: Store, name: str, names: Iterable[str], format: Format = "round-robin", deals: int = 1,
              game: str = "prohis", players: int = 3) -> list[int]:
    """A league of bots ``names`` (version 1); their ids."""
    create_league(store, name, game, players, {}, ScheduleOptions(deals=deals, format=format), secret=SECRET)
    return [register_bot(store, name=n, version="1", image=f"none/{i}:1", image_digest="sha256:0",
                         language="python", author="tester", games=[game], league=name).id
            for i, n in enumerate(names)]
