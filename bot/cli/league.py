"""League commands: ``status`` (where the league stands) and ``replay ROUND``."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path

from bot.storage.db import DATABASE_FILE, Database
from bot.storage.migrations import apply_migrations

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
    from bot.cli import CliError

    state = state_dir_from_args(args)
    path = state / DATABASE_FILE
    if not path.is_file():
        raise CliError(f"no league database at {str(path)!r}; is the state directory right "
                       "(--state DIR)? The bot creates it when it starts.")
    db = Database(path)
    apply_migrations(db)
    return db


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


def _timezone(args: argparse.Namespace) -> str | None:
    config_path = Path(getattr(args, "config", "") or "config.yaml")
    if getattr(args, "state", None) or not config_path.is_file():
        return None
    from bot.config import load_config

    return load_config(config_path).schedule.timezone


def cmd_status(args: argparse.Namespace) -> int:
    league = _league(args)
    now = datetime.now(UTC)
    with league.db.read() as conn:
        s = league.status(conn, now)
    passed = " (passed: waiting for the evaluation)" if s.deadline_passed else ""
    print(f"Season {s.season}, round {s.round_in_season} of the season "
          f"(round {s.round} overall; {s.evaluated_rounds} evaluated)")
    print(f"Deadline: {_when(s.deadline, _timezone(args))}{passed}")
    print(f"Managers: {s.managers} with a team ({s.managers_total} ever registered)")
    print(f"Teams: {s.teams}")
    print(f"Teams with a lineup for round {s.round}: {len(s.teams_with_lineup)}")
    for name in s.teams_with_lineup:
        print(f"  {name}")
    with league.db.read() as conn:
        bounced = conn.execute(
            "SELECT m.address, COUNT(*), MAX(b.at), MAX(b.reason) FROM bounces b"
            " JOIN managers m ON m.id = b.manager_id GROUP BY m.id ORDER BY MAX(b.id) DESC"
        ).fetchall()
    if bounced:
        print(f"Managers whose mail bounced: {len(bounced)}")
        for address, count, at, reason in bounced:
            print(f"  {address}: {count} bounce(s), last {at or '?'}: {reason}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from bot.cli import CliError

    league = _league(args)
    if args.all:
        with league.db.read() as conn:
            rounds = [r[0] for r in conn.execute("SELECT round FROM round_results ORDER BY round")]
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
