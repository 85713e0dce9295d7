"""A :class:`~arena_games.scene.Scene` drawn as one standalone SVG document, on the server.

The drawing uses presentation attributes only (no ``style`` element or attribute, no script, no
``id``), so it works inline under the site's strict CSP, several to a page, and as a downloaded
file; nothing in it refers outside it (no fonts, images or links). Every text is cleaned of
control characters, cut to fit, then escaped: seat names are chosen by bots' authors.

Two widths: :data:`WIDE` for the replay page, and ``narrow=True`` (:data:`NARROW`, a phone's
width) where the seats stack in one column. Scaling the wide drawing down to a phone would make
the cards unreadable, so a page shows the variant that fits (both scale cleanly with CSS
``width: 100%; height: auto`` from their ``viewBox``).

Hooks for tests and pages: each card is ``<g class="card face" data-card="NAME">`` or
``<g class="card back">`` (which holds no text at all), each seat area
``<g class="seat" data-seat="N">`` (with ``data-to-act`` on the seat whose decision it is), a pile
``class="stack"``, a token ``class="token"``. The same input gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from xml.sax.saxutils import escape as _xml_escape

from arena_games import UnknownGame, get_game
from arena_games.scene import COLOURS, Card, Face, Item, Scene, Stack, Text, Token, Zone

from . import Frame, clean, think_time

WIDE = 960  # the replay page's default width
NARROW = 380  # a phone's

# Each colour a game may name, to its ink (and a card's band, a token's disc).
PALETTE: dict[str, str] = {
    "red": "#c62828", "orange": "#e8710a", "yellow": "#f2c318", "green": "#2e7d32",
    "teal": "#00838f", "blue": "#1565c0", "purple": "#6a1b9a", "pink": "#d81b60",
    "brown": "#795548", "grey": "#78858c", "black": "#263238", "gold": "#c9a227",
}
assert set(PALETTE) == set(COLOURS), "a colour of arena_games.scene without its ink"

FONT = "system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif"
FELT, FELT_DARK, FELT_LIGHT = "#1d5c40", "#123d2a", "#26704f"
INK_LIGHT, INK_DIM, INK_DARK = "#f4f1e8", "#b9d3c5", "#1f2328"
GOLD = "#f2c14e"
PAPER = "#fffdf6"
BACK, BACK_EDGE = "#2c3e73", "#19254a"

CARD_W, CARD_H = 58, 82
PILE_W, PILE_H = 46, 64
GAP = 6  # between items
PAD = 10  # inside a panel
MARGIN = 12  # around the drawing
EVENT_LINES = 24  # the most event lines drawn (the latest ones)
LEGAL_LINES = 3  # of the legal actions
TEXT_CHARS = 400  # of a text, a fact, an event: wrapped to fit, then cut


# -- text ---------------------------------------------------------------------------------------
def _width(text: str, size: float, bold: bool = False) -> float:
    """An estimate of a text's width in a sans-serif font: no font is measured on the server."""
    return len(text) * size * (0.6 if bold else 0.56)


def _fit(text: str, width: float, size: float, bold: bool = False) -> str:
    """``text`` (clean) cut to ``width``, ending in an ellipsis when cut."""
    most = max(1, int(width / (size * (0.6 if bold else 0.56))))
    return text if len(text) <= most else text[: max(0, most - 1)].rstrip() + "…"


def _wrap(text: str, width: float, size: float, bold: bool = False) -> list[str]:
    """``text`` (clean) in lines of at most ``width``; a word too long for a line is cut."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if line and _width(candidate, size, bold) > width:
            lines.append(line)
            line = word
        else:
            line = candidate
    lines.append(line)
    return [_fit(x, width, size, bold) for x in lines]


def _esc(text: str) -> str:
    return _xml_escape(text, {'"': "&quot;", "'": "&#39;"})


def _num(x: float) -> str:
    """A coordinate, the same bytes for the same value."""
    out = f"{x:.1f}".removesuffix(".0")
    return "0" if out == "-0" else out


@dataclass
class _Out:
    """The elements drawn so far."""

    parts: list[str]

    def add(self, element: str) -> None:
        self.parts.append(element)

    def text(self, x: float, y: float, text: str, size: float, fill: str, *, bold: bool = False,
             anchor: str = "start", italic: bool = False, cls: str = "", squeeze: float = 0) -> None:
        """``text`` must be clean already (and fitted); it is escaped here. With ``squeeze``, a
        text about that wide is drawn exactly that wide: a box as narrow as a card's has no
        room for a font wider than the estimate."""
        attrs = f'x="{_num(x)}" y="{_num(y)}" font-size="{_num(size)}" fill="{fill}"'
        if squeeze and _width(text, size, bold) > 0.85 * squeeze:
            attrs += f' textLength="{_num(min(squeeze, _width(text, size, bold)))}" lengthAdjust="spacingAndGlyphs"'
        if bold:
            attrs += ' font-weight="bold"'
        if italic:
            attrs += ' font-style="italic"'
        if anchor != "start":
            attrs += f' text-anchor="{anchor}"'
        if cls:
            attrs += f' class="{cls}"'
        self.add(f"<text {attrs}>{_esc(text)}</text>")

    def rect(self, x: float, y: float, w: float, h: float, fill: str, *, rx: float = 0, stroke: str = "",
             stroke_width: float = 1, opacity: float = 1, dash: str = "") -> None:
        attrs = f'x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}" fill="{fill}"'
        if rx:
            attrs += f' rx="{_num(rx)}"'
        if stroke:
            attrs += f' stroke="{stroke}" stroke-width="{_num(stroke_width)}"'
        if opacity != 1:
            attrs += f' fill-opacity="{opacity:g}"'
        if dash:
            attrs += f' stroke-dasharray="{dash}"'
        self.add(f"<rect {attrs}/>")


def _ink(colour: str) -> str:
    return PALETTE.get(colour, PALETTE["grey"])


def _on(ink: str) -> str:
    """Text that reads on ``ink``: dark on a light colour, light on a dark one."""
    r, g, b = (int(ink[i:i + 2], 16) for i in (1, 3, 5))
    return INK_DARK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#ffffff"


# -- items --------------------------------------------------------------------------------------
def _size(item: Item, room: float) -> tuple[float, float]:
    """An item's width and height, given the width of its zone."""
    if isinstance(item, Card):
        return CARD_W, CARD_H + (13 if item.note else 0)
    if isinstance(item, Stack):
        return max(PILE_W + 6, min(_width(clean(item.label), 9), 110)), PILE_H + 6 + 13
    if isinstance(item, Token):
        label = clean(item.label)
        return min(room, 26 + (_width(label, 10) + 4 if label else 0)), 24
    lines = _wrap(clean(item.text, TEXT_CHARS), room, 11)
    return min(room, max(_width(x, 11) for x in lines)), 15 * len(lines) + 2


def _face(out: _Out, x: float, y: float, face: Face) -> None:
    ink = _ink(face.colour)
    out.add(f'<g class="card face" data-card="{_esc(clean(face.name, 40))}">')
    out.rect(x + 1, y + 2, CARD_W, CARD_H, "#000000", rx=6, opacity=0.25)  # its shadow
    out.rect(x, y, CARD_W, CARD_H, PAPER, rx=6, stroke=ink, stroke_width=1.5)
    out.rect(x, y, CARD_W, 22, ink, rx=6)
    out.rect(x, y + 12, CARD_W, 10, ink)
    value = clean(face.value, 4)
    if value:
        out.text(x + 5, y + 18, value, 16, _on(ink), bold=True)
    title = clean(face.title)
    # the title's longest word fits the card: a smaller font before a cut word
    longest = max((len(w) for w in title.split(" ")), default=1) or 1
    size = max(7.5, min(11.0, (CARD_W - 6) / (0.6 * longest)))
    lines = _wrap(title, CARD_W - 6, size, bold=True)
    if len(lines) > 2:  # a long title: smaller, and at most two lines
        size = min(size, 9.0)
        lines = _wrap(title, CARD_W - 6, size, bold=True)[:2]
    family = clean(face.family)
    if family.lower() in title.lower():  # "Ebony" of the Ebony family says it once
        family = ""
    below = _wrap(family, CARD_W - 6, 8) if family else []
    if len(below) > 2:  # two lines at most, the second cut
        below = [below[0], _fit(family[len(below[0]) + 1:], CARD_W - 6, 8)]
    top = y + (48 if len(lines) == 1 else 40) - (5 if len(below) > 1 else 0)
    for i, line in enumerate(lines):
        out.text(x + CARD_W / 2, top + i * (size + 2), line, size, INK_DARK, bold=True, anchor="middle",
                 squeeze=CARD_W - 6)
    for i, line in enumerate(below):
        out.text(x + CARD_W / 2, y + CARD_H - 7 - 9 * (len(below) - 1 - i), line, 8, "#555c63", anchor="middle",
                 squeeze=CARD_W - 6)
    out.add("</g>")


@lru_cache(maxsize=8)
def _lattice(w: float, h: float) -> tuple[float, float, str]:
    """A lattice of small diamonds filling a ``w`` by ``h`` frame: where it starts in the frame,
    and the path from there in relative moves (the same for every back of a size)."""
    step = 8
    cols, rows = int((w - 4) // step), int((h - 4) // step)
    diamond = "l2.5 2.5l-2.5 2.5l-2.5 -2.5z"
    row = diamond + f"m{step} 0{diamond}" * (cols - 1)
    d = row + f"m{-step * (cols - 1)} {step}{row}" * (rows - 1)
    return (w - cols * step) / 2 + step / 2, (h - rows * step) / 2 + step / 2 - 2.5, d


def _back_pattern(x: float, y: float, w: float, h: float) -> str:
    """The lattice inside a back's inner frame, as one path: no ids, no pattern element."""
    dx, dy, d = _lattice(w, h)
    return f'<path d="M{_num(x + dx)} {_num(y + dy)}{d}" fill="{GOLD}" fill-opacity="0.55"/>'


def _back(out: _Out, x: float, y: float, w: float = CARD_W, h: float = CARD_H, cls: str = "card back") -> None:
    out.add(f'<g class="{cls}">')
    out.rect(x + 1, y + 2, w, h, "#000000", rx=6, opacity=0.25)
    out.rect(x, y, w, h, BACK, rx=6, stroke=BACK_EDGE, stroke_width=1.5)
    out.rect(x + 4, y + 4, w - 8, h - 8, "none", rx=3, stroke=GOLD, stroke_width=0.8)
    out.add(_back_pattern(x + 4, y + 4, w - 8, h - 8))
    out.add("</g>")


def _item(out: _Out, x: float, y: float, item: Item, w: float) -> None:
    if isinstance(item, Card):
        if item.face is None:
            _back(out, x, y)
        else:
            _face(out, x, y, item.face)
        if item.note:
            out.text(x + CARD_W / 2, y + CARD_H + 11, _fit(clean(item.note), CARD_W + 4, 9), 9, INK_LIGHT,
                     italic=True, anchor="middle", squeeze=CARD_W + 4)
    elif isinstance(item, Stack):
        out.add('<g class="stack">')
        px = x + (w - PILE_W - 6) / 2
        if item.count > 0:
            layers = min(item.count, 3)
            for i in range(layers - 1, 0, -1):  # the cards under the top one, offset
                out.rect(px + 3 * i, y + 6 - 3 * i, PILE_W, PILE_H, BACK, rx=5, stroke=BACK_EDGE)
            _back(out, px, y + 6, PILE_W, PILE_H, cls="pile")
            out.rect(px + PILE_W / 2 - 18, y + 6 + PILE_H / 2 - 11, 36, 22, "#000000", rx=11, opacity=0.6)
            out.text(px + PILE_W / 2, y + 6 + PILE_H / 2 + 5, f"×{item.count}", 14, "#ffffff", bold=True,
                     anchor="middle")
        else:
            out.rect(px, y + 6, PILE_W, PILE_H, "none", rx=5, stroke=INK_DIM, dash="4 3")
            out.text(px + PILE_W / 2, y + 6 + PILE_H / 2 + 5, "0", 14, INK_DIM, bold=True, anchor="middle")
        out.text(x + w / 2, y + PILE_H + 6 + 11, _fit(clean(item.label), w, 9), 9, INK_LIGHT, anchor="middle",
                 squeeze=w)
        out.add("</g>")
    elif isinstance(item, Token):
        ink = _ink(item.colour)
        out.add('<g class="token">')
        out.add(f'<circle cx="{_num(x + 12)}" cy="{_num(y + 12)}" r="11" fill="{ink}" stroke="#ffffff" '
                'stroke-width="1.5"/>')
        if item.count != 1:  # a lone marker is a disc
            out.text(x + 12, y + 16.5, _fit(str(item.count), 20, 12, bold=True), 12, _on(ink), bold=True,
                     anchor="middle")
        label = clean(item.label)
        if label:
            out.text(x + 28, y + 16, _fit(label, w - 28, 10), 10, INK_LIGHT)
        out.add("</g>")
    else:
        out.add('<g class="text">')
        for i, line in enumerate(_wrap(clean(item.text, TEXT_CHARS), w, 11)):
            out.text(x, y + 12 + 15 * i, line, 11, INK_LIGHT)
        out.add("</g>")


# -- zones --------------------------------------------------------------------------------------
Box = tuple[float, float]  # a width and a height


def _flow(sizes: Sequence[Box], room: float, gap: float,
          breaks: Sequence[bool] = ()) -> tuple[list[Box], float, float]:
    """Places boxes of ``sizes`` left to right, wrapping at ``room`` (and before a box whose
    ``breaks`` is true, as the next line of a text): their places, and the width and height used."""
    places: list[tuple[float, float]] = []
    x = y = row = used = 0.0
    for i, (w, h) in enumerate(sizes):
        if i < len(breaks) and breaks[i] and x:  # a line of text under the one before: closer
            x, y, row = 0.0, y + row + 1, 0.0
        elif x and x + w > room:
            x, y, row = 0.0, y + row + gap, 0.0
        places.append((x, y))
        used = max(used, x + w)
        x += w + gap
        row = max(row, h)
    return places, used, y + row


def _breaks(items: Sequence[Item]) -> list[bool]:
    """A text after a text starts a line: two lines side by side would read as one."""
    return [i > 0 and isinstance(item, Text) and isinstance(items[i - 1], Text) for i, item in enumerate(items)]


def _zone_size(zone: Zone, room: float) -> tuple[float, float]:
    inner = room - 2 * 6
    sizes = [_size(i, inner) for i in zone.items] or [(12.0, 14.0)]
    _, used, height = _flow(sizes, inner, GAP, _breaks(zone.items))
    title = _width(clean(zone.title), 10, bold=True)
    return min(room, max(used, title) + 12), height + 16 + 10


def _zone(out: _Out, x: float, y: float, zone: Zone, w: float, h: float) -> None:
    out.add(f'<g class="zone{" highlight" if zone.highlight else ""}">')
    if zone.highlight:
        out.rect(x, y, w, h, "#ffffff", rx=6, opacity=0.12, stroke=GOLD, stroke_width=2)
    out.text(x + 6, y + 13, _fit(clean(zone.title), w - 12, 10, bold=True), 10,
             GOLD if zone.highlight else INK_DIM, bold=True)
    inner = w - 12
    sizes = [_size(i, inner) for i in zone.items]
    places, _, _ = _flow(sizes, inner, GAP, _breaks(zone.items))
    for item, (ix, iy), (iw, _ih) in zip(zone.items, places, sizes, strict=True):
        _item(out, x + 6 + ix, y + 18 + iy, item, iw)
    if not zone.items:
        out.text(x + 6, y + 30, "–", 11, INK_DIM)
    out.add("</g>")


def _zones(out: _Out, x: float, y: float, zones: Sequence[Zone], room: float) -> float:
    """Zones side by side as they fit, wrapping; the height used."""
    sizes = [_zone_size(z, room) for z in zones]
    places, _, height = _flow(sizes, room, 8)
    for zone, (zx, zy), (zw, zh) in zip(zones, places, sizes, strict=True):
        _zone(out, x + zx, y + zy, zone, zw, zh)
    return height


# -- the drawing --------------------------------------------------------------------------------
def _name(names: Sequence[str], seat: int | None) -> str:
    if seat is None:
        return ""
    return clean(names[seat], 40) if 0 <= seat < len(names) else f"seat {seat}"


def _header(out: _Out, scene: Scene, names: Sequence[str], frame: Frame | None, width: float) -> float:
    """The frame on top: the step, whose decision, the action and its time, the legal actions."""
    parts = _Out([])
    room = width - 2 * PAD
    try:
        title = get_game(scene.game).title
    except UnknownGame:
        title = scene.game
    y = 22.0
    head = clean(title)
    if frame is not None:
        head = f"Step {frame.step} of {frame.last} · {head}"
    head = _fit(head, room, 15, bold=True)
    phase = clean(scene.phase, 200)
    parts.text(PAD, y, head, 15, INK_LIGHT, bold=True)
    if _width(head, 15, bold=True) + 16 + _width(phase, 13) <= room:  # the phase beside, else below
        parts.text(width - PAD, y, phase, 13, GOLD, anchor="end")
    else:
        for line in _wrap(phase, room, 13)[:2]:
            y += 17
            parts.text(PAD, y, line, 13, GOLD)
    decider = scene.to_act if frame is None else frame.decider
    lines: list[tuple[str, str, bool]] = []  # text, fill, bold
    if decider is None:
        lines.append(("The game is over", INK_LIGHT, True))
    else:
        who = f"{_name(names, decider)} (seat {decider})"
        if frame is not None and frame.action is not None:
            took = f" in {think_time(frame.ms)}" if frame.ms is not None else ""
            lines += [(x, INK_LIGHT, True) for x in _wrap(
                f"{who} plays: {clean(frame.action, 200)}{took}", room, 12.5, bold=True)][:3]
        else:
            lines.append((f"▶ {who} to act", INK_LIGHT, True))
    if frame is not None and frame.legal:
        legal = " · ".join(clean(a, 80) for a in frame.legal)
        wrapped = _wrap(f"Legal: {legal}", room, 11)
        if len(wrapped) > LEGAL_LINES:
            wrapped = wrapped[:LEGAL_LINES - 1] + [_fit(f"… and more ({len(frame.legal)} actions in all)", room, 11)]
        lines += [(x, INK_DIM, False) for x in wrapped]
    for text, fill, bold in lines:
        y += 18 if bold else 15
        size = 12.5 if bold else 11
        parts.text(PAD, y, _fit(text, room, size, bold), size, fill, bold=bold)
    height = y + 10
    out.add('<g class="frame">')
    out.rect(0, 0, width, height, FELT_DARK)
    out.parts += parts.parts
    out.add("</g>")
    return height


def _facts(out: _Out, x: float, y: float, facts: Sequence[str], room: float) -> float:
    if not facts:
        return 0
    # a chip a fact, of up to three lines when it is longer than the row
    texts = [_wrap(clean(f, TEXT_CHARS), room - 16, 11)[:3] for f in facts]
    sizes = [(max(_width(t, 11) for t in lines) + 16, 22.0 + 15 * (len(lines) - 1)) for lines in texts]
    places, _, height = _flow(sizes, room, 6)
    out.add('<g class="facts">')
    for lines, (fx, fy), (fw, fh) in zip(texts, places, sizes, strict=True):
        out.rect(x + fx, y + fy, fw, fh, FELT_DARK, rx=11 if len(lines) == 1 else 8)
        for i, t in enumerate(lines):
            out.text(x + fx + 8, y + fy + 15 + 15 * i, t, 11, INK_LIGHT)
    out.add("</g>")
    return height


def _seat(scene: Scene, index: int, names: Sequence[str], w: float) -> tuple[_Out, float]:
    """A seat's area, drawn at the origin: its elements and its height."""
    area = scene.seats[index]
    out = _Out([])
    to_act = scene.to_act == area.seat
    name = _name(names, area.seat)
    y = 20.0
    right = f"seat {area.seat}" + (f" · {clean(area.status)}" if area.status else "")
    right = _fit(right, (w - 2 * PAD) * 0.45, 10.5)
    room = w - 2 * PAD - _width(right, 10.5) - 8 - (58 if to_act else 0)
    x = PAD
    if to_act:
        out.rect(x, y - 13, 50, 18, GOLD, rx=9)
        out.text(x + 25, y, "to act", 10.5, INK_DARK, bold=True, anchor="middle")
        x += 58
    out.text(x, y, _fit(name, room, 14, bold=True), 14, INK_LIGHT, bold=True)
    out.text(w - PAD, y, right, 10.5, INK_DIM, anchor="end")
    y += 10
    y += _zones(out, PAD - 6, y, area.zones, w - 2 * PAD + 12)
    return out, y + PAD


def _seats(out: _Out, scene: Scene, names: Sequence[str], x: float, y: float, room: float, columns: int) -> float:
    col_w = (room - (columns - 1) * 10) / columns
    top = y
    for start in range(0, len(scene.seats), columns):
        drawn = [_seat(scene, i, names, col_w) for i in range(start, min(start + columns, len(scene.seats)))]
        row = max(h for _, h in drawn)
        for k, (parts, _) in enumerate(drawn):
            area = scene.seats[start + k]
            sx = x + k * (col_w + 10)
            to_act = scene.to_act == area.seat
            extra = ' data-to-act="true"' if to_act else ""
            out.add(f'<g class="seat" data-seat="{area.seat}"{extra} transform="translate({_num(sx)} {_num(y)})">')
            out.rect(0, 0, col_w, row, FELT_LIGHT, rx=8, stroke=GOLD if to_act else FELT_DARK,
                     stroke_width=3 if to_act else 1)
            out.parts += parts.parts
            out.add("</g>")
        y += row + 10
    return y - top


def _lines(out: _Out, cls: str, title: str, lines: Sequence[str], x: float, y: float, room: float,
           size: float = 11) -> float:
    if not lines:
        return 0
    body: list[str] = []
    for line in lines:
        body += _wrap(clean(line, TEXT_CHARS), room - 2 * PAD, size)
    h = 26 + 15 * len(body) + 6
    out.add(f'<g class="{cls}">')
    out.rect(x, y, room, h, FELT_DARK, rx=8)
    out.text(x + PAD, y + 17, title, 11, GOLD, bold=True)
    for i, line in enumerate(body):
        out.text(x + PAD, y + 33 + 15 * i, line, size, INK_LIGHT)
    out.add("</g>")
    return h


def svg(scene: Scene, names: Sequence[str], frame: Frame | None = None, *, narrow: bool = False) -> str:
    """``scene`` as a standalone SVG document, ``names`` naming its seats, ``frame`` (if any)
    around it: :data:`WIDE` units wide, or :data:`NARROW` (one column of seats) with ``narrow``."""
    width = NARROW if narrow else WIDE
    room = width - 2 * MARGIN
    out = _Out([])
    y = _header(out, scene, names, frame, width) + MARGIN
    h = _facts(out, MARGIN, y, scene.facts, room)
    y += h + (MARGIN if h else 0)
    if scene.centre:
        out.add('<g class="centre">')
        y += _zones(out, MARGIN - 6, y, scene.centre, room + 12) + MARGIN
        out.add("</g>")
    if scene.seats:
        columns = 1 if narrow or len(scene.seats) == 1 else 2
        y += _seats(out, scene, names, MARGIN, y, room, columns) + 2
    if frame is not None:
        events = list(frame.events)
        if len(events) > EVENT_LINES:
            events = [f"({len(events) - EVENT_LINES + 1} earlier events not shown)", *events[-EVENT_LINES + 1:]]
        h = _lines(out, "events", "What happened", events, MARGIN, y, room)
        y += h + (MARGIN if h else 0)
        h = _lines(out, "result", "Result", frame.result, MARGIN, y, room, size=12)
        y += h + (MARGIN if h else 0)
    height = _num(max(y, 60))
    label = _esc(clean(f"{scene.game} table", 60))
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="table" viewBox="0 0 {width} {height}" '
            f'width="{width}" height="{height}" font-family="{FONT}" role="img" aria-label="{label}">')
    return "\n".join([head, f'<rect width="{width}" height="{height}" fill="{FELT}"/>', *out.parts, "</svg>"]) + "\n"

