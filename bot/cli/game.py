"""Game master commands that drive the App once: ``poll`` (and send the
replies), ``send``, ``evaluate``, and the newcomer's ``demo``.

``evaluate --dry-run`` never connects to a mail server, so it runs without
the password variables; the others resolve them when they connect."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli import CliError, setup

if TYPE_CHECKING:
    from bot.app import App


def _app(args: argparse.Namespace, *, connects: bool = True) -> App:
    from bot.app import build_app

    app = build_app(setup.load(args, connects=connects, required=True))
    app.ensure_started()
    return app


def _poll(args: argparse.Namespace) -> int:
    app = _app(args)
    try:
        report = app.poll_once()
        print(f"processed {report.processed} mail(s), queued {report.replies} repl(ies)"
              + "".join(f", {kind}: {n}" for kind, n in sorted(report.kinds.items())))
        if args.no_send:
            return 0
        sent = app.drain_outbox()
        print(f"sent {sent.sent}, retry later {sent.retried}, failed {len(sent.failed)}")
        for recipient, error in sent.failed:
            print(f"  failed: {recipient}: {error}")
    finally:
        app.close()
    return 1 if sent.failed else 0


def _send(args: argparse.Namespace) -> int:
    app = _app(args)
    try:
        report = app.drain_outbox()
        print(f"sent {report.sent}, retry later {report.retried}, failed {len(report.failed)}")
        for recipient, error in report.failed:
            print(f"  failed: {recipient}: {error}")
    finally:
        app.close()
    return 1 if report.failed else 0


def _evaluate(args: argparse.Namespace) -> int:
    app = _app(args, connects=not args.dry_run)
    try:
        if args.dry_run:
            preview = app.dry_run()
            if preview is None:
                print("nothing to evaluate")
                return 0
            print(preview.newsletter.subject)
            print()
            print(preview.newsletter.text)
            return 0
        app.poll_once()  # the inbox first: no round is played with missing lineups
        number = app.evaluate_due(force=args.force)
        if number is None:
            deadline = app.open_round_deadline()
            when = deadline.isoformat() if deadline else "none"
            print(f"nothing due: the open round's deadline is {when} (use --force)")
            return 0
        app.drain_outbox()
        print(f"evaluated round {number}; newsletters queued and sent")
    finally:
        app.close()
    return 0


def _demo(args: argparse.Namespace) -> int:
    from bot.demo.runner import format_summary, run_demo

    if args.directory:
        directory = Path(args.directory)
        if directory.exists() and any(directory.iterdir()):
            raise CliError(f"{directory} is not empty: the demo needs a fresh directory")
    else:
        directory = Path(tempfile.mkdtemp(prefix="turnited-demo-"))
    summary = run_demo(directory, seed=args.seed, managers=args.managers,
                       seasons=args.seasons, simulations=args.simulations)
    print(format_summary(summary))
    return 0


def _parser(sub: argparse._SubParsersAction, name: str, help_text: str, example: str
            ) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=help_text, epilog=f"example:\n  {example}",
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def register(sub: argparse._SubParsersAction) -> None:
    p = _parser(sub, "poll", "read the inbox once, then send the replies it queued",
                "turnited --config game/config.yaml poll --no-send")
    p.add_argument("--no-send", action="store_true",
                   help="keep the replies in the outbox (the worker or `send` sends them)")
    p.set_defaults(handler=_poll)
    p = _parser(sub, "send", "drain the outbox once and exit",
                "turnited --config game/config.yaml send")
    p.set_defaults(handler=_send)
    p = _parser(sub, "evaluate", "evaluate the round if its deadline has passed",
                "turnited --config game/config.yaml evaluate --dry-run | less")
    p.add_argument("--force", action="store_true", help="evaluate now, before the deadline")
    p.add_argument("--dry-run", action="store_true",
                   help="print the newsletter of an evaluation now without changing anything")
    p.set_defaults(handler=_evaluate)
    p = _parser(sub, "demo",
                "two seasons with 40 simulated managers on the embedded Maildir transport",
                "turnited demo --managers 8 --seasons 1 /tmp/turnited-demo")
    p.add_argument("directory", nargs="?", help="a fresh directory (default: a new temp dir)")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--managers", type=int, default=40)
    p.add_argument("--seasons", type=int, default=2)
    p.add_argument("--simulations", type=int, default=20_000,
                   help="Monte Carlo runs per round for the semi-final odds")
    p.set_defaults(handler=_demo)
