"""``turnited simulate TEAMS.yaml [--seed N]``: preview a whole tournament.

TEAMS.yaml is a YAML list of teams:

    - name: Rote Teufel
      lineup: 10-10-15-15-20      # any form a mail may use, or a list of five numbers
      wp: 92.4                    # optional, default 90: the budget is floor(wp)
      psz: 251.37                 # optional, default 250

Each lineup is corrected against floor(wp) (back caps, the 3:1 rule and the
budget, as in the rules; every correction is noted on stderr), then the
tournament is played with the seed exactly as a round would be. The output lists the
group tables of every stage, the knock-out games, placings, WP and PSZ
changes, the exact knock-out odds, the expectation table and the semi-final
probabilities, in German (default) or English (``--lang en``). ``--json``
prints the complete report instead, *including the player lineups* under
``teams`` (this is a preview; the newsletter never shows them).

Without ``--seed`` a seed is drawn and printed (on stderr, and in the
title), so any preview can be repeated with ``--seed N``. Numbers are
written the way the output's language writes them (German: decimal comma),
and so are errors in the input.

``--simulations`` defaults to 10 000 for a quick preview (a real round uses
the configured ``analysis.simulations``, 100 000 by default); 0 skips the
Monte Carlo. On a terminal a progress bar shows on stderr for long runs.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

from bot.render.reasons import reason
from bot.rules.corrections import correct
from bot.rules.errors import InvalidLineupError, RulesError
from bot.rules.lineup import Lineup
from bot.rules.psz import INITIAL_PSZ
from bot.rules.report import build_report
from bot.rules.tournament import Entrant, Points, validate_entrants
from bot.rules.wp import INITIAL_WP, budget

#: Monte Carlo runs of a preview (a real round: the configuration, 100 000).
PREVIEW_SIMULATIONS = 10_000
#: Seeds drawn without ``--seed`` are below this (short enough to type again).
SEED_RANGE = 1_000_000
#: Show a progress bar on a terminal from this many simulations on.
PROGRESS_FROM = 20_000

#: Per language: a line's format string, or a table's header row (a tuple).
TEXT: dict[str, dict[str, Any]] = {
    "de": {
        "title": "Turnier-Vorschau (Seed {seed}): {players} Spielerteams, {gm} GM-Teams, "
                 "{groups} Gruppen",
        "empty": "Keine Teams: in dieser Runde findet kein Turnier statt.",
        "stage": "Runde {number}",
        "group": "Gruppe {name}",
        "header": ("Pl", "Team", "Sp", "S", "U", "N", "Tore", "Diff", "Pkt"),
        "qualified": "weiter",
        "lot": "n.L.",
        "lot_note": "n.L. = Platz nach Losentscheid",
        "knockout": "K.-o.-Runde",
        "semi_final": "Halbfinale",
        "third_place": "Spiel um Platz 3",
        "final": "Finale",
        "placings": "Platzierungen",
        "wp_psz": "WP-Gewinn und PSZ der Spielerteams",
        "wp_psz_header": ("Team", "S-U-N", "WP+", "PSZ vorher", "PSZ nachher"),
        "odds": "Quoten der K.-o.-Spiele (Sieg/Unentschieden/Niederlage des Erstgenannten)",
        "expectation": "Turnierfußball: jeder gegen jeden, Hin- und Rückspiel (Erwartungswerte)",
        "expectation_header": ("Pl", "Team", "Pkt", "Tore", "Diff"),
        "semi": "Halbfinal-Wahrscheinlichkeit ({k} Simulationen, ± Standardfehler)",
        "no_semi": "Halbfinal-Wahrscheinlichkeit: keine Simulation (--simulations 0)",
        "lineups": "Aufstellungen (nur in der Vorschau)",
        "corrected": "{name}: Aufstellung {before} korrigiert zu {after} (Budget {budget} WP)",
        "seed_drawn": "Seed {seed} gezogen (dieselbe Vorschau wieder: --seed {seed})",
        "seed_negative": "--seed {value}: muss 0 oder größer sein",
        "simulations_negative": "--simulations {value}: muss 0 oder größer sein",
        "points": "--points {value!r}: erwartet drei ganze Zahlen S-U-N, z. B. 3-1-0",
        "lineup_list": "{where}: Aufstellung {value!r} muss aus fünf ganzen Zahlen T-A-V-M-S "
                       "bestehen",
        "lineup_text": "{where}: Aufstellung {value!r} muss Text wie '10-10-15-15-20' sein",
        "lineup_invalid": "{where}: ungültige Aufstellung {value!r}: {reason}; erwartet werden "
                          "fünf ganze Zahlen T-A-V-M-S, z. B. '10-10-15-15-20'",
        "number": "{where}: {what} {value!r} muss eine Zahl sein, z. B. {example}",
        "number_range": "{where}: {what} {value!r} muss eine endliche Zahl >= 0 sein, "
                        "z. B. {example}",
        "unreadable_file": "{path!r} ist nicht lesbar: {reason}",
        "yaml": "{path}: kein gültiges YAML{at}: {problem}",
        "yaml_at": " in Zeile {line}, Spalte {column}",
        "not_a_list": "{path}: erwartet wird eine YAML-Liste von Teams ({{name, lineup, wp?, "
                      "psz?}}), nicht {kind}",
        "not_a_mapping": "{where}: erwartet werden name und lineup, nicht {value!r}",
        "unknown_keys": "{where}: unbekannte Angabe(n) {keys}; erlaubt: name, lineup, wp, psz",
        "no_name": "{where}: jedes Team braucht einen Namen, z. B. 'name: Rote Teufel'",
        "no_lineup": "{where}: lineup fehlt, z. B. 'lineup: 10-10-15-15-20'",
        "team": "{path}: Team {number}",
        "team_named": "{path}: Team {number} ({name!r})",
    },
    "en": {
        "title": "Tournament preview (seed {seed}): {players} player teams, {gm} GM teams, "
                 "{groups} groups",
        "empty": "No teams: there is no tournament this round.",
        "stage": "Stage {number}",
        "group": "Group {name}",
        "header": ("Pos", "Team", "P", "W", "D", "L", "Goals", "Diff", "Pts"),
        "qualified": "through",
        "lot": "(by lot)",
        "lot_note": "(by lot) = place decided by lot",
        "knockout": "Knock-out stage",
        "semi_final": "Semi-final",
        "third_place": "Third place",
        "final": "Final",
        "placings": "Placings",
        "wp_psz": "WP gain and PSZ of the player teams",
        "wp_psz_header": ("Team", "W-D-L", "WP+", "PSZ before", "PSZ after"),
        "odds": "Knock-out odds (win/draw/loss of the first-named team)",
        "expectation": "Turnierfußball: everyone against everyone, home and away (expected)",
        "expectation_header": ("Pos", "Team", "Pts", "Goals", "Diff"),
        "semi": "Semi-final probability ({k} simulations, ± standard error)",
        "no_semi": "Semi-final probability: not simulated (--simulations 0)",
        "lineups": "Lineups (preview only)",
        "corrected": "{name}: lineup {before} corrected to {after} (budget {budget} WP)",
        "seed_drawn": "drew seed {seed} (the same preview again: --seed {seed})",
        "seed_negative": "--seed {value}: must be 0 or more",
        "simulations_negative": "--simulations {value}: must be 0 or more",
        "points": "--points {value!r}: expected three whole numbers W-D-L, e.g. 3-1-0",
        "lineup_list": "{where}: lineup {value!r} must be five whole numbers T-A-V-M-S",
        "lineup_text": "{where}: lineup {value!r} must be text like '10-10-15-15-20'",
        "lineup_invalid": "{where}: invalid lineup {value!r}: {reason}; expected five whole "
                          "numbers T-A-V-M-S, e.g. '10-10-15-15-20'",
        "number": "{where}: {what} {value!r} must be a number, e.g. {example}",
        "number_range": "{where}: {what} {value!r} must be a finite number >= 0, e.g. {example}",
        "unreadable_file": "cannot read {path!r}: {reason}",
        "yaml": "{path}: invalid YAML{at}: {problem}",
        "yaml_at": " at line {line}, column {column}",
        "not_a_list": "{path}: expected a YAML list of teams ({{name, lineup, wp?, psz?}}), "
                      "got a {kind}",
        "not_a_mapping": "{where}: expected a mapping with name and lineup, got {value!r}",
        "unknown_keys": "{where}: unknown key(s) {keys}; allowed: name, lineup, wp, psz",
        "no_name": "{where}: every team needs a name, e.g. 'name: Rote Teufel'",
        "no_lineup": "{where}: lineup missing, e.g. 'lineup: 10-10-15-15-20'",
        "team": "{path}: team {number}",
        "team_named": "{path}: team {number} ({name!r})",
    },
}


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "simulate",
        help="preview a tournament for a YAML list of teams",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("teams", metavar="TEAMS.yaml",
                        help="YAML list of {name, lineup, wp?, psz?}")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the random generators (default: drawn and printed)")
    parser.add_argument(
        "--simulations", type=int, default=PREVIEW_SIMULATIONS, metavar="K",
        help="Monte Carlo runs for the semi-final probabilities (default: %(default)s; 0: none)",
    )
    parser.add_argument(
        "--points", default="3-1-0", metavar="W-D-L",
        help="table points for win, draw, loss (default: %(default)s)",
    )
    parser.add_argument("--json", action="store_true",
                        help="print the complete report as JSON (with player lineups)")
    parser.add_argument("--lang", choices=sorted(TEXT), default="de",
                        help="language of the text output (default: %(default)s)")
    parser.set_defaults(handler=cmd_simulate)


# --------------------------------------------------------------------------- input


def _error(message: str) -> Exception:
    from bot.cli import CliError

    return CliError(message)


def _say(lang: str, key: str, **params: object) -> Exception:
    """The error ``key`` of ``TEXT`` in the output's language."""
    return _error(TEXT[lang][key].format(**params))


def parse_points(text: str, lang: str = "en") -> Points:
    parts = str(text).replace(",", "-").replace("/", "-").split("-")
    try:
        values = [int(p) for p in parts]
    except ValueError:
        values = []
    if len(values) != 3:
        raise _say(lang, "points", value=text)
    return Points(*values)


def _lineup(value: Any, where: str, lang: str = "en") -> Lineup:
    if isinstance(value, list):
        if len(value) != 5 or not all(isinstance(v, int) and not isinstance(v, bool)
                                      for v in value):
            raise _say(lang, "lineup_list", where=where, value=value)
        return Lineup.from_values(value)
    if not isinstance(value, str | int):
        raise _say(lang, "lineup_text", where=where, value=value)
    try:
        return Lineup.parse(str(value))
    except InvalidLineupError as exc:
        raise _say(lang, "lineup_invalid", where=where, value=exc.text,
                   reason=reason(exc.reason, lang)) from None
    except RulesError as exc:
        raise _error(f"{where}: {exc}") from None


def _decimal(value: Any, where: str, what: str, example: str, lang: str = "en") -> Decimal:
    if lang == "de":
        example = example.replace(".", ",")
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise _say(lang, "number", where=where, what=what, value=value, example=example)
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise _say(lang, "number", where=where, what=what, value=value,
                   example=example) from None
    if not number.is_finite() or number < 0:
        raise _say(lang, "number_range", where=where, what=what, value=value, example=example)
    return number


def load_teams(path: Path, notes: Callable[[str], None], lang: str = "de") -> list[Entrant]:
    """Read TEAMS.yaml into corrected entrants; ``notes`` receives one line per
    corrected lineup. Raises ``CliError`` with a one-line message for bad input."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise _say(lang, "unreadable_file", path=str(path),
                   reason=exc.strerror or exc) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = (TEXT[lang]["yaml_at"].format(line=mark.line + 1, column=mark.column + 1)
              if mark else "")
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise _say(lang, "yaml", path=path, at=at, problem=problem) from None
    if data is None:
        data = []
    if not isinstance(data, list):
        raise _say(lang, "not_a_list", path=path, kind=type(data).__name__)
    entrants = []
    for number, item in enumerate(data, start=1):
        where = TEXT[lang]["team"].format(path=path, number=number)
        if not isinstance(item, dict):
            raise _say(lang, "not_a_mapping", where=where, value=item)
        unknown = sorted(set(map(str, item)) - {"name", "lineup", "wp", "psz"})
        if unknown:
            raise _say(lang, "unknown_keys", where=where, keys=", ".join(unknown))
        name = item.get("name")
        if not isinstance(name, str | int) or not str(name).strip():
            raise _say(lang, "no_name", where=where)
        name = str(name).strip()
        where = TEXT[lang]["team_named"].format(path=path, number=number, name=name)
        if "lineup" not in item:
            raise _say(lang, "no_lineup", where=where)
        lineup = _lineup(item["lineup"], where, lang)
        wp = _decimal(item.get("wp", INITIAL_WP), where, "wp", "92.4", lang)
        psz = (Fraction(_decimal(item["psz"], where, "psz", "250", lang)) if "psz" in item
               else INITIAL_PSZ)
        corrected = correct(lineup, budget(wp))
        if corrected.changed:
            notes(TEXT[lang]["corrected"].format(
                name=name, before=lineup, after=corrected.lineup, budget=corrected.budget))
        entrants.append(Entrant(name, corrected.lineup, psz))
    try:
        validate_entrants(entrants)
    except RulesError as exc:
        raise _error(f"{path}: {exc}") from None
    return entrants


# --------------------------------------------------------------------------- output


def _progress(simulations: int) -> tuple[Callable[[int, int], None] | None, Callable[[], None]]:
    if simulations < PROGRESS_FROM or not sys.stderr.isatty():
        return None, lambda: None
    from tqdm import tqdm

    bar = tqdm(total=simulations, unit="sim", unit_scale=True, file=sys.stderr, leave=False)

    def update(done: int, total: int) -> None:
        bar.update(done - bar.n)

    return update, bar.close


def _columns(rows: list[tuple], right: set[int]) -> list[str]:
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            str(c).rjust(widths[i]) if i in right else str(c).ljust(widths[i])
            for i, c in enumerate(row)
        ).rstrip()
        for row in rows
    ]


def num(text: object, lang: str) -> str:
    """A number (or numbers with signs, ``:`` and ``%``) as ``lang`` writes it:
    German with a decimal comma. Only ever given numbers, never names."""
    text = str(text)
    return text.replace(".", ",") if lang == "de" else text


def _signed(n: int | float | str) -> str:
    return f"+{n}" if not str(n).startswith("-") and str(n) not in ("0", "0.0") else str(n)


def render_text(report: dict, lang: str = "de") -> str:
    """The human-readable preview of a report."""
    t = TEXT[lang]
    out: list[str] = []
    teams = report["teams"]
    if report["empty"]:
        return t["empty"] + "\n"
    gm = [x for x in teams if x["gm"]]
    out.append(t["title"].format(
        seed=report["seed"], players=len(teams) - len(gm), gm=len(gm),
        groups=len(report["first_groups"]),
    ))
    any_lot = False
    for stage in report["stages"]:
        out += ["", t["stage"].format(number=stage["number"])]
        for group in stage["groups"]:
            out += ["", "  " + t["group"].format(name=group["name"])]
            for game in group["games"]:
                out.append(f"    {game['home']} - {game['away']}  {game['goals'][0]}:"
                           f"{game['goals'][1]}")
            rows = [t["header"] + ("",)]
            for row in group["table"]:
                marks = [t["qualified"]] if row["qualified"] else []
                if row["by_lot"]:
                    marks.append(t["lot"])
                    any_lot = True
                rows.append((
                    row["position"], row["team"], row["played"], row["won"], row["drawn"],
                    row["lost"], f"{row['goals_for']}:{row['goals_against']}",
                    _signed(row["goal_difference"]), row["points"], " ".join(marks),
                ))
            out += ["    " + line for line in _columns(rows, {0, 2, 3, 4, 5, 6, 7, 8})]
    if any_lot:
        out += ["", t["lot_note"]]
    out += ["", t["knockout"]]
    ko_rows = []
    for game in report["knockout"]:
        result = f"{game['goals'][0]}:{game['goals'][1]}"
        if game["by_lot"]:
            result += f" {t['lot']} -> {game['winner']}"
        ko_rows.append((t[game["stage"]], f"{game['home']} - {game['away']}", result))
    out += ["  " + line for line in _columns(ko_rows, set())]
    out += ["", t["placings"]]
    out += [f"  {i}. {name}" for i, name in enumerate(report["placings"], start=1)]

    out += ["", t["wp_psz"]]
    rows = [t["wp_psz_header"]]
    for team, gain in report["wp_gain"].items():
        rec, psz = report["record"][team], report["psz"][team]
        rows.append((team, f"{rec['won']}-{rec['drawn']}-{rec['lost']}", num(f"+{gain}", lang),
                     num(psz["before"], lang), num(psz["after"], lang)))
    out += ["  " + line for line in _columns(rows, {2, 3, 4})]

    out += ["", t["odds"]]
    rows = []
    for o in report["knockout_odds"]:
        p = o["percent"]
        rows.append((t[o["stage"]], f"{o['home']} - {o['away']}",
                     num(f"{p['win']}%", lang), num(f"{p['draw']}%", lang),
                     num(f"{p['loss']}%", lang)))
    out += ["  " + line for line in _columns(rows, {2, 3, 4})]

    out += ["", t["expectation"]]
    rows = [t["expectation_header"]]
    for row in report["expectation_table"]:
        a = row["approx"]
        rows.append((row["position"], row["team"], num(f"{a['points']:.2f}", lang),
                     num(f"{a['goals_for']:.2f}:{a['goals_against']:.2f}", lang),
                     num(_signed(f"{a['goals_for'] - a['goals_against']:.2f}"), lang)))
    out += ["  " + line for line in _columns(rows, {0, 2, 3, 4})]

    out.append("")
    if report["simulations"]:
        out.append(t["semi"].format(k=report["simulations"]))
        prob, err = report["semi_final_probability_all"], report["semi_final_stderr_all"]
        rows = [(name, num(f"{100 * p:.1f}%", lang), num(f"± {100 * err[name]:.2f}", lang))
                for name, p in sorted(prob.items(), key=lambda kv: (-kv[1], kv[0])) if p > 0]
        out += ["  " + line for line in _columns(rows, {1, 2})]
    else:
        out.append(t["no_semi"])

    out += ["", t["lineups"]]
    rows = [(x["name"], x["lineup"]) for x in teams if not x["gm"]]
    out += ["  " + line for line in _columns(rows, set())]
    return "\n".join(out) + "\n"


def draw_seed() -> int:
    """A fresh seed for a preview without ``--seed`` (from the OS's generator)."""
    return secrets.randbelow(SEED_RANGE)


def cmd_simulate(args: argparse.Namespace) -> int:
    lang = args.lang
    if args.simulations < 0:
        raise _say(lang, "simulations_negative", value=args.simulations)
    if args.seed is not None and args.seed < 0:
        raise _say(lang, "seed_negative", value=args.seed)
    points = parse_points(args.points, lang)
    entrants = load_teams(Path(args.teams), lambda line: print(line, file=sys.stderr), lang)
    seed = args.seed
    if seed is None:
        seed = draw_seed()
        print(TEXT[lang]["seed_drawn"].format(seed=seed), file=sys.stderr)
    progress, close = _progress(args.simulations)
    try:
        report = build_report(entrants, seed, points=points,
                              simulations=args.simulations, progress=progress)
    finally:
        close()
    if args.json:
        json.dump(report, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_text(report, args.lang))
    return 0
