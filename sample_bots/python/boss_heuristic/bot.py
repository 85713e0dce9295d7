"""The Boss heuristic: deduces the rewards, takes the bosses worth their cubes, reveals with care."""

from arenabot import run
from arenabot.strategies import BossHeuristic

if __name__ == "__main__":
    run(BossHeuristic(), name="boss-heuristic", version="1.0.0", games=["boss"])
