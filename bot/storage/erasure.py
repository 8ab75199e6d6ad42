"""Erasing a person's data on request (``Daten löschen``, RULES.md §12): every
statement that forgets an address, in one place.

``bot.league.erasure`` decides what erasing means and calls these in the
mail's transaction: the manager's row keeps its id (his teams' history
points at it) but loses address, name, password and language; his teams
retire; the ledger, the outbox, the bounces and the waiting confirmations
forget the address; the spool files of his mails are queued for removal
(``spool_removals``: removed by ``bot.service.erasure`` once the transaction
has committed). The reply to the confirming mail is the last mail to the
address: ``erasures`` names that mail, and ``forget_farewells`` erases the
reply's recipient once it is sent. ``truncate_wal`` then writes every
change into the database file and empties the WAL (freed content is zeroed:
``secure_delete``), so no old page keeps the address.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from bot.storage.addresses import canonical_address
from bot.storage.values import time_to_db

#: What stands where an erased address stood (the ledger's sender, an
#: outbox recipient, a ledger line that named it).
ERASED = "(erased)"


def erased_address(manager_id: int) -> str:
    """The ``managers.address`` of an erased manager: unique, and no mail
    address (no ``@``), so nothing can be sent to it or arrive from it."""
    return f"(erased {manager_id})"


def is_erased_address(address: str) -> bool:
    return address.startswith("(erased")


def erase_manager(conn: sqlite3.Connection, manager_id: int, now: datetime) -> None:
    """The manager's row without address, name, password and language."""
    conn.execute(
        "UPDATE managers SET address = ?, display_name = NULL, password_hash = NULL,"
        " language = NULL, language_chosen_at = NULL, unsubscribed_at = NULL,"
        " erased_at = ? WHERE id = ?",
        (erased_address(manager_id), time_to_db(now), manager_id),
    )


def retire_teams(conn: sqlite3.Connection, manager_id: int, round_number: int
                 ) -> tuple[list[str], list[str]]:
    """The manager's teams leave the game from round ``round_number`` on:
    one that played is ``retired`` (deleted at that round, never plays or
    ages again, keeps its WP and stays in the tables while it played
    recently; its moves for that and later rounds go, the others lose their
    Message-ID); one that never played never existed (its name is free
    again). Returns (retired, cancelled) team names."""
    teams = conn.execute(
        "SELECT id, name, last_played_round FROM teams WHERE manager_id = ?"
        " AND deleted_round IS NULL ORDER BY id", (manager_id,),
    ).fetchall()
    retired, cancelled = [], []
    for team_id, name, played in teams:
        conn.execute("DELETE FROM moves WHERE team_id = ? AND round >= ?",
                     (team_id, round_number))
        if played is None:
            conn.execute("DELETE FROM moves WHERE team_id = ?", (team_id,))
            conn.execute("DELETE FROM teams WHERE id = ?", (team_id,))
            cancelled.append(name)
            continue
        conn.execute(
            "UPDATE teams SET deleted_round = ?, retired = 1, doomed_round = NULL,"
            " doomed_by = NULL WHERE id = ?", (round_number, team_id))
        conn.execute("UPDATE moves SET message_id = NULL WHERE team_id = ?", (team_id,))
        retired.append(name)
    return retired, cancelled


def _inbound_of(conn: sqlite3.Connection, address: str, manager_id: int | None) -> list[int]:
    """Ledger ids of the mails from ``address`` (any spelling), of the
    manager, and of the bounces of mail to him."""
    local = address.rpartition("@")[0]
    ids = {int(r[0]) for r in conn.execute(
        "SELECT id FROM inbound WHERE manager_id = ? OR (sender IS NOT NULL AND"
        " instr(lower(sender), ?) = 1)", (manager_id, f"{local}@"))
        if r[0] is not None}
    ids = {i for i in ids if _is_from(conn, i, address, manager_id)}
    ids |= {int(r[0]) for r in conn.execute(
        "SELECT inbound_id FROM bounces WHERE inbound_id IS NOT NULL"
        " AND (manager_id = ? OR lower(recipient) = ?)", (manager_id, address))}
    return sorted(ids)


def _is_from(conn: sqlite3.Connection, inbound_id: int, address: str,
             manager_id: int | None) -> bool:
    owner, sender = conn.execute(
        "SELECT manager_id, sender FROM inbound WHERE id = ?", (inbound_id,)).fetchone()
    if manager_id is not None and owner == manager_id:
        return True
    return bool(sender) and canonical_address(str(sender).lower()) == address


def forget_mail(conn: sqlite3.Connection, address: str, manager_id: int | None) -> int:
    """The ledger, outbox, bounces and waiting confirmations forget ``address``
    (the league's spelling) and the manager; the spool files of the ledgered
    mails are queued for removal. Mail to the address not sent yet is
    cancelled. Returns how many ledgered mails were forgotten."""
    inbound = _inbound_of(conn, address, manager_id)
    for inbound_id in inbound:
        (path,) = conn.execute("SELECT spool_path FROM inbound WHERE id = ?",
                               (inbound_id,)).fetchone()
        if path:
            conn.execute("INSERT OR IGNORE INTO spool_removals (path) VALUES (?)", (path,))
        conn.execute(
            "UPDATE inbound SET sender = CASE WHEN sender IS NULL THEN NULL ELSE ? END,"
            " subject = NULL, message_id = NULL, spool_path = '' WHERE id = ?",
            (ERASED, inbound_id))
    conn.execute("UPDATE inbound SET outcome = replace(outcome, ?, ?)"
                 " WHERE instr(outcome, ?) > 0", (address, ERASED, address))
    conn.execute("DELETE FROM bounces WHERE manager_id = ? OR lower(recipient) = ?",
                 (manager_id, address))
    conn.execute("DELETE FROM confirmations WHERE confirm_from = ? OR manager_id = ?",
                 (address, manager_id))
    recipients = [r[0] for r in conn.execute("SELECT DISTINCT recipient FROM outbox")
                  if canonical_address(str(r[0]).lower()) == address]
    for recipient in recipients:
        conn.execute("DELETE FROM outbox WHERE recipient = ? AND state IN ('queued', 'sending')",
                     (recipient,))
        conn.execute("UPDATE outbox SET recipient = ?, last_error = NULL WHERE recipient = ?",
                     (ERASED, recipient))
    return len(inbound)


def mark_farewell(conn: sqlite3.Connection, inbound_id: int, now: datetime) -> None:
    """The reply to the mail ``inbound_id`` is the last one to an erased address."""
    conn.execute("INSERT OR IGNORE INTO erasures (inbound_id, erased_at) VALUES (?, ?)",
                 (inbound_id, time_to_db(now)))


def forget_farewells(conn: sqlite3.Connection) -> int:
    """Erase the recipient of every farewell that is sent (or failed for
    good); returns how many. A farewell not sent yet waits."""
    done = conn.execute(
        "SELECT o.id, e.inbound_id FROM outbox o JOIN erasures e ON o.inbound_id = e.inbound_id"
        " WHERE o.state IN ('sent', 'failed') AND o.recipient != ?", (ERASED,),
    ).fetchall()
    for row_id, _ in done:
        conn.execute("UPDATE outbox SET recipient = ?, last_error = NULL WHERE id = ?",
                     (ERASED, row_id))
    conn.execute(
        "DELETE FROM erasures WHERE NOT EXISTS (SELECT 1 FROM outbox o WHERE"
        " o.inbound_id = erasures.inbound_id AND o.state IN ('queued', 'sending'))"
        " AND EXISTS (SELECT 1 FROM outbox o WHERE o.inbound_id = erasures.inbound_id)")
    return len(done)


def spool_removals(conn: sqlite3.Connection) -> list[str]:
    """The spool files (relative paths) still to remove."""
    return [str(r[0]) for r in conn.execute("SELECT path FROM spool_removals ORDER BY path")]


def spool_removed(conn: sqlite3.Connection, paths: list[str]) -> None:
    conn.executemany("DELETE FROM spool_removals WHERE path = ?", [(p,) for p in paths])


def truncate_wal(conn: sqlite3.Connection) -> bool:
    """Copy the whole WAL into the database file and empty it (a connection
    outside any transaction); False when a reader kept it from finishing."""
    busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return not busy
