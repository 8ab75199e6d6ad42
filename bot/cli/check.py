"""``turnited check [--state DIR] [--json] [--min-free-mb N]``: is the state
fit to run on? Reports the database's integrity and foreign keys, its schema
version, file permissions, free disk space, missing spool files and the
outbox backlog (``bot.service.health``), in the game's language (``--lang``); exit status
0 when all is well, 1 when something needs the game master. It never needs
the mail passwords and changes nothing.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime

from bot.cli import setup


def cmd_check(args: argparse.Namespace) -> int:
    from bot.service.health import check_state, text, topic

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
    p.set_defaults(handler=cmd_check)
