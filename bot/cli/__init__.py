"""The ``turnited`` command line: a thin layer that parses arguments and calls
the library. Each sub-command lives in its own module with a
``register(subparsers)`` function; library errors (input errors, ``StorageError``
for an unusable database, OS errors) become one-line messages on stderr with
exit status 2, never tracebacks. Every command runs with the umask 0o077
(``bot.storage.permissions``): the state it writes is private to its user.

Every command speaks the game's language (``game.language``, German unless
the configuration says English; ``--lang`` on every command chooses): its
output and its errors come from the message catalog of the mails
(``bot.render.words``). The help texts (``--help``) and argparse's own usage
errors are in English.

A module imports what a command needs when it runs, so that ``--help`` and
the calculators start fast (``bench/bench_cli_start.py``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Iterator, Sequence

from bot.cli.errors import CliError as CliError  # the CLI's error, where callers look for it
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
    "importing",
)

#: The languages of the output (``bot.render.formatting.LANGUAGES``).
LANGUAGES = ("de", "en")


def _leaves(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """The parsers that run a command (those without sub-commands of their own)."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield parser
    for action in subs:
        for child in dict.fromkeys(action.choices.values()):
            yield from _leaves(child)


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
    for command in dict.fromkeys(sub.choices.values()):
        for leaf in _leaves(command):
            leaf.add_argument("--lang", choices=LANGUAGES,
                              help="language of the output (default: game.language of the "
                              "configuration, else de)")
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
        from bot.cli import setup

        w = setup.words(args, fallback=True)
        print(w._("turnited %(command)s: error: %(message)s", command=args.command,
                  message=w.error(exc)), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
