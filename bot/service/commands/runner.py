"""Carrying out one mail's requests through the registry: ``carry_out``.

Runs inside the ingest's transaction (the ledger row and the reply are
written in the same one) and returns the ``MoveOutcome`` the reply renders.
Each request is handled by its command's handler (``registry``); who may
run it is checked here and nowhere else (``Access``):

* identification: the sender address, and with passwords on the mail's
  ``Passwort: ...``. A stranger's first mail with a request that
  ``registers`` creates the manager and gets a generated password.
* a mail whose every request is open to ``ANYONE`` needs no password (help,
  a lost password); otherwise a manager with a password must give it: a
  missing or wrong one changes nothing and reveals nothing (no team states),
  and only the requests open to anyone are answered;
* a command that stands ``alone`` (a lost password) is the only thing
  carried out of its mail;
* a game master's command runs only in a mail that passed the game
  master's checks (``gm``); anywhere else it is refused.

The changes are made inside a SAVEPOINT; **decision**: if anything in the
mail is an error (a line the grammar could not read, an unknown team, a
taken name, ...), the savepoint is rolled back and the mail changes nothing
at all, and the reply says what was wrong. So a mistyped lineup never
leaves half a mail applied. Mail after the deadline of the open round
counts for the next round and says so.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Sequence
from datetime import datetime

from bot.league.errors import BadTime, NoOpenRound
from bot.league.moves import (
    attach_short_names,
    issue_password,
    next_numbering,
    normalize_address,
    register_manager,
    team_states,
)
from bot.league.names import clean
from bot.league.outcome import Code, ManagerInfo, MoveOutcome, Notice, TeamState
from bot.league.passwords import verify_password
from bot.league.settings import LeagueSettings
from bot.rules.requests import GivePassword, ParsedMoves, Request
from bot.service.commands import Registry, registry
from bot.service.commands.base import Access, Command, Session
from bot.service.context import Context
from bot.storage import managers as manager_rows
from bot.storage import moves as move_rows
from bot.storage import rounds as round_rows
from bot.storage.db import savepoint
from bot.storage.moves import MoveRow

#: Notices still true when the mail is rejected.
KEPT_ON_REJECT = frozenset({Code.LATE, Code.STATUS, Code.HELP, Code.NOT_REGISTERED})


def carry_out(
    conn: sqlite3.Connection,
    settings: LeagueSettings,
    *,
    sender: str,
    sender_name: str | None,
    moves: ParsedMoves,
    now: datetime,
    lot: random.Random,
    context: Context | None = None,
    inbound_id: int | None = None,
    message_id: str | None = None,
    commands: Registry | None = None,
    gm: bool = False,
) -> MoveOutcome:
    """Carry out one mail's requests in ``conn``'s transaction (module doc);
    ``gm``: the mail passed the game master's checks (RULES.md §13), so no
    manager's password is asked for (his own, or that of the manager a
    ``Für ADDRESS:`` block of his acts for)."""
    if now.tzinfo is None:
        raise BadTime("now", now)
    table = commands or registry()
    address = normalize_address(sender)
    current = round_rows.open_round(conn)
    if current is None:
        raise NoOpenRound()
    late = now > current.deadline
    target = current.number + 1 if late else current.number
    target_round = round_rows.round_by_number(conn, target)
    s = Session(conn, settings, lot, moves, now, target, inbound_id, message_id,
                address=address, context=context, gm=gm)
    s.manager = manager_rows.manager_by_address(conn, address)
    s.season, s.round_in_season = (
        (target_round.season, target_round.round_in_season) if target_round
        else next_numbering(current.season, current.round_in_season, settings.season_rounds)
    )
    s.deadline = target_round.deadline if target_round else None
    if late:
        s.note(Code.LATE, missed=current.number, deadline=current.deadline, round=target)

    requests = [(r, table.command_for(r)) for r in moves.requests]
    alone = [(r, c) for r, c in requests if c.alone]
    if alone:
        requests = alone[:1]
    elif not moves.errors and all(isinstance(r, GivePassword) for r, _ in requests):
        s.note(Code.NOTHING_TO_DO)

    manager = s.manager
    open_to_anyone = bool(requests) and all(c.access is Access.ANYONE for _, c in requests)
    if (manager is not None and settings.passwords and manager.password_hash
            and not open_to_anyone and not gm):  # the game master's checks stand for it
        given = _passwords(requests)
        if not given or not any(verify_password(p, manager.password_hash) for p in given):
            _run(s, [(r, c) for r, c in requests if c.access is Access.ANYONE])
            s.errors.insert(0, Notice(Code.PASSWORD_WRONG if given else Code.PASSWORD_MISSING,
                                      {"address": address}))
            s.errors.extend(_line_errors(moves))
            s.notices = [n for n in s.notices if n.code in _kept(requests)]
            s.note(Code.NOTHING_CHANGED)
            refused = ManagerInfo(address, manager.display_name, is_new=False)
            return _outcome(s, False, refused, [], late, sender_name)

    with savepoint(conn, "submit_moves") as point:
        new_password: str | None = None
        is_new = False
        if manager is None and any(c.registers for _, c in requests):
            new_password = register_manager(s, sender_name)
            is_new = True
        elif (manager is not None and settings.passwords and not manager.password_hash
              and any(c.registers for _, c in requests)):
            new_password = issue_password(s)
        before: dict[int, MoveRow | None] = {}
        if s.manager is not None:
            before = {t.id: move_rows.current_move(conn, target, t.id) for t in s.own_teams()}
            s.short_names, _ = attach_short_names(moves)
        _run(s, requests)
        s.errors.extend(_line_errors(moves))
        accepted = not s.errors
        if not accepted:
            point.rollback()
    if not accepted:
        s.notices = [n for n in s.notices if n.code in _kept(requests)]
        s.note(Code.NOTHING_CHANGED)
        s.ledger = None
        new_password = None
        if is_new:
            s.manager, is_new = None, False
        elif s.manager is not None:
            s.manager = manager_rows.manager_by_id(conn, s.manager.id)
        # A team registered by this very mail was rolled back with it: an
        # error must not list it among the manager's teams.
        stored = [t.name for t in s.own_teams()] if s.manager is not None else []
        s.errors = [
            Notice(e.code, {**e.params, "own_teams": stored}) if e.code == Code.UNKNOWN_TEAM
            else e
            for e in s.errors
        ]

    if (accepted and s.manager is not None and moves.language_known and s.language is None
            and not s.manager.language_chosen):
        # Newsletters and reminders follow the language of the latest accepted
        # mail that showed one (a bare lineup says nothing about it), unless
        # the manager chose one (``Sprache: Englisch``).
        manager_rows.update_manager(conn, s.manager.id, language=moves.language)

    info: ManagerInfo | None = None
    teams: list[TeamState] = []
    if s.manager is not None and not alone:
        info = ManagerInfo(address, s.manager.display_name, is_new,
                           new_password if accepted else None)
        teams = team_states(conn, settings, s.manager.id, target, before)
    elif s.manager is not None:
        info = ManagerInfo(address, s.manager.display_name, False)
    return _outcome(s, accepted, info, teams, late, sender_name)


def _run(s: Session, requests: Sequence[tuple[Request, Command[Request]]]) -> None:
    """Each request by its command's handler, in the mail's order. A request
    that ``registers`` needs the manager (made before, when there was none);
    a game master's command needs a mail that passed his checks."""
    for request, command in requests:
        if command.registers and s.manager is None:
            continue  # only a stranger whose mail was refused before registering
        if command.access is Access.GM and not s.gm:
            s.fail(Code.GM_ONLY, line=request.line)
            continue
        command.handler(s, request)


def _passwords(requests: Sequence[tuple[Request, Command[Request]]]) -> list[str]:
    return [r.password for r, _ in requests if isinstance(r, GivePassword)]


def _kept(requests: Sequence[tuple[Request, Command[Request]]]) -> frozenset[str]:
    """Notices still true when the mail changes nothing: the league's, and
    those of the commands open to anyone (they needed no password)."""
    return KEPT_ON_REJECT | {code for _, c in requests if c.access is Access.ANYONE
                             for code in c.codes}


def _line_errors(moves: ParsedMoves) -> list[Notice]:
    return [
        Notice(Code.LINE_ERROR, {"line": e.line, "line_number": e.line_number,
                                 "reason": e.reason, "example": e.example, "kind": e.kind,
                                 "part": e.part, "suggestion": e.suggestion,
                                 "limit": e.limit})
        for e in moves.errors
    ]


def _outcome(
    s: Session, accepted: bool, manager: ManagerInfo | None, teams: list[TeamState],
    late: bool, sender_name: str | None,
) -> MoveOutcome:
    known = s.manager.language if s.manager is not None else None
    language = s.moves.language if s.moves.language_known or not known else known
    if accepted and s.language is not None:
        language = s.language
    elif s.manager is not None and s.manager.language_chosen and known:
        language = known
    return MoveOutcome(
        manager=manager, accepted=accepted, round=s.target, late=late, deadline=s.deadline,
        notices=s.notices, errors=s.errors, teams=teams, ignored=s.moves.ignored,
        line_errors=s.moves.errors, language=language, read_notes=s.moves.notes,
        sender_name=clean(sender_name or "") or None, reply_to=s.reply_to,
        reply_to_name=s.reply_to_name, ledger=s.ledger,
    )
