"""The Prohis heuristic: banks contraband, claims to inspect, bribes when it must."""

from arenabot import run
from arenabot.strategies import ProhisHeuristic

if __name__ == "__main__":
    run(ProhisHeuristic(), name="prohis-heuristic", version="1.0.0", games=["prohis"])
