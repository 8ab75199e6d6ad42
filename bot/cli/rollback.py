"""``turnited rollback [ROUND] [--deadline DATE] [--yes]``: undo the last
evaluation (WP, PSZ, deleted teams, ageing, its archive page, results and WP
history) and open the round again with its moves until a deadline that is
not in the past (``--deadline``, else the next planned one); every manager
of the round is told by mail. The next evaluation uses the same committed
seed and its newsletter says that it corrects the earlier one.

It says what it would do and asks before it does it (``--yes`` for
scripts; without a terminal to ask on, ``--yes`` is needed). The use cases
are ``bot.service.rollback`` (``rollback_plan``, ``rollback``); their
results are printed in the game's language.
"""

from __future__ import annotations

import argparse
import sys

from bot.cli import setup
from bot.cli.errors import CliError
from bot.cli.manager import add_state_options
from bot.errors import N_

#: Answers that confirm (German or English).
YES = frozenset({"j", "ja", "y", "yes"})


def confirmed(question: str) -> bool:
    """Ask ``question`` on the terminal; only a yes confirms."""
    if not sys.stdin.isatty():
        raise CliError(N_("a rollback needs a confirmation: run it on a terminal, or give "
                          "--yes"))
    try:
        answer = input(question)
    except EOFError:
        return False
    return answer.strip().lower() in YES


def cmd_rollback(args: argparse.Namespace) -> int:
    from bot.league.errors import UnknownRound
    from bot.schedule import parse_local_datetime
    from bot.service.rollback import rollback, rollback_plan

    config = setup.load(args)
    w = setup.words(args, config)
    deadline = (parse_local_datetime(args.deadline, config.schedule.zone)
                if args.deadline else None)
    try:
        with setup.services(config) as ctx:
            plan = rollback_plan(ctx, args.round, deadline)
            print("\n".join(plan.lines(w)))
            if not args.yes and not confirmed(w._("Take round %(round)s back? [y/N] ",
                                                  round=plan.round)):
                print(w._("Nothing changed."))
                return 1
            report = rollback(ctx, plan.round, plan.deadline)
    except UnknownRound as exc:
        raise CliError(N_("round %(round)s has not been evaluated: there is nothing to roll "
                          "back"), round=exc.number) from exc
    print("\n".join(report.lines(w)))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rollback", help="undo the last evaluation and open its round again",
        description="Undo the last evaluation: WP, PSZ, deleted teams, ageing, its archive "
        "page, its results and WP history. The round is open again with its lineups until "
        "a deadline that is not in the past (--deadline, else the next planned one), and "
        "every manager of the round is told by mail that its results are withdrawn; the "
        "next evaluation uses the same committed seed and its newsletter says that it "
        "corrects the earlier one. Unsent newsletters of the round are cancelled. Refused "
        "when nothing was evaluated or ROUND is not the last evaluated round. Asks before "
        "it changes anything (--yes: does not ask).",
        epilog="examples:\n  turnited rollback\n"
        "  turnited rollback 12 --deadline '24.01.2027 20:00' --yes\n"
        "  (refused unless 12 is the last evaluated round)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("round", metavar="ROUND", type=int, nargs="?",
                   help="the round to roll back (must be the last evaluated one)")
    p.add_argument("--deadline", metavar="DATE",
                   help="the reopened round's new deadline, local time in schedule.timezone, "
                   "e.g. '24.01.2027 20:00' or '2027-01-24 20:00' (default: the next planned "
                   "deadline)")
    p.add_argument("--yes", action="store_true", help="do not ask for a confirmation")
    add_state_options(p)
    p.set_defaults(handler=cmd_rollback)
