"""The archive's SVG line charts: well-formed, scaled to the data, escaped."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from bot.render.svg_chart import Point, line_chart

NS = "{http://www.w3.org/2000/svg}"


def _svg(points: list[Point], title: str = "WP") -> ET.Element:
    return ET.fromstring(line_chart(points, title=title))


def test_a_series_is_one_polyline_through_every_point() -> None:
    points = [Point(str(n), Decimal(v)) for n, v in enumerate(["90", "90.6", "91.2", "92.32"], 1)]
    svg = _svg(points)
    line = svg.find(f"{NS}polyline")
    assert line is not None
    coords = [tuple(map(float, xy.split(","))) for xy in line.get("points", "").split()]
    assert len(coords) == 4
    xs = [x for x, _ in coords]
    ys = [y for _, y in coords]
    assert xs == sorted(xs)                  # rounds left to right
    assert ys == sorted(ys, reverse=True)    # rising WP goes up the screen
    assert len(svg.findall(f"{NS}circle")) == 4


def test_tick_labels_cover_the_values() -> None:
    svg = _svg([Point("1", 250), Point("2", 263), Point("3", 241)])
    ticks = [float(t.text or "") for t in svg.findall(f"{NS}text")
             if t.get("text-anchor") == "end"]
    assert min(ticks) <= 241 and max(ticks) >= 263


def test_text_is_escaped_and_the_chart_is_self_contained() -> None:
    raw = line_chart([Point("<1>", 1), Point("2&", 2)], title='PSZ "Rote <Teufel>"')
    svg = ET.fromstring(raw)  # would fail on unescaped markup
    assert svg.find(f"{NS}title").text == 'PSZ "Rote <Teufel>"'
    assert "http" not in raw.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "<script" not in raw


def test_empty_and_single_point_series() -> None:
    assert _svg([]).find(f"{NS}polyline") is None
    one = _svg([Point("7", Decimal("90"))])
    assert one.find(f"{NS}polyline") is None
    assert len(one.findall(f"{NS}circle")) == 1


@given(st.lists(st.integers(-1000, 1000), min_size=1, max_size=60))
def test_every_point_lies_inside_the_plot(values: list[int]) -> None:
    svg = _svg([Point(str(i), v) for i, v in enumerate(values)])
    for dot in svg.findall(f"{NS}circle"):
        assert 0 <= float(dot.get("cx", "-1")) <= 640
        assert 0 <= float(dot.get("cy", "-1")) <= 240
