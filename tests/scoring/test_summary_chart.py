"""The summary's chart, written as SVG without matplotlib (``scoring.summary_chart``): every
player's running total where it belongs, the close (M3) dashed, whole-number ticks, names
escaped, no words, and the same bytes for the same data."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from scoring.summaries import chart

SVG = "{http://www.w3.org/2000/svg}"


def data(running: list[list[int]], names: list[str], m3: bool = False) -> dict[str, Any]:
    return {"players": names, "running_totals": running, "m3": m3,
            "session": {"id": 1, "game": "velnias", "date": "2026-01-01"}}


def lines(svg: str) -> list[list[tuple[float, float]]]:
    """Each player's solid line, as (x, y) pixels."""
    root = ET.fromstring(svg.split("?>", 1)[1])
    found = []
    for group in root.iter(f"{SVG}g"):
        for path in group.findall(f"{SVG}path"):
            if path.get("stroke-width") == "2.5" and path.get("fill") == "none":
                found.append([tuple(map(float, point.split())) for point in path.get("d", "")[1:].split("L")])
    return found


def tick_labels(svg: str, axis: str = "x") -> list[str]:
    anchor = "middle" if axis == "x" else "end"
    return re.findall(rf'text-anchor="{anchor}">([^<]*)</text>', svg)


def test_each_point_is_where_its_total_puts_it() -> None:
    running = [[0, 0, 0], [3, -1, -2], [1, 4, -5], [6, 2, -8]]
    svg = chart.render(data(running, ["Ona", "Jonas", "Rūta"]))
    drawn = lines(svg)
    assert len(drawn) == 3
    for seat, points in enumerate(drawn):
        assert len(points) == len(running)
        xs = [x for x, _y in points]
        assert xs[0] == chart.LEFT and xs[-1] == chart.RIGHT and xs == sorted(xs)
        # Pixels go down as totals go up, in proportion: one pixel scale for every player.
        for (_x0, y0), (_x1, y1), before, after in zip(points, points[1:], running, running[1:]):
            assert (y1 - y0) * (after[seat] - before[seat]) <= 0
    zero = drawn[0][0][1]
    scale = (drawn[1][2][1] - zero) / 4  # Jonas: 4 in deal 2
    for seat, points in enumerate(drawn):
        for (_x, y), row in zip(points, running):
            assert abs((y - zero) - scale * row[seat]) < 0.02
    assert all(chart.TOP <= y <= chart.BOTTOM for points in drawn for _x, y in points)


def test_whole_number_ticks_with_a_real_minus_sign() -> None:
    running = [[0, 0], *([[n * 7, -n * 7] for n in range(1, 41)])]
    svg = chart.render(data(running, ["A", "B"]))
    across = [int(label) for label in tick_labels(svg, "x")]
    assert across == list(range(0, 41, 5))
    labels = tick_labels(svg, "y")
    up = [int(label.replace("\u2212", "-")) for label in labels]
    assert up == list(range(-300, 301, 100))  # totals from -280 to 280, 5% margin
    assert all("-" not in label for label in labels)


def test_the_close_is_dashed_and_ticked_m3() -> None:
    running = [[0, 0, 0], [-3, 1, -10], [-12, 3, -11], [-6, 10, -4]]
    svg = chart.render(data(running, ["Ona", "Jonas", "Rūta"], m3=True))
    drawn = lines(svg)
    assert all(len(points) == 3 for points in drawn)  # the deals; the close is the dashed segment
    assert svg.count('stroke-dasharray="7 3"') == 3
    assert tick_labels(svg)[:4] == ["0", "1", "2", "M3"]


def test_markers_only_while_they_can_be_told_apart() -> None:
    few = chart.render(data([[0, 0], *([[n, -n] for n in range(1, 31)])], ["A", "B"]))
    many = chart.render(data([[0, 0], *([[n, -n] for n in range(1, 32)])], ["A", "B"]))
    assert few.count("<circle") == 2 * 31 and "<circle" not in many


def test_names_escaped_cut_when_long_and_no_words() -> None:
    long = "Aleksandras Kazimieraitis-Jonaitis"
    svg = chart.render(data([[0, 0, 0], [1, -1, 0]], ["=<b>Petras</b>", "Ona & Jonas", long]))
    ET.fromstring(svg.split("?>", 1)[1])  # well-formed
    assert svg.startswith("<?xml") and svg.rstrip().endswith("</svg>")
    assert "<b>" not in svg and ">=&lt;b&gt;Petras&lt;/b&gt;</text>" in svg and ">Ona &amp; Jonas</text>" in svg
    assert f">{long[:15]}\u2026</text>" in svg
    texts = re.findall(r">([^<>]+)</text>", svg)
    assert [t for t in texts if re.fullmatch(r"[\u2212]?\d+|M3", t) is None] == [
        "=&lt;b&gt;Petras&lt;/b&gt;", "Ona &amp; Jonas", f"{long[:15]}\u2026"]


def test_the_same_data_gives_the_same_bytes() -> None:
    running = [[0, 0, 0, 0], [2, -2, 1, -1], [0, 0, 5, -5]]
    one = chart.render(data(running, ["A", "B", "C", "D"]))
    assert chart.render(data([list(r) for r in running], ["A", "B", "C", "D"])) == one
    assert chart.render(data(running, ["A", "B", "C", "E"])) != one


def test_a_session_without_deals_or_movement_still_draws() -> None:
    svg = chart.render(data([[0, 0]], ["A", "B"]))
    assert [len(points) for points in lines(svg)] == [1, 1]
    flat = chart.render(data([[0, 0], [0, 0]], ["A", "B"]))
    assert all(y == lines(flat)[0][0][1] for points in lines(flat) for _x, y in points)
