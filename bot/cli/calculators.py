"""Players' calculators: ``lineup``, ``match`` and ``psz``.

* ``turnited lineup LINEUP --wp WP [--json]``: the lineup that would play
  (RULES.md §2.1) and every correction. LINEUP may be several words
  (``T10 A10 V15 M15 S20``); WP is a decimal (``95.3``), default 90.
* ``turnited match X Y [--wp WP [--wp WP_Y]] [--json]``: the exact odds of
  lineup X against Y (RULES.md §3) as they would play: each lineup is
  corrected for its budget first (RULES.md §2.1: back caps, 3:1 rule,
  shortening; ``--wp`` default 90, once for both teams or twice for X and
  Y), and the output says when a lineup would not play as typed.
* ``turnited psz FILE.csv [--no-bound] [--json]``: new PSZ after a period of
  games (RULES.md §10). The CSV has the header
  ``player,psz,opponent_psz,result`` and one row per game; ``psz`` is the
  player's PSZ at the start of the period (the same on all rows of a
  player), ``result`` one of ``1``/``0.5``/``0``, ``W``/``D``/``L`` or
  ``S``/``U``/``N``. A file whose header is separated by ``;`` is read with
  ``;`` and decimal commas.

JSON number formats: probabilities are exact fractions ``"n/d"``; PSZ and
points are decimal strings, exact when the decimal ends within six places and
otherwise rounded half up to six places (the exact value is in the
``*_fraction`` keys as ``"n/d"``); ``psz_cents`` is the stored two-decimal
form and ``psz_rounded`` the whole number shown in tables (halves up).

Text output is German (default, with decimal commas) or English (``--lang
en``); a lineup or WP the calculators cannot read is reported in the same
language. User errors are raised as ``CliError``/``ValueError`` and become
one line on stderr with exit status 2 (``bot.cli.main``).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path

from bot.cli import CliError
from bot.render.odds import exact_percent, goals
from bot.render.reasons import reason
from bot.rules.corrections import CorrectedLineup, correct
from bot.rules.errors import InvalidLineupError, InvalidResultError
from bot.rules.lineup import Lineup
from bot.rules.match import MatchOdds
from bot.rules.psz import PeriodUpdate, Result, period_update
from bot.rules.rounding import half_up, to_cents
from bot.rules.versus import match_as_played
from bot.rules.wp import INITIAL_WP, as_wp, budget

#: Places of a non-terminating decimal in the JSON output.
JSON_PLACES = 6
CSV_COLUMNS = ("player", "psz", "opponent_psz", "result")

TEXT: dict[str, dict[str, str]] = {
    "de": {
        "sent": "Eingabe:       {lineup}",
        "plays": "Aufstellung:   {lineup}",
        "cost": "Kosten:        {cost} WP (Budget: {budget} WP, die abgerundeten {wp} WP)",
        "no_corrections": "Keine Korrekturen: die Aufstellung gilt wie eingegeben.",
        "corrections": "Korrekturen:",
        "correction": "  {rule}: {row} {before} -> {after}",
        "back_cap": "Obergrenze 10 für Torwart/Ausputzer",
        "three_to_one": "3:1-Regel",
        "budget": "Kürzung aufs Budget",
        "versus": "{x} gegen {y}",
        "as_typed": "{side} spielt wie eingegeben (Budget {budget} WP).",
        "not_as_typed": "{side} spielt nicht wie eingegeben: {sent} wird zu {played} "
                        "(Budget {budget} WP):",
        "side_x": "X",
        "side_y": "Y",
        "bad_lineup": "ungültige Aufstellung {text!r}: {reason}; erwartet werden fünf "
                      "ganze Zahlen T-A-V-M-S, z. B. '10-10-15-15-20'",
        "bad_wp": "WP {text!r} ist keine Zahl >= 0; erwartet z. B. 95,3",
        "too_many_wp": "--wp höchstens zweimal (für X und Y), nicht {n}-mal",
        "chances": "Torchancen:          {cx} : {cy}",
        "per_chance": "Tor je Chance:       {px} : {py}",
        "expected": "Erwartete Tore:      {gx} : {gy}",
        "win": "Sieg:                {p}",
        "draw": "Unentschieden:       {p}",
        "loss": "Niederlage:          {p}",
        "psz_title": "PSZ-Bilanz ({bound})",
        "bound_on": "mit Begrenzung auf Null",
        "bound_off": "ohne Begrenzung auf Null",
        "psz_header": "Spieler|Spiele|S|U|N|PSZ alt|Punkte|PSZ neu|gerundet",
    },
    "en": {
        "sent": "Sent:          {lineup}",
        "plays": "Lineup:        {lineup}",
        "cost": "Cost:          {cost} WP (budget: {budget} WP, the {wp} WP rounded down)",
        "no_corrections": "No corrections: the lineup plays as sent.",
        "corrections": "Corrections:",
        "correction": "  {rule}: {row} {before} -> {after}",
        "back_cap": "cap of 10 for goalkeeper/sweeper",
        "three_to_one": "3:1 rule",
        "budget": "shortened to the budget",
        "versus": "{x} against {y}",
        "as_typed": "{side} plays as typed (budget {budget} WP).",
        "not_as_typed": "{side} would not play as typed: {sent} becomes {played} "
                        "(budget {budget} WP):",
        "side_x": "X",
        "side_y": "Y",
        "bad_lineup": "invalid lineup {text!r}: {reason}; expected five whole numbers "
                      "T-A-V-M-S, e.g. '10-10-15-15-20'",
        "bad_wp": "invalid WP {text!r}: expected a decimal number >= 0 such as '95.3'",
        "too_many_wp": "--wp at most twice (for X and Y), not {n} times",
        "chances": "Goal chances:        {cx} : {cy}",
        "per_chance": "Goal per chance:     {px} : {py}",
        "expected": "Expected goals:      {gx} : {gy}",
        "win": "Win:                 {p}",
        "draw": "Draw:                {p}",
        "loss": "Loss:                {p}",
        "psz_title": "PSZ balance ({bound})",
        "bound_on": "bounded at zero",
        "bound_off": "not bounded at zero",
        "psz_header": "Player|Games|W|D|L|PSZ before|Points|PSZ after|rounded",
    },
}


def register(sub: argparse._SubParsersAction) -> None:
    lang = {"choices": sorted(TEXT), "default": "de",
            "help": "language of the text output (default: %(default)s)"}

    p = sub.add_parser("lineup", help="correct a lineup against a WP budget")
    p.add_argument("lineup", nargs="+", metavar="LINEUP",
                   help="e.g. 10-10-15-15-20 or T10 A10 V15 M15 S20")
    p.add_argument("--wp", default=str(INITIAL_WP),
                   help="the team's WP, a decimal such as 95.3 (default: %(default)s)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--lang", **lang)
    p.set_defaults(handler=cmd_lineup)

    p = sub.add_parser("match", help="exact odds of lineup X against lineup Y as they play")
    p.add_argument("x", metavar="X", help="lineup of the first team, e.g. 10-10-15-15-20")
    p.add_argument("y", metavar="Y", help="lineup of the second team")
    p.add_argument("--wp", action="append", metavar="WP",
                   help=f"the teams' WP (default: {INITIAL_WP}); once for both teams, "
                   "twice for X and Y: each lineup is corrected for floor(WP)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--lang", **lang)
    p.set_defaults(handler=cmd_match)

    p = sub.add_parser("psz", help="new PSZ after a period of games from a CSV file")
    p.add_argument("file", metavar="FILE.csv", help="header player,psz,opponent_psz,result")
    p.add_argument("--no-bound", dest="bound", action="store_false",
                   help="do not bound wins below and losses above zero")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--lang", **lang)
    p.set_defaults(handler=cmd_psz)


# ---------------------------------------------------------------- formatting

def fraction_text(x: Fraction) -> str:
    """An exact fraction as ``"n/d"`` (also for whole numbers: ``"1/1"``)."""
    return f"{x.numerator}/{x.denominator}"


def decimal_text(x: Fraction, places: int = JSON_PLACES) -> str:
    """``x`` as a decimal string: exact if it ends within ``places`` decimals,
    else rounded half up to ``places``; no trailing zeros (``233``, ``232.5``)."""
    scaled = half_up(x * 10**places)
    return f"{Decimal(f'{scaled}E-{places}').normalize():f}"


def shown(number: object, lang: str) -> str:
    """A number for the text output: German with a decimal comma."""
    text = str(number)
    return text.replace(".", ",") if lang == "de" else text


def percent_text(p: Fraction, lang: str) -> str:
    """A probability in per cent with two decimals, halves up (the mail's
    ``Quote`` says it the same way: ``bot.render.odds``)."""
    return exact_percent(p, lang)


# ---------------------------------------------------------------- lineup

def parse_lineup(text: str, lang: str) -> Lineup:
    """``Lineup.parse`` with its error in the output's language."""
    try:
        return Lineup.parse(text)
    except InvalidLineupError as exc:
        raise CliError(TEXT[lang]["bad_lineup"].format(
            text=exc.text, reason=reason(exc.reason, lang))) from None


def parse_wp(text: str, lang: str) -> Decimal:
    """``as_wp`` with its error in the output's language."""
    try:
        return as_wp(text)
    except ValueError:
        raise CliError(TEXT[lang]["bad_wp"].format(text=text)) from None


def cmd_lineup(args: argparse.Namespace) -> int:
    lineup = parse_lineup(" ".join(args.lineup), args.lang)
    wp = parse_wp(args.wp, args.lang)
    corrected = correct(lineup, budget(wp))
    if args.json:
        _print_json(corrected.to_json())
    else:
        sys.stdout.write(lineup_text(corrected, wp, args.lang))
    return 0


def lineup_text(corrected: CorrectedLineup, wp: Decimal, lang: str = "de") -> str:
    t = TEXT[lang]
    lines = [
        t["sent"].format(lineup=corrected.original),
        t["plays"].format(lineup=corrected.lineup),
        t["cost"].format(cost=corrected.lineup.cost, budget=corrected.budget, wp=shown(wp, lang)),
    ]
    if not corrected.corrections:
        lines.append(t["no_corrections"])
    else:
        lines.append(t["corrections"])
        lines += [
            t["correction"].format(rule=t[c.rule], row=c.row, before=c.before, after=c.after)
            for c in corrected.corrections
        ]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- match

def cmd_match(args: argparse.Namespace) -> int:
    lang = args.lang
    given = args.wp or [str(INITIAL_WP)]
    if len(given) > 2:
        raise CliError(TEXT[lang]["too_many_wp"].format(n=len(given)))
    wps = [parse_wp(w, lang) for w in given]
    wp_x, wp_y = wps[0], wps[-1]
    x, y = parse_lineup(args.x, lang), parse_lineup(args.y, lang)
    played, result = match_as_played(x, y, wp_x, wp_y)
    if args.json:
        _print_json(match_json(result, played))
    else:
        sys.stdout.write(match_text(x, y, result, lang, played))
    return 0


def match_json(
    result: MatchOdds, played: tuple[CorrectedLineup, CorrectedLineup] | None = None
) -> dict[str, object]:
    lineups: dict[str, object] = {}
    if played is not None:
        lineups = {
            "sent": [str(c.original) for c in played],
            "played": [str(c.lineup) for c in played],
            "budget": [c.budget for c in played],
            "as_typed": [not c.changed for c in played],
            "corrections": [[k.to_json() for k in c.corrections] for c in played],
        }
    return {
        **lineups,
        "chances": list(result.chances),
        "goal_probability": [fraction_text(p) for p in result.goal_probability],
        "expected_goals": [fraction_text(g) for g in result.expected_goals],
        "win": fraction_text(result.win),
        "draw": fraction_text(result.draw),
        "loss": fraction_text(result.loss),
        "percent": {
            "win": float(result.win * 100),
            "draw": float(result.draw * 100),
            "loss": float(result.loss * 100),
        },
    }


def played_text(side: str, corrected: CorrectedLineup, lang: str = "de") -> list[str]:
    """Whether a lineup plays as typed, and if not how and why (one line each)."""
    t = TEXT[lang]
    if not corrected.changed:
        return [t["as_typed"].format(side=side, budget=corrected.budget)]
    return [
        t["not_as_typed"].format(side=side, sent=corrected.original, played=corrected.lineup,
                                 budget=corrected.budget),
        *(t["correction"].format(rule=t[c.rule], row=c.row, before=c.before, after=c.after)
          for c in corrected.corrections),
    ]


def match_text(
    x: Lineup, y: Lineup, result: MatchOdds, lang: str = "de",
    played: tuple[CorrectedLineup, CorrectedLineup] | None = None,
) -> str:
    t = TEXT[lang]
    (cx, cy), (px, py), (gx, gy) = result.chances, result.goal_probability, result.expected_goals
    lines = []
    if played is not None:
        lines += played_text(t["side_x"], played[0], lang)
        lines += played_text(t["side_y"], played[1], lang)
        x, y = played[0].lineup, played[1].lineup
    lines += [
        t["versus"].format(x=x, y=y),
        t["chances"].format(cx=cx, cy=cy),
        t["per_chance"].format(px=percent_text(px, lang), py=percent_text(py, lang)),
        t["expected"].format(gx=goals(gx, lang), gy=goals(gy, lang)),
        t["win"].format(p=percent_text(result.win, lang)),
        t["draw"].format(p=percent_text(result.draw, lang)),
        t["loss"].format(p=percent_text(result.loss, lang)),
    ]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- psz

@dataclass
class PlayerGames:
    """One player's rows of the CSV: the starting PSZ and the games."""

    player: str
    psz: Fraction
    first_line: int
    games: list[tuple[Fraction, Result]] = field(default_factory=list)


@dataclass(frozen=True)
class PlayerPeriod:
    """A player's period: the update and the record."""

    player: str
    update: PeriodUpdate
    won: int
    drawn: int
    lost: int


def cmd_psz(args: argparse.Namespace) -> int:
    periods = rate_file(Path(args.file), bound=args.bound)
    if args.json:
        _print_json([period_json(p) for p in periods])
    else:
        sys.stdout.write(psz_text(periods, args.bound, args.lang))
    return 0


def rate_file(path: Path, *, bound: bool = True) -> list[PlayerPeriod]:
    """Read the CSV and rate every player, in the order of first appearance."""
    periods = []
    for player in read_games(path):
        results = [r for _, r in player.games]
        periods.append(PlayerPeriod(
            player.player,
            period_update(player.psz, player.games, bound=bound),
            results.count(Result.WIN),
            results.count(Result.DRAW),
            results.count(Result.LOSS),
        ))
    return periods


def read_games(path: Path) -> list[PlayerGames]:
    """The games of the CSV grouped by player. Raises ``CliError`` naming the
    file, the line and what would be right."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        text = handle.read()
    first_line = text.split("\n", 1)[0]
    delimiter = ";" if ";" in first_line and "," not in first_line else ","
    reader = csv.reader(text.splitlines(), delimiter=delimiter)
    players: dict[str, PlayerGames] = {}
    try:
        header = next(reader, None)
        if header is None:
            raise CliError(f"{path}: empty file; expected the header {','.join(CSV_COLUMNS)}")
        columns = _columns(path, header)
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise CliError(
                    f"{path}:{line}: {len(row)} fields instead of {len(header)} "
                    f"({','.join(CSV_COLUMNS)})"
                )
            cell = {name: row[i].strip() for name, i in columns.items()}
            _add_game(path, line, cell, players, decimal_comma=delimiter == ";")
    except csv.Error as exc:
        raise CliError(f"{path}:{reader.line_num}: unreadable CSV: {exc}") from None
    if not players:
        raise CliError(f"{path}: no games; expected one row per game after the header")
    return list(players.values())


def _columns(path: Path, header: list[str]) -> dict[str, int]:
    names = [h.strip().lower() for h in header]
    missing = [c for c in CSV_COLUMNS if c not in names]
    unknown = [h for h in names if h not in CSV_COLUMNS]
    duplicate = sorted({h for h in names if names.count(h) > 1})
    if missing or unknown or duplicate:
        problems = [
            f"{label} {', '.join(repr(c) for c in cols)}"
            for label, cols in (("missing", missing), ("unknown", unknown),
                                ("repeated", duplicate))
            if cols
        ]
        raise CliError(
            f"{path}:1: header {','.join(header)!r}: {'; '.join(problems)}; "
            f"expected {','.join(CSV_COLUMNS)}"
        )
    return {name: names.index(name) for name in CSV_COLUMNS}


def _add_game(
    path: Path, line: int, cell: dict[str, str], players: dict[str, PlayerGames],
    *, decimal_comma: bool,
) -> None:
    name = cell["player"]
    if not name:
        raise CliError(f"{path}:{line}: the player's name is empty")
    own = _psz(path, line, "psz", cell["psz"], decimal_comma)
    opponent = _psz(path, line, "opponent_psz", cell["opponent_psz"], decimal_comma)
    try:
        result = Result.parse(cell["result"])
    except InvalidResultError as exc:
        raise CliError(f"{path}:{line}: {exc}") from None
    player = players.setdefault(name, PlayerGames(name, own, line))
    if own != player.psz:
        raise CliError(
            f"{path}:{line}: player {name!r} starts with PSZ {cell['psz']} here but with "
            f"{decimal_text(player.psz)} on line {player.first_line}; every row of a player "
            f"carries the same PSZ, the one from the start of the period"
        )
    player.games.append((opponent, result))


def _psz(path: Path, line: int, column: str, text: str, decimal_comma: bool) -> Fraction:
    value = text.replace(",", ".") if decimal_comma else text
    try:
        number = Decimal(value)
    except InvalidOperation:
        number = None
    if number is None or not number.is_finite():
        raise CliError(
            f"{path}:{line}: {column} {text!r} is not a number; expected e.g. 250 or 232.5"
        )
    return Fraction(number)


def period_json(period: PlayerPeriod) -> dict[str, object]:
    update = period.update
    return {
        "player": period.player,
        "games": update.games,
        "won": period.won,
        "drawn": period.drawn,
        "lost": period.lost,
        "psz_before": decimal_text(update.before),
        "points": decimal_text(update.points),
        "points_fraction": fraction_text(update.points),
        "psz": decimal_text(update.after),
        "psz_fraction": fraction_text(update.after),
        "psz_cents": str(to_cents(update.after)),
        "psz_rounded": half_up(update.after),
    }


def psz_text(periods: list[PlayerPeriod], bound: bool, lang: str = "de") -> str:
    t = TEXT[lang]
    header = t["psz_header"].split("|")
    rows = [
        [
            p.player, str(p.update.games), str(p.won), str(p.drawn), str(p.lost),
            shown(to_cents(p.update.before), lang), shown(to_cents(p.update.points), lang),
            shown(to_cents(p.update.after), lang), str(half_up(p.update.after)),
        ]
        for p in periods
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def fmt(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join([first, *rest]).rstrip()

    title = t["psz_title"].format(bound=t["bound_on"] if bound else t["bound_off"])
    return "\n".join([title, fmt(header), *(fmt(r) for r in rows)]) + "\n"


def _print_json(data: object) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
