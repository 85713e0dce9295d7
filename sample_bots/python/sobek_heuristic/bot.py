"""The Sobek heuristic: collects families, lays sets, keeps its corruption pile small."""

from arenabot import run
from arenabot.strategies import SobekHeuristic

if __name__ == "__main__":
    run(SobekHeuristic(), name="sobek-heuristic", version="1.0.0", games=["sobek"])
