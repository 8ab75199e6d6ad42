"""The game master's console use cases that mail or touch files: a new
password mailed to a manager (``reset_password``) and a rollback that also
takes the round's page out of the archive (``rollback``).

The league does the state change (``League.reset_password``,
``League.rollback``); this module adds the mail (through ``queue_mail``, in
the same transaction) and the archive files.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from bot.league.service import League, RolledBack
from bot.mail.compose import MailKind
from bot.render.archive import round_stem
from bot.render.environment import Environments
from bot.render.formatting import LANGUAGES
from bot.render.model import RenderedMail
from bot.render.password import render_password_mail
from bot.render.site import write_site
from bot.service.outgoing import Sender, queue_mail
from bot.service.publish import site_data
from bot.storage.db import Database


def password_mail(
    password: str, *, language: str, name: str | None, game_name: str, game_address: str,
    environments: Environments | None = None,
) -> RenderedMail:
    """The mail that carries a new password the game master gave (German or
    English; another language falls back to German)."""
    return render_password_mail(
        "given", language=language if language in LANGUAGES else "de", name=name,
        password=password, game_name=game_name, game_address=game_address, env=environments)


def reset_password(
    db: Database, league: League, address: str, *, sender: Sender, game_name: str,
    game_address: str, default_language: str, now: datetime,
) -> tuple[str, int]:
    """Give the manager at ``address`` a new password (the old one stops
    working) and queue the mail that tells it, to that address only, in one
    transaction. Returns the manager's address and the outbox row id."""
    with db.transaction() as conn:
        manager, password = league.reset_password(conn, address)
        rendered = password_mail(
            password, language=manager.language or default_language,
            name=manager.display_name, game_name=game_name, game_address=game_address,
        )
        # One key per new hash: every reset is its own mail.
        row = queue_mail(
            conn, sender=sender, kind=MailKind.NOTICE, to=manager.address,
            to_name=manager.display_name, rendered=rendered,
            key=f"password/{manager.id}/{now.isoformat()}", now=now,
        )
    return manager.address, row


def rollback(
    league: League, now: datetime, round_number: int | None, *, archive_dir: Path | None,
    game_name: str, language: str, timezone: str = "UTC",
    environments: Environments | None = None,
) -> tuple[RolledBack, list[Path]]:
    """Roll back the last evaluation and remove its archive page; the archive
    site (index, hall of fame, team pages) is written again without it.
    Returns what was undone and the removed files."""
    undone = league.rollback(now, round_number)
    removed: list[Path] = []
    if archive_dir is not None and Path(archive_dir).is_dir():
        stem = round_stem(undone.round)
        for suffix in (".html", ".txt", ".json"):
            path = Path(archive_dir) / f"{stem}{suffix}"
            if path.exists():
                path.unlink()
                removed.append(path)
        if removed:
            with league.db.read() as conn:
                data = site_data(conn)
            write_site(archive_dir, data, game_name=game_name, language=language,
                       timezone=timezone, env=environments)
    return undone, removed


__all__ = ["password_mail", "reset_password", "rollback"]
