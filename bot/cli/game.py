"""Game master commands that drive the App once: ``poll`` (and send the
replies), ``send``, ``evaluate``, and the newcomer's ``demo``.

``evaluate --dry-run`` never connects to a mail server, so it runs without
the password variables; the others resolve them when they connect."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli import setup
from bot.cli.errors import CliError
from bot.errors import N_

if TYPE_CHECKING:
    from bot.app import App
    from bot.render.words import Words
    from bot.service.drain import DrainReport


def _app(args: argparse.Namespace, *, connects: bool = True) -> App:
    from bot.app import build_app

    app = build_app(setup.load(args, connects=connects, required=True))
    app.ensure_started()
    return app


def _sent(report: DrainReport, w: Words) -> list[str]:
    out = [w._("Sent: %(sent)s; to try again later: %(retried)s; failed: %(failed)s",
               sent=report.sent, retried=report.retried, failed=len(report.failed))]
    out += ["  " + w._("failed: %(recipient)s: %(error)s", recipient=recipient, error=error)
            for recipient, error in report.failed]
    return out


def _poll(args: argparse.Namespace) -> int:
    app = _app(args)
    w = setup.words(args, app.config)
    try:
        report = app.poll_once()
        print(w._("Mails read: %(mails)s; replies queued: %(replies)s", mails=report.processed,
                  replies=report.replies))
        for kind, count in sorted(report.kinds.items()):
            print("  " + w._("%(kind)s: %(count)s", kind=kind_name(kind, w), count=count))
        if args.no_send:
            return 0
        sent = app.drain_outbox()
        print("\n".join(_sent(sent, w)))
    finally:
        app.close()
    return 1 if sent.failed else 0


def kind_name(kind: str, w: Words) -> str:
    """What a read mail was (``bot.storage.ledger.InboundKind``), in words."""
    match kind:
        case "human":
            return w._("from a person")
        case "bounce":
            return w._("bounces")
        case "auto":
            return w._("automatic replies")
        case "self":
            return w._("the bot's own mail")
        case "unreadable":
            return w._("unreadable")
        case "duplicate":
            return w._("seen before")
    return kind


def _send(args: argparse.Namespace) -> int:
    app = _app(args)
    w = setup.words(args, app.config)
    try:
        report = app.drain_outbox()
        print("\n".join(_sent(report, w)))
    finally:
        app.close()
    return 1 if report.failed else 0


def _preview(args: argparse.Namespace) -> int:
    """``evaluate --dry-run``: the preview use case; its first line says which seed."""
    from bot.service.preview import preview

    config = setup.load(args, required=True)
    w = setup.words(args, config)
    with setup.services(config) as ctx:
        result = preview(ctx, language=w.language)
    if result is None:
        print(w._("No round is open: there is nothing to evaluate."))
        return 0
    print(result.preview.text)
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    if args.dry_run:
        return _preview(args)
    app = _app(args)
    w = setup.words(args, app.config)
    try:
        app.poll_once()  # the inbox first: no round is played with missing lineups
        number = app.evaluate_due(force=args.force)
        if number is None:
            deadline = app.open_round_deadline()
            if deadline is None:
                print(w._("Nothing is due: no round is open."))
            else:
                print(w._("Nothing is due: the deadline of the open round is %(when)s "
                          "(--force evaluates now).", when=deadline))
            return 0
        app.drain_outbox()
        print(w._("Round %(round)s evaluated; its newsletters are queued and sent.",
                  round=number))
    finally:
        app.close()
    return 0


def _demo(args: argparse.Namespace) -> int:
    from bot.demo.runner import DEMO_LANGUAGE, format_summary, run_demo
    from bot.render.words import Words

    w = Words(args.lang or DEMO_LANGUAGE, "Europe/Berlin")
    if args.directory:
        directory = Path(args.directory)
        if directory.exists() and any(directory.iterdir()):
            raise CliError(N_("%(path)s is not empty: the demo needs a fresh directory"),
                           path=str(directory))
    else:
        directory = Path(tempfile.mkdtemp(prefix="turnited-demo-"))
    summary = run_demo(directory, seed=args.seed, managers=args.managers,
                       seasons=args.seasons, simulations=args.simulations, words=w)
    print(format_summary(summary, w))
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
                   help="a preview: the newsletter of an evaluation now, changing nothing; "
                   "before the deadline with a fresh random seed, not the committed one; "
                   "listed in the round's digest")
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
