"""``turnited rollback [ROUND]``: undo the last evaluation (WP, PSZ, deleted
teams, ageing, its archive page, results and WP history) and open the round
again with its moves; the next evaluation uses the same committed seed and
its newsletter says that it corrects the earlier one.

The use case is ``bot.service.rollback``; its result is printed in the
game's language.
"""

from __future__ import annotations

import argparse

from bot.cli import CliError, setup
from bot.cli.manager import add_state_options
from bot.errors import N_


def cmd_rollback(args: argparse.Namespace) -> int:
    from bot.league.errors import UnknownRound
    from bot.service.rollback import rollback

    config = setup.load(args)
    w = setup.words(args, config)
    try:
        with setup.services(config) as ctx:
            report = rollback(ctx, args.round)
    except UnknownRound as exc:
        raise CliError(N_("round %(round)s has not been evaluated: there is nothing to roll "
                          "back"), round=exc.number) from exc
    print("\n".join(report.lines(w)))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rollback", help="undo the last evaluation and open its round again",
        description="Undo the last evaluation: WP, PSZ, deleted teams, ageing, its archive "
        "page, its results and WP history. The round is open again with its lineups; the "
        "next evaluation uses the same committed seed and its newsletter says that it "
        "corrects the earlier one. Unsent newsletters of the round are cancelled. Refused "
        "when nothing was evaluated or ROUND is not the last evaluated round.",
        epilog="examples:\n  turnited rollback\n  turnited rollback 12   "
        "(refused unless 12 is the last evaluated round)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("round", metavar="ROUND", type=int, nargs="?",
                   help="the round to roll back (must be the last evaluated one)")
    add_state_options(p)
    p.set_defaults(handler=cmd_rollback)
