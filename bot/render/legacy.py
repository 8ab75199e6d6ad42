"""Transitional: the render-side WP and PSZ rows ``bot/app.py`` still builds.

The newsletter takes the league's ``bot.league.tables.WpRow``/``PszRow``
(places and the shown PSZ computed there, once). Until the use-case layer
passes those rows straight through (issue 10), ``render_newsletter`` also
accepts these two old shapes and turns them into league rows here, ranked
the way the league ranks (WP best first, equal WP share a place; PSZ by
the whole number shown). Delete this module with the last caller.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from bot.league.tables import PszRow, WpRow
from bot.rules.rounding import half_up


@dataclass(frozen=True, slots=True)
class LegacyWpRow:
    """The old render-side line of the WP table (no place, no short name)."""

    team: str
    manager: str
    wp: Decimal
    gain: Decimal


@dataclass(frozen=True, slots=True)
class LegacyPszRow:
    """The old render-side line of the PSZ table (no place, not rounded)."""

    team: str
    manager: str
    psz: Decimal


def _places(values: list[object]) -> list[int]:
    places: list[int] = []
    for index, value in enumerate(values):
        places.append(places[-1] if index and values[index - 1] == value else index + 1)
    return places


def wp_rows(rows: Iterable[WpRow | LegacyWpRow]) -> tuple[WpRow, ...]:
    """League rows as they are; old rows ordered and placed as the league does."""
    rows = tuple(rows)
    if all(isinstance(r, WpRow) for r in rows):
        return rows  # type: ignore[return-value]
    ordered = sorted(rows, key=lambda r: -Decimal(r.wp))
    return tuple(
        WpRow(place, r.team, r.team, r.manager, r.wp, r.gain)
        for place, r in zip(_places([Decimal(r.wp) for r in ordered]), ordered, strict=True)
    )


def psz_rows(rows: Iterable[PszRow | LegacyPszRow]) -> tuple[PszRow, ...]:
    """League rows as they are; old rows ordered and placed as the league does."""
    rows = tuple(rows)
    if all(isinstance(r, PszRow) for r in rows):
        return rows  # type: ignore[return-value]
    ordered = sorted(rows, key=lambda r: -Decimal(r.psz))
    shown = [half_up(Fraction(r.psz)) for r in ordered]
    return tuple(
        PszRow(place, r.team, r.team, r.manager, r.psz, whole)
        for place, r, whole in zip(_places(list(shown)), ordered, shown, strict=True)
    )
