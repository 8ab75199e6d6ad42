"""The import use case (RULES.md §14): a table of a league played elsewhere
becomes this bot's league, and each manager gets his welcome mail.

``import_league`` reads the table (``bot.league.import_table``), checks every
row (``bot.league.import_check``) and refuses the whole table with every
problem and its line (``ImportRefused``) or, unless ``dry_run``, stores it
(``bot.league.takeover``) and queues one welcome mail per manager through
``queue_mail``, all in one transaction: a crash leaves the league empty or
imported with every welcome mail queued. The passwords are hashed before
that transaction, on as many threads as the machine has cores (scrypt is
the import's cost, one hash per manager; ``hashlib.scrypt`` releases the
interpreter lock). Afterwards the archive site is written, so the home page
shows the imported tables from the start.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime

from bot.errors import TurnitedError
from bot.league.import_check import ImportPlan, PlannedManager, check_table
from bot.league.import_table import Problem, read_table
from bot.league.passwords import generate_password, hash_password
from bot.league.takeover import Imported, LeagueNotEmpty, apply_import
from bot.mail.compose import MailKind
from bot.render.model import RoundInfo
from bot.render.welcome import WelcomeMails, WelcomeTeam
from bot.service.context import Context
from bot.service.outgoing import queue_mail
from bot.service.publish import write_site_now
from bot.storage import imports


class ImportRefused(TurnitedError, ValueError):
    """The table cannot be imported; ``problems`` says why, line by line.
    Nothing was stored."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        shown = "; ".join(str(p) for p in self.problems[:5])
        more = f" and {len(self.problems) - 5} more" if len(self.problems) > 5 else ""
        super().__init__(f"the table was not imported: {len(self.problems)} problem(s): "
                         f"{shown}{more}")


@dataclass(frozen=True, slots=True)
class ImportResult:
    plan: ImportPlan
    dry_run: bool
    #: What was stored (None for a dry run).
    imported: Imported | None
    welcome_mails: int


def _hash_all(managers: Sequence[PlannedManager], cost: int,
              workers: int | None) -> tuple[dict[str, str], dict[str, str]]:
    """address -> new password, address -> its scrypt hash."""
    passwords = {m.address: generate_password() for m in managers}
    count = workers or os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=max(1, count)) as pool:
        hashes = dict(zip(passwords, pool.map(lambda p: hash_password(p, n=cost),
                                              passwords.values()), strict=True))
    return passwords, hashes


def import_league(
    ctx: Context,
    data: bytes,
    *,
    source: str,
    season: int,
    round_in_season: int,
    deadline: datetime,
    dry_run: bool = False,
    welcome: bool = True,
    encoding: str = "auto",
    seeds: Callable[[], int] | None = None,
    hash_workers: int | None = None,
) -> ImportResult:
    """Import the table ``data`` (the file's bytes; ``source`` its name) to
    continue with round ``round_in_season`` of ``season``, whose deadline is
    ``deadline``. Raises ``ImportRefused`` (every problem, nothing stored)
    or ``LeagueNotEmpty``."""
    league = ctx.league
    settings = league.settings
    now = ctx.clock()
    if deadline <= now:
        raise ImportRefused([Problem(0, "deadline_past", {"deadline": deadline.isoformat()})])
    table = read_table(data, encoding)
    checked = check_table(table, season=season, round_in_season=round_in_season,
                          settings=settings)
    with ctx.db.read() as conn:
        empty = imports.is_empty(conn)
    if checked.plan is None:
        raise ImportRefused(checked.problems + (() if empty else (Problem(0, "not_empty"),)))
    if not empty:
        raise LeagueNotEmpty()
    plan = checked.plan
    if dry_run:
        return ImportResult(plan, True, None, 0)
    if settings.passwords and welcome:
        passwords, hashes = _hash_all(plan.managers, settings.password_cost, hash_workers)
    else:
        # Without a welcome mail nobody would know a password: none is stored,
        # and a manager's first mail gets one, as a new manager's does (RULES.md §9).
        passwords, hashes = {}, {}
    digest = hashlib.sha256(data).hexdigest()
    s = ctx.settings
    queued = 0
    with ctx.db.transaction() as conn:
        imported = apply_import(conn, plan, password_hashes=hashes, deadline=deadline, now=now,
                                seeds=seeds or league.seeds, source=source, sha256=digest)
        rnd = imported.round
        home = ctx.environments.archive_url
        mails = WelcomeMails(
            RoundInfo(rnd.season, rnd.round_in_season, rnd.number), rnd.deadline,
            imported.commitment, s.timezone, s.game_name, s.game_address,
            f"{home.rstrip('/')}/index.html" if home else None, ctx.environments)
        for manager in plan.managers if welcome else ():
            rendered = mails.render(
                manager=manager.name,
                teams=[WelcomeTeam(t.name, t.short_name, t.wp, t.budget, t.psz)
                       for t in manager.teams],
                password=passwords.get(manager.address),
                language=manager.language or s.newsletter_language)
            queue_mail(conn, sender=s.sender, kind=MailKind.NOTICE, to=manager.address,
                       to_name=manager.name, rendered=rendered,
                       key=f"welcome/{imported.manager_ids[manager.address]}", now=now,
                       round_number=rnd.number)
            queued += 1
    write_site_now(ctx)  # the home page shows the imported tables from the start
    return ImportResult(plan, False, imported, queued)


__all__ = ["ImportRefused", "ImportResult", "LeagueNotEmpty", "import_league"]
