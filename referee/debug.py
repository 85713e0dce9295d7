"""A bot's debug text: what it says about one decision (``Reply.debug``), made safe to keep.

A bot may send a line or a few about each decision; the referee keeps it with the decision in
the game's record, for the bot's owner alone (``arena/access.py`` ``may_read_debug``; no other
seat is ever sent it). It is hostile input, so before it is written:

- characters that could drive a terminal or hide text (C0 and C1 controls but newline and tab,
  DEL, line separators, bidi overrides, lone surrogates) are written as their Python escapes
  (``\\x1b``, ``\\u202e``), as :func:`referee.textlog.printable` does for names;
- past :data:`~referee.limits.DEBUG_BYTES` of UTF-8 it is cut (at a character), ending in
  :data:`CUT`;
- each seat has :data:`~referee.limits.DEBUG_GAME_BYTES` for a whole game: the decision that
  runs out keeps what fits and ends in :data:`SPENT`, and later ones keep nothing.

None of this is a failure: the action stands whatever the debug text is. The wire caps what
can arrive at all (a reply over ``MAX_BOT_MESSAGE`` is refused by gRPC before it is read), and
only a reply that has a debug text pays for any of it.
"""

from __future__ import annotations

import re

from .limits import DEBUG_BYTES, DEBUG_GAME_BYTES

CUT = f"\n[arena: debug text cut at {DEBUG_BYTES} bytes]"
SPENT = f"\n[arena: {DEBUG_GAME_BYTES} bytes of debug text in this game: the rest of the game's is dropped]"

# What is escaped: every control character but \t and \n, the C1 controls, line and paragraph
# separators, bidi embeddings, overrides and isolates, and lone surrogates (which no UTF-8 holds).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


# ASCII's unsafe characters, as bytes: for the common case, plain ASCII text, a check in C (a
# regular expression scans a KiB in 10 µs, this in 2)
_ASCII_UNSAFE = bytes([*range(0x09), *range(0x0B, 0x20), 0x7F])


def _escape(match: re.Match[str]) -> str:
    return match.group().encode("unicode_escape").decode("ascii")


def clean(text: str) -> str:
    """``text`` with every unsafe character written as its escape (``\\x1b``); newlines and tabs
    are kept, so that a bot's lines stay lines."""
    if text.isascii():
        data = text.encode("ascii")
        if len(data.translate(None, _ASCII_UNSAFE)) == len(data):
            return text
    return _UNSAFE.sub(_escape, text)


def cut(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to at most ``limit`` bytes of UTF-8, at a character boundary; and whether
    it was cut."""
    if len(text) <= limit // 4:  # no character takes more than 4 bytes: it fits
        return text, False
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text, False
    return data[:limit].decode("utf-8", "ignore"), True


def keep(text: str, left: int) -> tuple[str, int]:
    """What is kept of one decision's debug ``text`` when its seat has ``left`` bytes of the
    game's allowance, and what it has left after. ``text`` is the bot's, as sent."""
    if left <= 0 or not text:
        return "", left
    text, was_cut = cut(clean(text), DEBUG_BYTES)
    size = len(text.encode("utf-8", "surrogatepass")) if not text.isascii() else len(text)
    if size >= left:  # this one spends the rest: what fits, and the marker (once)
        text, _ = cut(text, left)
        return text + SPENT, 0
    return text + (CUT if was_cut else ""), left - size
