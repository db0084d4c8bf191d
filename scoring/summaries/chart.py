"""The summary's chart: each player's running total, deal by deal, as SVG written out directly.

Matplotlib drew it before; importing it and loading its fonts took 0.35-0.55 s in every new
worker process and the drawing 40-90 ms per summary, for a picture of a few lines.
This writes the same picture (800 x 450, the axes where matplotlib put them, its tab10 colours,
the legend to the right) in about a millisecond and with nothing to import.

The chart carries no words: it is stored once and read in every language, so the page says
what the axes are (deals across, the session's unit up) beside it. Only numbers and the
players' names (escaped) appear. The same data always gives the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape

WIDTH, HEIGHT = 800, 450
#: The plot area, in pixels (matplotlib's subplots_adjust(left=0.09, right=0.82, top=0.96, bottom=0.08)).
LEFT, RIGHT, TOP, BOTTOM = 72.0, 656.0, 18.0, 414.0
#: Readable on the dark theme and on the light one.
INK = "#888888"
#: matplotlib's tab10, the colours the chart always had.
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
#: Deals up to which every point gets a marker (beyond, they would blot the lines).
MARKERS_UP_TO = 30
#: Longest name the legend shows whole; longer ones are cut with an ellipsis (the table names them).
LEGEND_CHARS = 16


def _nice_step(span: float, bins: int) -> int:
    """The smallest whole step of 1, 2, 2.5 or 5 times a power of ten giving at most ``bins``
    intervals (matplotlib's choice of steps, whole numbers only)."""
    raw = max(span, 1) / bins
    magnitude = 10 ** max(0, math.floor(math.log10(raw)))
    for factor in (1, 2, 2.5, 5, 10):
        step = factor * magnitude
        if step >= raw and step == int(step):
            return int(step)
    return 10 * magnitude  # factor 10 always reaches raw


def _number(value: float) -> str:
    """A coordinate with at most two decimals, without trailing zeros (stable, compact bytes)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _tick_label(value: int) -> str:
    return f"\u2212{-value}" if value < 0 else str(value)


def render(data: Mapping[str, Any]) -> str:
    """Running totals per player (``running_totals``: one row per point, the start first; with
    ``m3``, the last row is the close, joined by a dashed segment and ticked "M3")."""
    names: Sequence[str] = data["players"]
    running: Sequence[Sequence[int]] = data["running_totals"]
    m3 = bool(data["m3"])
    deals = len(running) - (2 if m3 else 1)
    x_max = max(1, len(running) - 1)
    values = [value for row in running for value in row] or [0]
    low, high = min(values + [0]), max(values + [0])
    margin = max(high - low, 1) * 0.05
    y_low, y_high = low - margin, high + margin

    def x(point: float) -> float:
        return LEFT + (RIGHT - LEFT) * point / x_max

    def y(value: float) -> float:
        return BOTTOM - (BOTTOM - TOP) * (value - y_low) / (y_high - y_low)

    out = [
        '<?xml version="1.0" encoding="utf-8" standalone="no"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" version="1.1">',
        f'<g font-family="DejaVu Sans, Verdana, Arial, sans-serif" fill="{INK}" font-size="13">',
    ]
    # Grid and ticks: whole numbers only (deals, and totals in the game's unit).
    x_step = _nice_step(max(1, deals), 10)
    x_ticks = [(t, str(t)) for t in range(0, max(1, deals) + 1, x_step) if t <= deals or deals == 0]
    if m3:
        x_ticks.append((deals + 1, "M3"))
    y_step = _nice_step(y_high - y_low, 9)
    first = math.ceil(y_low / y_step) * y_step
    y_ticks = list(range(first, math.floor(y_high) + 1, y_step))
    grid = [f"M{_number(x(t))} {TOP}V{BOTTOM}" for t, _label in x_ticks]
    grid += [f"M{LEFT} {_number(y(t))}H{RIGHT}" for t in y_ticks]
    out.append(f'<path d="{"".join(grid)}" stroke="{INK}" stroke-opacity="0.2" stroke-width="1" fill="none"/>')
    out.append(f'<path d="M{LEFT} {_number(y(0))}H{RIGHT}" stroke="{INK}" stroke-opacity="0.6" stroke-width="0.8"/>')
    marks = [f"M{_number(x(t))} {BOTTOM}v5" for t, _label in x_ticks] + [
        f"M{LEFT} {_number(y(t))}h-5" for t in y_ticks]
    out.append(f'<path d="{"".join(marks)}" stroke="{INK}" stroke-width="1"/>')
    for t, label in x_ticks:
        out.append(f'<text x="{_number(x(t))}" y="{BOTTOM + 20}" text-anchor="middle">{label}</text>')
    for t in y_ticks:
        out.append(f'<text x="{LEFT - 8}" y="{_number(y(t) + 4.5)}" text-anchor="end">{_tick_label(t)}</text>')
    # The lines, the close's dashed segment and the markers, one group per player.
    for seat in range(len(names)):
        colour = COLOURS[seat % len(COLOURS)]
        points = [(x(i), y(row[seat])) for i, row in enumerate(running[: deals + 1])]
        line = "M" + "L".join(f"{_number(px)} {_number(py)}" for px, py in points)
        out.append(f'<g stroke="{colour}" fill="{colour}">')
        out.append(f'<path d="{line}" stroke-width="2.5" fill="none" stroke-linejoin="round" '
                   'stroke-linecap="round"/>')
        if m3:
            px, py = points[-1]
            out.append(f'<path d="M{_number(px)} {_number(py)}L{_number(x(deals + 1))} '
                       f'{_number(y(running[-1][seat]))}" stroke-width="1.9" stroke-dasharray="7 3" fill="none"/>')
        if deals <= MARKERS_UP_TO:
            out.append("".join(f'<circle cx="{_number(px)}" cy="{_number(py)}" r="2.2" stroke="none"/>'
                               for px, py in points))
        out.append("</g>")
    # The frame over the lines, then the legend to the right of it.
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{RIGHT - LEFT}" height="{BOTTOM - TOP}" fill="none" '
               f'stroke="{INK}" stroke-width="1"/>')
    for seat, name in enumerate(names):
        colour = COLOURS[seat % len(COLOURS)]
        row_y = TOP + 14 + 18 * seat
        shown = name if len(name) <= LEGEND_CHARS else name[: LEGEND_CHARS - 1] + "\u2026"
        out.append(f'<path d="M{RIGHT + 10} {_number(row_y)}h22" stroke="{colour}" stroke-width="2.5"/>')
        out.append(f'<text x="{RIGHT + 38}" y="{_number(row_y + 4)}" font-size="12">{escape(shown)}</text>')
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"
