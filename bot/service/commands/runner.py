"""Carrying out one mail's requests through the registry: ``carry_out``.

Runs inside the ingest's transaction (the ledger row and the reply are
written in the same one) and returns the ``MoveOutcome`` the reply renders.
Each request is handled by its command's handler (``registry``); who may
run it is checked here and nowhere else (``Access``):

* identification: the sender address, and with passwords on the mail's
  ``Passwort: ...``. A stranger's first mail with a request that
  ``registers`` creates the manager and gets a generated password.
* a mail whose every request is open to ``ANYONE`` (or that holds no
  request at all) needs no password (help, ``?``, a lost password);
  otherwise a manager with a password must give it: a missing or wrong one
  changes nothing and reveals nothing (no team states), and only the
  requests open to anyone are answered. A mail without the right password
  never shows the team states;
* at most ``MAX_PASSWORD_CANDIDATES`` different passwords of a mail are
  checked; a mail with more is refused without checking any (RULES.md §11);
* a command that stands ``alone`` (a lost password) is the only thing
  carried out of its mail;
* a game master's command runs only in a mail that passed the game
  master's checks (``gm``); anywhere else it is refused.

Each team stands alone (RULES.md §11): the requests are grouped by the
team they are for (``bot.league.grouping``; a first mail's team line
becomes a registration there) and each group runs in its own SAVEPOINT
inside the mail's. An error in a group (a line of the grammar that belongs
to it, an unknown team, a taken name, ...) rolls back that group only: a
mistyped lineup never leaves half a team's lines applied, and the other
teams' lineups and the mail's other commands stand; the reply lists the
errors and names the teams of which nothing was stored
(``Code.PARTLY_STORED``). When every group failed, or an error belongs to
the whole mail, the mail's savepoint is rolled back too: it changes
nothing at all (a stranger is not registered) and the reply says so
(``Code.NOTHING_CHANGED``). Mail after the deadline of the open round
counts for the next round and says so.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Sequence
from datetime import datetime

from bot.league.addresses import next_numbering, normalize_address
from bot.league.errors import BadTime, NoOpenRound
from bot.league.grouping import Group, first_mail_registrations, plan
from bot.league.moves import attach_short_names, issue_password, register_manager, team_states
from bot.league.names import clean
from bot.league.outcome import Code, ManagerInfo, MoveOutcome, Notice, TeamState
from bot.league.passwords import normalize as normalize_password
from bot.league.passwords import verify_password
from bot.league.settings import LeagueSettings
from bot.rules.lots import seed_commitment
from bot.rules.requests import GivePassword, ParsedMoves, Request
from bot.service.commands import Registry, registry
from bot.service.commands.base import Access, Command, Session
from bot.service.context import Context
from bot.storage import managers as manager_rows
from bot.storage import moves as move_rows
from bot.storage import rounds as round_rows
from bot.storage.db import savepoint
from bot.storage.moves import MoveRow

#: At most this many passwords of one mail are checked (RULES.md §11).
MAX_PASSWORD_CANDIDATES = 3

#: Why a registration was refused (the lines of its team are not told again).
REGISTRATION_REFUSED = frozenset({
    Code.NAME_TAKEN, Code.NAME_RESERVED, Code.NAME_GM_LOOK_ALIKE, Code.NAME_CONFUSABLE,
    Code.NAME_EMPTY, Code.TOO_MANY_TEAMS,
})

#: Notices still true when the mail is rejected.
KEPT_ON_REJECT = frozenset({Code.LATE, Code.STATUS, Code.HELP, Code.NOT_REGISTERED,
                            Code.FORWARDED})
#: Notices of a stored lineup: the reply carries the round's seed commitment (RULES.md §4).
STORED = frozenset({Code.LINEUP_SET, Code.LINEUP_REPLACED})


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
    forwarded: bool = False,
) -> MoveOutcome:
    """Carry out one mail's requests in ``conn``'s transaction (module doc);
    ``gm``: the mail passed the game master's checks (RULES.md §13), so no
    manager's password is asked for (his own, or that of the manager a
    ``Für ADDRESS:`` block of his acts for); ``forwarded``: its message to a
    person went to the game master (the reply says so; without, those lines
    are listed as not understood)."""
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
        planned = s.deadline or (
            context.settings.deadline_plan.next_deadline(current.deadline)
            if context is not None else None)
        s.note(Code.LATE, missed=current.number, deadline=current.deadline, round=target,
               next_deadline=planned)
    if forwarded:
        s.note(Code.FORWARDED)

    requests = [(r, table.command_for(r)) for r in moves.requests]
    alone = [(r, c) for r, c in requests if c.alone]
    if alone:
        requests = alone[:1]
    elif not moves.errors and all(isinstance(r, GivePassword) for r, _ in requests):
        if not forwarded:
            s.note(Code.NOTHING_TO_DO)
        elif s.manager is None:  # a stranger's message: he gets the help as well
            s.note(Code.HELP)

    manager = s.manager
    # Nothing but what anyone may ask (or nothing at all): no password needed.
    open_to_anyone = all(c.access is Access.ANYONE for _, c in requests)
    given = password_candidates(moves)
    guarded = bool(manager is not None and settings.passwords and manager.password_hash
                   and not gm)  # the game master's checks stand for it
    verified = False
    if given is None:  # a flood of guesses: refused unchecked
        refusal: Notice | None = Notice(Code.TOO_MANY_PASSWORDS,
                                        {"limit": MAX_PASSWORD_CANDIDATES})
    elif guarded and (given or not open_to_anyone):
        assert manager is not None and manager.password_hash is not None
        verified = any(verify_password(p, manager.password_hash) for p in given)
        refusal = None if verified or open_to_anyone else Notice(
            Code.PASSWORD_WRONG if given else Code.PASSWORD_MISSING, {"address": address})
    else:
        refusal = None
    if refusal is not None:
        _run(s, [(r, c) for r, c in requests if c.access is Access.ANYONE])
        s.errors.insert(0, refusal)
        s.errors.extend(_line_errors(moves))
        s.notices = [n for n in s.notices if n.code in _kept(requests)]
        s.note(Code.NOTHING_CHANGED)
        refused = ManagerInfo(address, manager.display_name, is_new=False) if manager else None
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
        accepted, not_stored = _run_groups(s, requests, table, registered=is_new)
        s.errors.extend(_line_errors(moves))
        if not accepted:
            point.rollback()
        elif not_stored is not None:
            s.notices.insert(0, Notice(Code.PARTLY_STORED, {"not_stored": not_stored}))
    if accepted and s.manager is not None:
        s.manager = manager_rows.manager_by_id(conn, s.manager.id)
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
        if verified or not guarded:  # without his password a mail reveals no team state
            teams = team_states(conn, settings, s.manager.id, target, before)
    elif s.manager is not None:
        info = ManagerInfo(address, s.manager.display_name, False)
    return _outcome(s, accepted, info, teams, late, sender_name)


def _run_groups(
    s: Session, requests: Sequence[tuple[Request, Command[Request]]], table: Registry,
    *, registered: bool,
) -> tuple[bool, list[str] | None]:
    """The requests team by team, each team in its own savepoint
    (``bot.league.grouping``): whether anything of the mail stands, and the
    teams not stored (None when every group stood). ``registered``: the mail
    made its sender a manager, which stands only with a request of his that
    stood (a stranger whose every team failed is not registered for a
    ``Status`` in the same mail)."""
    mail = first_mail_registrations(s, [r for r, _ in requests])
    items = [(r, table.command_for(r)) for r in mail]
    grouped = plan(s, [r for r, _ in items], s.moves.errors,
                   lambda index: _team_of(*items[index]))
    if grouped.whole_mail:  # every error is told, nothing stands
        _run(s, items)
        return False, None
    kept = _kept(items)
    failed: list[Group] = []
    for group in grouped.groups:
        s.selected = None
        notices, errors = len(s.notices), len(s.errors)
        with savepoint(s.conn, "team") as point:
            _run(s, [items[i] for i in group.indexes])
            if group.errors or len(s.errors) > errors:
                point.rollback()
                failed.append(group)
                s.notices[notices:] = [n for n in s.notices[notices:] if n.code in kept]
                if any(e.code in REGISTRATION_REFUSED for e in s.errors[errors:]):
                    # its lines then name a team that does not exist: said once is enough
                    s.errors[errors:] = [e for e in s.errors[errors:]
                                         if e.code != Code.UNKNOWN_TEAM]
    stood = [g for g in grouped.groups if g not in failed]
    if registered and not any(items[i][1].registers for g in stood for i in g.indexes):
        return False, None
    if not failed:
        return True, None
    if not stood:
        return False, None
    return True, [g.team for g in failed if g.team]


def _team_of(request: Request, command: Command[Request]) -> str | None:
    """The team a command beyond the lineup language is about: a manager's
    command that writes (``registers``) with a ``team`` (``Zurückziehen:
    NAME``); None for any other (a group of its own)."""
    team = getattr(request, "team", None)
    return team if command.registers and isinstance(team, str) else None


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


def password_candidates(moves: ParsedMoves) -> list[str] | None:
    """The different passwords a mail gives (``Passwort: ...`` lines, as
    ``verify_password`` compares them), or None when there are more than
    ``MAX_PASSWORD_CANDIDATES``: such a mail is refused without checking any
    (scrypt costs about 30 ms a guess; a flood of guesses costs nothing)."""
    given = list(dict.fromkeys(
        r.password for r in moves.requests
        if isinstance(r, GivePassword) and normalize_password(r.password)))
    by_form = {normalize_password(p) for p in given}
    return None if len(by_form) > MAX_PASSWORD_CANDIDATES else given


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
    forwarded = any(n.code == Code.FORWARDED for n in s.notices)
    stored = accepted and any(n.code in STORED for n in s.notices)
    seed = round_rows.committed_seed(s.conn, s.target) if stored else None
    return MoveOutcome(
        manager=manager, accepted=accepted, round=s.target, late=late, deadline=s.deadline,
        notices=s.notices, errors=s.errors, teams=teams,
        ignored=s.moves.ignored + (() if forwarded else s.moves.prose),
        line_errors=s.moves.errors, language=language, read_notes=s.moves.notes,
        sender_name=clean(sender_name or "") or None, reply_to=s.reply_to,
        reply_to_name=s.reply_to_name, ledger=s.ledger,
        commitment=seed_commitment(s.target, seed) if seed is not None else None,
    )
