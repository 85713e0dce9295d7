"""arenabot: the Python bot kit for Arena.

Write ``decide(view, legal_actions)``; :func:`run` connects to the referee, loops over
its requests and answers with your choices; :func:`debug` says why, beside each decision in
your replays. See docs/writing-a-bot.md.

The kit is the ``arenabot`` distribution (kits/python); it depends only on
``arena-games`` (games/: the engines, to simulate with; see :mod:`arenabot.search`) and
``arena-protocol`` (protos/python), which holds the generated protocol code and the
plain-data codec that the referee uses too.
"""

import os

# gRPC's fork handlers are for children that use gRPC themselves. A bot's children (a search
# pool, say) do not, and with the handlers on, a child forked while gRPC's threads are busy can
# die in them ("Check failed: ... KICKED"). Off unless the bot's environment says otherwise.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

from .client import run  # noqa: E402 - after the setting above: it imports grpc
from .debugtext import debug  # noqa: E402
from .strategies import Strategy  # noqa: E402

__all__ = ["Strategy", "debug", "run"]
