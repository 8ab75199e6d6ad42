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

Text output is in the game's language (``game.language`` of a configuration
in the folder, else German with decimal commas; ``--lang en`` chooses
English), through the message catalog; a lineup, WP or CSV the calculators
cannot read is reported in the same language. User errors are raised as
``CliError`` and become one line on stderr with exit status 2
(``bot.cli.main``). Only the rules core and the catalog are imported: the
calculators start fast.
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
from typing import TYPE_CHECKING

from bot.cli.errors import CliError
from bot.errors import N_

if TYPE_CHECKING:  # the rules are imported when a calculator runs: --help starts fast
    from bot.render.words import Words
    from bot.rules.corrections import CorrectedLineup
    from bot.rules.lineup import Lineup
    from bot.rules.match import MatchOdds
    from bot.rules.psz import PeriodUpdate, Result

#: Places of a non-terminating decimal in the JSON output.
JSON_PLACES = 6
CSV_COLUMNS = ("player", "psz", "opponent_psz", "result")
#: The column of the values in the text output of ``lineup`` and ``match``.
LINEUP_COLUMN, MATCH_COLUMN = 15, 21


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lineup", help="correct a lineup against a WP budget")
    p.add_argument("lineup", nargs="+", metavar="LINEUP",
                   help="e.g. 10-10-15-15-20 or T10 A10 V15 M15 S20")
    p.add_argument("--wp", help="the team's WP, a decimal such as 95.3 (default: a new "
                   "team's WP)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_lineup)

    p = sub.add_parser("match", help="exact odds of lineup X against lineup Y as they play")
    p.add_argument("x", metavar="X", help="lineup of the first team, e.g. 10-10-15-15-20")
    p.add_argument("y", metavar="Y", help="lineup of the second team")
    p.add_argument("--wp", action="append", metavar="WP",
                   help="the teams' WP (default: a new team's WP); once for both teams, "
                   "twice for X and Y: each lineup is corrected for floor(WP)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_match)

    p = sub.add_parser("psz", help="new PSZ after a period of games from a CSV file")
    p.add_argument("file", metavar="FILE.csv", help="header player,psz,opponent_psz,result")
    p.add_argument("--no-bound", dest="bound", action="store_false",
                   help="do not bound wins below and losses above zero")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_psz)


def _words(args: argparse.Namespace) -> Words:
    from bot.cli import setup

    return setup.words(args)


def _aligned(rows: list[tuple[str, object]], width: int) -> list[str]:
    """``label value`` lines with the values in one column (at least ``width``)."""
    column = max(width, *(len(label) + 1 for label, _ in rows))
    return [f"{label:<{column}}{value}" for label, value in rows]


# ---------------------------------------------------------------- formatting

def fraction_text(x: Fraction) -> str:
    """An exact fraction as ``"n/d"`` (also for whole numbers: ``"1/1"``)."""
    return f"{x.numerator}/{x.denominator}"


def decimal_text(x: Fraction, places: int = JSON_PLACES) -> str:
    """``x`` as a decimal string: exact if it ends within ``places`` decimals,
    else rounded half up to ``places``; no trailing zeros (``233``, ``232.5``)."""
    from bot.rules.rounding import half_up

    scaled = half_up(x * 10**places)
    return f"{Decimal(f'{scaled}E-{places}').normalize():f}"


def shown(number: object, lang: str) -> str:
    """A number for the text output: German with a decimal comma."""
    text = str(number)
    return text.replace(".", ",") if lang == "de" else text


def percent_text(p: Fraction, lang: str) -> str:
    """A probability in per cent with two decimals, halves up (the mail's
    ``Quote`` says it the same way: ``bot.render.odds``)."""
    from bot.render.odds import exact_percent

    return exact_percent(p, lang)


# ---------------------------------------------------------------- lineup

def parse_lineup(text: str, w: Words) -> Lineup:
    """``Lineup.parse`` with its error in the output's language."""
    from bot.render.reasons import reason
    from bot.rules.errors import InvalidLineupError
    from bot.rules.lineup import Lineup

    try:
        return Lineup.parse(text)
    except InvalidLineupError as exc:
        raise CliError(N_("invalid lineup %(text)s: %(reason)s; expected five whole numbers "
                          "T-A-V-M-S, e.g. '10-10-15-15-20'"),
                       text=repr(exc.text), reason=reason(exc.reason, w.language)) from None


def parse_wp(text: str | None) -> Decimal:
    """``as_wp`` with its error in the output's language (None: a new team's WP)."""
    from bot.rules.wp import INITIAL_WP, as_wp

    if text is None:
        return INITIAL_WP
    try:
        return as_wp(text)
    except ValueError:
        raise CliError(N_("invalid WP %(text)s: expected a decimal number >= 0 such as "
                          "'95.3'"), text=repr(text)) from None


def cmd_lineup(args: argparse.Namespace) -> int:
    from bot.rules.corrections import correct
    from bot.rules.wp import budget

    w = _words(args)
    lineup = parse_lineup(" ".join(args.lineup), w)
    wp = parse_wp(args.wp)
    corrected = correct(lineup, budget(wp))
    if args.json:
        _print_json(corrected.to_json())
    else:
        sys.stdout.write(lineup_text(corrected, wp, w))
    return 0


def rule_name(rule: str, w: Words) -> str:
    """A correction's rule (``Correction.rule``) in words."""
    match rule:
        case "back_cap":
            return w._("cap of 10 for goalkeeper/sweeper")
        case "three_to_one":
            return w._("3:1 rule")
        case "budget":
            return w._("shortened to the budget")
    return rule


def correction_lines(corrected: CorrectedLineup, w: Words) -> list[str]:
    return [f"  {rule_name(c.rule, w)}: {c.row} {c.before} -> {c.after}"
            for c in corrected.corrections]


def lineup_text(corrected: CorrectedLineup, wp: Decimal, w: Words) -> str:
    lines = _aligned([
        (w._("Sent:"), corrected.original),
        (w._("Lineup:"), corrected.lineup),
        (w._("Cost:"), w._("%(cost)s WP (budget: %(budget)s WP, the %(wp)s WP rounded down)",
                           cost=corrected.lineup.cost, budget=corrected.budget,
                           wp=shown(wp, w.language))),
    ], LINEUP_COLUMN)
    if not corrected.corrections:
        lines.append(w._("No corrections: the lineup plays as sent."))
    else:
        lines.append(w._("Corrections:"))
        lines += correction_lines(corrected, w)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- match

def cmd_match(args: argparse.Namespace) -> int:
    from bot.rules.versus import match_as_played

    w = _words(args)
    given: list[str | None] = args.wp or [None]
    if len(given) > 2:
        raise CliError(N_("--wp at most twice (for X and Y), not %(count)s times"),
                       count=len(given))
    wps = [parse_wp(text) for text in given]
    wp_x, wp_y = wps[0], wps[-1]
    x, y = parse_lineup(args.x, w), parse_lineup(args.y, w)
    played, result = match_as_played(x, y, wp_x, wp_y)  # the mail's Quote plays them so
    if args.json:
        _print_json(match_json(result, played))
    else:
        sys.stdout.write(match_text(x, y, result, w, played))
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


def played_text(side: str, corrected: CorrectedLineup, w: Words) -> list[str]:
    """Whether a lineup plays as typed, and if not how and why (one line each)."""
    if not corrected.changed:
        return [w._("%(side)s plays as typed (budget %(budget)s WP).", side=side,
                    budget=corrected.budget)]
    return [
        w._("%(side)s would not play as typed: %(sent)s becomes %(played)s (budget %(budget)s "
            "WP):", side=side, sent=corrected.original, played=corrected.lineup,
            budget=corrected.budget),
        *correction_lines(corrected, w),
    ]


def match_text(
    x: Lineup, y: Lineup, result: MatchOdds, w: Words,
    played: tuple[CorrectedLineup, CorrectedLineup] | None = None,
) -> str:
    from bot.render.odds import goals

    lang = w.language
    (cx, cy), (px, py), (gx, gy) = result.chances, result.goal_probability, result.expected_goals
    lines = []
    if played is not None:
        lines += played_text("X", played[0], w)
        lines += played_text("Y", played[1], w)
        x, y = played[0].lineup, played[1].lineup
    lines.append(w._("%(x)s against %(y)s", x=x, y=y))
    lines += _aligned([
        (w._("Goal chances:"), f"{cx} : {cy}"),
        (w._("Goal per chance:"), f"{percent_text(px, lang)} : {percent_text(py, lang)}"),
        (w._("Expected goals:"), f"{goals(gx, lang)} : {goals(gy, lang)}"),
        (w._("Win:"), percent_text(result.win, lang)),
        (w._("Draw:"), percent_text(result.draw, lang)),
        (w._("Loss:"), percent_text(result.loss, lang)),
    ], MATCH_COLUMN)
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
    w = _words(args)
    periods = rate_file(Path(args.file), bound=args.bound)
    if args.json:
        _print_json([period_json(p) for p in periods])
    else:
        sys.stdout.write(psz_text(periods, args.bound, w))
    return 0


def rate_file(path: Path, *, bound: bool = True) -> list[PlayerPeriod]:
    """Read the CSV and rate every player, in the order of first appearance."""
    from bot.rules.psz import Result, period_update

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
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            text = handle.read()
    except OSError as exc:
        raise CliError(N_("cannot read %(path)s (%(reason)s)"), path=str(path),
                       reason=exc) from None
    except UnicodeDecodeError as exc:
        raise CliError(N_("%(path)s is not UTF-8 text (byte %(byte)s); save it as UTF-8"),
                       path=str(path), byte=exc.start) from None
    first_line = text.split("\n", 1)[0]
    delimiter = ";" if ";" in first_line and "," not in first_line else ","
    reader = csv.reader(text.splitlines(), delimiter=delimiter)
    players: dict[str, PlayerGames] = {}
    try:
        header = next(reader, None)
        if header is None:
            raise CliError(N_("%(path)s: empty file; expected the header %(header)s"),
                           path=str(path), header=",".join(CSV_COLUMNS))
        columns = _columns(path, header)
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise CliError(N_("%(path)s:%(line)s: %(count)s fields instead of %(wanted)s "
                                  "(%(header)s)"), path=str(path), line=line, count=len(row),
                               wanted=len(header), header=",".join(CSV_COLUMNS))
            cell = {name: row[i].strip() for name, i in columns.items()}
            _add_game(path, line, cell, players, decimal_comma=delimiter == ";")
    except csv.Error as exc:
        raise CliError(N_("%(path)s:%(line)s: unreadable CSV (%(reason)s)"), path=str(path),
                       line=reader.line_num, reason=str(exc)) from None
    if not players:
        raise CliError(N_("%(path)s: no games; expected one row per game after the header"),
                       path=str(path))
    return list(players.values())


def _columns(path: Path, header: list[str]) -> dict[str, int]:
    names = [h.strip().lower() for h in header]
    missing = [c for c in CSV_COLUMNS if c not in names]
    unknown = [h for h in names if h not in CSV_COLUMNS]
    duplicate = sorted({h for h in names if names.count(h) > 1})
    if missing or unknown or duplicate:
        raise CliError(N_("%(path)s:1: header %(header)s: missing %(missing)s; unknown "
                          "%(unknown)s; repeated %(repeated)s; expected %(expected)s"),
                       path=str(path), header=repr(",".join(header)),
                       missing=_listed(missing), unknown=_listed(unknown),
                       repeated=_listed(duplicate), expected=",".join(CSV_COLUMNS))
    return {name: names.index(name) for name in CSV_COLUMNS}


def _add_game(
    path: Path, line: int, cell: dict[str, str], players: dict[str, PlayerGames],
    *, decimal_comma: bool,
) -> None:
    from bot.rules.errors import InvalidResultError
    from bot.rules.psz import Result

    name = cell["player"]
    if not name:
        raise CliError(N_("%(path)s:%(line)s: the player's name is empty"), path=str(path),
                       line=line)
    own = _psz(path, line, "psz", cell["psz"], decimal_comma)
    opponent = _psz(path, line, "opponent_psz", cell["opponent_psz"], decimal_comma)
    try:
        result = Result.parse(cell["result"])
    except InvalidResultError:
        raise CliError(N_("%(path)s:%(line)s: invalid result %(text)s: expected 1, 0.5 or 0 "
                          "(also W/D/L or S/U/N)"), path=str(path), line=line,
                       text=repr(cell["result"])) from None
    player = players.setdefault(name, PlayerGames(name, own, line))
    if own != player.psz:
        raise CliError(N_("%(path)s:%(line)s: player %(name)s starts with PSZ %(psz)s here but "
                          "with %(first)s on line %(first_line)s; every row of a player carries "
                          "the same PSZ, the one from the start of the period"),
                       path=str(path), line=line, name=repr(name), psz=cell["psz"],
                       first=decimal_text(player.psz), first_line=player.first_line)
    player.games.append((opponent, result))


def _psz(path: Path, line: int, column: str, text: str, decimal_comma: bool) -> Fraction:
    value = text.replace(",", ".") if decimal_comma else text
    try:
        number = Decimal(value)
    except InvalidOperation:
        number = None
    if number is None or not number.is_finite():
        raise CliError(N_("%(path)s:%(line)s: %(column)s %(text)s is not a number; expected "
                          "e.g. 250 or 232.5"), path=str(path), line=line, column=column,
                       text=repr(text))
    return Fraction(number)


def period_json(period: PlayerPeriod) -> dict[str, object]:
    from bot.rules.rounding import half_up, to_cents

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


def psz_text(periods: list[PlayerPeriod], bound: bool, w: Words) -> str:
    from bot.rules.rounding import half_up, to_cents

    lang = w.language
    header = w._("Player|Games|W|D|L|PSZ before|Points|PSZ after|rounded").split("|")
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
        rest = [c.rjust(wd) for c, wd in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join([first, *rest]).rstrip()

    title = (w._("PSZ balance (bounded at zero)") if bound
             else w._("PSZ balance (not bounded at zero)"))
    return "\n".join([title, fmt(header), *(fmt(r) for r in rows)]) + "\n"


def _listed(names: list[str]) -> str:
    return ", ".join(repr(n) for n in names) or "-"


def _print_json(data: object) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
