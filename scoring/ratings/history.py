"""A member's rating history and its chart (server-side SVG, as the summaries' charts are).

The points are ``RatingPoint`` rows: the member's rating after each rated deal of a stream (a
game, or all games), for the whole history. The chart draws the conservative ordinal
(mu - 3 sigma, what the leaderboard ranks by) as a line with a band of plus or minus sigma
around it, a marker at the end of each session (a link to it), and bars at the foot for the
deals played in each session. Long histories are thinned for drawing (at most ``DRAWN``
points, the last always kept); the figures are exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from xml.sax.saxutils import escape

from scoring.models import RatingPoint

from .rating import ordinal

WIDTH, HEIGHT = 800, 320
LEFT, RIGHT, TOP, BOTTOM = 56.0, 784.0, 16.0, 260.0
BARS_TOP, BARS_BOTTOM = 272.0, 312.0
INK, LINE, BAND, BAR = "#888888", "#1f77b4", "#1f77b4", "#888888"
DRAWN = 600


@dataclass(frozen=True)
class Point:
    seq: int
    deal: int
    session: int
    finished_at: datetime | None
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return ordinal(self.mu, self.sigma)


def member_points(*, club_id: int, member_id: int, game: str) -> list[Point]:
    """The member's points in the stream, in order (one indexed read, with each deal's session)."""
    rows = (RatingPoint.objects.filter(stream__club_id=club_id, stream__game=game, member_id=member_id)
            .order_by("seq").values_list("seq", "deal_id", "deal__session_id", "deal__finished_at", "mu", "sigma"))
    return [Point(*row) for row in rows]


def sessions_of(points: list[Point]) -> list[tuple[int, int, int]]:
    """(session, index of its last point, deals in it), in the order the member played them."""
    found: list[tuple[int, int, int]] = []
    for index, point in enumerate(points):
        if found and found[-1][0] == point.session:
            session, _last, count = found[-1]
            found[-1] = (session, index, count + 1)
        else:
            found.append((point.session, index, 1))
    return found


def _attr(text: str) -> str:
    return escape(text, {'"': "&quot;"})


def _n(value: float) -> str:
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def chart_svg(points: list[Point], *, session_url: str = "/sessions/{}/", label: str = "",
              session_label: str = "{rating} ({deals})") -> str:
    """The chart's SVG (empty string for no points). ``session_url`` names a session's page;
    ``label`` is what a screen reader says of the picture, ``session_label`` of a session's dot
    (``{rating}`` and ``{deals}`` filled in), both in the page's language."""
    if not points:
        return ""
    step = max(1, -(-len(points) // DRAWN))
    drawn = list(range(0, len(points), step))
    if drawn[-1] != len(points) - 1:
        drawn.append(len(points) - 1)
    lows = [points[i].ordinal - points[i].sigma for i in drawn]
    highs = [points[i].ordinal + points[i].sigma for i in drawn]
    low, high = min(lows), max(highs)
    if high - low < 1:
        low, high = low - 0.5, high + 0.5
    span_x = max(len(points) - 1, 1)

    def x(index: int) -> float:
        return LEFT + (RIGHT - LEFT) * index / span_x

    def y(value: float) -> float:
        return BOTTOM - (BOTTOM - TOP) * (value - low) / (high - low)

    # A group, not an image: it holds links (a session per dot), which an image may not.
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
           f'width="{WIDTH}" height="{HEIGHT}" role="group" aria-label="{_attr(label)}" '
           f'class="rating-chart">']
    # Axes: a few value ticks, whole numbers.
    ticks = sorted({round(low + (high - low) * k / 4) for k in range(5)})
    for tick in ticks:
        if low <= tick <= high:
            out.append(f'<line x1="{_n(LEFT)}" x2="{_n(RIGHT)}" y1="{_n(y(tick))}" y2="{_n(y(tick))}" '
                       f'stroke="{INK}" stroke-opacity="0.25"/>')
            label = f"\u2212{-tick}" if tick < 0 else str(tick)
            out.append(f'<text x="{_n(LEFT - 6)}" y="{_n(y(tick) + 4)}" text-anchor="end" font-size="12" '
                       f'fill="{INK}">{label}</text>')
    band = [f"{_n(x(i))},{_n(y(v))}" for i, v in zip(drawn, highs, strict=True)]
    band += [f"{_n(x(i))},{_n(y(v))}" for i, v in reversed(list(zip(drawn, lows, strict=True)))]
    out.append(f'<polygon points="{" ".join(band)}" fill="{BAND}" fill-opacity="0.18" stroke="none"/>')
    line = " ".join(f"{_n(x(i))},{_n(y(points[i].ordinal))}" for i in drawn)
    out.append(f'<polyline points="{line}" fill="none" stroke="{LINE}" stroke-width="2.5"/>')
    sessions = sessions_of(points)
    most = max(count for _s, _i, count in sessions)
    every = max(1, -(-len(sessions) // 120))  # at most about 120 session markers
    for number, (session, last, count) in enumerate(sessions):
        height = (BARS_BOTTOM - BARS_TOP) * count / most
        first = last - count + 1
        bar_x, bar_w = x(first), max(x(last) - x(first), 2.0)
        out.append(f'<rect x="{_n(bar_x)}" y="{_n(BARS_BOTTOM - height)}" width="{_n(bar_w)}" '
                   f'height="{_n(height)}" fill="{BAR}" fill-opacity="0.5"/>')
        if number % every == 0 or number == len(sessions) - 1:
            point = points[last]
            said = _attr(session_label.format(rating=_n(point.ordinal), deals=count))
            # The dot, and round it a target a finger can hit (24 units: 47 px across on a phone).
            out.append(f'<a href="{escape(session_url.format(session))}" aria-label="{said}">'
                       f'<circle cx="{_n(x(last))}" cy="{_n(y(point.ordinal))}" r="24" fill="{LINE}" '
                       f'fill-opacity="0"/><circle cx="{_n(x(last))}" cy="{_n(y(point.ordinal))}" r="5" '
                       f'fill="{LINE}"/></a>')
    out.append("</svg>")
    return "".join(out)


COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
LINE_POINTS = 200


def top_lines_svg(*, club_id: int, game: str, members: list[tuple[int, str]], label: str = "") -> str:
    """The cautious rating of several members (the leaderboard's top ten) over the stream's
    deals, one line each, with a legend; each line thinned to ``LINE_POINTS`` points."""
    series: dict[int, list[tuple[int, float]]] = {member: [] for member, _name in members}
    for member, seq, mu, sigma in (RatingPoint.objects.filter(
            stream__club_id=club_id, stream__game=game, member_id__in=list(series))
            .order_by("member_id", "seq").values_list("member_id", "seq", "mu", "sigma")):
        series[member].append((seq, ordinal(mu, sigma)))
    drawn = {m: s[:: max(1, -(-len(s) // LINE_POINTS))] + ([s[-1]] if s and len(s) > LINE_POINTS else [])
             for m, s in series.items() if s}
    if not drawn:
        return ""
    first = min(s[0][0] for s in drawn.values())
    last = max(s[-1][0] for s in drawn.values())
    low = min(v for s in drawn.values() for _x, v in s)
    high = max(v for s in drawn.values() for _x, v in s)
    if high - low < 1:
        low, high = low - 0.5, high + 0.5
    right = 640.0

    def x(seq: int) -> float:
        return LEFT + (right - LEFT) * (seq - first) / max(last - first, 1)

    def y(value: float) -> float:
        return BOTTOM - (BOTTOM - TOP) * (value - low) / (high - low)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {int(BOTTOM) + 20}" '
           f'width="{WIDTH}" height="{int(BOTTOM) + 20}" role="img" aria-label="{_attr(label)}" '
           f'class="rating-chart">']
    for tick in sorted({round(low + (high - low) * k / 4) for k in range(5)}):
        if low <= tick <= high:
            out.append(f'<line x1="{_n(LEFT)}" x2="{_n(right)}" y1="{_n(y(tick))}" y2="{_n(y(tick))}" '
                       f'stroke="{INK}" stroke-opacity="0.25"/>')
            label = f"\u2212{-tick}" if tick < 0 else str(tick)
            out.append(f'<text x="{_n(LEFT - 6)}" y="{_n(y(tick) + 4)}" text-anchor="end" font-size="12" '
                       f'fill="{INK}">{label}</text>')
    names = dict(members)
    for index, (member, line) in enumerate(drawn.items()):
        colour = COLOURS[index % len(COLOURS)]
        coords = " ".join(f"{_n(x(seq))},{_n(y(value))}" for seq, value in line)
        out.append(f'<polyline points="{coords}" fill="none" stroke="{colour}" stroke-width="2"/>')
        label_y = TOP + 8 + index * 22
        out.append(f'<line x1="{_n(right + 16)}" x2="{_n(right + 36)}" y1="{_n(label_y)}" y2="{_n(label_y)}" '
                   f'stroke="{colour}" stroke-width="3"/>')
        name = names.get(member, "?")
        name = name if len(name) <= 14 else name[:13] + "\u2026"
        out.append(f'<text x="{_n(right + 42)}" y="{_n(label_y + 4)}" font-size="13" '
                   f'fill="{INK}">{escape(name)}</text>')
    out.append("</svg>")
    return "".join(out)
