"""A well-behaved bot that thinks hard: the same fixed amount of CPU work for every decision.

    python3 thinker.py [WORK]

WORK (default 100000) is the number of loop iterations per decision, a few milliseconds
of CPU. Its think times, as the referee charges them, show how much of its core it had:
the fairness tests compare them with and without a hostile bot in the match.
"""

from __future__ import annotations

import random
import sys

from arenabot import run

WORK = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
rng = random.Random(0)


def decide(view, legal):
    total = 0
    for i in range(WORK):
        total += i * i
    return legal[total % len(legal)] if legal else rng.choice(legal)


if __name__ == "__main__":
    run(decide, name="thinker", version="1")
