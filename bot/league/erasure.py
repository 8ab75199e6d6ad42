"""What erasing a person's data means (``Daten löschen``, RULES.md §12).

``erase`` runs in the transaction of the mail that confirmed it: the
manager's address, name and password are gone (his row keeps only its id,
which his teams' history points at); his teams retire from the open round
on (``bot.storage.erasure.retire_teams``: they keep their WP and their
place in the results, the tables show them with "—" as manager while they
are listed; a team that never played never existed); and every trace of
the address is forgotten: the ledger's lines, the outbox, the bounces, the
waiting confirmations, and the spooled raw mails (removed once the
transaction committed, ``bot.service.erasure``). A person without a
manager (who only ever wrote) loses the traces of his mails all the same.

The stored inputs and reports of the evaluated rounds name teams, never
addresses, so every round still replays identically.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime

from bot.storage import erasure as rows
from bot.storage import rounds as round_rows
from bot.storage.managers import ManagerRow


@dataclass(frozen=True, slots=True)
class Erased:
    """What an erasure did."""

    #: Teams that retired (they played) and registrations that never played.
    retired: tuple[str, ...]
    cancelled: tuple[str, ...]
    #: Ledgered mails forgotten (their spool files go after the commit).
    mails: int


def erase(conn: sqlite3.Connection, address: str, manager: ManagerRow | None,
          now: datetime) -> Erased:
    """Forget ``address`` (the league's spelling) and, if given, its manager."""
    retired: list[str] = []
    cancelled: list[str] = []
    if manager is not None:
        rnd = round_rows.open_round(conn)
        first = rnd.number if rnd is not None else round_rows.count_evaluated(conn) + 1
        retired, cancelled = rows.retire_teams(conn, manager.id, first)
        rows.erase_manager(conn, manager.id, now)
    mails = rows.forget_mail(conn, address, manager.id if manager else None)
    return Erased(tuple(retired), tuple(cancelled), mails)


__all__ = ["Erased", "erase"]
