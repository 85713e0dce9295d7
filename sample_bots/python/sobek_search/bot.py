"""Sobek by Information-Set MCTS (arenabot.search): each decision, about a hundred simulated games
from states drawn from what this seat has seen, with the engine the kit ships.

It thinks for at most 100 ms a decision (raise max_ms for a stronger, slower bot), and never
for more than 30% of the time the referee gives it (``time_left_ms``), so it answers in time
on a busy machine too.
"""

from arenabot import run
from arenabot.search import ISMCTS

if __name__ == "__main__":
    run(ISMCTS(max_ms=100), name="sobek-search", version="1.0.0", games=["sobek"])
