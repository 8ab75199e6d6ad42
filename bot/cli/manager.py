"""The game master's commands about one manager: ``manager reset-password
ADDRESS`` (a new password mailed to that address only, through the outbox),
``manager ban ADDRESS`` and ``manager unban ADDRESS`` (RULES.md §9).

Each calls its use case (``bot.service.console``) and prints the result in
the game's language. The state directory is ``--state DIR`` or the
configuration's; no mail password is needed (the mail waits in the outbox
for ``turnited send`` or the running worker).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.cli import setup
from bot.cli.errors import CliError
from bot.errors import N_

if TYPE_CHECKING:  # imported when used: the CLI starts fast
    from bot.render.words import Words
    from bot.service.context import Context

#: A console action: the use cases' context -> the result's lines.
Action = Callable[["Context", "Words"], list[str]]


def _run(args: argparse.Namespace, action: Action, *, required: bool = False) -> int:
    from bot.league.errors import BadAddress

    config = setup.load(args, required=required)
    w = setup.words(args, config)
    try:
        with setup.services(config) as ctx:
            lines = action(ctx, w)
    except BadAddress as exc:
        raise CliError(N_("%(address)s is not a mail address; expected 'name@domain'"),
                       address=repr(exc.address)) from exc
    print("\n".join(lines))
    return 0


def cmd_reset_password(args: argparse.Namespace) -> int:
    from bot.service.console import reset_password

    return _run(args, lambda ctx, w: reset_password(ctx, args.address).lines(w), required=True)


def cmd_ban(args: argparse.Namespace) -> int:
    from bot.service.console import ban

    return _run(args, lambda ctx, w: ban(ctx, args.address).lines(w))


def cmd_unban(args: argparse.Namespace) -> int:
    from bot.service.console import unban

    return _run(args, lambda ctx, w: unban(ctx, args.address).lines(w))


def add_state_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--state", metavar="DIR", help="state directory (default: from the "
                        "configuration, else 'state')")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "manager", help="reset a manager's password, ban or unban a manager",
        description="Game master's commands about one manager: a new password mailed to "
                    "his address, a ban (his mails change nothing and get no reply), or "
                    "lifting it.",
    )
    msub = p.add_subparsers(dest="manager_command", metavar="ACTION", required=True)
    reset = msub.add_parser(
        "reset-password", help="mail a new password to the manager (the old one stops working)",
        description="Create a new password for the manager registered with ADDRESS and mail "
        "it to that address only (through the outbox). The old password stops working.",
        epilog="example:\n  turnited manager reset-password hans@example.org",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ban = msub.add_parser(
        "ban", help="ban a manager: no replies, his mails change nothing, his teams sit out",
        description="Ban the manager registered with ADDRESS: his mails are ledgered as "
        "banned and never answered, they change nothing, and his teams sit out of the "
        "evaluations while he is banned. His WP stay.",
        epilog="example:\n  turnited manager ban troll@example.org",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    unban = msub.add_parser(
        "unban", help="lift a ban", description="Lift the ban of the manager at ADDRESS.",
        epilog="example:\n  turnited manager unban troll@example.org",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for parser, handler in ((reset, cmd_reset_password), (ban, cmd_ban), (unban, cmd_unban)):
        parser.add_argument("address", metavar="ADDRESS", help="the manager's mail address")
        add_state_options(parser)
        parser.set_defaults(handler=handler)
