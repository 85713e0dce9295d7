"""arenabot: the Python bot kit for Arena.

Write ``decide(view, legal_actions)``; :func:`run` connects to the referee, loops over
its requests and answers with your choices. See docs/writing-a-bot.md.

The kit also holds the Python binding of the protocol (``arenabot.proto``, generated
from protos/) and the plain-data codec (``arenabot.codec``), which the referee uses too.
"""

from .client import run
from .strategies import Strategy

__all__ = ["Strategy", "run"]
