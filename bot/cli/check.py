"""``turnited check [--state DIR] [--json] [--min-free-mb N]``: is the state
fit to run on? Reports the database's integrity and foreign keys, its schema
version, file permissions, free disk space, missing spool files and the
outbox backlog (``bot.service.health``), in the game's language (``--lang``); exit status
0 when all is well, 1 when something needs the game master. It never needs
the mail passwords and changes nothing.

``turnited check --connect [--timeout S]`` checks the mail servers instead
(``bot.service.connection_check``): one line per step, what failed and
which key of ``config.yaml`` to change; no secret is printed.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime

from bot.cli import setup


def cmd_check_connect(args: argparse.Namespace) -> int:
    """``check --connect``: the mail servers instead of the state."""
    from bot.render import connection_words as words
    from bot.service.connection_check import check_connections

    config = setup.load(args, required=True)  # an unset password is a step's line
    language = setup.language(args, config)
    mail = config.mail
    report = check_connections(mail.transport, config.imap_settings(), config.smtp_settings(),
                               mail_from=mail.address, timeout=args.timeout)
    if args.json:
        print(json.dumps({**report.as_json(), "lines": [
            words.line(s.server, s.code, s.values, language) for s in report.steps]},
            ensure_ascii=False, indent=2))
    else:
        for step in report.steps:
            print(f"{words.mark(step.status, language):7} {words.server_name(step.server):4} "
                  f"{words.line(step.server, step.code, step.values, language)}")
        print(words.summary(report.ok, language, maildir=mail.transport != "imap"))
    return 0 if report.ok else 1


def cmd_check(args: argparse.Namespace) -> int:
    from bot.service.health import check_state, text, topic

    if args.connect:
        return cmd_check_connect(args)
    config = setup.load(args)
    w = setup.words(args, config)
    state = config.state_dir
    findings = check_state(state, now=datetime.now(UTC),
                           min_free_bytes=args.min_free_mb * 2**20)
    ok = all(f.ok for f in findings)
    if args.json:
        print(json.dumps({"state_dir": str(state), "ok": ok,
                          "findings": [f.as_json(w) for f in findings]},
                         ensure_ascii=False, indent=2))
        return 0 if ok else 1
    marks = {True: w._("ok"), False: w._("PROBLEM")}
    topics = {f.topic: topic(f.topic, w) for f in findings}
    mark_width = max(len(m) for m in marks.values())
    topic_width = max(len(t) for t in topics.values())
    for finding in findings:
        print(f"{marks[finding.ok]:{mark_width}}  {topics[finding.topic]:{topic_width}}  "
              f"{text(finding, w)}")
    return 0 if ok else 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="check the state: integrity, permissions, disk, spool, "
                                     "outbox (exit status 1 on a problem)")
    p.add_argument("--state", metavar="DIR",
                   help="state directory (default: the configuration's, else ./state)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--min-free-mb", type=int, default=100, metavar="N",
                   help="report a problem below N MB of free disk (default: %(default)s)")
    p.add_argument("--connect", action="store_true",
                   help="check the mail servers instead: TLS, login, folders, IDLE and the "
                        "sender, one line per step (nothing is sent); exit status 1 on a "
                        "problem")
    p.add_argument("--timeout", type=float, default=10.0, metavar="S",
                   help="with --connect: seconds a server may take to answer (default: "
                        "%(default)s)")
    p.set_defaults(handler=cmd_check)
