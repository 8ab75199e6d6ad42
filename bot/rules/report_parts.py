"""The JSON form of a round report's parts, written and read back.

``bot.rules.report`` owns the ``RoundReport`` and its layout (documented
there); this module holds what that layout is made of: the JSON of a group, a
PSZ update, a knock-out odds and an expectation row (``*_json``), and the
checked readers that turn stored values back into the tournament's and the
analytics' dataclasses (``read_*``). Every reader says where in the report a
value is wrong and what would be right (``ReportFormatError``).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, cast

from bot.rules.analytics import ExpectationRow, KnockoutOdds
from bot.rules.errors import InvalidLineupError, RulesError
from bot.rules.lineup import Lineup
from bot.rules.psz import PeriodUpdate
from bot.rules.rounding import to_cents
from bot.rules.tournament import (
    Game,
    Group,
    KnockoutGame,
    KnockoutStage,
    TableRow,
)

KNOCKOUT_STAGES: tuple[KnockoutStage, ...] = ("semi_final", "third_place", "final")


def exact(x: Fraction | int) -> str:
    """An exact rational as ``"n/d"`` (``"n"`` when whole)."""
    return str(Fraction(x))


def cents(x: Fraction | int) -> str:
    """Two decimals, halves up."""
    return str(to_cents(Fraction(x)))


class ReportFormatError(RulesError):
    """A stored report whose layout this version cannot read.

    ``where`` is the path of the offending value (``"['stages'][0]"``, empty
    for the report itself), ``value`` the value found there and ``expected``
    what would be right.
    """

    def __init__(
        self, where: str, value: object, expected: str, message: str | None = None
    ) -> None:
        self.where = where
        self.value = value
        self.expected = expected
        super().__init__(message or f"report{where} is {value!r}: expected {expected}")


def group_json(group: Group) -> dict[str, Any]:
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


def psz_json(update: PeriodUpdate) -> dict[str, Any]:
    return {
        "before": cents(update.before),
        "after": cents(update.after),
        "before_exact": exact(update.before),
        "after_exact": exact(update.after),
        "games": update.games,
        "points": exact(update.points),
    }


def odds_json(odds: KnockoutOdds) -> dict[str, Any]:
    return {
        "stage": odds.stage,
        "home": odds.home,
        "away": odds.away,
        "win": exact(odds.win),
        "draw": exact(odds.draw),
        "loss": exact(odds.loss),
        "percent": dict(zip(("win", "draw", "loss"), odds.percent, strict=True)),
    }


def expectation_json(position: int, row: ExpectationRow) -> dict[str, Any]:
    return {
        "position": position,
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


# --------------------------------------------------------------------------- reading


def read_value(node: object, key: str, where: str, expected: str) -> Any:
    if not isinstance(node, Mapping):
        raise ReportFormatError(where, node, f"a mapping with the key {key!r}")
    if key not in node:
        raise ReportFormatError(f"{where}[{key!r}]", None, expected)
    return node[key]


def read_int(node: object, key: str, where: str) -> int:
    value = read_value(node, key, where, "a whole number")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ReportFormatError(f"{where}[{key!r}]", value, "a whole number")
    return value


def read_flag(node: object, key: str, where: str) -> bool:
    value = read_value(node, key, where, "true or false")
    if not isinstance(value, bool):
        raise ReportFormatError(f"{where}[{key!r}]", value, "true or false")
    return value


def read_text(node: object, key: str, where: str, expected: str = "a team name") -> str:
    value = read_value(node, key, where, expected)
    if not isinstance(value, str):
        raise ReportFormatError(f"{where}[{key!r}]", value, expected)
    return value


def read_fraction(node: object, key: str, where: str) -> Fraction:
    value = read_value(node, key, where, "an exact 'n/d' string")
    if isinstance(value, str | int) and not isinstance(value, bool):
        try:
            return Fraction(value)
        except ValueError:
            pass
    raise ReportFormatError(f"{where}[{key!r}]", value, "an exact 'n/d' string")


def read_decimal(node: object, key: str, where: str) -> Decimal:
    value = read_value(node, key, where, "a decimal string such as '0.8'")
    if isinstance(value, str):
        try:
            number = Decimal(value)
        except InvalidOperation:
            pass
        else:
            if number.is_finite():
                return number
    raise ReportFormatError(f"{where}[{key!r}]", value, "a decimal string such as '0.8'")


def read_float(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ReportFormatError(where, value, "a number")
    return float(value)


def read_list(node: object, key: str, where: str, expected: str) -> list[Any]:
    value = read_value(node, key, where, expected)
    if not isinstance(value, list | tuple):
        raise ReportFormatError(f"{where}[{key!r}]", value, expected)
    return list(value)


def read_map(node: object, key: str, where: str, expected: str) -> Mapping[str, Any]:
    value = read_value(node, key, where, expected)
    if not isinstance(value, Mapping):
        raise ReportFormatError(f"{where}[{key!r}]", value, expected)
    return value


def read_goals(node: object, where: str) -> tuple[int, int]:
    goals = read_list(node, "goals", where, "[home goals, away goals]")
    if len(goals) != 2 or any(isinstance(g, bool) or not isinstance(g, int) for g in goals):
        raise ReportFormatError(f"{where}['goals']", goals, "[home goals, away goals]")
    return goals[0], goals[1]


def read_lineup(node: object, where: str) -> Lineup | None:
    if not isinstance(node, Mapping) or node.get("lineup") is None:
        return None
    value = node["lineup"]
    try:
        if isinstance(value, str):
            return Lineup.parse(value)
    except InvalidLineupError:
        pass
    raise ReportFormatError(f"{where}['lineup']", value, "a lineup such as '10-0-16-15-39'")


def read_group(node: object, where: str) -> Group:
    games = tuple(
        Game(read_text(g, "home", at), read_text(g, "away", at), read_goals(g, at))
        for i, g in enumerate(read_list(node, "games", where, "a list of games"))
        for at in [f"{where}['games'][{i}]"]
    )
    rows = []
    for i, row in enumerate(read_list(node, "table", where, "the group table")):
        rw = f"{where}['table'][{i}]"
        counts = {k: read_int(row, k, rw) for k in (
            "played", "won", "drawn", "lost", "goals_for", "goals_against", "points",
        )}
        rows.append(TableRow(
            team=read_text(row, "team", rw), **counts,
            qualified=read_flag(row, "qualified", rw), by_lot=read_flag(row, "by_lot", rw),
        ))
    teams = read_list(node, "teams", where, "the names of the drawn teams")
    if not all(isinstance(t, str) for t in teams):
        raise ReportFormatError(f"{where}['teams']", teams, "the names of the drawn teams")
    return Group(
        read_text(node, "name", where, "a group name"), tuple(teams), games, tuple(rows),
        read_flag(node, "qualification_by_lot", where),
    )


def read_stage(node: object, where: str) -> KnockoutStage:
    stage = read_value(node, "stage", where, f"one of {KNOCKOUT_STAGES}")
    if stage not in KNOCKOUT_STAGES:
        raise ReportFormatError(f"{where}['stage']", stage, f"one of {KNOCKOUT_STAGES}")
    return cast(KnockoutStage, stage)


def read_knockout(node: object, where: str) -> KnockoutGame:
    home, away = read_text(node, "home", where), read_text(node, "away", where)
    winner = read_text(node, "winner", where, "the winner's name")
    if winner not in (home, away):
        raise ReportFormatError(f"{where}['winner']", winner, f"{home!r} or {away!r}")
    return KnockoutGame(
        read_stage(node, where), home, away, read_goals(node, where), winner,
        read_flag(node, "by_lot", where),
    )


def read_odds(node: object, where: str) -> KnockoutOdds:
    return KnockoutOdds(
        read_stage(node, where), read_text(node, "home", where), read_text(node, "away", where),
        *(read_fraction(node, k, where) for k in ("win", "draw", "loss")),
    )


def read_expectation(node: object, where: str) -> ExpectationRow:
    return ExpectationRow(
        read_text(node, "team", where), read_int(node, "games", where),
        *(read_fraction(node, k, where) for k in (
            "won", "drawn", "lost", "points", "goals_for", "goals_against",
        )),
    )


def read_floats(data: Mapping[str, Any], key: str) -> dict[str, float]:
    values = read_map(data, key, "", "a mapping of team names to numbers")
    return {str(k): read_float(v, f"[{key!r}][{k!r}]") for k, v in values.items()}


__all__ = [
    "KNOCKOUT_STAGES",
    "ReportFormatError",
    "cents",
    "exact",
    "expectation_json",
    "group_json",
    "odds_json",
    "psz_json",
    "read_decimal",
    "read_expectation",
    "read_flag",
    "read_float",
    "read_floats",
    "read_fraction",
    "read_goals",
    "read_group",
    "read_int",
    "read_knockout",
    "read_lineup",
    "read_list",
    "read_map",
    "read_odds",
    "read_stage",
    "read_text",
    "read_value",
]
