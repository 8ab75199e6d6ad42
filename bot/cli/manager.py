"""The game master's commands about one manager: ``manager reset-password
ADDRESS`` (a new password mailed to that address only, through the outbox),
``manager ban ADDRESS`` and ``manager unban ADDRESS`` (RULES.md §9).

Output follows ``game.language`` of the configuration (German unless it
says English). The state directory is ``--state DIR`` or the
configuration's; no mail password is needed (the mail waits in the outbox
for ``turnited send`` or the running worker).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.cli import CliError, setup

if TYPE_CHECKING:  # imported when used: the CLI starts fast
    from bot.service.context import Context

MESSAGES = {
    "de": {
        "reset": "Neues Passwort für {address} erzeugt; das alte gilt nicht mehr. Die Mail "
                 "mit dem Passwort wartet im Postausgang (Nr. {row}) und geht nur an {address}.",
        "ban": "{address} ist gesperrt: seine Mails bleiben unbeantwortet und ändern nichts, "
               "seine Teams setzen aus; seine WP bleiben.",
        "ban_again": "{address} war schon gesperrt; nichts geändert.",
        "unban": "Die Sperre von {address} ist aufgehoben: seine Mails werden wieder "
                 "bearbeitet, seine Teams spielen wieder mit.",
        "unban_again": "{address} war nicht gesperrt; nichts geändert.",
        "unknown": "unter {address} ist kein Manager angemeldet; `turnited managers` "
                   "zeigt alle",
        "address": "{address!r} ist keine Mail-Adresse; erwartet wird 'name@domain'",
    },
    "en": {
        "reset": "New password for {address} created; the old one no longer works. The mail "
                 "with the password waits in the outbox (no. {row}) and goes to {address} only.",
        "ban": "{address} is banned: his mails get no reply and change nothing, his teams "
               "sit out; his WP stay.",
        "ban_again": "{address} was banned already; nothing changed.",
        "unban": "The ban of {address} is lifted: his mails are handled again, his teams "
                 "play again.",
        "unban_again": "{address} was not banned; nothing changed.",
        "unknown": "no manager is registered with the address {address}; "
                   "`turnited managers` lists them",
        "address": "{address!r} is not a mail address; expected 'name@domain'",
    },
}


#: A console action: the use cases' context -> (message key, its fields).
Action = Callable[["Context"], tuple[str, dict[str, object]]]


def _run(args: argparse.Namespace, action: Action, *, required: bool = False) -> int:
    from bot.league.errors import BadAddress
    from bot.league.service import UnknownManager

    config = setup.load(args, required=required)
    language = setup.language(args, config)
    text = MESSAGES[language if language in MESSAGES else "de"]
    try:
        with setup.services(config) as ctx:
            key, fields = action(ctx)
    except UnknownManager as exc:
        raise CliError(text["unknown"].format(address=exc.address)) from exc
    except BadAddress as exc:
        raise CliError(text["address"].format(address=exc.address)) from exc
    print(text[key].format(**fields))
    return 0


def cmd_reset_password(args: argparse.Namespace) -> int:
    from bot.service.console import reset_password

    def action(ctx: Context) -> tuple[str, dict[str, object]]:
        done = reset_password(ctx, args.address)
        return "reset", {"address": done.address, "row": done.outbox_row}

    return _run(args, action, required=True)


def cmd_ban(args: argparse.Namespace) -> int:
    from bot.service.console import ban

    def action(ctx: Context) -> tuple[str, dict[str, object]]:
        done = ban(ctx, args.address)
        return ("ban" if done.changed else "ban_again"), {"address": done.address}

    return _run(args, action)


def cmd_unban(args: argparse.Namespace) -> int:
    from bot.service.console import unban

    def action(ctx: Context) -> tuple[str, dict[str, object]]:
        done = unban(ctx, args.address)
        return ("unban" if done.changed else "unban_again"), {"address": done.address}

    return _run(args, action)


def add_state_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--state", metavar="DIR", help="state directory (default: from the "
                        "configuration, else 'state')")
    parser.add_argument("--language", dest="lang", choices=sorted(MESSAGES),
                        help="language of the output (default: game.language, else de)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "manager", help="reset a manager's password, ban or unban a manager",
        description="Game master's commands about one manager (RULES.md §9).",
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
