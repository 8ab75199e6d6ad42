"""The standings of RULES.md §8 as of the end of a round: the WP table and the PSZ table.

A team is listed after round R when it played in one of the last
``listed_rounds`` rounds (R-2..R by default) and was not deleted at or
before R. Teams absent longer keep their WP but are not listed. Values are
historical: the WP and PSZ a team had right after round R was evaluated
(gains and, at a season's end, ageing), read from ``wp_history`` and
``round_entries``, so a table of an old round can be rebuilt at any time.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from bot.rules.rounding import half_up, to_cents
from bot.storage import standings
from bot.storage.erasure import is_erased_address


@dataclass(frozen=True, slots=True)
class WpRow:
    place: int
    team: str
    short_name: str
    manager: str
    #: WP after the round (two decimals).
    wp: Decimal
    #: This round's gain, None when the team did not play this round.
    gain: Decimal | None


@dataclass(frozen=True, slots=True)
class PszRow:
    place: int
    team: str
    short_name: str
    manager: str
    #: PSZ after the round, as stored (two decimals).
    psz: Decimal
    #: Rounded to a whole number (halves up) for display.
    shown: int


@dataclass(frozen=True, slots=True)
class _Listed:
    team_id: int
    name: str
    short_name: str
    manager: str
    name_key: str


def manager_label(display_name: str | None, address: str) -> str:
    """How a manager appears in public tables: the display name, else the
    address's local part (never the full address); "—" for a manager whose
    data was erased (RULES.md §12)."""
    if is_erased_address(address):
        return "—"
    return display_name or address.partition("@")[0]


def listed_teams(conn: sqlite3.Connection, round_number: int, listed_rounds: int) -> list[_Listed]:
    rows = standings.listed_teams(conn, round_number, round_number - listed_rounds + 1)
    return [
        _Listed(r.team_id, r.name, r.short_name, manager_label(r.display_name, r.address),
                r.name_key)
        for r in rows
    ]


def _places(values: list[object]) -> list[int]:
    """1-based places; equal values share a place (1, 2, 2, 4)."""
    places: list[int] = []
    for index, value in enumerate(values):
        places.append(places[-1] if index and values[index - 1] == value else index + 1)
    return places


def wp_table(conn: sqlite3.Connection, round_number: int, listed_rounds: int = 3) -> list[WpRow]:
    """The WP table after ``round_number``: WP descending, then this round's
    gain, then name."""
    entries = []
    for team in listed_teams(conn, round_number, listed_rounds):
        wp = standings.wp_after(conn, team.team_id, round_number)
        gain = standings.wp_gain(conn, team.team_id, round_number)
        assert wp is not None, f"listed team {team.name!r} has no WP history"
        entries.append((team, to_cents(wp), gain))
    entries.sort(key=lambda e: (-e[1], -(e[2] or 0), e[0].name_key))
    places = _places([e[1] for e in entries])
    return [
        WpRow(place, team.name, team.short_name, team.manager, wp, gain)
        for place, (team, wp, gain) in zip(places, entries, strict=True)
    ]


def psz_table(conn: sqlite3.Connection, round_number: int, listed_rounds: int = 3) -> list[PszRow]:
    """The PSZ of every listed team after ``round_number``, descending."""
    entries = []
    for team in listed_teams(conn, round_number, listed_rounds):
        psz = standings.psz_after(conn, team.team_id, round_number)
        assert psz is not None, f"listed team {team.name!r} has no PSZ history"
        entries.append((team, to_cents(psz)))
    entries.sort(key=lambda e: (-e[1], e[0].name_key))
    places = _places([half_up(Fraction(e[1])) for e in entries])
    return [
        PszRow(place, team.name, team.short_name, team.manager, psz, half_up(Fraction(psz)))
        for place, (team, psz) in zip(places, entries, strict=True)
    ]
