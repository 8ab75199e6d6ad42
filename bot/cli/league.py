"""League commands: ``status`` (where the league stands; ``--json`` for
monitoring) and ``replay ROUND``. Both only read the state, so they load the
configuration without the mail password variables."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from bot.cli import setup

if TYPE_CHECKING:  # imported when used: the CLI starts fast
    from bot.service.deadlines import DeadlineOutlook


def _when(moment: datetime, timezone: str | None = None) -> str:
    utc = moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    if not timezone:
        return utc
    from zoneinfo import ZoneInfo

    local = moment.astimezone(ZoneInfo(timezone))
    return f"{local:%Y-%m-%d %H:%M} {local.tzname()} ({timezone}) = {utc}"


def outlook_warning(
    outlook: DeadlineOutlook | None, open_round: int | None, timezone: str | None
) -> str | None:
    """The line that tells the game master the planned deadlines run out."""
    if outlook is None or not outlook.running_out:
        return None
    fix = "add later date-times to schedule.deadlines or use a cron line"
    if outlook.left == 0:
        after = f"round {open_round}" if open_round else "the first round"
        return (f"Deadlines run out: none is planned after {after}'s, so no round opens "
                f"after its evaluation; {fix}")
    last = _when(outlook.last, timezone) if outlook.last else "?"
    return (f"Deadlines run out: only {outlook.left} planned deadline is left after the open "
            f"round's (the last: {last}); {fix}")


def cmd_status(args: argparse.Namespace) -> int:
    import json

    from bot.service.status import status

    config = setup.load(args)
    with setup.services(config) as ctx:
        report = status(ctx)
    if args.json:
        print(json.dumps(report.as_dict(), ensure_ascii=False, indent=2))
        return 0
    timezone = config.schedule.timezone
    s = report.league
    if s is None:
        print("No round is open yet: round 1 opens when the bot starts (turnited run).")
        if not setup.has_config(args):
            print("First deadline: the first of the configuration's schedule.deadlines after "
                  "the start (shown when status reads the configuration: --config)")
        elif report.first_deadline is None:
            print("First deadline: none planned after now; add a future date-time to "
                  "schedule.deadlines or use schedule.deadlines.cron")
        else:
            print(f"Planned first deadline: {_when(report.first_deadline, timezone)}")
        warning = outlook_warning(report.outlook, None, timezone)
        if warning:
            print(warning)
        return 0
    passed = " (passed: waiting for the evaluation)" if s.deadline_passed else ""
    print(f"Season {s.season}, round {s.round_in_season} of the season "
          f"(round {s.round} overall; {s.evaluated_rounds} evaluated)")
    print(f"Deadline: {_when(s.deadline, timezone)}{passed}")
    if s.commitment:  # RULES.md §4: check with `turnited verify ROUND SEED` after the results
        print(f"Seed commitment for round {s.round}: {s.commitment}")
    warning = outlook_warning(report.outlook, s.round, timezone)
    if warning:
        print(warning)
    print(f"Managers: {s.managers} with a team ({s.managers_total} ever registered)")
    print(f"Teams: {s.teams}")
    print(f"Teams with a lineup for round {s.round}: {len(s.teams_with_lineup)}")
    for name in s.teams_with_lineup:
        print(f"  {name}")
    if report.quarantined or report.retrying:
        print(f"Mails in quarantine: {report.quarantined} (handling failed every attempt; "
              f"{report.retrying} waiting for another attempt)")
    if report.bounced:
        print(f"Managers whose mail bounced: {len(report.bounced)}")
        for b in report.bounced:
            print(f"  {b.address}: {b.count} bounce(s), last {b.last_at or '?'}: "
                  f"{b.last_reason}")
    if report.outbox.get("failed"):
        print(f"Outgoing mails that failed for good: {report.outbox['failed']}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from bot.cli import CliError
    from bot.storage import results

    config = setup.load(args)
    with setup.services(config) as ctx:
        if args.all:
            with ctx.db.read() as conn:
                rounds = results.evaluated_rounds(conn)
            if not rounds:
                raise CliError("no round has been evaluated yet; nothing to replay")
        elif args.round is None:
            raise CliError("give a ROUND number to replay, or --all")
        else:
            rounds = [args.round]
        differing = 0
        for number in rounds:
            result = ctx.league.replay(number)
            if result.identical:
                print(f"round {number}: identical (seed {result.seed})")
            else:
                differing += 1
                print(f"round {number}: DIFFERENT (seed {result.seed})")
                print(result.diff)
    return 1 if differing else 0


def register(sub: argparse._SubParsersAction) -> None:
    status = sub.add_parser(
        "status",
        help="season, round, deadline, managers, teams, and which teams have a lineup",
        description="Show where the league stands (never any lineup).",
        epilog="examples:\n  turnited --config game/config.yaml status\n"
        "  turnited --config game/config.yaml status --json | jq .outbox.failed",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    status.add_argument("--state", metavar="DIR", help="state directory (default: from the "
                        "configuration, else 'state')")
    status.add_argument("--json", action="store_true",
                        help="one JSON object for monitoring (round, deadline, counts, "
                        "outbox states, bounces, deadlines left)")
    status.set_defaults(handler=cmd_status)

    replay = sub.add_parser(
        "replay",
        help="re-play an evaluated round from its stored inputs and seed",
        description="Re-play a stored round and report whether the result is identical "
        "(exit status 0 identical, 1 different).",
        epilog="example:\n  turnited --config game/config.yaml replay --all",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    replay.add_argument("round", metavar="ROUND", type=int, nargs="?", help="round number")
    replay.add_argument("--all", action="store_true", help="replay every evaluated round")
    replay.add_argument("--state", metavar="DIR", help="state directory (default: from the "
                        "configuration, else 'state')")
    replay.set_defaults(handler=cmd_replay)
