"""A well-behaved bot that thinks hard: the same fixed amount of CPU work for every decision.

    python3 thinker.py [WORK [SECONDS]]

WORK (default 100000) is the number of loop iterations per decision, a few milliseconds
of CPU; after SECONDS (default: never) a hundredth of it, so that a test that needs a game
running only for its first seconds does not wait for the rest of the match. Its think times,
as the referee charges them, show how much of its core it had: the fairness tests compare them
with and without a hostile bot in the match.
"""

from __future__ import annotations

import random
import sys
import time

from arenabot import run

WORK = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
UNTIL = time.monotonic() + float(sys.argv[2]) if len(sys.argv) > 2 else float("inf")
rng = random.Random(0)


def decide(view, legal):
    total = 0
    for i in range(WORK if time.monotonic() < UNTIL else WORK // 100):
        total += i * i
    return legal[total % len(legal)] if legal else rng.choice(legal)


if __name__ == "__main__":
    run(decide, name="thinker", version="1")
