"""League commands: ``status`` (where the league stands; ``--json`` for
monitoring) and ``replay ROUND``. Both only read the state, so they load the
configuration without the mail password variables."""

from __future__ import annotations

import argparse

from bot.cli import setup
from bot.cli.errors import CliError
from bot.errors import N_


def cmd_status(args: argparse.Namespace) -> int:
    import json

    from bot.service.status import status

    config = setup.load(args)
    with setup.services(config) as ctx:
        report = status(ctx)
    if args.json:
        print(json.dumps(report.as_dict(), ensure_ascii=False, indent=2))
        return 0
    print("\n".join(report.lines(setup.words(args, config),
                                 plan_known=setup.has_config(args))))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from bot.league.errors import UnknownRound
    from bot.storage import results

    config = setup.load(args)
    w = setup.words(args, config)
    with setup.services(config) as ctx:
        if args.all:
            with ctx.db.read() as conn:
                rounds = results.evaluated_rounds(conn)
            if not rounds:
                raise CliError(N_("no round has been evaluated yet; there is nothing to "
                                  "replay"))
        elif args.round is None:
            raise CliError(N_("give the number of the ROUND to replay, or --all"))
        else:
            rounds = [args.round]
        differing = 0
        for number in rounds:
            try:
                result = ctx.league.replay(number)
            except UnknownRound:
                raise CliError(N_("round %(round)s has not been evaluated; there is nothing "
                                  "to replay"), round=number) from None
            if result.identical:
                print(w._("round %(round)s: identical (seed %(seed)s)", round=number,
                          seed=result.seed))
            else:
                differing += 1
                print(w._("round %(round)s: DIFFERENT (seed %(seed)s)", round=number,
                          seed=result.seed))
                print(result.diff)
    return 1 if differing else 0


def register(sub: argparse._SubParsersAction) -> None:
    status = sub.add_parser(
        "status",
        help="season, round, deadline, managers, teams, and which teams have a lineup",
        description="Show where the league stands (never any lineup).",
        epilog="examples:\n  turnited --config game/config.yaml status\n"
        "  turnited --config game/config.yaml status --json | jq .outbox.failed",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    status.add_argument("--state", metavar="DIR", help="state directory (default: from the "
                        "configuration, else 'state')")
    status.add_argument("--json", action="store_true",
                        help="one JSON object for monitoring (round, deadline, counts, "
                        "outbox states, bounces, deadlines left)")
    status.set_defaults(handler=cmd_status)

    replay = sub.add_parser(
        "replay",
        help="re-play an evaluated round from its stored inputs and seed",
        description="Re-play a stored round and report whether the result is identical "
        "(exit status 0 identical, 1 different).",
        epilog="example:\n  turnited --config game/config.yaml replay --all",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    replay.add_argument("round", metavar="ROUND", type=int, nargs="?", help="round number")
    replay.add_argument("--all", action="store_true", help="replay every evaluated round")
    replay.add_argument("--state", metavar="DIR", help="state directory (default: from the "
                        "configuration, else 'state')")
    replay.set_defaults(handler=cmd_replay)
