"""The ``turnited`` command line: a thin layer that parses arguments and calls
the library. Each sub-command lives in its own module with a
``register(subparsers)`` function; library errors (input errors, ``StorageError``
for an unusable database, OS errors) become one-line messages on stderr with
exit status 2, never tracebacks. Every command runs with the umask 0o077
(``bot.storage.permissions``): the state it writes is private to its user.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from bot.errors import TurnitedError

#: Modules under ``bot.cli`` that register sub-commands, in help order.
COMMAND_MODULES: tuple[str, ...] = (
    "calculators",
    "league",
    "simulate",
    "game",
    "admin",
    "console",
    "manager",
    "rollback",
    "verify",
    "check",
)


class CliError(TurnitedError):
    """A user error the CLI reports as one line with exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="turnited",
        description="Game master bot for Turnited, the play-by-email football tournament.",
    )
    parser.add_argument(
        "--config", metavar="PATH",
        help="path of the YAML configuration (default: ./config.yaml if it exists, "
        "else the defaults)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"bot.cli.{name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from bot.storage.permissions import set_private_umask

    set_private_umask()  # every file a command or the worker creates is the owner's only
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except (TurnitedError, ValueError, OSError) as exc:
        print(f"turnited {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
