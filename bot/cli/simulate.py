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
probabilities, in the game's language (German unless ``--lang en`` or the
configuration says otherwise), through the message catalog. ``--json``
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
import sys
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.cli.errors import CliError
from bot.errors import N_

if TYPE_CHECKING:  # imported when used: the CLI starts fast
    from bot.render.words import Words
    from bot.rules.lineup import Lineup
    from bot.rules.tournament import Entrant, Points

#: Monte Carlo runs of a preview (a real round: the configuration, 100 000).
PREVIEW_SIMULATIONS = 10_000
#: Seeds drawn without ``--seed`` are below this (short enough to type again).
SEED_RANGE = 1_000_000
#: Show a progress bar on a terminal from this many simulations on.
PROGRESS_FROM = 20_000

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
    parser.set_defaults(handler=cmd_simulate)


# --------------------------------------------------------------------------- input


def parse_points(text: str) -> Points:
    from bot.rules.tournament import Points

    parts = str(text).replace(",", "-").replace("/", "-").split("-")
    try:
        values = [int(p) for p in parts]
    except ValueError:
        values = []
    if len(values) != 3:
        raise CliError(N_("--points %(value)s: expected three whole numbers W-D-L, e.g. 3-1-0"),
                       value=repr(text))
    win, draw, loss = values
    if not win >= draw >= loss:
        raise CliError(N_("--points %(value)s: a win must give at least as many points as a "
                          "draw and a draw as many as a loss, e.g. 3-1-0 or 2-1-0"),
                       value=repr(text))
    return Points(*values)


def _lineup(value: Any, where: str, w: Words) -> Lineup:
    from bot.render.reasons import reason
    from bot.rules.errors import InvalidLineupError
    from bot.rules.lineup import Lineup

    if isinstance(value, list):
        if len(value) != 5 or not all(isinstance(v, int) and not isinstance(v, bool)
                                      for v in value):
            raise CliError(N_("%(where)s: lineup %(value)s must be five whole numbers "
                              "T-A-V-M-S"), where=where, value=repr(value))
        return Lineup.from_values(value)
    if not isinstance(value, str | int):
        raise CliError(N_("%(where)s: lineup %(value)s must be text like '10-10-15-15-20'"),
                       where=where, value=repr(value))
    try:
        return Lineup.parse(str(value))
    except InvalidLineupError as exc:
        raise CliError(N_("%(where)s: invalid lineup %(value)s: %(reason)s; expected five "
                          "whole numbers T-A-V-M-S, e.g. '10-10-15-15-20'"), where=where,
                       value=repr(exc.text), reason=reason(exc.reason, w.language)) from None


def _decimal(value: Any, where: str, what: str, example: str, w: Words) -> Decimal:
    if w.language == "de":
        example = example.replace(".", ",")
    number: Decimal | None = None
    if not isinstance(value, bool) and isinstance(value, int | float | str | Decimal):
        try:
            number = Decimal(str(value).strip())
        except InvalidOperation:
            number = None
    if number is None:
        raise CliError(N_("%(where)s: %(what)s %(value)s must be a number, e.g. %(example)s"),
                       where=where, what=what, value=repr(value), example=example)
    if not number.is_finite() or number < 0:
        raise CliError(N_("%(where)s: %(what)s %(value)s must be a finite number >= 0, e.g. "
                          "%(example)s"), where=where, what=what, value=repr(value),
                       example=example)
    return number


def load_teams(path: Path, notes: Callable[[str], None], w: Words) -> list[Entrant]:
    """Read TEAMS.yaml into corrected entrants; ``notes`` receives one line per
    corrected lineup. Raises ``CliError`` with a one-line message for bad input."""
    import yaml

    from bot.rules.corrections import correct
    from bot.rules.errors import RulesError
    from bot.rules.psz import INITIAL_PSZ
    from bot.rules.tournament import GM_PREFIX, Entrant, validate_entrants
    from bot.rules.wp import INITIAL_WP, budget

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CliError(N_("cannot read %(path)s (%(reason)s)"), path=repr(str(path)),
                       reason=exc) from None
    except UnicodeDecodeError as exc:
        raise CliError(N_("%(path)s is not UTF-8 text (byte %(byte)s); save it as UTF-8"),
                       path=str(path), byte=exc.start) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or "?"
        if mark is None:
            raise CliError(N_("%(path)s: invalid YAML: %(problem)s"), path=str(path),
                           problem=problem) from None
        raise CliError(N_("%(path)s: invalid YAML at line %(line)s, column %(column)s: "
                          "%(problem)s"), path=str(path), line=mark.line + 1,
                       column=mark.column + 1, problem=problem) from None
    if data is None:
        data = []
    if not isinstance(data, list):
        raise CliError(N_("%(path)s: expected a YAML list of teams ({name, lineup, wp?, "
                          "psz?}), not %(kind)s"), path=str(path), kind=type(data).__name__)
    entrants = []
    seen: dict[str, str] = {}
    for number, item in enumerate(data, start=1):
        where = w._("%(path)s: team %(number)s", path=str(path), number=number)
        if not isinstance(item, dict):
            raise CliError(N_("%(where)s: expected a mapping with name and lineup, not "
                              "%(value)s"), where=where, value=repr(item))
        unknown = sorted(set(map(str, item)) - {"name", "lineup", "wp", "psz"})
        if unknown:
            raise CliError(N_("%(where)s: unknown key(s) %(keys)s; allowed: name, lineup, wp, "
                              "psz"), where=where, keys=", ".join(unknown))
        name = item.get("name")
        if not isinstance(name, str | int) or not str(name).strip():
            raise CliError(N_("%(where)s: every team needs a name, e.g. 'name: Rote Teufel'"),
                           where=where)
        name = " ".join(str(name).split())
        where = w._("%(path)s: team %(number)s (%(name)s)", path=str(path), number=number,
                    name=repr(name))
        key = name.casefold()
        if key in seen:
            raise CliError(N_("%(where)s: the name %(name)s is used twice (also as %(other)s); "
                              "every team needs its own name"), where=where, name=repr(name),
                           other=repr(seen[key]))
        seen[key] = name
        if key.startswith(GM_PREFIX.casefold()):
            raise CliError(N_("%(where)s: %(prefix)s marks GM teams; a player team needs "
                              "another name"), where=where, prefix=repr(GM_PREFIX))
        if "lineup" not in item:
            raise CliError(N_("%(where)s: lineup missing, e.g. 'lineup: 10-10-15-15-20'"),
                           where=where)
        lineup = _lineup(item["lineup"], where, w)
        wp = _decimal(item.get("wp", INITIAL_WP), where, "wp", "92.4", w)
        psz = (Fraction(_decimal(item["psz"], where, "psz", "250", w)) if "psz" in item
               else INITIAL_PSZ)
        corrected = correct(lineup, budget(wp))
        if corrected.changed:
            notes(w._("%(name)s: lineup %(before)s corrected to %(after)s (budget %(budget)s "
                      "WP)", name=name, before=lineup, after=corrected.lineup,
                      budget=corrected.budget))
        entrants.append(Entrant(name, corrected.lineup, psz))
    try:
        validate_entrants(entrants)
    except RulesError as exc:
        raise CliError(N_("%(path)s: %(problem)s"), path=str(path), problem=str(exc)) from None
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


def stage_name(stage: str, w: Words) -> str:
    match stage:
        case "semi_final":
            return w._("Semi-final")
        case "third_place":
            return w._("Third place")
        case "final":
            return w._("Final")
    return stage


def render_text(report: dict, w: Words) -> str:
    """The human-readable preview of a report."""
    lang = w.language
    out: list[str] = []
    teams = report["teams"]
    if report["empty"]:
        return w._("No teams: there is no tournament this round.") + "\n"
    gm = [x for x in teams if x["gm"]]
    out.append(w._("Tournament preview (seed %(seed)s): %(players)s player teams, %(gm)s GM "
                   "teams, %(groups)s groups", seed=report["seed"],
                   players=len(teams) - len(gm), gm=len(gm),
                   groups=len(report["first_groups"])))
    header = tuple(w._("Pos|Team|P|W|D|L|Goals|Diff|Pts").split("|"))
    by_lot = w._("(by lot)")
    any_lot = False
    for stage in report["stages"]:
        out += ["", w._("Stage %(number)s", number=stage["number"])]
        for group in stage["groups"]:
            out += ["", "  " + w._("Group %(name)s", name=group["name"])]
            for game in group["games"]:
                out.append(f"    {game['home']} - {game['away']}  {game['goals'][0]}:"
                           f"{game['goals'][1]}")
            rows = [(*header, "")]
            for row in group["table"]:
                marks = [w._("through")] if row["qualified"] else []
                if row["by_lot"]:
                    marks.append(by_lot)
                    any_lot = True
                rows.append((
                    row["position"], row["team"], row["played"], row["won"], row["drawn"],
                    row["lost"], f"{row['goals_for']}:{row['goals_against']}",
                    _signed(row["goal_difference"]), row["points"], " ".join(marks),
                ))
            out += ["    " + line for line in _columns(rows, {0, 2, 3, 4, 5, 6, 7, 8})]
    if any_lot:
        out += ["", w._("(by lot) = the place was decided by lot")]
    out += ["", w._("Knock-out stage")]
    ko_rows = []
    for game in report["knockout"]:
        result = f"{game['goals'][0]}:{game['goals'][1]}"
        if game["by_lot"]:
            result += f" {by_lot} -> {game['winner']}"
        ko_rows.append((stage_name(game["stage"], w), f"{game['home']} - {game['away']}",
                        result))
    out += ["  " + line for line in _columns(ko_rows, set())]
    out += ["", w._("Placings")]
    out += [f"  {i}. {name}" for i, name in enumerate(report["placings"], start=1)]

    out += ["", w._("WP gain and PSZ of the player teams")]
    rows = [tuple(w._("Team|W-D-L|WP+|PSZ before|PSZ after").split("|"))]
    for team, gain in report["wp_gain"].items():
        rec, psz = report["record"][team], report["psz"][team]
        rows.append((team, f"{rec['won']}-{rec['drawn']}-{rec['lost']}", num(f"+{gain}", lang),
                     num(psz["before"], lang), num(psz["after"], lang)))
    out += ["  " + line for line in _columns(rows, {2, 3, 4})]

    out += ["", w._("Knock-out odds (win/draw/loss of the first-named team)")]
    rows = []
    for o in report["knockout_odds"]:
        p = o["percent"]
        rows.append((stage_name(o["stage"], w), f"{o['home']} - {o['away']}",
                     num(f"{p['win']}%", lang), num(f"{p['draw']}%", lang),
                     num(f"{p['loss']}%", lang)))
    out += ["  " + line for line in _columns(rows, {2, 3, 4})]

    out += ["", w._("Turnierfußball: everyone against everyone, home and away (expected)")]
    rows = [tuple(w._("Pos|Team|Pts|Goals|Diff").split("|"))]
    for row in report["expectation_table"]:
        a = row["approx"]
        rows.append((row["position"], row["team"], num(f"{a['points']:.2f}", lang),
                     num(f"{a['goals_for']:.2f}:{a['goals_against']:.2f}", lang),
                     num(_signed(f"{a['goals_for'] - a['goals_against']:.2f}"), lang)))
    out += ["  " + line for line in _columns(rows, {0, 2, 3, 4})]

    out.append("")
    if report["simulations"]:
        out.append(w._("Semi-final probability (%(count)s simulations, ± standard error)",
                       count=report["simulations"]))
        prob, err = report["semi_final_probability_all"], report["semi_final_stderr_all"]
        rows = [(name, num(f"{100 * p:.1f}%", lang), num(f"± {100 * err[name]:.2f}", lang))
                for name, p in sorted(prob.items(), key=lambda kv: (-kv[1], kv[0])) if p > 0]
        out += ["  " + line for line in _columns(rows, {1, 2})]
    else:
        out.append(w._("Semi-final probability: not simulated (--simulations 0)"))

    out += ["", w._("Lineups (preview only)")]
    rows = [(x["name"], x["lineup"]) for x in teams if not x["gm"]]
    out += ["  " + line for line in _columns(rows, set())]
    return "\n".join(out) + "\n"


def draw_seed() -> int:
    """A fresh seed for a preview without ``--seed`` (from the OS's generator)."""
    import secrets

    return secrets.randbelow(SEED_RANGE)


def cmd_simulate(args: argparse.Namespace) -> int:
    from bot.cli import setup
    from bot.rules.report import build_report

    w = setup.words(args)
    if args.simulations < 0:
        raise CliError(N_("--simulations %(value)s: must be 0 or more"), value=args.simulations)
    if args.seed is not None and args.seed < 0:
        raise CliError(N_("--seed %(value)s: must be 0 or more"), value=args.seed)
    points = parse_points(args.points)
    entrants = load_teams(Path(args.teams), lambda line: print(line, file=sys.stderr), w)
    seed = args.seed
    if seed is None:
        seed = draw_seed()
        print(w._("Drew seed %(seed)s (the same preview again: --seed %(seed)s)", seed=seed),
              file=sys.stderr)
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
        sys.stdout.write(render_text(report, w))
    return 0
