"""The guard in front of everything published: no player lineup gets through.

``RoundReport.public()`` removes player lineups; the newsletter and the
archive read what they are given through ``public_round``, so a caller that
hands them the full report by mistake gets a ``LineupLeakError`` instead of
a mail to every player with every lineup in it. A stored report (a dict) is
searched for a lineup under any key first (``ensure_public``), then read
into the typed ``RoundReport``.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.render.errors import InvalidReportError, LineupLeakError
from bot.rules.report import ReportFormatError, RoundReport

_LINEUP_KEYS = ("lineup", "lineups", "corrected_lineup")


def gm_names(report: Mapping) -> set[str]:
    """Names of the GM teams of a report (their lineups are public)."""
    teams = report.get("teams", [])
    if not isinstance(teams, list):
        raise InvalidReportError('["teams"]', teams, "a list of {name, gm, lineup?}")
    return {
        str(t["name"]) for t in teams
        if isinstance(t, Mapping) and t.get("gm") is True and t.get("name") is not None
    }


def ensure_public(report: object) -> Mapping:
    """Return ``report`` unchanged if it holds no player lineup; else raise
    ``LineupLeakError`` naming where the first one was found."""
    if not isinstance(report, Mapping):
        raise InvalidReportError(
            "", report, "RoundReport.public() or its JSON (bot.rules.report.public_report)"
        )
    public_teams = gm_names(report)
    _walk(report, "report", public_teams)
    return report


def public_round(report: RoundReport | Mapping) -> RoundReport:
    """The public report to publish, typed: a ``RoundReport`` without player
    lineups, or the JSON of one (``ensure_public`` first). A player lineup
    raises ``LineupLeakError``, a dict of the wrong shape
    ``InvalidReportError`` naming the key."""
    if isinstance(report, RoundReport):
        for index, team in enumerate(report.teams):
            if not team.gm and team.lineup is not None:
                raise LineupLeakError(f"report['teams'][{index}]['lineup']", team.name)
        return report
    ensure_public(report)
    try:
        return RoundReport.from_json(report)
    except ReportFormatError as exc:
        raise InvalidReportError(exc.where, exc.value, exc.expected) from None


def _walk(node: object, where: str, public_teams: set[str]) -> None:
    if isinstance(node, Mapping):
        for key in _LINEUP_KEYS:
            value = node.get(key)
            if value is None or value == [] or value == {}:
                continue
            if key == "lineup":
                is_gm = node.get("gm") is True or node.get("name") in public_teams
                if not is_gm:
                    raise LineupLeakError(f"{where}[{key!r}]", node.get("name", node.get("team")))
            elif isinstance(value, Mapping):
                for team in value:
                    if team not in public_teams:
                        raise LineupLeakError(f"{where}[{key!r}][{team!r}]", team)
            else:
                _walk_entries(value, f"{where}[{key!r}]", public_teams)
        for key, value in node.items():
            if key not in _LINEUP_KEYS:
                _walk(value, f"{where}[{key!r}]", public_teams)
    elif isinstance(node, list | tuple):
        for index, item in enumerate(node):
            _walk(item, f"{where}[{index}]", public_teams)


def _walk_entries(value: object, where: str, public_teams: set[str]) -> None:
    """A list under a lineup key: every entry must be a GM team's."""
    if not isinstance(value, list | tuple):
        raise LineupLeakError(where, None)
    for index, item in enumerate(value):
        name = item.get("name", item.get("team")) if isinstance(item, Mapping) else None
        if name not in public_teams:
            raise LineupLeakError(f"{where}[{index}]", name)
