"""Checking the rows of a league taken over (RULES.md §14): every row, every
value, before anything is stored; the result is the plan of the import or
every problem with its line.

The checks, by row: a team name (at most ``name_max`` characters, not
reading like a GM team, not equal to or looking like another row's team,
UTS #39 as for a registration, RULES.md §7), a short name (at most
``short_max``; derived from the name when empty, and given a number when it
reads like an earlier row's, as a registration does), a manager's name, a
plain mail address (at most ``max_teams`` rows each, the same manager name
and language on each), the language (``de``/``en`` or empty), WP (a number
>= 0 with a decimal point or comma and at most two decimals), PSZ (the
same, negative allowed; empty: the initial PSZ), and ``last_round`` (the
overall number of a round before the first one played here; empty:
unknown, taken as the round before the first).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from email.utils import getaddresses

from bot.league.addresses import normalize_address
from bot.league.errors import BadAddress
from bot.league.import_table import Problem, Row, Table
from bot.league.names import clean, confusable_keys, derive_short_name, is_reserved, name_key
from bot.league.settings import LeagueSettings
from bot.rules.wp import budget

_NUMBER = re.compile(r"(?P<sign>[-+]?)(?P<whole>\d+)(?:[.,](?P<part>\d*))?")
_WHOLE = re.compile(r"\d+")
_ADDRESS = re.compile(r"[^@\s<>(),;:\"\[\]]+@[^@\s<>(),;:\"\[\]]+\.[^@\s<>(),;:\"\[\].]+")
LANGUAGES = {"de": "de", "deutsch": "de", "german": "de", "ger": "de",
             "en": "en", "english": "en", "englisch": "en", "eng": "en"}


@dataclass(frozen=True, slots=True)
class PlannedTeam:
    line: int
    name: str
    key: str
    short_name: str
    wp: Decimal
    psz: Decimal
    #: The overall round it last played (``first_round - 1`` when unknown).
    last_round: int
    last_round_known: bool

    @property
    def budget(self) -> int:
        """The WP it may spend in the first round here (``floor(WP)``)."""
        return budget(self.wp)


@dataclass(frozen=True, slots=True)
class PlannedManager:
    line: int
    address: str
    name: str
    #: ``de``/``en``, None when the table leaves it empty.
    language: str | None
    teams: tuple[PlannedTeam, ...]


@dataclass(frozen=True, slots=True)
class ImportPlan:
    """What an import stores: the managers with their teams, and where the
    league continues (season, round in it, overall number of that round)."""

    season: int
    round_in_season: int
    first_round: int
    managers: tuple[PlannedManager, ...]
    encoding: str
    separator: str
    #: Not errors, but worth saying: short names derived or given a number.
    notes: tuple[Problem, ...] = ()

    @property
    def teams(self) -> tuple[PlannedTeam, ...]:
        return tuple(sorted((t for m in self.managers for t in m.teams), key=lambda t: t.line))


@dataclass(frozen=True, slots=True)
class Checked:
    plan: ImportPlan | None
    problems: tuple[Problem, ...]


def first_round_of(season: int, round_in_season: int, season_rounds: int) -> int:
    """The overall number of round ``round_in_season`` of ``season``:
    ``(season - 1) * season_rounds + round_in_season``."""
    return (season - 1) * season_rounds + round_in_season


def parse_number(text: str, *, negative: bool) -> tuple[Decimal | None, str | None]:
    """A number with a decimal point or comma and at most two decimals:
    ``(value, None)`` or ``(None, problem code)``."""
    match = _NUMBER.fullmatch(text.replace(" ", ""))
    if match is None:
        return None, "not_number"
    part = match.group("part") or ""
    if len(part) > 2:
        return None, "decimals"
    value = Decimal(f"{match.group('whole')}.{part or '0'}")
    if match.group("sign") == "-":
        if not negative and value != 0:
            return None, "negative"
        value = -value
    return value.quantize(Decimal("0.01")) if part else value, None


@dataclass
class _Names:
    """The keys of the names seen so far, with their lines (O(1) look-ups)."""

    keys: dict[str, tuple[int, str]] = field(default_factory=dict)

    def clash(self, name: str) -> tuple[str, int, str] | None:
        """(kind, line, other name) of an earlier name ``name`` clashes with."""
        found = self.keys.get("k:" + name_key(name))
        if found is not None:
            return "duplicate", *found
        for index, key in enumerate(confusable_keys(name)):
            found = self.keys.get(f"{index}:{key}")
            if found is not None:
                return "confusable", *found
        return None

    def add(self, name: str, line: int) -> None:
        self.keys.setdefault("k:" + name_key(name), (line, name))
        for index, key in enumerate(confusable_keys(name)):
            self.keys.setdefault(f"{index}:{key}", (line, name))


def _unique_short(short: str, used: _Names, limit: int) -> str:
    """``short``, or ``short 2``, ``short 3``, ... (shortened to fit ``limit``)
    when it reads like a short name used already (RULES.md §7)."""
    number = 1
    candidate = short
    while used.clash(candidate) is not None:
        number += 1
        suffix = f" {number}"
        candidate = f"{short[:max(1, limit - len(suffix))].rstrip()}{suffix}"
    return candidate


def _address(text: str) -> str | None:
    """The canonical form of a plain mail address, None when ``text`` is not one."""
    parsed = getaddresses([text])
    if len(parsed) != 1 or parsed[0][0] or parsed[0][1] != text or not _ADDRESS.fullmatch(text):
        return None
    try:
        return normalize_address(text)
    except BadAddress:
        return None


class _Checker:
    def __init__(self, settings: LeagueSettings, first_round: int) -> None:
        self.s = settings
        self.first_round = first_round
        self.problems: list[Problem] = []
        self.notes: list[Problem] = []
        self.names = _Names()
        self.shorts = _Names()
        #: address -> (line, manager name, language, teams)
        self.managers: dict[str, tuple[int, str, str | None, list[PlannedTeam]]] = {}

    def fail(self, line: int, code: str, **params: object) -> None:
        self.problems.append(Problem(line, code, params))

    def number(self, row: Row, column: str, *, negative: bool) -> Decimal | None:
        value, code = parse_number(row.values[column], negative=negative)
        if code is not None:
            self.fail(row.line, f"{column}_{code}", value=row.values[column])
        return value

    def team_name(self, row: Row) -> str | None:
        name = clean(row.values["team"])
        if not name:
            self.fail(row.line, "empty", column="team")
            return None
        if len(name) > self.s.name_max:
            self.fail(row.line, "name_long", value=name, limit=self.s.name_max)
            return None
        if is_reserved(name):
            self.fail(row.line, "name_reserved", value=name)
            return None
        clash = self.names.clash(name)
        if clash is not None:
            kind, line, other = clash
            self.fail(row.line, f"name_{kind}", value=name, other=other, other_line=line)
            return None
        self.names.add(name, row.line)
        return name

    def short_name(self, row: Row, name: str) -> str | None:
        given = clean(row.values["short"])
        if len(given) > self.s.short_max:
            self.fail(row.line, "short_long", value=given, limit=self.s.short_max)
            return None
        if given and is_reserved(given):
            self.fail(row.line, "name_reserved", value=given)
            return None
        short = given or derive_short_name(name, self.s.short_max)
        unique = _unique_short(short, self.shorts, self.s.short_max)
        if unique != short:
            _kind, line, other = self.shorts.clash(short)  # type: ignore[misc]
            self.notes.append(Problem(row.line, "short_numbered", {
                "team": name, "value": short, "short": unique, "other": other,
                "other_line": line}))
        elif not given and short != name:
            self.notes.append(Problem(row.line, "short_derived", {"team": name, "short": short}))
        self.shorts.add(unique, row.line)
        return unique

    def last_round(self, row: Row) -> tuple[int, bool] | None:
        text = row.values["last_round"]
        if not text:
            return self.first_round - 1, False
        if not _WHOLE.fullmatch(text):
            self.fail(row.line, "last_round_not_number", value=text)
            return None
        value = int(text)
        if not 1 <= value < self.first_round:
            self.fail(row.line, "last_round_range", value=text, first=self.first_round)
            return None
        return value, True

    def manager(self, row: Row) -> tuple[str, str, str | None] | None:
        ok = True
        name = clean(row.values["manager"])
        if not name:
            self.fail(row.line, "empty", column="manager")
            ok = False
        raw_language = row.values["language"].strip().lower()
        language = LANGUAGES.get(raw_language) if raw_language else None
        if raw_language and language is None:
            self.fail(row.line, "language", value=row.values["language"])
            ok = False
        address = None
        if not row.values["address"]:
            self.fail(row.line, "empty", column="address")
            ok = False
        else:
            address = _address(row.values["address"])
            if address is None:
                self.fail(row.line, "address", value=row.values["address"])
                ok = False
        if not ok or address is None:
            return None
        known = self.managers.get(address)
        if known is not None:
            line, other_name, other_language, teams = known
            if len(teams) >= self.s.max_teams:
                lines = ", ".join(str(t.line) for t in teams)
                self.fail(row.line, "too_many_teams", address=address, lines=lines,
                          limit=self.s.max_teams)
                return None
            if other_name != name:
                self.fail(row.line, "manager_differs", address=address, value=name,
                          other=other_name, other_line=line)
                return None
            if other_language != language:
                self.fail(row.line, "language_differs", address=address,
                          value=language or "", other=other_language or "", other_line=line)
                return None
        return address, name, language

    def row(self, row: Row) -> None:
        found = len(self.problems)
        name = self.team_name(row)
        short = self.short_name(row, name) if name else None
        owner = self.manager(row)
        if not row.values["wp"]:
            self.fail(row.line, "empty", column="wp")
            wp = None
        else:
            wp = self.number(row, "wp", negative=False)
        psz = (self.number(row, "psz", negative=True) if row.values["psz"]
               else self.s.initial_psz)
        last = self.last_round(row)
        if len(self.problems) > found or None in (name, short, owner, wp, psz, last):
            return
        assert name and short and owner and wp is not None and psz is not None and last
        address, manager_name, language = owner
        team = PlannedTeam(row.line, name, name_key(name), short, wp, psz, *last)
        entry = self.managers.setdefault(address, (row.line, manager_name, language, []))
        entry[3].append(team)


def check_table(
    table: Table, *, season: int, round_in_season: int, settings: LeagueSettings,
) -> Checked:
    """The plan of importing ``table`` to continue with round
    ``round_in_season`` of ``season``, or every problem found (the table's
    own first)."""
    problems = list(table.problems)
    if season < 1 or not 1 <= round_in_season <= settings.season_rounds:
        problems.append(Problem(0, "round_range", {
            "season": season, "round": round_in_season, "rounds": settings.season_rounds}))
        return Checked(None, tuple(problems))
    first = first_round_of(season, round_in_season, settings.season_rounds)
    checker = _Checker(settings, first)
    for row in table.rows:
        checker.row(row)
    problems += checker.problems
    problems.sort(key=lambda p: p.line)
    if problems:
        return Checked(None, tuple(problems))
    managers = tuple(PlannedManager(line, address, name, language, tuple(teams))
                     for address, (line, name, language, teams) in checker.managers.items())
    return Checked(ImportPlan(season, round_in_season, first, managers, table.encoding,
                              table.separator, tuple(checker.notes)), ())


__all__ = ["Checked", "ImportPlan", "PlannedManager", "PlannedTeam", "check_table",
           "first_round_of", "parse_number"]
