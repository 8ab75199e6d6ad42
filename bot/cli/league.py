"""League commands: ``status`` (where the league stands) and ``replay ROUND``."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path

from bot.storage import bounces, results
from bot.storage.db import DATABASE_FILE, Database, open_existing

DEFAULT_STATE = Path("state")


def state_dir_from_args(args: argparse.Namespace) -> Path:
    """The state directory: ``--state DIR`` if given, else the configuration's
    ``state_dir`` if the ``--config`` file exists, else ``state``."""
    explicit = getattr(args, "state", None)
    if explicit:
        return Path(explicit)
    config_path = Path(getattr(args, "config", "") or "config.yaml")
    if config_path.is_file():
        from bot.config import load_config

        return load_config(config_path).state_dir
    return DEFAULT_STATE


def _open_existing(args: argparse.Namespace) -> Database:
    """The state directory's database (``StorageError`` if missing or unusable)."""
    return open_existing(state_dir_from_args(args) / DATABASE_FILE)


def _league(args: argparse.Namespace):
    from bot.league.service import League

    return League(_open_existing(args))


def _when(moment: datetime, timezone: str | None = None) -> str:
    utc = moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    if not timezone:
        return utc
    from zoneinfo import ZoneInfo

    local = moment.astimezone(ZoneInfo(timezone))
    return f"{local:%Y-%m-%d %H:%M} {local.tzname()} ({timezone}) = {utc}"


def _config(args: argparse.Namespace):  # -> Config | None
    """The configuration that belongs to the state directory: the ``--config``
    file, unless ``--state`` names another directory (or there is no file)."""
    config_path = Path(getattr(args, "config", "") or "config.yaml")
    if getattr(args, "state", None) or not config_path.is_file():
        return None
    from bot.config import load_config

    return load_config(config_path)


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


def cmd_status(args: argparse.Namespace) -> int:
    from bot.league.errors import NoOpenRound

    league = _league(args)
    now = datetime.now(UTC)
    try:
        with league.db.read() as conn:
            s = league.status(conn, now)
    except NoOpenRound:
        return _not_started(args, now)
    passed = " (passed: waiting for the evaluation)" if s.deadline_passed else ""
    print(f"Season {s.season}, round {s.round_in_season} of the season "
          f"(round {s.round} overall; {s.evaluated_rounds} evaluated)")
    print(f"Deadline: {_when(s.deadline, _timezone(args))}{passed}")
    if s.commitment:  # RULES.md §4: check with `turnited verify ROUND SEED` after the results
        print(f"Seed commitment for round {s.round}: {s.commitment}")
    print(f"Managers: {s.managers} with a team ({s.managers_total} ever registered)")
    print(f"Teams: {s.teams}")
    print(f"Teams with a lineup for round {s.round}: {len(s.teams_with_lineup)}")
    for name in s.teams_with_lineup:
        print(f"  {name}")
    with league.db.read() as conn:
        bounced = bounces.bounced_managers(conn)
    if bounced:
        print(f"Managers whose mail bounced: {len(bounced)}")
        for b in bounced:
            print(f"  {b.address}: {b.count} bounce(s), last {b.last_at or '?'}: "
                  f"{b.last_reason}")
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
    )
    status.add_argument("--state", metavar="DIR", help="state directory (default: from the "
                        "configuration, else 'state')")
    status.set_defaults(handler=cmd_status)

    replay = sub.add_parser(
        "replay",
        help="re-play an evaluated round from its stored inputs and seed",
        description="Re-play a stored round and report whether the result is identical "
        "(exit status 0 identical, 1 different).",
    )
    replay.add_argument("round", metavar="ROUND", type=int, nargs="?", help="round number")
    replay.add_argument("--all", action="store_true", help="replay every evaluated round")
    replay.add_argument("--state", metavar="DIR", help="state directory (default: from the "
                        "configuration, else 'state')")
    replay.set_defaults(handler=cmd_replay)
