"""Game master administration: ``init [DIR]``, ``deadline show|set``, ``run``.

``init`` writes the commented example configuration and an empty state;
``deadline`` shows or moves the open round's deadline (local time of
``schedule.timezone``); ``run`` is the long-running worker. A configuration
error is reported as one line (exit status 2) and nothing starts.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli import CliError
from bot.config import Config, example_config_text, load_config, named_or_default
from bot.schedule import parse_local_datetime

if TYPE_CHECKING:
    from bot.app import App


def load_config_arg(args: argparse.Namespace, *, connects: bool = True) -> Config:
    """The configuration named by ``--config`` (else ``config.yaml``); a file
    that is not there is ``ConfigFileMissing``, naming it.

    A command that never talks to the mail servers passes ``connects=False``
    and then runs without the password variables.
    """
    return load_config(named_or_default(args.config), check_secrets=connects)


def _build_app(config: Config) -> App:
    from bot.app import build_app

    return build_app(config)


def _when(moment: datetime, config: Config) -> str:
    from bot.worker.notices import format_deadline

    return format_deadline(moment, config.schedule.timezone)


# -- init --------------------------------------------------------------------


def cmd_init(args: argparse.Namespace) -> int:
    """Write the example configuration and create the empty state."""
    from bot.storage.db import open_database

    target = Path(args.directory) / "config.yaml" if args.directory else named_or_default(
        args.config)
    if target.exists():
        raise CliError(
            f"{target} exists already and is not overwritten; remove it first "
            "or give another directory"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "x", encoding="utf-8") as handle:
        handle.write(example_config_text())
    config = load_config(target)
    db = open_database(config.state_dir)
    db.close()
    print(f"wrote {target}")
    print(f"created the state in {config.state_dir}")
    print("next: edit the configuration (every key is explained in it), then start the bot "
          f"with `turnited --config {target} run`")
    return 0


# -- deadline ----------------------------------------------------------------


def cmd_deadline_show(args: argparse.Namespace) -> int:
    from bot.schedule import DeadlinePlan, reminder_times

    config = load_config_arg(args, connects=False)
    app = _build_app(config)
    try:
        deadline = app.open_round_deadline()
        with app.db.read() as conn:
            rnd = app.league.open_round(conn)
        app_round = rnd.number if rnd else None
    finally:
        app.close()
    plan = DeadlinePlan(config.schedule)
    now = datetime.now(UTC)
    if deadline is None:
        print("open round: none yet (the worker opens round 1 when it starts)")
    else:
        state = "passed, waiting for the evaluation" if deadline <= now else "open"
        print(f"open round's deadline: {_when(deadline, config)} ({state})")
        for hours, moment in reminder_times(deadline, config.reminders.hours_before):
            sent = "due" if moment <= now else "planned"
            print(f"  reminder {hours} h before: {_when(moment, config)} ({sent})")
    source = f"cron {config.schedule.cron!r}" if config.schedule.cron else "the explicit list"
    upcoming = plan.upcoming(max(now, deadline) if deadline else now, args.count)
    print(f"next deadlines from {source} in {config.schedule.timezone}:")
    if not upcoming:
        print("  none: the explicit list has no later deadline")
    for moment in upcoming:
        print(f"  {_when(moment, config)}")
    from bot.cli.league import outlook_warning
    from bot.service.deadlines import deadline_outlook

    warning = outlook_warning(deadline_outlook(plan, deadline or now), None if deadline is None
                              else app_round, config.schedule.timezone)
    if warning:
        print(warning)
    return 0


def cmd_deadline_set(args: argparse.Namespace) -> int:
    config = load_config_arg(args, connects=False)
    try:
        moment = parse_local_datetime(args.datetime, config.schedule.zone)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    now = datetime.now(UTC)
    if moment <= now:
        raise CliError(
            f"{args.datetime!r} is {_when(moment, config)}, which is not in the future; "
            "a deadline can only be moved to a moment after now"
        )
    app = _build_app(config)
    try:
        app.ensure_started()
        app.set_deadline(moment)
    finally:
        app.close()
    print(f"the open round's deadline is now {_when(moment, config)}")
    print("a running worker re-plans the deadline and its reminders within a minute")
    return 0


# -- run ---------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    from bot.worker.lock import WorkerLock, WorkerLockedError
    from bot.worker.logs import configure_logging
    from bot.worker.scheduler import Worker

    config = load_config_arg(args)
    try:
        configure_logging(level=args.log_level.upper(), fmt=args.log_format,
                          secrets=config.secrets(), file=args.log_file)
    except OSError as exc:
        raise CliError(f"cannot write the log file {args.log_file!r}: {exc.strerror}; "
                       "give a writable path to --log-file") from None
    lock = WorkerLock(config.state_dir)
    try:
        lock.acquire()
    except WorkerLockedError as exc:
        raise CliError(str(exc)) from None
    try:
        app = _build_app(config)
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
        help="local date and time in schedule.timezone, e.g. '2026-12-06 20:00'",
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
