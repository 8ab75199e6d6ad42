"""The complete result of a round: one typed, frozen ``RoundReport``.

``round_report(entrants, seed)`` plays the tournament with
``random.Random(seed)`` (``bot.rules.tournament``), adds the exact analytics
(``bot.rules.analytics``) and the semi-final Monte Carlo
(``bot.rules.montecarlo``, ``numpy.random.default_rng(seed)``) and returns a
``RoundReport``. Its parts are the dataclasses of the tournament and the
analytics themselves (``Stage``, ``Group``, ``Game``, ``TableRow``,
``KnockoutGame``, ``Record``, ``PeriodUpdate``, ``KnockoutOdds``,
``ExpectationRow``); only a team (whose lineup the public view drops and
whose start PSZ is stored to the cent) and the Monte Carlo estimate have
types of their own. Same entrants + seed + options -> an equal report.

``RoundReport.to_json()`` is the layout the league stores (format 2, plain
``str``/``int``/``float``/``bool``/``list``/``dict`` values, ready for
``json.dumps``); ``RoundReport.from_json(data)`` reads format 1 and 2 back
(``from_json(r.to_json()) == r``); ``RoundReport.public()`` is the same
report without any player lineup, what the newsletter and the archive show.
``build_report`` (-> the JSON dict), ``public_report`` and ``upgrade_report``
are the dict forms of the same three operations.

Number formats of the JSON: exact fractions are strings ``"n/d"`` (or
``"n"`` when whole), e.g. ``"730/3"``; WP are decimal strings (``"0.8"``);
PSZ are shown as two-decimal strings, halves up (``"243.33"``), with the
exact fraction beside them. ``approx`` values are floats for display only.

Teams are keyed by their full name everywhere; ``teams[i]["short_name"]``
is only the label for fixed-width tables (RULES.md §7).

Keys (all always present; lists/dicts are empty when there is no tournament):

- ``format``: 2 (the version of this layout). Format 1 (rounds stored
  before short names reached the report) lacked ``teams[i]["short_name"]``;
  ``from_json`` labels such a team by its name.
- ``seed``: the seed of the round's random generators.
- ``empty``: true when no player team entered (no tournament this round).
- ``points``: ``{"win", "draw", "loss"}`` table points per game.
- ``initial_psz`` (exact string), ``psz_bound`` (bool): the PSZ settings used.
- ``teams``: every participant, players first (entry order), then GM teams
  (draw order): ``{"name", "short_name", "gm", "lineup", "psz_start"}``.
  ``short_name``: the name for tables, i.e. a player team's short name
  (RULES.md §7), or its name when it has none, and a GM team's name; it is
  public. Short names need not be unique; teams are told apart by
  ``name``. ``lineup`` is ``"T-A-V-M-S"``; ``public()`` removes it for
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

Everything derivable is derived, not stored twice: ``empty``,
``first_groups``, ``semi_finalists``, ``placings``, ``gm_teams``, the
``loser``, ``position`` and ``goal_difference`` of games and rows, the
two-decimal PSZ, the odds' percent, the ``approx`` floats and the
semi-finalists' part of the Monte Carlo estimate.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from bot.rules.analytics import ExpectationRow, KnockoutOdds, expectation_table, knockout_odds
from bot.rules.lineup import Lineup
from bot.rules.montecarlo import semi_final_probability
from bot.rules.psz import INITIAL_PSZ, PeriodUpdate
from bot.rules.report_parts import (
    KNOCKOUT_STAGES,
    ReportFormatError,
    cents,
    exact,
    expectation_json,
    group_json,
    odds_json,
    psz_json,
    read_decimal,
    read_expectation,
    read_flag,
    read_floats,
    read_fraction,
    read_group,
    read_int,
    read_knockout,
    read_lineup,
    read_list,
    read_map,
    read_odds,
    read_text,
)
from bot.rules.rounding import to_cents
from bot.rules.tournament import (
    DEFAULT_POINTS,
    Entrant,
    KnockoutGame,
    KnockoutStage,
    Points,
    Record,
    Stage,
    TournamentError,
    play_tournament,
)

FORMAT = 2
DEFAULT_SIMULATIONS = 100_000


# --------------------------------------------------------------------------- the types


@dataclass(frozen=True, slots=True)
class ReportTeam:
    """A participant as the report shows it.

    ``short_name`` is the label for tables (a player team's short name, else
    its name; RULES.md §7). ``psz_start`` is the PSZ it started with, to the
    cent. ``lineup`` is None for a player team in the public view.
    """

    name: str
    short_name: str
    gm: bool
    psz_start: Decimal
    lineup: Lineup | None


@dataclass(frozen=True, slots=True)
class SemiFinalEstimate:
    """The Monte Carlo estimate of reaching the semi-finals (RULES.md §8):
    probability and standard error for every team; K = ``simulations``
    (0: not simulated, both mappings empty)."""

    simulations: int = 0
    probability: Mapping[str, float] = field(default_factory=dict)
    stderr: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RoundReport:
    """Everything that happened in one round's tournament, with its analytics
    (the module docstring lists the parts and their JSON layout)."""

    seed: int
    points: Points
    initial_psz: Fraction
    psz_bound: bool
    teams: tuple[ReportTeam, ...] = ()
    stages: tuple[Stage, ...] = ()
    knockout: tuple[KnockoutGame, ...] = ()
    #: Wins, draws and losses over all games, every team.
    record: Mapping[str, Record] = field(default_factory=dict)
    #: This round's WP gain of every player team.
    wp_gain: Mapping[str, Decimal] = field(default_factory=dict)
    #: The PSZ of every player team over the round.
    psz: Mapping[str, PeriodUpdate] = field(default_factory=dict)
    #: Exact odds of each knock-out game, in the order of ``knockout``.
    knockout_odds: tuple[KnockoutOdds, ...] = ()
    #: The "Turnierfußball", ordered by expected points, then name.
    expectation: tuple[ExpectationRow, ...] = ()
    semi_final: SemiFinalEstimate = SemiFinalEstimate()

    # ----------------------------------------------------------- derived parts

    @property
    def empty(self) -> bool:
        """True when no player team entered: there was no tournament."""
        return not self.teams

    @property
    def first_groups(self) -> list[list[str]]:
        """The first group draw: the names of each group in draw order."""
        return [list(g.teams) for g in self.stages[0].groups] if self.stages else []

    @property
    def gm_teams(self) -> tuple[ReportTeam, ...]:
        return tuple(t for t in self.teams if t.gm)

    @property
    def players(self) -> tuple[ReportTeam, ...]:
        return tuple(t for t in self.teams if not t.gm)

    def knockout_game(self, stage: KnockoutStage) -> tuple[KnockoutGame, ...]:
        """The knock-out games of ``stage`` in playing order."""
        return tuple(g for g in self.knockout if g.stage == stage)

    @property
    def semi_finalists(self) -> tuple[str, ...]:
        return tuple(n for g in self.knockout_game("semi_final") for n in (g.home, g.away))

    @property
    def placings(self) -> tuple[str, ...]:
        """1st, 2nd, 3rd, 4th (empty without a final and a third-place game)."""
        final, third = self.knockout_game("final"), self.knockout_game("third_place")
        if not final or not third:
            return ()
        return final[0].winner, final[0].loser, third[0].winner, third[0].loser

    @property
    def winner(self) -> str | None:
        """The champion (None without a final)."""
        return self.placings[0] if self.placings else None

    def stage_reached(self, name: str) -> tuple[int | None, str, int]:
        """(place 1..4 or None, the stage reached, the last group stage played)
        of team ``name``: the stage is ``final`` (1st, 2nd), ``third_place``
        (3rd, 4th), ``semi_final``, ``group``, or ``none`` (it did not play)."""
        last = max((s.number for s in self.stages for g in s.groups if name in g.teams),
                   default=0)
        placings = self.placings
        if name in placings:
            place = placings.index(name) + 1
            return place, ("final" if place <= 2 else "third_place"), last
        if name in self.semi_finalists:
            return None, "semi_final", last
        return None, ("group" if last else "none"), last

    def team(self, name: str) -> ReportTeam:
        for t in self.teams:
            if t.name == name:
                return t
        raise KeyError(f"no team {name!r} in this report")

    def odds_of(self, game: KnockoutGame) -> KnockoutOdds | None:
        """The exact odds of a knock-out game from its home team's side
        (None when the report has none for it)."""
        for odds in self.knockout_odds:
            if (odds.home, odds.away) == (game.home, game.away):
                return odds
            if (odds.home, odds.away) == (game.away, game.home):
                return dataclasses.replace(
                    odds, home=game.home, away=game.away, win=odds.loss, loss=odds.win
                )
        return None

    # ----------------------------------------------------------- views

    def public(self) -> RoundReport:
        """The report without any player lineup (GM lineups are public)."""
        teams = tuple(t if t.gm else dataclasses.replace(t, lineup=None) for t in self.teams)
        return dataclasses.replace(self, teams=teams)

    @property
    def is_public(self) -> bool:
        """True when no player team's lineup is in the report."""
        return all(t.gm or t.lineup is None for t in self.teams)

    # ----------------------------------------------------------- JSON

    def to_json(self) -> dict[str, Any]:
        """The stored layout (format 2; the module docstring)."""
        semis = self.semi_finalists
        probability = dict(self.semi_final.probability)
        stderr = dict(self.semi_final.stderr)
        simulated = bool(self.semi_final.simulations)
        return {
            "format": FORMAT,
            "seed": self.seed,
            "empty": self.empty,
            "points": {"win": self.points.win, "draw": self.points.draw,
                       "loss": self.points.loss},
            "initial_psz": exact(self.initial_psz),
            "psz_bound": self.psz_bound,
            "teams": [_team_json(t) for t in self.teams],
            "first_groups": self.first_groups,
            "stages": [
                {"number": s.number, "groups": [group_json(g) for g in s.groups]}
                for s in self.stages
            ],
            "knockout": [
                {"stage": k.stage, "home": k.home, "away": k.away, "goals": list(k.goals),
                 "winner": k.winner, "loser": k.loser, "by_lot": k.by_lot}
                for k in self.knockout
            ],
            "semi_finalists": list(semis),
            "placings": list(self.placings),
            "gm_teams": [{"name": t.name, "lineup": str(t.lineup)} for t in self.gm_teams],
            "record": {
                name: {"won": r.won, "drawn": r.drawn, "lost": r.lost}
                for name, r in self.record.items()
            },
            "wp_gain": {name: str(g) for name, g in self.wp_gain.items()},
            "psz": {name: psz_json(u) for name, u in self.psz.items()},
            "knockout_odds": [odds_json(o) for o in self.knockout_odds],
            "expectation_table": [
                expectation_json(pos, row) for pos, row in enumerate(self.expectation, 1)
            ],
            "simulations": self.semi_final.simulations,
            "semi_final_probability": (
                {n: probability[n] for n in semis} if simulated else {}
            ),
            "semi_final_stderr": {n: stderr[n] for n in semis} if simulated else {},
            "semi_final_probability_all": probability,
            "semi_final_stderr_all": stderr,
        }

    @classmethod
    def from_json(cls, data: object) -> RoundReport:
        """Read a stored (full or public) report of format 1 or 2
        (``upgrade_report`` first). A value of the wrong shape raises
        ``ReportFormatError`` naming its path. Derived keys (the module
        docstring) are not read but derived again."""
        upgraded = upgrade_report(data)
        return _read_report(upgraded)


# --------------------------------------------------------------------------- writing


def _team_json(team: ReportTeam) -> dict[str, Any]:
    out: dict[str, Any] = {"name": team.name, "short_name": team.short_name, "gm": team.gm}
    if team.lineup is not None:
        out["lineup"] = str(team.lineup)
    out["psz_start"] = str(team.psz_start)
    return out


# --------------------------------------------------------------------------- reading


def _read_team(node: object, where: str) -> ReportTeam:
    return ReportTeam(
        read_text(node, "name", where),
        read_text(node, "short_name", where, "the team's short name"),
        read_flag(node, "gm", where),
        read_decimal(node, "psz_start", where),
        read_lineup(node, where),
    )


def _read_report(data: Mapping[str, Any]) -> RoundReport:
    points = read_map(data, "points", "", "the points per win, draw and loss")
    try:
        table_points = Points(*(read_int(points, k, "['points']") for k in ("win", "draw", "loss")))
    except TournamentError as exc:
        raise ReportFormatError("['points']", dict(points), str(exc)) from None
    stages = []
    for s, stage in enumerate(read_list(data, "stages", "", "a list of group stages")):
        where = f"['stages'][{s}]"
        groups = read_list(stage, "groups", where, "a list of groups")
        stages.append(Stage(
            read_int(stage, "number", where),
            tuple(read_group(g, f"{where}['groups'][{i}]") for i, g in enumerate(groups)),
        ))
    record = {
        str(name): Record(
            *(read_int(r, k, f"['record'][{name!r}]") for k in ("won", "drawn", "lost"))
        )
        for name, r in read_map(data, "record", "", "a mapping of team records").items()
    }
    wp_gain = {
        str(name): read_decimal(gains, name, "['wp_gain']")
        for gains in [read_map(data, "wp_gain", "", "a mapping of WP gains")]
        for name in gains
    }
    psz = {}
    for name, u in read_map(data, "psz", "", "a mapping of PSZ updates").items():
        where = f"['psz'][{name!r}]"
        psz[str(name)] = PeriodUpdate(
            read_fraction(u, "before_exact", where), read_int(u, "games", where),
            read_fraction(u, "points", where), read_fraction(u, "after_exact", where),
        )
    seed = read_int(data, "seed", "")
    simulations = read_int(data, "simulations", "")
    return RoundReport(
        seed=seed,
        points=table_points,
        initial_psz=read_fraction(data, "initial_psz", ""),
        psz_bound=read_flag(data, "psz_bound", ""),
        teams=tuple(
            _read_team(t, f"['teams'][{i}]")
            for i, t in enumerate(read_list(data, "teams", "", "a list of teams"))
        ),
        stages=tuple(stages),
        knockout=tuple(
            read_knockout(k, f"['knockout'][{i}]")
            for i, k in enumerate(read_list(data, "knockout", "", "the knock-out games"))
        ),
        record=record,
        wp_gain=wp_gain,
        psz=psz,
        knockout_odds=tuple(
            read_odds(o, f"['knockout_odds'][{i}]")
            for i, o in enumerate(read_list(data, "knockout_odds", "", "the knock-out odds"))
        ),
        expectation=tuple(
            read_expectation(e, f"['expectation_table'][{i}]")
            for i, e in enumerate(read_list(data, "expectation_table", "", "the expectation table"))
        ),
        semi_final=SemiFinalEstimate(
            simulations,
            read_floats(data, "semi_final_probability_all"),
            read_floats(data, "semi_final_stderr_all"),
        ),
    )


# --------------------------------------------------------------------------- building


def round_report(
    entrants: Sequence[Entrant],
    seed: int,
    *,
    points: Points = DEFAULT_POINTS,
    simulations: int = DEFAULT_SIMULATIONS,
    initial_psz: Fraction = INITIAL_PSZ,
    psz_bound: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> RoundReport:
    """Play the round's tournament and return its complete report (module docstring)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed {seed!r} must be a whole number >= 0")
    if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 0:
        raise ValueError(f"number of simulations {simulations!r} must be a whole number >= 0")
    result = play_tournament(
        entrants, random.Random(seed), points=points, initial_psz=initial_psz,
        psz_bound=psz_bound,
    )
    teams = tuple(
        ReportTeam(t.name, t.label, t.gm, to_cents(t.psz), t.lineup) for t in result.teams
    )
    report = RoundReport(
        seed, result.points, result.initial_psz, psz_bound, teams, result.stages,
        result.knockout, dict(result.record), dict(result.wp_gain), dict(result.psz),
    )
    if result.empty:
        return report
    estimate = SemiFinalEstimate()
    if simulations:
        found = semi_final_probability(
            result.lineups, result.first_groups, simulations, seed,
            points=result.points, progress=progress,
        )
        estimate = SemiFinalEstimate(simulations, dict(found.probability), dict(found.stderr))
    return dataclasses.replace(
        report,
        knockout_odds=tuple(knockout_odds(result)),
        expectation=tuple(expectation_table(result.lineups, result.points)),
        semi_final=estimate,
    )


def build_report(
    entrants: Sequence[Entrant],
    seed: int,
    *,
    points: Points = DEFAULT_POINTS,
    simulations: int = DEFAULT_SIMULATIONS,
    initial_psz: Fraction = INITIAL_PSZ,
    psz_bound: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """``round_report(...).to_json()``: the report as the league stores it."""
    return round_report(
        entrants, seed, points=points, simulations=simulations, initial_psz=initial_psz,
        psz_bound=psz_bound, progress=progress,
    ).to_json()


def public_report(report: Mapping[str, Any]) -> dict[str, Any]:
    """``RoundReport.from_json(report).public().to_json()``: the stored
    report without any player lineup (GM lineups stay)."""
    return RoundReport.from_json(report).public().to_json()


def upgrade_report(report: object) -> dict[str, Any]:
    """A copy of a stored (full or public) report in the current layout,
    every stored value kept as it is (so ``replay`` compares what was stored).

    Format 1 had no ``short_name`` in ``teams``; a team of such a round is
    labelled by its name, which is exactly what ``round_report`` writes for
    entrants without a short name. So replaying the stored inputs of an old
    round gives ``upgrade_report`` of its stored report, nothing else.
    """
    if not isinstance(report, Mapping):
        raise ReportFormatError(
            "", report, "a report dict",
            f"report {report!r} is not a mapping; expected a report dict",
        )
    version = report.get("format")
    if isinstance(version, bool) or version not in range(1, FORMAT + 1):
        raise ReportFormatError(
            "['format']", version, f"a format from 1 to {FORMAT}",
            f"report format {version!r} is unknown; this version reads formats 1 to "
            f"{FORMAT} (a newer bot wrote it?)",
        )
    upgraded = copy.deepcopy(dict(report))
    if version == 1:
        for i, team in enumerate(upgraded.get("teams", [])):
            if not isinstance(team, dict) or not isinstance(team.get("name"), str):
                raise ReportFormatError(
                    f"['teams'][{i}]", team, "a team with a 'name'",
                    f"report['teams'][{i}] is {team!r}; expected a team with a 'name'",
                )
            team.setdefault("short_name", team["name"])
        upgraded["format"] = 2
    return upgraded


__all__ = [
    "DEFAULT_SIMULATIONS",
    "FORMAT",
    "KNOCKOUT_STAGES",
    "ReportFormatError",
    "ReportTeam",
    "RoundReport",
    "SemiFinalEstimate",
    "build_report",
    "cents",
    "exact",
    "public_report",
    "round_report",
    "upgrade_report",
]
