"""Charts drawn on the server as SVG: no JavaScript, and nothing a bot chose inside them.

- :func:`rating_chart`: a bot's rating over its rated games: the mu line and the mu +/- 3 sigma
  band, with axes, ticks and labels.
- :func:`interval_bars`: where each leaderboard row's mu - 3 sigma, mu and mu + 3 sigma fall on
  one scale shared by the rows, for the template to draw as bars.

The SVG is built with ElementTree, which escapes whatever text and attributes it is given.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from markupsafe import Markup

MU_COLOUR, BAND_COLOUR, GRID_COLOUR, INK = "#2f5bd3", "#2f5bd3", "#d9dee7", "#667085"


class Point(Protocol):
    game: int
    mu: float
    sigma: float


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round values (steps of 1, 2 or 5 times a power of ten) covering [low, high]."""
    if high <= low:
        high = low + 1
    raw = (high - low) / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < high:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def _label(value: float) -> str:
    return f"{value:g}"


def rating_chart(points: Sequence[Point], *, width: int = 720, height: int = 260, element_id: str = "rating-chart",
                 title: str = "Rating history") -> Markup:
    """An SVG of the rating after each rated game: x is the bot's game number (from 1), y the
    rating; the line is mu and the band mu - 3 sigma to mu + 3 sigma. The mu path has one point per
    game (``data-points``); with few games each is also marked by a dot."""
    left, right, top, bottom = 52, 16, 14, 44
    plot_w, plot_h = width - left - right, height - top - bottom
    svg = ET.Element("svg", {"xmlns": "http://www.w3.org/2000/svg", "id": element_id, "class": "chart",
                             "viewBox": f"0 0 {width} {height}", "width": str(width), "height": str(height),
                             "role": "img", "data-points": str(len(points))})
    ET.SubElement(svg, "title").text = f"{title}: {len(points)} rated game(s)"
    if not points:
        text = ET.SubElement(svg, "text", {"x": str(width // 2), "y": str(height // 2), "text-anchor": "middle",
                                           "fill": INK, "class": "empty"})
        text.text = "no rated games yet"
        return Markup(ET.tostring(svg, encoding="unicode"))

    n = len(points)
    x_lo, x_hi = 1.0, float(max(n, 2))
    # games are whole: no tick between two of them
    x_ticks = [t for t in nice_ticks(x_lo, x_hi, 6) if x_lo <= t <= x_hi and t == int(t)] or [x_lo]
    lows = [p.mu - 3 * p.sigma for p in points]
    highs = [p.mu + 3 * p.sigma for p in points]
    y_ticks = nice_ticks(min(lows), max(highs), 5)
    y_lo, y_hi = y_ticks[0], y_ticks[-1]

    def x(game: float) -> float:
        return left + (game - x_lo) / (x_hi - x_lo) * plot_w

    def y(value: float) -> float:
        return top + (y_hi - value) / (y_hi - y_lo) * plot_h

    grid = ET.SubElement(svg, "g", {"class": "grid", "stroke": GRID_COLOUR, "stroke-width": "1"})
    labels = ET.SubElement(svg, "g", {"class": "ticks", "fill": INK, "font-size": "11"})
    for t in y_ticks:
        ET.SubElement(grid, "line", {"x1": f"{left}", "x2": f"{left + plot_w}", "y1": f"{y(t):.1f}",
                                     "y2": f"{y(t):.1f}"})
        ET.SubElement(labels, "text", {"x": f"{left - 6}", "y": f"{y(t) + 4:.1f}", "text-anchor": "end"}).text = \
            _label(t)
    for t in x_ticks:
        ET.SubElement(grid, "line", {"x1": f"{x(t):.1f}", "x2": f"{x(t):.1f}", "y1": f"{top}",
                                     "y2": f"{top + plot_h}"})
        ET.SubElement(labels, "text", {"x": f"{x(t):.1f}", "y": f"{top + plot_h + 16}", "text-anchor": "middle"}
                      ).text = _label(t)
    ET.SubElement(svg, "rect", {"x": f"{left}", "y": f"{top}", "width": f"{plot_w}", "height": f"{plot_h}",
                                "fill": "none", "stroke": INK, "stroke-width": "1", "class": "frame"})

    upper = [f"{x(p.game):.1f},{y(p.mu + 3 * p.sigma):.1f}" for p in points]
    lower = [f"{x(p.game):.1f},{y(p.mu - 3 * p.sigma):.1f}" for p in reversed(points)]
    ET.SubElement(svg, "path", {"class": "band", "id": f"{element_id}-band", "fill": BAND_COLOUR,
                                "fill-opacity": "0.15", "stroke": "none",
                                "d": "M" + " L".join(upper + lower) + " Z"})
    line = [f"{x(p.game):.1f},{y(p.mu):.1f}" for p in points]
    ET.SubElement(svg, "path", {"class": "mu", "id": f"{element_id}-mu", "fill": "none", "stroke": MU_COLOUR,
                                "stroke-width": "2", "stroke-linejoin": "round", "data-points": str(n),
                                "d": "M" + " L".join(line)})
    if n <= 60:
        dots = ET.SubElement(svg, "g", {"class": "dots", "fill": MU_COLOUR})
        for p in points:
            ET.SubElement(dots, "circle", {"cx": f"{x(p.game):.1f}", "cy": f"{y(p.mu):.1f}", "r": "2.5"})

    axis = ET.SubElement(svg, "g", {"class": "axis-labels", "fill": INK, "font-size": "12"})
    ET.SubElement(axis, "text", {"x": f"{left + plot_w / 2:.0f}", "y": f"{height - 6}",
                                 "text-anchor": "middle"}).text = "rated games"
    ET.SubElement(axis, "text", {"x": "12", "y": f"{top + plot_h / 2:.0f}", "text-anchor": "middle",
                                 "transform": f"rotate(-90 12 {top + plot_h / 2:.0f})"}).text = "rating"
    legend = ET.SubElement(svg, "g", {"class": "legend", "font-size": "11", "fill": INK})
    lx = left + plot_w - 150
    ET.SubElement(legend, "line", {"x1": f"{lx}", "x2": f"{lx + 18}", "y1": f"{top + 12}", "y2": f"{top + 12}",
                                   "stroke": MU_COLOUR, "stroke-width": "2"})
    ET.SubElement(legend, "text", {"x": f"{lx + 22}", "y": f"{top + 16}"}).text = "μ"
    ET.SubElement(legend, "rect", {"x": f"{lx + 40}", "y": f"{top + 6}", "width": "18", "height": "12",
                                   "fill": BAND_COLOUR, "fill-opacity": "0.15"})
    ET.SubElement(legend, "text", {"x": f"{lx + 62}", "y": f"{top + 16}"}).text = "μ ± 3σ"
    return Markup(ET.tostring(svg, encoding="unicode"))


@dataclass(frozen=True)
class Bar:
    """A row's interval on the shared scale, in pixels from the bar's left edge."""

    low: float  # mu - 3 sigma
    mu: float
    high: float  # mu + 3 sigma


def interval_bars(rows: Iterable[tuple[int, float, float]], width: int = 160, pad: int = 4) -> dict[int, Bar]:
    """``{key: Bar}`` for ``(key, mu, sigma)`` rows: mu +/- 3 sigma of every row on one scale,
    from the lowest mu - 3 sigma to the highest mu + 3 sigma, so the bars compare."""
    rows = list(rows)
    if not rows:
        return {}
    low = min(mu - 3 * sigma for _, mu, sigma in rows)
    high = max(mu + 3 * sigma for _, mu, sigma in rows)
    span = (high - low) or 1.0
    inner = width - 2 * pad

    def at(value: float) -> float:
        return round(pad + (value - low) / span * inner, 1)

    return {key: Bar(at(mu - 3 * sigma), at(mu), at(mu + 3 * sigma)) for key, mu, sigma in rows}
