"""The newsletter's view model: the public report read into typed, ordered,
language-neutral values the templates only have to lay out.

Reading the report here (not in the templates) means a report of the wrong
shape fails with an ``InvalidReportError`` naming the key, and the German
and English templates cannot disagree about what is shown.

Team names: every value keeps the team's full name (the HTML shows it).
The plain text's fixed-width tables show ``Newsletter.label(name)`` instead,
the team's short name (RULES.md §7, the report's ``teams[i]["short_name"]``),
made unique within the round; ``Newsletter.legend`` says which label stands
for which team wherever the two differ. A report stored before short names
existed (format 1) has none, so its labels are the full names.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from bot.render.errors import InvalidReportError
from bot.render.formatting import to_fraction
from bot.render.model import PszRow, WpRow
from bot.render.public import ensure_public, gm_names
from bot.render.textwidth import clean
from bot.rules.lineup import Lineup
from bot.rules.rounding import half_up

KNOCKOUT_STAGES = ("semi_final", "third_place", "final")


@dataclass(frozen=True, slots=True)
class Game:
    home: str
    away: str
    home_goals: int
    away_goals: int

    @property
    def score(self) -> str:
        return f"{self.home_goals}:{self.away_goals}"


@dataclass(frozen=True, slots=True)
class TableRow:
    position: int
    team: str
    gm: bool
    played: int
    won: int
    drawn: int
    lost: int
    goals_for: int
    goals_against: int
    points: int
    qualified: bool
    by_lot: bool

    @property
    def difference(self) -> int:
        return self.goals_for - self.goals_against


@dataclass(frozen=True, slots=True)
class Group:
    name: str
    games: tuple[Game, ...]
    table: tuple[TableRow, ...]


@dataclass(frozen=True, slots=True)
class Stage:
    number: int
    groups: tuple[Group, ...]


@dataclass(frozen=True, slots=True)
class Odds:
    """Exact win/draw/loss probabilities of a knock-out game, home's side."""

    win: Fraction
    draw: Fraction
    loss: Fraction


@dataclass(frozen=True, slots=True)
class KnockoutGame:
    stage: str
    home: str
    away: str
    home_goals: int
    away_goals: int
    winner: str
    by_lot: bool
    odds: Odds | None

    @property
    def score(self) -> str:
        return f"{self.home_goals}:{self.away_goals}"

    @property
    def loser(self) -> str:
        return self.away if self.winner == self.home else self.home


@dataclass(frozen=True, slots=True)
class Bracket:
    semi_finals: tuple[KnockoutGame, ...]
    third_place: KnockoutGame | None
    final: KnockoutGame | None

    @property
    def games(self) -> tuple[KnockoutGame, ...]:
        """Every knock-out game in playing order."""
        rest = tuple(g for g in (self.third_place, self.final) if g is not None)
        return self.semi_finals + rest


@dataclass(frozen=True, slots=True)
class GmTeam:
    name: str
    lineup: Lineup


@dataclass(frozen=True, slots=True)
class SemiFinalChance:
    team: str
    gm: bool
    probability: Fraction
    stderr: Fraction | None


@dataclass(frozen=True, slots=True)
class Expectation:
    position: int
    team: str
    gm: bool
    points: Fraction
    goals_for: Fraction
    goals_against: Fraction

    @property
    def difference(self) -> Fraction:
        return self.goals_for - self.goals_against


@dataclass(frozen=True, slots=True)
class Ranked:
    """A WP or PSZ table line with its rank (equal values share a rank)."""

    position: int
    row: WpRow | PszRow


@dataclass(frozen=True, slots=True)
class LegendEntry:
    """A label of the plain-text tables and the team it stands for."""

    label: str
    team: str
    gm: bool


@dataclass(frozen=True, slots=True)
class Newsletter:
    empty: bool
    points: tuple[int, int, int]
    teams: int
    player_teams: int
    placings: tuple[str, ...]
    bracket: Bracket
    stages: tuple[Stage, ...]
    gm_teams: tuple[GmTeam, ...]
    chances: tuple[SemiFinalChance, ...]
    simulations: int
    expectation: tuple[Expectation, ...]
    wp_table: tuple[Ranked, ...]
    psz_table: tuple[Ranked, ...]
    gm: frozenset[str]
    #: Full name -> the label the plain-text tables show (see the module docstring).
    labels: Mapping[str, str] = field(default_factory=dict)
    #: Every label that is not the team's full name, ordered by label.
    legend: tuple[LegendEntry, ...] = ()

    def label(self, team: str) -> str:
        """How ``team`` appears in a fixed-width table: its unique short label."""
        return self.labels.get(team, team)


def _get(node: Mapping, key: str, where: str, expected: str) -> object:
    if not isinstance(node, Mapping):
        raise InvalidReportError(where, node, f"a mapping with the key {key!r}")
    if key not in node:
        raise InvalidReportError(f"{where}[{key!r}]", None, expected)
    return node[key]


def _int(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidReportError(where, value, "a whole number")
    return value


def _flag(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidReportError(where, value, "true or false")
    return value


def _number(value: object, where: str) -> Fraction:
    try:
        return to_fraction(value)
    except (TypeError, ValueError):
        raise InvalidReportError(where, value, "a number or an exact 'n/d' string") from None


def _goals(node: Mapping, where: str) -> tuple[int, int]:
    goals = _get(node, "goals", where, "[home goals, away goals]")
    if not isinstance(goals, list | tuple) or len(goals) != 2:
        raise InvalidReportError(f"{where}['goals']", goals, "[home goals, away goals]")
    return _int(goals[0], f"{where}['goals'][0]"), _int(goals[1], f"{where}['goals'][1]")


def _lineup(value: object, where: str) -> Lineup:
    if isinstance(value, Lineup):
        return value
    if isinstance(value, str):
        return Lineup.parse(value)
    if isinstance(value, list | tuple):
        return Lineup.from_values([_int(v, where) for v in value])
    if isinstance(value, Mapping):
        return Lineup(*(_int(value[k], where) for k in ("t", "a", "v", "m", "s")))
    raise InvalidReportError(where, value, "a lineup such as '10-0-16-15-39'")


def _ranked(values: Sequence[object]) -> list[int]:
    """Competition ranks (1, 2, 2, 4) of values already sorted best first."""
    ranks: list[int] = []
    for index, value in enumerate(values):
        if index and value == values[index - 1]:
            ranks.append(ranks[-1])
        else:
            ranks.append(index + 1)
    return ranks


def _stages(report: Mapping, gm: frozenset[str]) -> tuple[Stage, ...]:
    stages = report.get("stages", [])
    if not isinstance(stages, list):
        raise InvalidReportError("['stages']", stages, "a list of stages")
    result = []
    for s, stage in enumerate(stages):
        where = f"['stages'][{s}]"
        groups = []
        for g, group in enumerate(_get(stage, "groups", where, "a list of groups")):
            gw = f"{where}['groups'][{g}]"
            games = tuple(
                Game(
                    str(_get(game, "home", f"{gw}['games'][{i}]", "a team name")),
                    str(_get(game, "away", f"{gw}['games'][{i}]", "a team name")),
                    *_goals(game, f"{gw}['games'][{i}]"),
                )
                for i, game in enumerate(_get(group, "games", gw, "a list of games"))
            )
            rows = []
            for r, row in enumerate(_get(group, "table", gw, "the group table")):
                rw = f"{gw}['table'][{r}]"
                team = str(_get(row, "team", rw, "a team name"))
                counts = [
                    _int(_get(row, k, rw, "a whole number"), f"{rw}[{k!r}]")
                    for k in (
                        "played", "won", "drawn", "lost", "goals_for", "goals_against", "points",
                    )
                ]
                rows.append(
                    TableRow(
                        r + 1, team, team in gm, *counts,
                        qualified=_flag(row.get("qualified", False), f"{rw}['qualified']"),
                        by_lot=_flag(row.get("by_lot", False), f"{rw}['by_lot']"),
                    )
                )
            groups.append(Group(str(_get(group, "name", gw, "a group name")), games, tuple(rows)))
        result.append(Stage(s + 1, tuple(groups)))
    return tuple(result)


def _odds_for(report: Mapping, home: str, away: str) -> Odds | None:
    for i, entry in enumerate(report.get("knockout_odds") or []):
        where = f"['knockout_odds'][{i}]"
        values = [
            _number(_get(entry, k, where, "an exact probability"), f"{where}[{k!r}]")
            for k in ("win", "draw", "loss")
        ]
        if (entry.get("home"), entry.get("away")) == (home, away):
            return Odds(*values)
        if (entry.get("home"), entry.get("away")) == (away, home):
            return Odds(values[2], values[1], values[0])
    return None


def _bracket(report: Mapping) -> Bracket:
    games: dict[str, list[KnockoutGame]] = {stage: [] for stage in KNOCKOUT_STAGES}
    for i, entry in enumerate(report.get("knockout") or []):
        where = f"['knockout'][{i}]"
        stage = _get(entry, "stage", where, f"one of {KNOCKOUT_STAGES}")
        if stage not in games:
            raise InvalidReportError(f"{where}['stage']", stage, f"one of {KNOCKOUT_STAGES}")
        home = str(_get(entry, "home", where, "a team name"))
        away = str(_get(entry, "away", where, "a team name"))
        winner = str(_get(entry, "winner", where, "the winner's name"))
        if winner not in (home, away):
            raise InvalidReportError(f"{where}['winner']", winner, f"{home!r} or {away!r}")
        games[stage].append(
            KnockoutGame(
                stage, home, away, *_goals(entry, where), winner,
                _flag(entry.get("by_lot", False), f"{where}['by_lot']"),
                _odds_for(report, home, away),
            )
        )
    for stage, limit in (("semi_final", 2), ("third_place", 1), ("final", 1)):
        if len(games[stage]) > limit:
            raise InvalidReportError(
                "['knockout']", [g.home for g in games[stage]], f"at most {limit} {stage} game(s)"
            )
    return Bracket(
        tuple(games["semi_final"]),
        games["third_place"][0] if games["third_place"] else None,
        games["final"][0] if games["final"] else None,
    )


def _chances(report: Mapping, gm: frozenset[str]) -> tuple[SemiFinalChance, ...]:
    probabilities = report.get("semi_final_probability") or {}
    errors = report.get("semi_final_stderr") or {}
    chances = [
        SemiFinalChance(
            str(team),
            team in gm,
            _number(p, f"['semi_final_probability'][{team!r}]"),
            _number(errors[team], f"['semi_final_stderr'][{team!r}]") if team in errors else None,
        )
        for team, p in probabilities.items()
    ]
    chances.sort(key=lambda c: -c.probability)
    return tuple(chances)


def _expectation(report: Mapping, gm: frozenset[str]) -> tuple[Expectation, ...]:
    rows = []
    for i, row in enumerate(report.get("expectation_table") or []):
        where = f"['expectation_table'][{i}]"
        team = str(_get(row, "team", where, "a team name"))
        rows.append(
            (
                team,
                *(
                    _number(_get(row, k, where, "an exact number"), f"{where}[{k!r}]")
                    for k in ("points", "goals_for", "goals_against")
                ),
            )
        )
    rows.sort(key=lambda r: -r[1])  # stable: the report's order among equals
    ranks = _ranked([r[1] for r in rows])
    return tuple(
        Expectation(rank, team, team in gm, pts, gf, ga)
        for rank, (team, pts, gf, ga) in zip(ranks, rows, strict=True)
    )


def _fold(text: str) -> str:
    """Labels that look alike to a reader compare equal: spaces folded, case ignored."""
    return " ".join(clean(text).split()).casefold()


def table_labels(teams: Sequence[tuple[str, str | None]]) -> dict[str, str]:
    """Full name -> label for the fixed-width tables, from (name, short name)
    pairs in report order (a missing short name: the name).

    Labels must tell teams apart, but short names need not be unique (two
    managers may both pick ``Wanderer``). Teams whose labels look alike
    (``_fold``) are numbered in report order, ``Wanderer 1``,
    ``Wanderer 2``, skipping any number that is itself another team's label.
    """
    wanted: dict[str, str] = {}
    for name, short in teams:
        if name not in wanted:
            wanted[name] = short if short and short.strip() else name
    by_fold: dict[str, list[str]] = {}
    for name, label in wanted.items():
        by_fold.setdefault(_fold(label), []).append(name)
    taken = set(by_fold)
    labels = dict(wanted)
    for names in by_fold.values():
        if len(names) < 2:
            continue
        number = 0
        for name in names:
            number += 1
            while _fold(f"{wanted[name]} {number}") in taken:
                number += 1
            labels[name] = f"{wanted[name]} {number}"
            taken.add(_fold(labels[name]))
    return labels


def _teams(report: Mapping) -> list[tuple[str, str | None]]:
    teams = report.get("teams", [])
    if not isinstance(teams, list):
        raise InvalidReportError("['teams']", teams, "a list of teams")
    out = []
    for i, team in enumerate(teams):
        where = f"['teams'][{i}]"
        name = _get(team, "name", where, "a team name")
        short = team.get("short_name")
        if not isinstance(name, str) or not isinstance(short, str | None):
            raise InvalidReportError(where, team, "a team with a text 'name' and 'short_name'")
        out.append((name, short))
    return out


def _sort_key(text: str) -> str:
    """Alphabetical as a reader expects: ``Äquator`` next to ``Aachen``, not after ``Z``."""
    decomposed = unicodedata.normalize("NFKD", _fold(text))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _legend(labels: Mapping[str, str], gm: frozenset[str]) -> tuple[LegendEntry, ...]:
    entries = [
        LegendEntry(label, name, name in gm) for name, label in labels.items() if label != name
    ]
    entries.sort(key=lambda e: (_sort_key(e.label), _fold(e.label), e.label, e.team))
    return tuple(entries)


def _table(rows: Iterable[WpRow | PszRow], key: str) -> tuple[Ranked, ...]:
    """Best first; the PSZ is compared as shown (a whole number), so teams
    that look equal share a rank."""
    ordered = sorted(rows, key=lambda r: -Decimal(getattr(r, key)))
    if key == "psz":
        values: list[object] = [half_up(to_fraction(r.psz)) for r in ordered]
    else:
        values = [Decimal(getattr(r, key)) for r in ordered]
    return tuple(Ranked(p, r) for p, r in zip(_ranked(values), ordered, strict=True))


def build_newsletter(
    public: Mapping, wp_table: Iterable[WpRow], psz_table: Iterable[PszRow]
) -> Newsletter:
    """Read a public report (``ensure_public`` is applied) and the league's
    tables into a ``Newsletter``."""
    ensure_public(public)
    gm = frozenset(gm_names(public))
    points = public.get("points", {"win": 3, "draw": 1, "loss": 0})
    teams = public.get("teams", [])
    gm_teams = tuple(
        GmTeam(
            str(_get(t, "name", f"['gm_teams'][{i}]", "a team name")),
            _lineup(_get(t, "lineup", f"['gm_teams'][{i}]", "a lineup"), f"['gm_teams'][{i}]"),
        )
        for i, t in enumerate(public.get("gm_teams") or [])
    )
    simulations = public.get("simulations") or 0
    labels = table_labels(_teams(public))
    return Newsletter(
        empty=bool(public.get("empty", not teams)),
        points=tuple(_int(points[k], f"['points'][{k!r}]") for k in ("win", "draw", "loss")),
        teams=len(teams),
        player_teams=sum(1 for t in teams if not t.get("gm")),
        placings=tuple(str(p) for p in public.get("placings") or []),
        bracket=_bracket(public),
        stages=_stages(public, gm),
        gm_teams=gm_teams,
        chances=_chances(public, gm) if simulations else (),
        simulations=_int(simulations, "['simulations']"),
        expectation=_expectation(public, gm),
        wp_table=_table(wp_table, "wp"),
        psz_table=_table(psz_table, "psz"),
        gm=gm,
        labels=labels,
        legend=_legend(labels, gm),
    )
