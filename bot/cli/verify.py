"""``turnited verify ROUND SEED [COMMITMENT]``: does the seed revealed in a
round's results match the commitment published before its deadline
(RULES.md §4)? The commitment is read from the state, or taken from the
command line (then no state is needed). The same check by hand::

    printf 'turnited-seed:%s:%s' ROUND SEED | sha256sum
"""

from __future__ import annotations

import argparse

from bot.cli import CliError, setup
from bot.cli.manager import add_state_options

MESSAGES = {
    "de": {
        "match": "Passt: der Startwert {seed} ist der, der für Runde {round} vor dem "
                 "Einsendeschluss hinterlegt wurde (Verpflichtung {commitment}).",
        "differ": "Passt NICHT: SHA-256 von {text!r} ist {actual}, veröffentlicht wurde "
                  "{commitment}.",
        "missing": "für Runde {round} ist in diesem Spielstand keine Verpflichtung "
                   "veröffentlicht; gib die COMMITMENT aus dem Rundbrief an",
        "bad": "ungültige Eingabe: {error}",
    },
    "en": {
        "match": "Matches: the seed {seed} is the one committed for round {round} before its "
                 "deadline (commitment {commitment}).",
        "differ": "Does NOT match: SHA-256 of {text!r} is {actual}, the published commitment "
                  "is {commitment}.",
        "missing": "this state has no published commitment for round {round}; give the "
                   "COMMITMENT from the newsletter",
        "bad": "invalid input: {error}",
    },
}


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

    language = setup.language(args)
    text = MESSAGES[language if language in MESSAGES else "de"]
    try:
        expected = seed_commitment(args.round, args.seed)
        published = (normalise_commitment(args.commitment) if args.commitment
                     else _state_commitment(args, args.round))
    except InvalidCommitmentError as exc:
        raise CliError(text["bad"].format(error=exc)) from exc
    if published is None:
        raise CliError(text["missing"].format(round=args.round))
    if expected == published:
        print(text["match"].format(seed=args.seed, round=args.round, commitment=published))
        return 0
    print(text["differ"].format(text=commitment_text(args.round, args.seed), actual=expected,
                                commitment=published))
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
