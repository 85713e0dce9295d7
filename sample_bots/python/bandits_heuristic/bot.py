"""The Bandits heuristic: stashes early, raids full hideouts, defends with the fewest stars."""

from arenabot import run
from arenabot.strategies import BanditsHeuristic

if __name__ == "__main__":
    run(BanditsHeuristic(), name="bandits-heuristic", version="1.0.0", games=["bandits"])
