"""arenabot: the Python bot kit for Arena.

Write ``decide(view, legal_actions)``; :func:`run` connects to the referee, loops over
its requests and answers with your choices. See docs/writing-a-bot.md.

The kit is the ``arenabot`` distribution (kits/python); it depends only on
``arena-protocol`` (protos/python), which holds the generated protocol code and the
plain-data codec that the referee uses too.
"""

from .client import run
from .strategies import Strategy

__all__ = ["Strategy", "run"]
