"""The complete result of a round as plain JSON data: tournament + analytics.

``build_report(entrants, seed)`` plays the tournament with
``random.Random(seed)`` (``bot.rules.tournament``), adds the exact analytics
(``bot.rules.analytics``) and the semi-final Monte Carlo
(``bot.rules.montecarlo``, ``numpy.random.default_rng(seed)``), and returns
one dict of plain ``str``/``int``/``float``/``bool``/``list``/``dict``
values, ready for ``json.dumps``. The league stores it with the round; the
newsletter renders ``public_report(report)``, the same dict without any
player lineup. Same entrants + seed + options -> the identical dict.

Number formats: exact fractions are strings ``"n/d"`` (or ``"n"`` when
whole), e.g. ``"730/3"``; WP are decimal strings (``"0.8"``); PSZ are shown
as two-decimal strings, halves up (``"243.33"``), with the exact fraction
beside them. ``approx`` values are floats for display only.

Teams are keyed by their full name everywhere; ``teams[i]["short_name"]``
is only the label for fixed-width tables (RULES.md §7).

Keys (all always present; lists/dicts are empty when there is no tournament):

- ``format``: 2 (the version of this layout). Format 1 (rounds stored
  before short names reached the report) lacked ``teams[i]["short_name"]``;
  ``upgrade_report`` reads any stored format into this one.
- ``seed``: the seed of the round's random generators.
- ``empty``: true when no player team entered (no tournament this round).
- ``points``: ``{"win", "draw", "loss"}`` table points per game.
- ``initial_psz`` (exact string), ``psz_bound`` (bool): the PSZ settings used.
- ``teams``: every participant, players first (entry order), then GM teams
  (draw order): ``{"name", "short_name", "gm", "lineup", "psz_start"}``.
  ``short_name``: the name for tables, i.e. a player team's short name
  (RULES.md §7), or its name when it has none, and a GM team's name; it is
  public. Short names need not be unique; teams are told apart by
  ``name``. ``lineup`` is ``"T-A-V-M-S"``; ``public_report`` removes it for
  player teams.
- ``first_groups``: the first group draw, a list of groups (lists of names).
- ``stages``: group stages in order, ``{"number", "groups": [...]}``; each
  group ``{"name", "teams" (draw order), "games", "table",
  "qualification_by_lot"}``; a game ``{"home", "away", "goals": [h, a]}``;
  a table row ``{"position", "team", "played", "won", "drawn", "lost",
  "goals_for", "goals_against", "goal_difference", "points", "qualified",
  "by_lot"}``. ``by_lot``: the row's place among teams level on points and
  goal difference was decided by lot; ``qualification_by_lot``: such a lot
  decided who advances.
- ``knockout``: semi-final 1, semi-final 2, third place, final:
  ``{"stage": "semi_final"|"third_place"|"final", "home", "away",
  "goals": [h, a], "winner", "loser", "by_lot"}``; ``by_lot`` marks a level
  game decided by lot (counts as a draw for WP and PSZ).
- ``semi_finalists``: the four names in semi-final order.
- ``placings``: ``[1st, 2nd, 3rd, 4th]``.
- ``gm_teams``: ``[{"name", "lineup"}]`` (GM lineups are public).
- ``record``: ``{team: {"won", "drawn", "lost"}}`` over all games, every team.
- ``wp_gain``: ``{player team: "0.8"}`` (0.2 per win, 0.1 per draw).
- ``psz``: ``{player team: {"before", "after"`` (two decimals)``,
  "before_exact", "after_exact", "games", "points" (exact)}}``.
- ``knockout_odds``: per knock-out game ``{"stage", "home", "away", "win",
  "draw", "loss"`` (exact, home side, before any lot)``, "percent": {"win",
  "draw", "loss"}`` (whole percent, each rounded half up)``}``.
- ``expectation_table``: the "Turnierfußball" (every team against every
  other, home and away), ordered by expected points, then name:
  ``{"position", "team", "games", "won", "drawn", "lost", "points",
  "goals_for", "goals_against"`` (exact strings)``, "approx": {"points",
  "goals_for", "goals_against", "won", "drawn", "lost"}`` (floats)``}``.
- ``simulations``: K, the Monte Carlo runs (0: none).
- ``semi_final_probability`` / ``semi_final_stderr``: ``{semi-finalist:
  float}`` for the four semi-finalists (RULES.md §8), in semi-final order;
  ``semi_final_probability_all`` / ``semi_final_stderr_all``: every team.
  Empty when K = 0.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

from bot.rules.analytics import expectation_table, knockout_odds
from bot.rules.errors import RulesError
from bot.rules.montecarlo import semi_final_probability
from bot.rules.psz import INITIAL_PSZ, PeriodUpdate
from bot.rules.rounding import to_cents
from bot.rules.tournament import (
    DEFAULT_POINTS,
    Entrant,
    Group,
    Points,
    TournamentResult,
    play_tournament,
)

FORMAT = 2
DEFAULT_SIMULATIONS = 100_000


def exact(x: Fraction | int) -> str:
    """An exact rational as ``"n/d"`` (``"n"`` when whole)."""
    return str(Fraction(x))


def cents(x: Fraction | int) -> str:
    """Two decimals, halves up."""
    return str(to_cents(Fraction(x)))


def _group_json(group: Group) -> dict:
    return {
        "name": group.name,
        "teams": list(group.teams),
        "games": [{"home": g.home, "away": g.away, "goals": list(g.goals)} for g in group.games],
        "table": [
            {
                "position": pos,
                "team": row.team,
                "played": row.played,
                "won": row.won,
                "drawn": row.drawn,
                "lost": row.lost,
                "goals_for": row.goals_for,
                "goals_against": row.goals_against,
                "goal_difference": row.goal_difference,
                "points": row.points,
                "qualified": row.qualified,
                "by_lot": row.by_lot,
            }
            for pos, row in enumerate(group.table, start=1)
        ],
        "qualification_by_lot": group.qualification_by_lot,
    }


def _psz_json(update: PeriodUpdate) -> dict:
    return {
        "before": cents(update.before),
        "after": cents(update.after),
        "before_exact": exact(update.before),
        "after_exact": exact(update.after),
        "games": update.games,
        "points": exact(update.points),
    }


def tournament_json(result: TournamentResult, seed: int, psz_bound: bool) -> dict:
    """The tournament part of the report (everything but the analytics)."""
    return {
        "format": FORMAT,
        "seed": seed,
        "empty": result.empty,
        "points": {"win": result.points.win, "draw": result.points.draw,
                   "loss": result.points.loss},
        "initial_psz": exact(result.initial_psz),
        "psz_bound": psz_bound,
        "teams": [
            {"name": t.name, "short_name": t.label, "gm": t.gm, "lineup": str(t.lineup),
             "psz_start": cents(t.psz)}
            for t in result.teams
        ],
        "first_groups": result.first_groups,
        "stages": [
            {"number": s.number, "groups": [_group_json(g) for g in s.groups]}
            for s in result.stages
        ],
        "knockout": [
            {
                "stage": k.stage,
                "home": k.home,
                "away": k.away,
                "goals": list(k.goals),
                "winner": k.winner,
                "loser": k.loser,
                "by_lot": k.by_lot,
            }
            for k in result.knockout
        ],
        "semi_finalists": list(result.semi_finalists),
        "placings": list(result.placings),
        "gm_teams": [{"name": t.name, "lineup": str(t.lineup)} for t in result.gm_teams],
        "record": {
            name: {"won": r.won, "drawn": r.drawn, "lost": r.lost}
            for name, r in result.record.items()
        },
        "wp_gain": {name: str(g) for name, g in result.wp_gain.items()},
        "psz": {name: _psz_json(u) for name, u in result.psz.items()},
    }


def analytics_json(result: TournamentResult) -> dict:
    """Exact knock-out odds and the expectation table."""
    odds = [
        {
            "stage": o.stage,
            "home": o.home,
            "away": o.away,
            "win": exact(o.win),
            "draw": exact(o.draw),
            "loss": exact(o.loss),
            "percent": dict(zip(("win", "draw", "loss"), o.percent, strict=True)),
        }
        for o in knockout_odds(result)
    ]
    table = [
        {
            "position": pos,
            "team": row.team,
            "games": row.games,
            "won": exact(row.won),
            "drawn": exact(row.drawn),
            "lost": exact(row.lost),
            "points": exact(row.points),
            "goals_for": exact(row.goals_for),
            "goals_against": exact(row.goals_against),
            "approx": {
                "points": float(row.points),
                "goals_for": float(row.goals_for),
                "goals_against": float(row.goals_against),
                "won": float(row.won),
                "drawn": float(row.drawn),
                "lost": float(row.lost),
            },
        }
        for pos, row in enumerate(expectation_table(result.lineups, result.points), start=1)
    ]
    return {"knockout_odds": odds, "expectation_table": table}


def simulation_json(
    result: TournamentResult,
    seed: int,
    simulations: int,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """The semi-final Monte Carlo given the actual first draw."""
    out: dict = {
        "simulations": 0,
        "semi_final_probability": {},
        "semi_final_stderr": {},
        "semi_final_probability_all": {},
        "semi_final_stderr_all": {},
    }
    if result.empty or simulations == 0:
        return out
    estimate = semi_final_probability(
        result.lineups, result.first_groups, simulations, seed,
        points=result.points, progress=progress,
    )
    probability, stderr = estimate.probability, estimate.stderr
    semis = result.semi_finalists
    out.update(
        simulations=simulations,
        semi_final_probability={n: probability[n] for n in semis},
        semi_final_stderr={n: stderr[n] for n in semis},
        semi_final_probability_all=probability,
        semi_final_stderr_all=stderr,
    )
    return out


def build_report(
    entrants: Sequence[Entrant],
    seed: int,
    *,
    points: Points = DEFAULT_POINTS,
    simulations: int = DEFAULT_SIMULATIONS,
    initial_psz: Fraction = INITIAL_PSZ,
    psz_bound: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """Play the round's tournament and return its complete report (module docstring)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed {seed!r} must be a whole number >= 0")
    if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 0:
        raise ValueError(f"number of simulations {simulations!r} must be a whole number >= 0")
    result = play_tournament(
        entrants, random.Random(seed), points=points, initial_psz=initial_psz,
        psz_bound=psz_bound,
    )
    report = tournament_json(result, seed, psz_bound)
    if result.empty:
        report.update(knockout_odds=[], expectation_table=[])
    else:
        report.update(analytics_json(result))
    report.update(simulation_json(result, seed, simulations, progress))
    return report


def public_report(report: dict) -> dict:
    """A copy of ``report`` without any player lineup (GM lineups stay)."""
    public = copy.deepcopy(report)
    for team in public.get("teams", []):
        if not team.get("gm"):
            team.pop("lineup", None)
    return public


class ReportFormatError(RulesError):
    """A stored report whose layout this version cannot read."""


def upgrade_report(report: Mapping) -> dict:
    """A copy of a stored (full or public) report in the current layout.

    Format 1 had no ``short_name`` in ``teams``; a team of such a round is
    labelled by its name, which is exactly what ``build_report`` writes for
    entrants without a short name. So replaying the stored inputs of an old
    round gives ``upgrade_report`` of its stored report, nothing else.
    """
    if not isinstance(report, Mapping):
        raise ReportFormatError(f"report {report!r} is not a mapping; expected a report dict")
    version = report.get("format")
    if isinstance(version, bool) or version not in range(1, FORMAT + 1):
        raise ReportFormatError(
            f"report format {version!r} is unknown; this version reads formats 1 to {FORMAT} "
            "(a newer bot wrote it?)"
        )
    upgraded = copy.deepcopy(dict(report))
    if version == 1:
        for i, team in enumerate(upgraded.get("teams", [])):
            if not isinstance(team, dict) or not isinstance(team.get("name"), str):
                raise ReportFormatError(
                    f"report['teams'][{i}] is {team!r}; expected a team with a 'name'"
                )
            team.setdefault("short_name", team["name"])
        upgraded["format"] = 2
    return upgraded


__all__ = [
    "DEFAULT_SIMULATIONS",
    "FORMAT",
    "ReportFormatError",
    "analytics_json",
    "build_report",
    "cents",
    "exact",
    "public_report",
    "simulation_json",
    "tournament_json",
    "upgrade_report",
]
