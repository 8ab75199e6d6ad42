"""League commands: ``status`` (where the league stands; ``--json`` for
monitoring) and ``replay ROUND``. Both only read the state, so they load the
configuration without the mail password variables."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from bot.storage import bounces, ledger, results
from bot.storage.db import DATABASE_FILE, Database, open_existing

if TYPE_CHECKING:  # imported when used: the CLI starts fast
    from bot.config import Config
    from bot.league.service import League, LeagueStatus
    from bot.service.deadlines import DeadlineOutlook
    from bot.storage.bounces import BouncedManager

DEFAULT_STATE = Path("state")


def state_dir_from_args(args: argparse.Namespace) -> Path:
    """The state directory: ``--state DIR`` if given, else the configuration's
    ``state_dir`` if the ``--config`` file exists, else ``state``."""
    explicit = getattr(args, "state", None)
    if explicit:
        return Path(explicit)
    from bot.config.files import config_file

    config_path = config_file(getattr(args, "config", None))
    if config_path is not None:
        from bot.config import load_config

        return load_config(config_path, check_secrets=False).state_dir
    return DEFAULT_STATE


def open_state(args: argparse.Namespace) -> Database:
    """The state directory's database (``StorageError`` if missing or unusable)."""
    return open_existing(state_dir_from_args(args) / DATABASE_FILE)


_open_existing = open_state


def _league(args: argparse.Namespace) -> League:
    from bot.league.service import League

    return League(_open_existing(args))


def _when(moment: datetime, timezone: str | None = None) -> str:
    utc = moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    if not timezone:
        return utc
    from zoneinfo import ZoneInfo

    local = moment.astimezone(ZoneInfo(timezone))
    return f"{local:%Y-%m-%d %H:%M} {local.tzname()} ({timezone}) = {utc}"


def _config(args: argparse.Namespace) -> Config | None:
    """The configuration that belongs to the state directory: the ``--config``
    file, unless ``--state`` names another directory (or there is no file)."""
    if getattr(args, "state", None):
        return None
    from bot.config.files import config_file

    config_path = config_file(getattr(args, "config", None))
    if config_path is None:
        return None
    from bot.config import load_config

    return load_config(config_path, check_secrets=False)


def _timezone(args: argparse.Namespace) -> str | None:
    config = _config(args)
    return config.schedule.timezone if config else None


def _not_started(args: argparse.Namespace, now: datetime) -> int:
    """``status`` of a league whose first round is not open yet."""
    print("No round is open yet: round 1 opens when the bot starts (turnited run).")
    config = _config(args)
    if config is None:
        print("First deadline: the first of the configuration's schedule.deadlines after "
              "the start (shown when status reads the configuration: --config, no --state)")
        return 0
    from bot.schedule import DeadlinePlan

    first = DeadlinePlan(config.schedule).next_deadline(now)
    if first is None:
        print("First deadline: none planned after now; add a future date-time to "
              "schedule.deadlines or use schedule.deadlines.cron")
    else:
        print(f"Planned first deadline: {_when(first, config.schedule.timezone)}")
    return 0


def _outlook(config: Config | None, after: datetime) -> DeadlineOutlook | None:
    if config is None:
        return None
    from bot.schedule import DeadlinePlan
    from bot.service.deadlines import deadline_outlook

    return deadline_outlook(DeadlinePlan(config.schedule), after)


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


def _status_json(s: LeagueStatus | None, now: datetime, config: Config | None,
                 bounced: list[BouncedManager], queue: dict[str, int],
                 quarantine: tuple[int, int]) -> dict[str, object]:
    from bot.schedule import DeadlinePlan

    out: dict[str, object] = {"now": now.isoformat(), "started": s is not None,
                              "outbox": queue,
                              "bounced_managers": [
                                  {"address": b.address, "bounces": b.count,
                                   "last_at": b.last_at, "last_reason": b.last_reason}
                                  for b in bounced],
                              "quarantined_mails": quarantine[0],
                              "mails_waiting_for_retry": quarantine[1]}
    if s is None:
        first = DeadlinePlan(config.schedule).next_deadline(now) if config else None
        out["first_deadline"] = first.isoformat() if first else None
    else:
        out.update(
            season=s.season, round=s.round, round_in_season=s.round_in_season,
            deadline=s.deadline.isoformat(), deadline_passed=s.deadline_passed,
            evaluated_rounds=s.evaluated_rounds, managers=s.managers,
            managers_total=s.managers_total, teams=s.teams,
            teams_with_lineup=len(s.teams_with_lineup), commitment=s.commitment,
        )
    outlook = _outlook(config, s.deadline if s else now)
    out["deadlines"] = outlook.as_dict() if outlook else None
    return out


def cmd_status(args: argparse.Namespace) -> int:
    import json

    from bot.league.errors import NoOpenRound
    from bot.storage import outbox

    league = _league(args)
    config = _config(args)
    now = datetime.now(UTC)
    try:
        with league.db.read() as conn:
            try:
                s = league.status(conn, now)
            except NoOpenRound:
                s = None
            bounced = bounces.bounced_managers(conn)
            queue = outbox.counts(conn)
            quarantine = ledger.quarantined_count(conn)
    finally:
        league.db.close()
    if args.json:
        status = _status_json(s, now, config, bounced, queue, quarantine)
        print(json.dumps(status, ensure_ascii=False, indent=2))
        return 0
    timezone = config.schedule.timezone if config else None
    if s is None:
        _not_started(args, now)
        warning = outlook_warning(_outlook(config, now), None, timezone)
        if warning:
            print(warning)
        return 0
    passed = " (passed: waiting for the evaluation)" if s.deadline_passed else ""
    print(f"Season {s.season}, round {s.round_in_season} of the season "
          f"(round {s.round} overall; {s.evaluated_rounds} evaluated)")
    print(f"Deadline: {_when(s.deadline, timezone)}{passed}")
    if s.commitment:  # RULES.md §4: check with `turnited verify ROUND SEED` after the results
        print(f"Seed commitment for round {s.round}: {s.commitment}")
    warning = outlook_warning(_outlook(config, s.deadline), s.round, timezone)
    if warning:
        print(warning)
    print(f"Managers: {s.managers} with a team ({s.managers_total} ever registered)")
    print(f"Teams: {s.teams}")
    print(f"Teams with a lineup for round {s.round}: {len(s.teams_with_lineup)}")
    for name in s.teams_with_lineup:
        print(f"  {name}")
    quarantined, retrying = quarantine
    if quarantined or retrying:
        print(f"Mails in quarantine: {quarantined} (handling failed every attempt; "
              f"{retrying} waiting for another attempt)")
    if bounced:
        print(f"Managers whose mail bounced: {len(bounced)}")
        for b in bounced:
            print(f"  {b.address}: {b.count} bounce(s), last {b.last_at or '?'}: "
                  f"{b.last_reason}")
    if queue.get("failed"):
        print(f"Outgoing mails that failed for good: {queue['failed']}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from bot.cli import CliError

    league = _league(args)
    if args.all:
        with league.db.read() as conn:
            rounds = results.evaluated_rounds(conn)
        if not rounds:
            raise CliError("no round has been evaluated yet; nothing to replay")
    elif args.round is None:
        raise CliError("give a ROUND number to replay, or --all")
    else:
        rounds = [args.round]
    differing = 0
    for number in rounds:
        result = league.replay(number)
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
