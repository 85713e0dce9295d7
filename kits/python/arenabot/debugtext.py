"""Debug output per decision: what a bot says about its decisions, kept beside them.

    from arenabot import debug

    def decide(view, legal_actions):
        debug("hand", view["hand"], "-> taking the first")
        return legal_actions[0]

Every :func:`debug` call adds a line to the text sent with the next reply (``Reply.debug``):
the referee keeps it with that decision in the game's record, and the replay shows it beside
the decision, to the bot's owner alone; no other seat is ever sent it. The referee keeps 1 KiB
a decision and 256 KiB a game of each seat's, and cuts the rest, saying so (never a failure).
The kit itself keeps at most :data:`SEND_BYTES` a decision, so that a debug call in a loop
costs little and a reply always fits the wire.
"""

from __future__ import annotations

SEND_BYTES = 4 * 1024
"""The most the kit sends with one reply (bytes of UTF-8): the referee keeps 1 KiB of it and
says it cut the rest (referee/limits.py DEBUG_SEND_BYTES and DEBUG_BYTES; a test holds them)."""

_lines: list[str] = []
_size = 0  # characters in _lines, newlines included: enough to stop taking more


def debug(*parts: object, sep: str = " ") -> None:
    """Adds ``parts`` (joined by ``sep``, as :func:`print` does) as a line of the debug text of
    the decision being made. Past :data:`SEND_BYTES` a decision, more is dropped."""
    global _size
    if _size > SEND_BYTES:
        return
    line = sep.join(map(str, parts))
    _lines.append(line)
    _size += len(line) + 1


def take() -> str:
    """The debug text said since the last call, made sendable: at most :data:`SEND_BYTES` of
    UTF-8, cut at a character, a lone surrogate (which a protobuf string refuses) as ``?``."""
    global _size
    if not _lines:
        return ""
    text = "\n".join(_lines)
    _lines.clear()
    _size = 0
    if len(text) * 4 <= SEND_BYTES and text.isascii():
        return text
    return text.encode("utf-8", "replace")[:SEND_BYTES].decode("utf-8", "ignore")
