"""A :class:`~arena_games.scene.Scene` as plain text, for a terminal (``arena replay --step``):
the same table as :mod:`arena.tables.svg` draws, in the same order. Cards are ``[Captain 3]``,
backs ``[##]``, piles ``pile ×44``, tokens ``(cubes: 3, red)``; the seat to act is marked ``>``,
a zone where the play is ``*``. Every line is printable: a name's control characters are written as
escapes (``referee.textlog.printable``), so no text can move the cursor or colour the terminal.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from arena_games import UnknownGame, get_game
from arena_games.scene import Card, Item, Scene, Stack, Text, Token, Zone
from referee.textlog import printable

from . import Frame, think_time

EVENT_LINES = 40  # the most event lines printed (the latest ones)
LEGAL_LINES = 8  # of the legal actions
NEWLINE = "\n"  # in the words to wrap: a line break


def _p(text: str, limit: int = 64) -> str:
    return printable(str(text), limit)


def _item(item: Item) -> str:
    if isinstance(item, Card):
        if item.face is None:
            shown = "[##]"
        else:
            f = item.face
            words = " ".join(_p(x, 40) for x in (f.title, f.value) if x)
            family = f" · {_p(f.family, 40)}" if f.family and f.family.lower() not in f.title.lower() else ""
            shown = f"[{words}{family}]"
        return shown + (f"({_p(item.note, 40)})" if item.note else "")
    if isinstance(item, Stack):
        return f"{_p(item.label, 40)} ×{item.count}"
    if isinstance(item, Token):
        colour = f", {item.colour}" if item.colour != "grey" else ""
        count = f": {item.count}" if item.count != 1 else ""
        return f"({_p(item.label, 40)}{count}{colour})"
    return _p(item.text, 400)


def _wrap(head: str, words: Sequence[str], width: int, indent: int) -> Iterator[str]:
    """``head`` then ``words`` separated by spaces, in lines of at most ``width`` (a word longer
    than a line stands alone; a word NEWLINE starts a line); lines after the first indented by
    ``indent``."""
    line = head
    for word in words:
        if word == NEWLINE or (line.strip() and len(line) + 1 + len(word) > width):
            if line.strip():
                yield line
            line = " " * indent
            if word == NEWLINE:
                continue
        line = f"{line} {word}" if line.strip() else line + word
    yield line


def _zone(zone: Zone, width: int, indent: int) -> Iterator[str]:
    mark = "* " if zone.highlight else "  "
    head = f"{' ' * (indent - 2)}{mark}{_p(zone.title)}:"
    words: list[str] = []
    for k, item in enumerate(zone.items):
        if isinstance(item, Text):  # its words wrap like the items; a text after a text starts a line
            if k and isinstance(zone.items[k - 1], Text):
                words.append(NEWLINE)
            words += _item(item).split(" ")
        else:
            words.append(_item(item))
    yield from _wrap(head, words or ["-"], width, indent + 4)


def _name(names: Sequence[str], seat: int) -> str:
    return _p(names[seat], 40) if 0 <= seat < len(names) else f"seat {seat}"


def lines(scene: Scene, names: Sequence[str], frame: Frame | None = None, width: int = 100) -> Iterator[str]:
    """The lines of :func:`text`."""
    try:
        title = get_game(scene.game).title
    except UnknownGame:
        title = _p(scene.game)
    head = f"Step {frame.step} of {frame.last} · {title}" if frame is not None else title
    yield from _wrap("", f"{head} · {_p(scene.phase, 80)}".split(" "), width, 4)
    decider = scene.to_act if frame is None else frame.decider
    if decider is None:
        yield "The game is over"
    elif frame is not None and frame.action is not None:
        took = f" in {think_time(frame.ms)}" if frame.ms is not None else ""
        yield from _wrap("", f"{_name(names, decider)} (seat {decider}) plays: {_p(frame.action, 200)}{took}"
                         .split(" "), width, 4)
    else:
        yield f"> {_name(names, decider)} (seat {decider}) to act"
    if frame is not None and frame.legal:
        legal = list(_wrap("Legal:", [_p(a, 80) + "," for a in frame.legal[:-1]] + [_p(frame.legal[-1], 80)],
                           width, 4))
        if len(legal) > LEGAL_LINES:
            legal = [*legal[:LEGAL_LINES - 1], f"    ... ({len(frame.legal)} legal actions in all)"]
        yield from legal
    if scene.facts:
        yield from _wrap("", [_p(f, 200) + (" |" if i < len(scene.facts) - 1 else "")
                              for i, f in enumerate(scene.facts)], width, 2)
    if scene.centre:
        yield ""
        yield "Table"
        for zone in scene.centre:
            yield from _zone(zone, width, 2)
    for area in scene.seats:
        yield ""
        mark = ">" if scene.to_act == area.seat else " "
        status = f" ({_p(area.status, 40)})" if area.status else ""
        act = "  <- to act" if scene.to_act == area.seat else ""
        yield f"{mark} Seat {area.seat}: {_name(names, area.seat)}{status}{act}"
        for zone in area.zones:
            yield from _zone(zone, width, 4)
    if frame is not None and frame.events:
        yield ""
        yield "What happened:"
        events = list(frame.events)
        if len(events) > EVENT_LINES:
            yield f"  ({len(events) - EVENT_LINES} earlier events not shown)"
            events = events[-EVENT_LINES:]
        for event in events:
            yield from _wrap("  ", _p(event, 400).split(" "), width, 4)
    if frame is not None and frame.result:
        yield ""
        yield "Result:"
        for line in frame.result:
            yield from _wrap("  ", _p(line, 200).split(" "), width, 6)


def text(scene: Scene, names: Sequence[str], frame: Frame | None = None, width: int = 100) -> str:
    """``scene`` as text for a terminal, ``names`` naming its seats, ``frame`` (if any) around
    it, in lines of about ``width`` characters."""
    return "\n".join(lines(scene, names, frame, width)) + "\n"
