"""A rougher Prohis style: claims with its best Prohi, never bribes, always inspects."""

from arenabot import run
from arenabot.strategies import ProhisHeuristic

if __name__ == "__main__":
    run(ProhisHeuristic(bold=True), name="prohis-bold", version="1.0.0", games=["prohis"])
