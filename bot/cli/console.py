"""The game master's console: ``managers``, ``missing``, ``remind --missing``,
``broadcast FILE``, ``backup DEST`` and ``publish DIR``.

Each command parses its arguments and calls one use case (``bot.service``)
or one storage query; output follows ``game.language`` (German or English),
and the commands a script reads have ``--json``. Read-only commands load the
configuration without the password variables (nothing connects here: mail
is queued in the outbox, which the worker or ``turnited send`` sends).
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli import CliError, setup

if TYPE_CHECKING:  # imported when used: the CLI starts fast
    from bot.config import Config

#: The console's words. ``{...}`` fields are filled with ``str.format``.
TEXT: dict[str, dict[str, str]] = {
    "de": {
        "no_managers": "Noch keine Manager mit einer Mannschaft.",
        "managers": "{n} Manager mit Mannschaft:",
        "language_unknown": "Sprache unbekannt",
        "last_mail": "letzte Mail {when}",
        "no_mail": "noch keine Mail",
        "bounces": "{n} Unzustellbar-Meldung(en)",
        "banned": "GESPERRT",
        "ban_unknown": "(Sperren kennt dieser Spielstand noch nicht)",
        "no_open_round": "Keine Runde ist offen: Runde 1 beginnt, wenn der Bot startet.",
        "missing_none": "Runde {round}: alle Mannschaften haben eine Aufstellung geschickt.",
        "missing": "Runde {round} (Abgabe bis {deadline}): {n} Mannschaft(en) ohne "
                   "Aufstellung:",
        "reminded": "{n} Erinnerung(en) in den Postausgang gestellt (Runde {round}); der "
                    "laufende Bot verschickt sie (oder: turnited send).",
        "reminded_none": "Keine Erinnerung neu eingereiht: alle haben eine Aufstellung, "
                         "oder sie wurden heute schon erinnert.",
        "broadcast": "Rundschreiben {digest}: an {queued} Empfänger in den Postausgang "
                     "gestellt, {already} hatten es schon; der laufende Bot verschickt es "
                     "(oder: turnited send).",
        "broadcast_banned": "{n} gesperrte(r) Manager ausgelassen.",
        "backup": "Sicherung geschrieben: {path} ({bytes} Bytes, Schema {version}, "
                  "integrity_check: {integrity})",
        "restore": "Wiederherstellen: Bot anhalten, {db} durch die Sicherung ersetzen "
                   "(die Dateien -wal/-shm daneben löschen), Bot starten.",
        "published": "{n} Datei(en) nach {dest} kopiert ({changed} neu oder geändert).",
        "no_archive": "Noch kein Archiv in {archive}: es entsteht bei der ersten Auswertung.",
    },
    "en": {
        "no_managers": "No managers with a team yet.",
        "managers": "{n} manager(s) with a team:",
        "language_unknown": "language unknown",
        "last_mail": "last mail {when}",
        "no_mail": "no mail yet",
        "bounces": "{n} bounce(s)",
        "banned": "BANNED",
        "ban_unknown": "(this state does not know bans yet)",
        "no_open_round": "No round is open: round 1 opens when the bot starts.",
        "missing_none": "Round {round}: every team has sent a lineup.",
        "missing": "Round {round} (deadline {deadline}): {n} team(s) without a lineup:",
        "reminded": "queued {n} reminder(s) in the outbox (round {round}); the running bot "
                    "sends them (or: turnited send).",
        "reminded_none": "No reminder queued: every team has a lineup, or its manager was "
                         "reminded today already.",
        "broadcast": "Announcement {digest}: queued for {queued} recipient(s), {already} had "
                     "it already; the running bot sends it (or: turnited send).",
        "broadcast_banned": "{n} banned manager(s) left out.",
        "backup": "backup written: {path} ({bytes} bytes, schema {version}, "
                  "integrity_check: {integrity})",
        "restore": "to restore: stop the bot, replace {db} by the backup (and delete the "
                   "-wal/-shm files beside it), start the bot.",
        "published": "copied {n} file(s) to {dest} ({changed} new or changed).",
        "no_archive": "No archive in {archive} yet: the first evaluation writes it.",
    },
}


def _say(language: str, key: str, **values: object) -> str:
    return TEXT[language][key].format(**values)


def _when(moment: datetime | str | None, config: Config) -> str:
    from bot.storage.values import time_from_db

    if isinstance(moment, str):
        moment = time_from_db(moment)
    if moment is None:
        return "?"
    local = moment.astimezone(config.schedule.zone)
    return f"{local:%Y-%m-%d %H:%M} {local.tzname()}"


def _print_json(value: object) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))


# -- managers ----------------------------------------------------------------


def cmd_managers(args: argparse.Namespace) -> int:
    from bot.render.formatting import psz, wp
    from bot.service.roster import managers

    config = setup.load(args)
    language = setup.language(args, config)
    with setup.services(config) as ctx:
        report = managers(ctx, with_retired=args.all)
    if args.json:
        _print_json(report.as_list())
        return 0
    if not report.managers:
        print(_say(language, "no_managers"))
        return 0
    print(_say(language, "managers", n=len(report.managers)))
    for m in report.managers:
        parts = [m.address, m.display_name or "-",
                 m.language or _say(language, "language_unknown"),
                 _say(language, "last_mail", when=_when(m.last_mail, config))
                 if m.last_mail else _say(language, "no_mail"),
                 _say(language, "bounces", n=m.bounces)]
        if m.banned:
            parts.append(_say(language, "banned"))
        print("  ".join(parts))
        for t in m.teams:
            print(f"    {t.name} ({t.short_name})  WP {wp(t.wp, language)}  "
                  f"PSZ {psz(t.psz, language)}")
    if not report.bans_known:
        print(_say(language, "ban_unknown"))
    return 0


# -- missing / remind --------------------------------------------------------


def cmd_missing(args: argparse.Namespace) -> int:
    from bot.service.roster import missing

    config = setup.load(args)
    language = setup.language(args, config)
    with setup.services(config) as ctx:
        report = missing(ctx)
    if args.json:
        _print_json(report.as_dict())
        return 0
    if report.round is None:
        print(_say(language, "no_open_round"))
        return 0
    if not report.teams:
        print(_say(language, "missing_none", round=report.round.number))
        return 0
    print(_say(language, "missing", round=report.round.number, n=len(report.teams),
               deadline=_when(report.round.deadline, config)))
    for t in report.teams:
        name = f" ({t.display_name})" if t.display_name else ""
        print(f"  {t.team} ({t.short_name}): {t.address}{name}")
    return 0


def cmd_remind(args: argparse.Namespace) -> int:
    from bot.service.remind import remind_missing

    if not args.missing:
        raise CliError("say whom to remind: --missing (every team without a lineup for "
                       "the open round); the worker sends the planned reminders itself")
    config = setup.load(args, required=True)
    language = setup.language(args, config)
    with setup.services(config) as ctx:
        report = remind_missing(ctx)
    if report.round is None:
        print(_say(language, "no_open_round"))
    elif not report.queued:
        print(_say(language, "reminded_none"))
    else:
        print(_say(language, "reminded", n=report.queued, round=report.round))
    return 0


# -- broadcast ---------------------------------------------------------------


def cmd_broadcast(args: argparse.Namespace) -> int:
    from bot.service.broadcast import broadcast, parse_announcement

    path = Path(args.file)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CliError(f"cannot read the announcement {str(path)!r}: {exc.strerror}") from None
    announcement = parse_announcement(raw)
    config = setup.load(args, required=True)
    language = setup.language(args, config)
    with setup.services(config) as ctx:
        report = broadcast(ctx, announcement, subscribers=args.all)
    print(_say(language, "broadcast", digest=report.digest, queued=report.queued,
               already=report.already))
    if report.skipped_banned:
        print(_say(language, "broadcast_banned", n=report.skipped_banned))
    return 0


# -- backup ------------------------------------------------------------------


def cmd_backup(args: argparse.Namespace) -> int:
    from bot.storage.backup import backup_database
    from bot.storage.db import DATABASE_FILE, open_existing

    config = setup.load(args)
    language = setup.language(args, config)
    db = open_existing(config.state_dir / DATABASE_FILE)
    try:
        report = backup_database(db, Path(args.dest))
    finally:
        db.close()
    if args.json:
        _print_json({"path": str(report.path), "bytes": report.bytes, "pages": report.pages,
                     "schema_version": report.schema_version, "integrity": report.integrity})
        return 0
    print(_say(language, "backup", path=report.path, bytes=report.bytes,
               version=report.schema_version, integrity=report.integrity))
    print(_say(language, "restore", db=db.path))
    return 0


# -- publish -----------------------------------------------------------------


def cmd_publish(args: argparse.Namespace) -> int:
    from bot.service.webroot import copy_archive

    config = setup.load(args)
    language = setup.language(args, config)
    archive = config.state_dir / "archive"
    if not (archive / "index.html").is_file():
        print(_say(language, "no_archive", archive=archive))
        return 1
    report = copy_archive(archive, Path(args.dest))
    print(_say(language, "published", n=report.files, dest=report.dest,
               changed=report.changed))
    return 0


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
                "turnited --config game/config.yaml backup /srv/backup/turnited-$(date +%F)"
                ".sqlite3")
    p.add_argument("dest", metavar="DEST", help="a new file, or a directory to put "
                   "turnited-backup.sqlite3 in (an existing file is never overwritten)")
    p.add_argument("--json", action="store_true", help="the result as JSON")
    p.add_argument("--state", metavar="DIR", help=_STATE_HELP)
    p.set_defaults(handler=cmd_backup)

    p = _parser(sub, "publish", "copy the static newsletter archive (STATE/archive) to a "
                "web root", "turnited --config game/config.yaml publish /var/www/turnited")
    p.add_argument("dest", metavar="DIR", help="the web root (created if missing)")
    p.add_argument("--state", metavar="DIR", help=_STATE_HELP)
    p.set_defaults(handler=cmd_publish)
