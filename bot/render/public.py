"""The guard in front of everything published: no player lineup gets through.

``bot.rules.report.public_report`` removes player lineups; the newsletter
and the archive call ``ensure_public`` on what they are given, so a caller
that hands them the full report by mistake gets a ``LineupLeakError``
instead of a mail to every player with every lineup in it.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.render.errors import InvalidReportError, LineupLeakError

_LINEUP_KEYS = ("lineup", "lineups", "corrected_lineup")


def gm_names(report: Mapping) -> set[str]:
    """Names of the GM teams of a report (their lineups are public)."""
    teams = report.get("teams", [])
    if not isinstance(teams, list):
        raise InvalidReportError('["teams"]', teams, "a list of {name, gm, lineup?}")
    names = {t.get("name") for t in teams if isinstance(t, Mapping) and t.get("gm") is True}
    return names


def ensure_public(report: object) -> Mapping:
    """Return ``report`` unchanged if it holds no player lineup; else raise
    ``LineupLeakError`` naming where the first one was found."""
    if not isinstance(report, Mapping):
        raise InvalidReportError("", report, "the dict of bot.rules.report.public_report")
    public_teams = gm_names(report)
    _walk(report, "report", public_teams)
    return report


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
