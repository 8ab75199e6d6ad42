"""``turnited verify ROUND SEED [COMMITMENT]``: does the seed revealed in a
round's results match the commitment published before its deadline
(RULES.md §4)? The commitment is read from the state, or taken from the
command line (then no state is needed). The same check by hand::

    printf 'turnited-seed:%s:%s' ROUND SEED | sha256sum
"""

from __future__ import annotations

import argparse

from bot.cli import setup
from bot.cli.errors import CliError
from bot.cli.manager import add_state_options
from bot.errors import N_


def _state_commitment(args: argparse.Namespace, round_number: int) -> str | None:
    with setup.services(setup.load(args)) as ctx, ctx.db.read() as conn:
        return ctx.league.commitment(conn, round_number)


def cmd_verify(args: argparse.Namespace) -> int:
    from bot.rules.lots import (
        InvalidCommitmentError,
        commitment_text,
        normalise_commitment,
        seed_commitment,
    )

    w = setup.words(args)
    if args.round < 1 or args.seed < 0:
        raise CliError(N_("round %(round)s, seed %(seed)s: rounds are numbered from 1 and seeds "
                          "are whole numbers from 0, e.g. verify 12 4711"),
                       round=args.round, seed=args.seed)
    expected = seed_commitment(args.round, args.seed)
    try:
        published = (normalise_commitment(args.commitment) if args.commitment
                     else _state_commitment(args, args.round))
    except InvalidCommitmentError:
        raise CliError(N_("%(text)s is no commitment: a commitment is 64 hexadecimal digits, "
                          "as the newsletter prints it"), text=repr(args.commitment)) from None
    if published is None:
        raise CliError(N_("this state has no published commitment for round %(round)s; give "
                          "the COMMITMENT from the newsletter"), round=args.round)
    if expected == published:
        print(w._("Matches: the seed %(seed)s is the one committed for round %(round)s before "
                  "its deadline (commitment %(commitment)s).", seed=args.seed,
                  round=args.round, commitment=published))
        return 0
    print(w._("Does NOT match: the SHA-256 of %(text)s is %(actual)s, the published commitment "
              "is %(commitment)s.", text=repr(commitment_text(args.round, args.seed)),
              actual=expected, commitment=published))
    return 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "verify", help="check a round's revealed seed against its published commitment",
        description="Check that SEED (revealed in the results of ROUND) is the one whose "
        "commitment was published before the deadline. Exit status 0: it matches, 1: it "
        "does not. With COMMITMENT no state directory is needed.",
        epilog="examples:\n"
        "  turnited verify 12 4711\n"
        "  turnited verify 12 4711 9c1b...e0 (the 64 hex digits from the newsletter)\n"
        "by hand:\n  printf 'turnited-seed:%s:%s' 12 4711 | sha256sum",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("round", metavar="ROUND", type=int, help="the overall round number")
    p.add_argument("seed", metavar="SEED", type=int, help="the seed revealed in the results")
    p.add_argument("commitment", metavar="COMMITMENT", nargs="?",
                   help="the published commitment (default: read from the state)")
    add_state_options(p)
    p.set_defaults(handler=cmd_verify)
