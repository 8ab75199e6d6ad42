"""Game master administration: ``init [DIR]``, ``deadline show|set``, ``run``.

``init`` writes the commented example configuration and an empty state;
``deadline`` shows or moves the open round's deadline (local time of
``schedule.timezone``); ``run`` is the long-running worker. A configuration
error is reported as one line (exit status 2) and nothing starts.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bot.cli import setup
from bot.cli.errors import CliError
from bot.errors import N_

# -- init --------------------------------------------------------------------


def cmd_init(args: argparse.Namespace) -> int:
    """Write the example configuration and create the empty state."""
    from bot.config import example_config_text, load_config
    from bot.storage.db import open_database

    target = Path(args.directory) / "config.yaml" if args.directory else setup.config_path(args)
    w = setup.words(args, fallback=not target.exists())
    if target.exists():
        raise CliError(N_("%(path)s exists already and is not overwritten; remove it first or "
                          "give another directory"), path=str(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "x", encoding="utf-8") as handle:
        handle.write(example_config_text())
    config = load_config(target)
    db = open_database(config.state_dir)
    db.close()
    print(w._("Wrote %(path)s.", path=str(target)))
    print(w._("Created the state in %(path)s.", path=str(config.state_dir)))
    print(w._("Next: edit the configuration (every key is explained in it), then start the "
              "bot with turnited --config %(path)s run", path=str(target)))
    return 0


# -- deadline ----------------------------------------------------------------


def cmd_deadline_show(args: argparse.Namespace) -> int:
    from bot.service.deadlines import deadline_report

    config = setup.load(args)
    with setup.services(config) as ctx:
        report = deadline_report(ctx, args.count)
    print("\n".join(report.lines(setup.words(args, config))))
    return 0


def cmd_deadline_set(args: argparse.Namespace) -> int:
    from bot.schedule import parse_local_datetime
    from bot.service.deadlines import set_deadline

    given = setup.utcnow()  # "in the future" means after the command was given
    config = setup.load(args, required=True)
    moment = parse_local_datetime(args.datetime, config.schedule.zone)
    with setup.services(config, clock=lambda: given) as ctx:
        done = set_deadline(ctx, moment)
    print("\n".join(done.lines(setup.words(args, config))))
    return 0


# -- run ---------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    from bot.app import build_app
    from bot.worker.lock import WorkerLock, WorkerLockedError
    from bot.worker.logs import configure_logging
    from bot.worker.scheduler import Worker

    config = setup.load(args, connects=True)
    try:
        configure_logging(level=args.log_level.upper(), fmt=args.log_format,
                          secrets=config.secrets(), file=args.log_file)
    except OSError as exc:
        raise CliError(N_("cannot write the log file %(path)s (%(reason)s); give a writable "
                          "path to --log-file"), path=args.log_file,
                       reason=exc) from None
    lock = WorkerLock(config.state_dir)
    try:
        lock.acquire()
    except WorkerLockedError as exc:
        raise CliError(N_("another worker is already running on %(state)s (process %(pid)s "
                          "holds %(lock)s); only one worker per state directory may run: stop "
                          "it first, or give this one another state_dir"),
                       state=str(exc.path.parent), pid=exc.pid or "?",
                       lock=str(exc.path)) from None
    try:
        app = build_app(config)
        try:
            return Worker(app, config, lock=lock).run()
        finally:
            app.close()
    finally:
        lock.release()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "init", help="write a commented config.yaml and an empty state directory",
        epilog="example:\n  turnited init game && turnited --config game/config.yaml status",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "directory", nargs="?",
        help="folder for config.yaml (default: the --config path, ./config.yaml)",
    )
    p.set_defaults(handler=cmd_init)

    p = sub.add_parser(
        "deadline", help="show or move the open round's deadline",
        epilog="examples:\n  turnited --config game/config.yaml deadline show --count 5\n"
        "  turnited --config game/config.yaml deadline set '2026-12-06 20:00'",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    dsub = p.add_subparsers(dest="deadline_command", metavar="show|set", required=True)
    show = dsub.add_parser("show", help="the open round's deadline, reminders and the next ones")
    show.add_argument("--count", type=int, default=3,
                      help="how many planned deadlines to list (default: %(default)s)")
    show.set_defaults(handler=cmd_deadline_show)
    set_ = dsub.add_parser("set", help="move the open round's deadline")
    set_.add_argument(
        "datetime",
        help="local date and time in schedule.timezone, e.g. '06.12.2026 20:00' or "
        "'2026-12-06 20:00'",
    )
    set_.set_defaults(handler=cmd_deadline_set)

    p = sub.add_parser(
        "run", help="the worker: read mail, evaluate at deadlines, remind, send (until stopped)",
        epilog="example:\n  turnited --config /etc/turnited/config.yaml run --log-format json"
        " --log-file /var/log/turnited/worker.log",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--log-format", choices=("text", "json"), default="text",
                   help="log lines as key=value text or JSON (default: %(default)s)")
    p.add_argument("--log-level", default="info",
                   choices=("debug", "info", "warning", "error"),
                   help="least important log level shown (default: %(default)s)")
    p.add_argument("--log-file", metavar="PATH",
                   help="append the log to PATH instead of stderr; reopened when logrotate "
                   "moves it (see docs/operations.md)")
    p.set_defaults(handler=cmd_run)
