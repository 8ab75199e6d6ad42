"""``turnited import FILE.csv --season S --round K [--dry-run] [--no-welcome]``:
take over a league played with another program (RULES.md §14).

Parses the arguments, reads the file and calls the import use case
(``bot.service.takeover.import_league``); prints, in ``game.language``, what
was (or would be) imported or every problem of the table with its line
(exit status 2, nothing changed). The welcome mails are queued in the
outbox; the running bot (or ``turnited send``) sends them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bot.cli import setup
from bot.cli.errors import CliError
from bot.errors import N_


def cmd_import(args: argparse.Namespace) -> int:
    from bot.app import build_app
    from bot.league.import_table import ENCODINGS
    from bot.render.import_report import render_plan, render_refusal
    from bot.schedule import parse_local_datetime
    from bot.service.takeover import ImportRefused, import_league

    config = setup.load(args, required=True)
    path = Path(args.file)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CliError(N_("cannot read the table %(path)s: %(error)s"), path=str(path),
                       error=exc) from None
    if args.encoding not in ENCODINGS:  # pragma: no cover - argparse's choices
        raise CliError(N_("--encoding %(given)s: one of %(known)s"), given=args.encoding,
                       known=", ".join(ENCODINGS))
    language = setup.language(args, config)
    app = build_app(config)
    try:
        now = app.clock()
        if args.deadline:
            deadline = parse_local_datetime(args.deadline, config.schedule.zone)
        else:
            planned = app.plan.next_deadline(now)
            if planned is None:
                raise CliError(N_("schedule.deadlines has no deadline after now: add one or "
                                  "give --deadline '20.12.2026 20:00'"))
            deadline = planned
        try:
            result = import_league(
                app.services, data, source=path.name, season=args.season,
                round_in_season=args.round, deadline=deadline, dry_run=args.dry_run,
                welcome=not args.no_welcome, encoding=args.encoding,
            )
        except ImportRefused as refused:
            print(render_refusal(refused.problems, source=path.name, language=language,
                                 env=app.environments), file=sys.stderr)
            return 2
        imported = result.imported
        print(render_plan(
            result.plan, source=path.name, dry_run=result.dry_run,
            deadline=imported.round.deadline if imported else deadline,
            timezone=config.schedule.timezone, language=language,
            commitment=imported.commitment if imported else None,
            welcome_mails=result.welcome_mails, env=app.environments))
    finally:
        app.close()
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    from bot.league.import_table import ENCODINGS

    p = sub.add_parser(
        "import",
        help="take over a league played elsewhere: import its teams from a CSV table",
        description=(
            "Fill an empty league from a table with the header "
            "team,short,manager,address,language,wp,psz,last_round; the bot "
            "then plays round K of season S (overall number (S-1)*5+K). Every row is "
            "checked first; any problem is reported with its line and nothing is imported."),
        epilog="examples:\n"
        "  turnited --config game/config.yaml import teams.csv --season 7 --round 1 --dry-run\n"
        "  turnited --config game/config.yaml import teams.csv --season 7 --round 1",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", help="the table (CSV: commas, semicolons or tabs; UTF-8 or "
                   "a Windows/Latin-1 spreadsheet export)")
    p.add_argument("--season", type=int, required=True, help="the season that continues here")
    p.add_argument("--round", type=int, required=True,
                   help="the round of that season the bot plays first (1-5)")
    p.add_argument("--dry-run", action="store_true",
                   help="check the table and show what would be imported; change nothing")
    p.add_argument("--no-welcome", action="store_true",
                   help="queue no welcome mails (the game master tells the managers himself)")
    p.add_argument("--deadline", help="the first round's deadline, local time of "
                   "schedule.timezone (default: the next planned deadline)")
    p.add_argument("--encoding", default="auto", choices=ENCODINGS,
                   help="the table's encoding (default: %(default)s: a byte-order mark, "
                   "else UTF-8, else Windows-1252)")
    p.set_defaults(handler=cmd_import)


__all__ = ["cmd_import", "register"]

