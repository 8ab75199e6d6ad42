"""Small, dependency-free SVG line charts for the archive's team pages.

One job: turn a short series of (label, value) points into a self-contained
``<svg>`` element (no scripts, no external fonts or style sheets) that scales
to the width of a phone or a desktop page (``viewBox`` + ``width="100%"``).

Why our own and not a plotting library: the archive needs one chart type with
at most a few hundred points; pygal or matplotlib would add a dependency (and
for matplotlib some 40 MB) for about a hundred lines of code. The numbers are
exact on input (``Decimal``/``Fraction``/``int``) and only turned into screen
coordinates here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from html import escape

Number = int | Decimal | Fraction


@dataclass(frozen=True, slots=True)
class Point:
    """One point of a series: the x-axis label (e.g. the round number) and the value."""

    label: str
    value: Number


@dataclass(frozen=True, slots=True)
class ChartStyle:
    width: int = 640
    height: int = 240
    margin_left: int = 48
    margin_right: int = 12
    margin_top: int = 28
    margin_bottom: int = 32
    ticks: int = 4
    stroke: str = "#1f6f43"


def _nice_step(span: Fraction, ticks: int) -> Fraction:
    """A round step (1, 2 or 5 times a power of ten) giving about ``ticks`` intervals."""
    raw = span / ticks if span > 0 else Fraction(1)
    power = Fraction(1)
    while power * 10 <= raw:
        power *= 10
    while power > raw:
        power /= 10
    for factor in (1, 2, 5, 10):
        if power * factor >= raw:
            return power * factor
    return power * 10  # pragma: no cover - the loop above always returns


def _fmt(value: Fraction) -> str:
    """A tick label: a whole number, else up to two decimals."""
    if value.denominator == 1:
        return str(value.numerator)
    cents = math.floor(abs(value) * 100 + Fraction(1, 2))
    sign = "-" if value < 0 else ""
    text = f"{cents // 100}.{cents % 100:02d}".rstrip("0").rstrip(".")
    return sign + text


def _coord(value: Fraction) -> str:
    """A screen coordinate with one decimal (halves up, no float rounding surprises)."""
    tenths = math.floor(value * 10 + Fraction(1, 2))
    sign, tenths = ("-", -tenths) if tenths < 0 else ("", tenths)
    return f"{sign}{tenths // 10}.{tenths % 10}"


def line_chart(
    points: Sequence[Point],
    *,
    title: str,
    style: ChartStyle = ChartStyle(),
    highlight_last: bool = True,
) -> str:
    """An accessible SVG line chart of ``points`` titled ``title``.

    An empty series gives a chart frame with its title and no line; a single
    point is drawn as a dot. All text is XML-escaped.
    """
    s = style
    plot_w = Fraction(s.width - s.margin_left - s.margin_right)
    plot_h = Fraction(s.height - s.margin_top - s.margin_bottom)
    values = [Fraction(p.value) for p in points]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {s.width} {s.height}" '
        f'width="100%" role="img" aria-label="{escape(title)}" class="chart">',
        f"<title>{escape(title)}</title>",
        f'<text x="{s.margin_left}" y="18" font-size="14" font-weight="bold">'
        f"{escape(title)}</text>",
    ]
    if values:
        low, high = min(values), max(values)
        step = _nice_step(high - low, s.ticks)
        bottom = math.floor(low / step) * step
        top = max(math.ceil(high / step) * step, bottom + step)
        span = top - bottom

        def y_of(v: Fraction) -> Fraction:
            return s.margin_top + plot_h - (v - bottom) / span * plot_h

        def x_of(i: int) -> Fraction:
            if len(values) == 1:
                return s.margin_left + plot_w / 2
            return s.margin_left + plot_w * i / (len(values) - 1)

        tick = bottom
        while tick <= top:
            tick_y = _coord(y_of(tick))
            parts.append(
                f'<line x1="{s.margin_left}" x2="{s.width - s.margin_right}" '
                f'y1="{tick_y}" y2="{tick_y}" '
                'stroke="#ddd" stroke-width="1"/>'
            )
            parts.append(
                f'<text x="{s.margin_left - 6}" y="{tick_y}" font-size="11" text-anchor="end" '
                f'dominant-baseline="middle">{_fmt(tick)}</text>'
            )
            tick += step
        label_every = max(1, (len(points) + 9) // 10)
        for i, point in enumerate(points):
            if i % label_every == 0 or i == len(points) - 1:
                parts.append(
                    f'<text x="{_coord(x_of(i))}" y="{s.height - 10}" font-size="11" '
                    f'text-anchor="middle">{escape(point.label)}</text>'
                )
        coords = [(x_of(i), y_of(v)) for i, v in enumerate(values)]
        if len(coords) > 1:
            path = " ".join(f"{_coord(x)},{_coord(y)}" for x, y in coords)
            parts.append(
                f'<polyline fill="none" stroke="{s.stroke}" stroke-width="2" points="{path}"/>'
            )
        for i, (x, y) in enumerate(coords):
            last = highlight_last and i == len(coords) - 1
            parts.append(
                f'<circle cx="{_coord(x)}" cy="{_coord(y)}" r="{4 if last else 2.5}" '
                f'fill="{s.stroke}"><title>{escape(points[i].label)}: '
                f"{escape(_fmt(values[i]))}</title></circle>"
            )
    else:
        parts.append(
            f'<text x="{s.width // 2}" y="{s.height // 2}" font-size="12" '
            'text-anchor="middle">–</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


__all__ = ["ChartStyle", "Point", "line_chart"]
