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
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli import CliError

if TYPE_CHECKING:  # imported when used: the CLI starts fast
    from bot.config import Config
    from bot.league.service import League

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


@dataclass(frozen=True, slots=True)
class ConsoleSetup:
    """What a console command needs: the state directory, the configuration
    (None without one) and the output language."""

    state_dir: Path
    config: Config | None
    language: str


def console_setup(args: argparse.Namespace) -> ConsoleSetup:
    """The state directory and language: ``--state`` or the configuration's
    ``state_dir`` (else ``state``); ``game.language`` (else German)."""
    from bot.cli.league import DEFAULT_STATE

    config = None
    path = Path(getattr(args, "config", "") or "config.yaml")
    if path.is_file():
        from bot.config import load_config

        config = load_config(path, check_secrets=False)
    explicit = getattr(args, "state", None)
    state = Path(explicit) if explicit else config.state_dir if config else DEFAULT_STATE
    language = getattr(args, "language", None) or (config.game.language if config else "de")
    return ConsoleSetup(state, config, language if language in MESSAGES else "de")


def _league(setup: ConsoleSetup) -> League:
    from bot.league.service import League
    from bot.storage.db import DATABASE_FILE, open_existing

    settings = setup.config.league_settings() if setup.config else None
    return League(open_existing(setup.state_dir / DATABASE_FILE), settings)


#: A console action: (setup, league) -> (message key, its fields).
Action = Callable[[ConsoleSetup, "League"], tuple[str, dict[str, object]]]


def _run(args: argparse.Namespace, action: Action) -> int:
    from bot.league.errors import BadAddress
    from bot.league.service import UnknownManager

    setup = console_setup(args)
    text = MESSAGES[setup.language]
    league = _league(setup)
    try:
        key, fields = action(setup, league)
    except UnknownManager as exc:
        raise CliError(text["unknown"].format(address=exc.address)) from exc
    except BadAddress as exc:
        raise CliError(text["address"].format(address=exc.address)) from exc
    finally:
        league.db.close()
    print(text[key].format(**fields))
    return 0


def cmd_reset_password(args: argparse.Namespace) -> int:
    def action(setup: ConsoleSetup, league: League) -> tuple[str, dict[str, object]]:
        from email.utils import parseaddr

        from bot.service.console import reset_password
        from bot.service.outgoing import Sender

        config = setup.config
        if config is None:
            raise CliError(
                f"reset-password needs the configuration (the bot's address for the mail): "
                f"no file at {args.config}; pass --config PATH"
            )
        name, address = parseaddr(config.mail.from_header)
        bot_address = address or config.mail.address
        sender = Sender(bot_address, name or config.game.name)
        to, row = reset_password(
            league.db, league, args.address, sender=sender,
            game_name=config.game.name,
            game_address=config.mail.address,
            default_language=config.newsletter.language,
            now=datetime.now(UTC),
        )
        return "reset", {"address": to, "row": row}

    return _run(args, action)


def cmd_ban(args: argparse.Namespace) -> int:
    def action(setup: ConsoleSetup, league: League) -> tuple[str, dict[str, object]]:
        manager, before = league.ban(args.address, datetime.now(UTC))
        return ("ban_again" if before else "ban"), {"address": manager.address}

    return _run(args, action)


def cmd_unban(args: argparse.Namespace) -> int:
    def action(setup: ConsoleSetup, league: League) -> tuple[str, dict[str, object]]:
        manager, before = league.unban(args.address)
        return ("unban" if before else "unban_again"), {"address": manager.address}

    return _run(args, action)


def add_state_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--state", metavar="DIR", help="state directory (default: from the "
                        "configuration, else 'state')")
    parser.add_argument("--language", choices=sorted(MESSAGES),
                        help="language of the output (default: game.language, else de)")


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
