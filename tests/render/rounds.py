"""Real rounds for the rendering tests: fixed-seed tournaments played by
``bot.rules.report.round_report``, with the league's WP and PSZ tables
derived from them the way the league does (start 90 WP / 250 PSZ): the
league's own ``WpRow``/``PszRow``, best first, equal values sharing a place.

Player lineups are drawn so they can never be mistaken for a GM lineup
(which is published): T and A between 1 and 9 (GM teams use 0 or 10) and
every field row between 12 and 36 (so no table of small counts such as
played/won/drawn/lost can look like one either).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from bot.league.tables import PszRow, WpRow
from bot.render.model import RoundInfo
from bot.rules.gm_teams import all_gm_lineups
from bot.rules.lineup import Lineup
from bot.rules.report import RoundReport, public_report, round_report
from bot.rules.rounding import half_up
from bot.rules.tournament import Entrant

CLUBS = (
    "Rote Teufel", "Blaue Adler", "FC Wanderer Altona", "Kickers Übersee", "Grüne Jäger",
    "SV Möwe 04", "Eintracht Süd", "Borussia Nord", "Dynamo Ölberg", "Fortuna Glück",
    "TSV Straße", "Hertha Ost", "Union Äquator", "Sportfreunde Wüst", "Alemannia Köln-Süd",
    "Preußen Münster-Mitte", "Viktoria", "Arminia Zwölf", "Germania", "Concordia Ü30",
)
MANAGERS = (
    "Hans Meier", "Jürgen Öztürk", "Anna Schäfer", "Otze Steffens", "Pedel Rau",
    "Zoë Ångström", "Li Wei", "Björn Weiß", "Małgorzata Nowak", "José Núñez",
)
GM_LINEUPS = frozenset(all_gm_lineups())


def player_lineup(rng: random.Random) -> Lineup:
    """A legal player lineup that no GM team can field."""
    lineup = Lineup(
        rng.randint(1, 9), rng.randint(1, 9),
        rng.randint(12, 36), rng.randint(12, 36), rng.randint(12, 36),
    )
    assert lineup not in GM_LINEUPS
    return lineup


def team_name(index: int) -> str:
    base = CLUBS[index % len(CLUBS)]
    return base if index < len(CLUBS) else f"{base} {index // len(CLUBS) + 1}"


@dataclass(frozen=True)
class Round:
    """A played round and everything a newsletter about it needs."""

    #: The typed report (``round_report``) and the JSON forms the league stores.
    typed: RoundReport
    report: dict
    public: dict
    entrants: tuple[Entrant, ...]
    managers: dict[str, str]
    wp_table: tuple[WpRow, ...]
    psz_table: tuple[PszRow, ...]
    round_info: RoundInfo

    @property
    def public_typed(self) -> RoundReport:
        return self.typed.public()

    @property
    def player_lineups(self) -> dict[str, Lineup]:
        return {e.name: e.lineup for e in self.entrants}


def places(values: list[object]) -> list[int]:
    """1-based places of values sorted best first; equal values share one."""
    out: list[int] = []
    for index, value in enumerate(values):
        out.append(out[-1] if index and values[index - 1] == value else index + 1)
    return out


def standings(
    report: Mapping, managers: Mapping[str, str]
) -> tuple[tuple[WpRow, ...], tuple[PszRow, ...]]:
    """The league's WP and PSZ tables after a first round that ``report``
    describes: WP 90 + gain, PSZ as stored after the round."""
    shorts = {t["name"]: t["short_name"] for t in report["teams"]}
    wps = sorted(
        ((name, Decimal("90") + Decimal(gain), Decimal(gain))
         for name, gain in report["wp_gain"].items()),
        key=lambda e: -e[1],
    )
    wp_table = tuple(
        WpRow(place, name, shorts[name], managers[name], wp, gain)
        for place, (name, wp, gain) in zip(places([e[1] for e in wps]), wps, strict=True)
    )
    pszs = sorted(
        ((name, Decimal(psz["after"])) for name, psz in report["psz"].items()),
        key=lambda e: -e[1],
    )
    shown = [half_up(Fraction(psz)) for _, psz in pszs]
    psz_table = tuple(
        PszRow(place, name, shorts[name], managers[name], psz, whole)
        for place, (name, psz), whole in zip(places(list(shown)), pszs, shown, strict=True)
    )
    return wp_table, psz_table


def make_round(
    players: int, seed: int, *, simulations: int = 2000, number: int = 12,
    names: list[str] | None = None,
) -> Round:
    """Play a round with ``players`` player teams (lineups from ``seed``)."""
    rng = random.Random(seed)
    names = names or [team_name(i) for i in range(players)]
    entrants = tuple(Entrant(names[i], player_lineup(rng)) for i in range(players))
    typed = round_report(list(entrants), seed, simulations=simulations)
    report = typed.to_json()
    managers = {e.name: MANAGERS[i % len(MANAGERS)] for i, e in enumerate(entrants)}
    wp_table, psz_table = standings(report, managers)
    season, in_season = divmod(number - 1, 5)
    return Round(
        typed, report, public_report(report), entrants, managers, wp_table, psz_table,
        RoundInfo(season + 1, in_season + 1, number),
    )
