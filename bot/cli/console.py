"""The game master's console: ``managers``, ``missing``, ``remind --missing``,
``broadcast FILE``, ``backup DEST`` and ``publish DIR``.

Each command parses its arguments, calls one use case (``bot.service``) or
one storage function, and prints its result in the game's language; the
commands a script reads have ``--json``. Nothing here connects to a mail
server: mail is queued in the outbox, which the worker or ``turnited send``
sends, so no password variable is needed.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bot.cli import setup
from bot.cli.errors import CliError
from bot.errors import N_


def _print_json(value: object) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))


def _print(lines: list[str]) -> None:
    print("\n".join(lines))


# -- managers ----------------------------------------------------------------


def cmd_managers(args: argparse.Namespace) -> int:
    from bot.service.roster import managers

    config = setup.load(args)
    with setup.services(config) as ctx:
        report = managers(ctx, with_retired=args.all)
    if args.json:
        _print_json(report.as_list())
    else:
        _print(report.lines(setup.words(args, config)))
    return 0


# -- missing / remind --------------------------------------------------------


def cmd_missing(args: argparse.Namespace) -> int:
    from bot.service.roster import missing

    config = setup.load(args)
    with setup.services(config) as ctx:
        report = missing(ctx)
    if args.json:
        _print_json(report.as_dict())
    else:
        _print(report.lines(setup.words(args, config)))
    return 0


def cmd_remind(args: argparse.Namespace) -> int:
    from bot.service.remind import remind_missing

    if not args.missing:
        raise CliError(N_("say whom to remind: --missing (every team without a lineup for the "
                          "open round); the worker sends the planned reminders itself"))
    config = setup.load(args, required=True)
    with setup.services(config) as ctx:
        report = remind_missing(ctx)
    _print(report.lines(setup.words(args, config)))
    return 0


# -- broadcast ---------------------------------------------------------------


def cmd_broadcast(args: argparse.Namespace) -> int:
    from bot.service.broadcast import broadcast, parse_announcement

    path = Path(args.file)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CliError(N_("cannot read the announcement %(path)s (%(reason)s)"),
                       path=str(path), reason=exc) from None
    announcement = parse_announcement(raw)
    config = setup.load(args, required=True)
    with setup.services(config) as ctx:
        report = broadcast(ctx, announcement, subscribers=args.all)
    _print(report.lines(setup.words(args, config)))
    return 0


# -- backup ------------------------------------------------------------------


def cmd_backup(args: argparse.Namespace) -> int:
    from bot.storage.backup import backup_database

    config = setup.load(args)
    db = setup.open_db(config)
    try:
        report = backup_database(db, Path(args.dest), now=setup.utcnow())
    finally:
        db.close()
    if args.json:
        _print_json({"path": str(report.path), "bytes": report.bytes, "pages": report.pages,
                     "schema_version": report.schema_version, "integrity": report.integrity})
        return 0
    w = setup.words(args, config)
    _print([w._("Backup written: %(path)s (%(bytes)s bytes, schema version %(version)s, "
                "integrity_check: %(integrity)s)", path=str(report.path), bytes=report.bytes,
                version=report.schema_version, integrity=report.integrity),
            w._("To restore: stop the bot, replace %(db)s by the backup (and delete the files "
                "-wal and -shm beside it), start the bot.", db=str(db.path))])
    return 0


# -- publish -----------------------------------------------------------------


def cmd_publish(args: argparse.Namespace) -> int:
    from bot.service.webroot import copy_archive

    config = setup.load(args)
    w = setup.words(args, config)
    archive = config.state_dir / "archive"
    if not (archive / "index.html").is_file():
        print(w._("No archive in %(archive)s yet: the first evaluation writes it.",
                  archive=str(archive)))
        return 1
    report = copy_archive(archive, Path(args.dest), mode=args.mode)
    print(w.ngettext("Copied %(num)s file to %(dest)s (%(changed)s new or changed).",
                     "Copied %(num)s files to %(dest)s (%(changed)s new or changed).",
                     report.files, dest=str(report.dest), changed=report.changed))
    return 0


def _file_mode(text: str) -> int:
    try:
        mode = int(text, 8)
    except ValueError:
        mode = -1
    if not 0 <= mode <= 0o777 or not mode & 0o400:
        raise argparse.ArgumentTypeError(
            f"{text!r} is no file mode the owner can read, such as 644 or 640")
    return mode


# -- registration ------------------------------------------------------------

_STATE_HELP = "state directory (default: from the configuration, else 'state')"


def _parser(sub: argparse._SubParsersAction, name: str, help_text: str, example: str
            ) -> argparse.ArgumentParser:
    return sub.add_parser(
        name, help=help_text, description=help_text[:1].upper() + help_text[1:] + ".",
        epilog=f"example:\n  {example}", formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = _parser(sub, "managers", "who plays: address, name, language, teams (WP, PSZ), last "
                "mail, bounces, ban", "turnited --config game/config.yaml managers --json")
    p.add_argument("--json", action="store_true",
                   help="a JSON list of objects (address, name, language, teams, ...)")
    p.add_argument("--all", action="store_true",
                   help="also managers without a team (every one ever registered)")
    p.add_argument("--state", metavar="DIR", help=_STATE_HELP)
    p.set_defaults(handler=cmd_managers)

    p = _parser(sub, "missing", "the teams without a lineup (or withdrawal) for the open "
                "round, with their managers", "turnited --config game/config.yaml missing")
    p.add_argument("--json", action="store_true", help="the round and the teams as JSON")
    p.add_argument("--state", metavar="DIR", help=_STATE_HELP)
    p.set_defaults(handler=cmd_missing)

    p = _parser(sub, "remind", "mail a reminder now to the managers of the teams without "
                "a lineup (through the outbox; once a day)",
                "turnited --config game/config.yaml remind --missing")
    p.add_argument("--missing", action="store_true",
                   help="every manager with a team that has no lineup for the open round")
    p.set_defaults(handler=cmd_remind)

    p = _parser(sub, "broadcast", "mail an announcement of the game master to every manager "
                "(through the outbox; the same file twice is sent once)",
                "printf 'Subject: Winter break\\n\\nNo round on 27 December.\\n' > news.txt\n"
                "  turnited --config game/config.yaml broadcast news.txt --all")
    p.add_argument("file", metavar="FILE",
                   help="UTF-8 text; an optional first line 'Subject: ...' is the subject")
    p.add_argument("--all", action="store_true",
                   help="also the newsletter subscribers (newsletter.extra_recipients)")
    p.set_defaults(handler=cmd_broadcast)

    p = _parser(sub, "backup", "a consistent copy of the league database while the bot "
                "runs (SQLite online backup, checked with PRAGMA integrity_check)",
                "turnited --config game/config.yaml backup /srv/backup/")
    p.add_argument("dest", metavar="DEST", help="a directory to put a dated "
                   "turnited-backup-YYYY-MM-DD-HHMMSS.sqlite3 in, or a new file (an existing "
                   "file is never overwritten)")
    p.add_argument("--json", action="store_true", help="the result as JSON")
    p.add_argument("--state", metavar="DIR", help=_STATE_HELP)
    p.set_defaults(handler=cmd_backup)

    p = _parser(sub, "publish", "copy the static newsletter archive (STATE/archive) to a "
                "web root, readable by the web server",
                "turnited --config game/config.yaml publish /var/www/turnited")
    p.add_argument("dest", metavar="DIR", help="the web root (created if missing)")
    p.add_argument("--mode", type=_file_mode, default=0o644, metavar="MODE",
                   help="the files' permission bits in octal (default: 644; directories get "
                   "x where the files have r: 755)")
    p.add_argument("--state", metavar="DIR", help=_STATE_HELP)
    p.set_defaults(handler=cmd_publish)
