"""The referee: one match, one process. Engines, seats, time control, records.

Other programs run a match with :func:`launch` (``referee/launch.py``).
"""

import os

# The referee forks only to exec bots at once, never to run gRPC in a child: gRPC's
# fork handlers are not needed, and they log a line at every bot start under uvloop.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

from .launch import MatchResult, NoSpaceLeft, RefereeFailed, launch  # noqa: E402 - after the setting above

__all__ = ["MatchResult", "NoSpaceLeft", "RefereeFailed", "launch"]
