"""Carrying out one mail's requests (RULES.md §7, §9): the ``submit`` use case.

Runs inside the caller's transaction (the mail pipeline writes the ledger
row and the reply in the same one). The mail's changes are made inside a
SAVEPOINT; **decision**: if anything in the mail is an error (a line the
grammar could not read, an unknown team, a taken name, ...), the savepoint
is rolled back and the mail changes nothing at all, and the reply says
what was wrong. So a mistyped lineup never leaves half a mail applied.

Identification: the sender address, and with passwords on the password of
the mail (``Passwort: ...``). A new sender's first accepted mail that
changes something creates the manager and returns a generated password; a
mail from an existing manager with a missing or wrong password changes
nothing and reveals nothing (no team states in the outcome). A mail that
only asks for help needs no password.

Mail after the deadline of the open round (not yet evaluated) counts for
the next round and says so.

Teams: see ``_register``. **Decision** on the two-team limit: the team
being registered is never the one deleted (the manager asked for it); the
weaker of the older teams is announced for deletion (fewer WP; equal WP:
the one that played longer ago, never played counting as longest ago;
then lot). The announcement is binding: that team is deleted when the
round is evaluated and does not play in it. Withdrawing the new team
before the deadline cancels its registration and the deletion; a team that
never played then never existed (RULES.md §7): its name is free again.

Names (RULES.md §7): a name equal to a stored team's (case and spaces
ignored) is ``name_taken``; one that only looks the same (UTS #39
skeletons, ``names.find_clash``) is ``name_confusable``; ``GM ...`` is
``name_reserved`` and other spellings that read like a GM team are
``name_gm_look_alike``.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from email.utils import parseaddr

from bot.league import outcome as oc
from bot.league.errors import BadAddress, BadTime, NoOpenRound
from bot.league.names import (
    choose_names,
    clean,
    find_clash,
    is_reserved,
    name_key,
    unique_short_name,
)
from bot.league.outcome import ManagerInfo, MoveOutcome, Notice, TeamState
from bot.league.passwords import generate_password, hash_password, verify_password
from bot.league.settings import LeagueSettings
from bot.rules.corrections import correct
from bot.rules.requests import (
    AskHelp,
    AskStatus,
    GivePassword,
    ParsedMoves,
    RegisterTeam,
    Request,
    SelectTeam,
    SetLineup,
    SetManagerName,
    SetShortName,
    Withdraw,
)
from bot.rules.tournament import GM_PREFIX
from bot.rules.wp import budget
from bot.storage import managers as manager_rows
from bot.storage import moves as move_rows
from bot.storage import rounds as round_rows
from bot.storage import teams as team_rows
from bot.storage.addresses import canonical_address
from bot.storage.db import savepoint
from bot.storage.managers import ManagerRow
from bot.storage.moves import MoveRow
from bot.storage.teams import TeamRow

#: Longest manager display name kept.
DISPLAY_NAME_MAX = 60
#: Requests that change nothing (and need no manager).
_READ_ONLY = (AskHelp, AskStatus, GivePassword)
#: Notices still true when the mail is rejected.
_KEPT_ON_REJECT = {oc.LATE, oc.STATUS, oc.HELP, oc.NOT_REGISTERED}


def normalize_address(sender: str) -> str:
    """The lower-cased ``local@domain`` of a sender (display names dropped),
    in the one spelling the league keys managers by (``canonical_address``:
    an internationalised domain in Unicode, whichever form the mail used)."""
    _, address = parseaddr(sender or "")
    address = address.strip().lower()
    local, at, domain = address.rpartition("@")
    if not at or not local or not domain or " " in address:
        raise BadAddress(sender)
    return canonical_address(address)


@dataclass
class _Mail:
    """The state of one submission while its requests are carried out."""

    conn: sqlite3.Connection
    settings: LeagueSettings
    lot: random.Random
    moves: ParsedMoves
    now: datetime
    target: int
    inbound_id: int | None
    message_id: str | None
    manager: ManagerRow | None = None
    selected: int | None = None
    notices: list[Notice] = field(default_factory=list)
    errors: list[Notice] = field(default_factory=list)
    short_names: dict[int, SetShortName] = field(default_factory=dict)

    # -- helpers -------------------------------------------------------------

    def note(self, code: oc.Code, **params: object) -> None:
        notice = Notice(code, dict(params))
        if notice not in self.notices:
            self.notices.append(notice)

    def fail(self, code: oc.Code, **params: object) -> None:
        self.errors.append(Notice(code, dict(params)))

    def own_teams(self) -> list[TeamRow]:
        assert self.manager is not None
        return team_rows.teams_of_manager(self.conn, self.manager.id)

    def resolve(self, name: str, line: str) -> TeamRow | None:
        """The manager's team called ``name`` (full or short name), or None
        after recording why not."""
        key = name_key(name)
        team = team_rows.team_by_key(self.conn, key)
        own = self.own_teams()
        if team is None:
            by_short = [t for t in own if name_key(t.short_name) == key]
            team = by_short[0] if len(by_short) == 1 else None
        if team is None:
            self.fail(oc.UNKNOWN_TEAM, team=name, line=line, own_teams=[t.name for t in own])
            return None
        assert self.manager is not None
        if team.manager_id != self.manager.id:
            self.fail(oc.TEAM_NOT_YOURS, team=team.name, line=line)
            return None
        if team.deleted_round is not None:
            self.fail(oc.TEAM_DELETED, team=team.name, line=line)
            return None
        return team

    def implicit_team(self, line: str) -> TeamRow | None:
        """The team a lineup or withdrawal without a name is for."""
        if self.selected is not None:
            return team_rows.team_by_id(self.conn, self.selected)
        own = self.own_teams()
        if len(own) == 1:
            return own[0]
        if not own:
            self.fail(oc.NO_TEAM, line=line)
        else:
            self.fail(oc.WHICH_TEAM, line=line, own_teams=[t.name for t in own])
        return None

    # -- requests ------------------------------------------------------------

    def carry_out(self, request: Request) -> None:
        if isinstance(request, SelectTeam):
            team = self.resolve(request.team, request.line)
            if team is not None:
                self.selected = team.id
        elif isinstance(request, SetLineup):
            self._set_lineup(request)
        elif isinstance(request, RegisterTeam):
            self._register(request)
        elif isinstance(request, Withdraw):
            self._withdraw(request)
        elif isinstance(request, SetManagerName):
            self._set_manager_name(request)
        elif isinstance(request, SetShortName):
            if request not in self.short_names.values():
                self.fail(oc.SHORT_NAME_WITHOUT_TEAM, short_name=request.short_name,
                          line=request.line)
        elif isinstance(request, AskStatus | AskHelp | GivePassword):
            pass  # answered without changing anything (see submit_moves)
        else:  # pragma: no cover - a new request type without a handler
            raise TypeError(f"no handler for request {request!r}")

    def _set_lineup(self, request: SetLineup) -> None:
        if request.team is not None:
            team = self.resolve(request.team, request.line)
        else:
            team = self.implicit_team(request.line)
        if team is None:
            return
        lineup = request.lineup
        previous = move_rows.current_move(self.conn, self.target, team.id)
        had = previous.lineup if previous and not previous.withdrawn else None
        if had == lineup:
            self.note(oc.LINEUP_UNCHANGED, team=team.name, lineup=str(lineup), round=self.target)
        else:
            move_rows.insert_move(
                self.conn, round_number=self.target, team_id=team.id, line=request.line,
                lineup=lineup, now=self.now, inbound_id=self.inbound_id,
                message_id=self.message_id,
            )
            if had is None:
                self.note(oc.LINEUP_SET, team=team.name, lineup=str(lineup), round=self.target)
            else:
                self.note(oc.LINEUP_REPLACED, team=team.name, lineup=str(lineup),
                          previous=str(had), round=self.target)
        corrected = correct(lineup, budget(team.wp))
        if corrected.changed:
            self.note(oc.LINEUP_CORRECTED, team=team.name, lineup=str(lineup),
                      played=str(corrected.lineup), budget=corrected.budget,
                      corrections=[c.to_json() for c in corrected.corrections])
        if team.doomed_round is not None:
            self._announce_doom(team)

    def _announce_doom(self, team: TeamRow) -> None:
        because = team_rows.team_by_id(self.conn, team.doomed_by).name if team.doomed_by else None
        self.note(oc.TEAM_WILL_BE_DELETED, team=team.name, wp=team.wp,
                  round=team.doomed_round, because=because)

    def _register(self, request: RegisterTeam) -> None:
        assert self.manager is not None
        s = self.settings
        extra = self.short_names.get(id(request))
        given_short = extra.short_name if extra else request.short_name
        choice = choose_names(request.name, given_short, name_max=s.name_max,
                              short_max=s.short_max)
        if not choice.name:
            self.fail(oc.NAME_EMPTY, line=request.line)
            return
        for candidate in (choice.name, choice.short_name):
            if is_reserved(candidate):
                # "GM ..." as typed keeps its code; other spellings that read
                # like a GM team (look-alike letters, "G.M.") get their own.
                code = oc.NAME_RESERVED if _plain_gm(candidate) else oc.NAME_GM_LOOK_ALIKE
                self.fail(code, name=candidate, line=request.line)
                return
        taken = team_rows.team_by_key(self.conn, choice.key)
        if taken is not None:
            self.fail(oc.NAME_TAKEN, name=choice.name, line=request.line)
            return
        # Every stored team blocks its name: a registration withdrawn before
        # it ever played is removed (``_withdraw``), so it blocks nothing.
        other = find_clash(choice.name, team_rows.all_team_names(self.conn))
        if other is not None:
            self.fail(oc.NAME_CONFUSABLE, name=choice.name, other=other, line=request.line)
            return
        own = [t for t in self.own_teams() if t.doomed_round is None]
        surplus = len(own) + 1 - s.max_teams
        older = [t for t in own if t.registered_round < self.target]
        if surplus > len(older):
            new_teams = [t.name for t in own if t.registered_round >= self.target]
            self.fail(oc.TOO_MANY_TEAMS, team=choice.name, limit=s.max_teams, line=request.line,
                      new_teams=new_teams, withdraw=new_teams[-1] if new_teams else None)
            return
        # Short names are unique for good (RULES.md §7): a later team whose
        # short name reads like a stored one gets a number, once, here.
        stored = team_rows.all_short_names(self.conn)
        short, clash = unique_short_name(choice.short_name, [sh for _, sh in stored], s.short_max)
        team_id = team_rows.insert_team(
            self.conn, name=choice.name, name_key=choice.key, short_name=short,
            manager_id=self.manager.id, wp=s.initial_wp, psz=s.initial_psz,
            registered_round=self.target, now=self.now,
        )
        self.selected = team_id
        self.note(oc.TEAM_REGISTERED, team=choice.name, short_name=short,
                  round=self.target, wp=s.initial_wp)
        if choice.name_shortened:
            self.note(oc.NAME_SHORTENED, given=clean(request.name), name=choice.name,
                      limit=s.name_max)
        if choice.short_derived:
            self.note(oc.SHORT_NAME_DERIVED, team=choice.name, short_name=choice.short_name)
        if choice.short_shortened:
            self.note(oc.SHORT_NAME_SHORTENED, team=choice.name, given=choice.given_short,
                      short_name=choice.short_name, limit=s.short_max)
        if clash is not None:
            owner = next(name for name, sh in stored if sh == clash)
            self.note(oc.SHORT_NAME_SUFFIXED, team=choice.name, given=choice.short_name,
                      short_name=short, other=owner)
        if surplus > 0:
            for weak in weakest(older, surplus, self.lot):
                team_rows.doom_team(self.conn, weak.id, self.target, team_id)
                self._announce_doom(team_rows.team_by_id(self.conn, weak.id))

    def _withdraw(self, request: Withdraw) -> None:
        team = self.resolve(request.team, request.line)
        if team is None:
            return
        if team.registered_round == self.target and team.last_played_round is None:
            pardoned = team_rows.pardon_teams_doomed_by(self.conn, team.id)
            team_rows.cancel_registration(self.conn, team.id)
            if self.selected == team.id:
                self.selected = None
            self.note(oc.REGISTRATION_WITHDRAWN, team=team.name, round=self.target)
            for other in pardoned:
                self.note(oc.DELETION_CANCELLED, team=team_rows.team_by_id(self.conn, other).name)
            self.notices = [
                n for n in self.notices
                if not (n.code == oc.TEAM_WILL_BE_DELETED and n.params.get("because") == team.name)
            ]
            return
        previous = move_rows.current_move(self.conn, self.target, team.id)
        had_lineup = previous is not None and not previous.withdrawn
        if previous is None or had_lineup:
            move_rows.insert_move(
                self.conn, round_number=self.target, team_id=team.id, line=request.line,
                lineup=None, now=self.now, inbound_id=self.inbound_id,
                message_id=self.message_id,
            )
        self.note(oc.WITHDRAWN, team=team.name, round=self.target, had_lineup=had_lineup)

    def _set_manager_name(self, request: SetManagerName) -> None:
        assert self.manager is not None
        name = clean(request.name)[:DISPLAY_NAME_MAX].strip()
        if not name:
            return
        manager_rows.update_manager(self.conn, self.manager.id, display_name=name)
        self.manager = manager_rows.manager_by_id(self.conn, self.manager.id)
        self.note(oc.MANAGER_NAME_SET, name=name)


def _plain_gm(name: str) -> bool:
    """True for a name that starts with ``GM `` as typed (or is ``GM``)."""
    key = name_key(name)
    return key == GM_PREFIX.strip().casefold() or key.startswith(GM_PREFIX.casefold())


def sender_team_names(conn: sqlite3.Connection, sender: str) -> tuple[str, ...]:
    """The names and short names of the sender's teams (none for an unknown
    or unparsable address): the grammar never reads them as mistyped keywords."""
    try:
        address = normalize_address(sender)
    except BadAddress:
        return ()
    manager = manager_rows.manager_by_address(conn, address)
    if manager is None:
        return ()
    teams = team_rows.teams_of_manager(conn, manager.id)
    return tuple(dict.fromkeys(n for t in teams for n in (t.name, t.short_name)))


def next_numbering(season: int, round_in_season: int, season_rounds: int) -> tuple[int, int]:
    """(season, round in season) of the round after the given one."""
    if round_in_season >= season_rounds:
        return season + 1, 1
    return season, round_in_season + 1


def weakest(teams: list[TeamRow], count: int, lot: random.Random) -> list[TeamRow]:
    """The ``count`` weakest teams: fewer WP; equal WP: played longer ago
    (never played = longest ago); then lot."""
    keyed = [(t.wp, t.last_played_round or 0, lot.random(), t) for t in teams]
    keyed.sort(key=lambda k: k[:3])
    return [k[3] for k in keyed[:count]]


def _attach_short_names(moves: ParsedMoves) -> tuple[dict[int, SetShortName], list[SetShortName]]:
    """Map each ``Kurzname:`` line to the registration before it (else the
    next one); returns the map (by ``id`` of the RegisterTeam) and the rest."""
    requests = list(moves.requests)
    attached: dict[int, SetShortName] = {}
    loose: list[SetShortName] = []
    for index, request in enumerate(requests):
        if not isinstance(request, SetShortName):
            continue
        before = [r for r in requests[:index] if isinstance(r, RegisterTeam)]
        after = [r for r in requests[index + 1:] if isinstance(r, RegisterTeam)]
        target = before[-1] if before else (after[0] if after else None)
        if target is None:
            loose.append(request)
        else:
            attached[id(target)] = request
    return attached, loose


def team_states(
    conn: sqlite3.Connection, settings: LeagueSettings, manager_id: int, round_number: int,
    before: dict[int, MoveRow | None] | None = None,
) -> list[TeamState]:
    """The manager's teams as they stand for ``round_number``."""
    states = []
    for team in team_rows.teams_of_manager(conn, manager_id):
        move = move_rows.current_move(conn, round_number, team.id)
        lineup = move.lineup if move and not move.withdrawn else None
        prior = (before or {}).get(team.id)
        states.append(TeamState(
            name=team.name,
            short_name=team.short_name,
            wp=team.wp,
            budget=budget(team.wp),
            psz=team.psz,
            lineup=lineup,
            corrected=correct(lineup, budget(team.wp)) if lineup else None,
            previous=prior.lineup if prior and not prior.withdrawn else None,
            changed=(prior.id if prior else None) != (move.id if move else None),
            withdrawn=bool(move and move.withdrawn),
            doomed=team.doomed_round is not None,
            registered_this_round=team.registered_round == round_number,
        ))
    return states


def submit_moves(
    conn: sqlite3.Connection,
    settings: LeagueSettings,
    *,
    sender: str,
    sender_name: str | None,
    moves: ParsedMoves,
    now: datetime,
    lot: random.Random,
    inbound_id: int | None = None,
    message_id: str | None = None,
) -> MoveOutcome:
    """Carry out one mail's requests in ``conn``'s transaction (module docstring)."""
    if now.tzinfo is None:
        raise BadTime("now", now)
    address = normalize_address(sender)
    current = round_rows.open_round(conn)
    if current is None:
        raise NoOpenRound()
    late = now > current.deadline
    target = current.number + 1 if late else current.number
    target_round = round_rows.round_by_number(conn, target)
    mail = _Mail(conn, settings, lot, moves, now, target, inbound_id, message_id)
    mail.manager = manager_rows.manager_by_address(conn, address)
    if late:
        mail.note(oc.LATE, missed=current.number, deadline=current.deadline, round=target)

    def result(accepted: bool, manager: ManagerInfo | None, teams: list[TeamState]) -> MoveOutcome:
        return MoveOutcome(
            manager=manager, accepted=accepted, round=target, late=late,
            deadline=target_round.deadline if target_round else None,
            notices=mail.notices, errors=mail.errors, teams=teams, ignored=moves.ignored,
            line_errors=moves.errors, language=language(), read_notes=moves.notes,
            sender_name=clean(sender_name or "") or None,
        )

    def language() -> str:
        """The mail's language, or the manager's known one if the mail gave no clue."""
        known = mail.manager.language if mail.manager is not None else None
        return moves.language if moves.language_known or not known else known

    requests = moves.requests
    changing = [r for r in requests if not isinstance(r, _READ_ONLY)]
    only_help = bool(requests) and all(isinstance(r, AskHelp) for r in requests)
    line_errors = [
        Notice(oc.LINE_ERROR, {"line": e.line, "line_number": e.line_number,
                               "reason": e.reason, "example": e.example, "kind": e.kind,
                               "part": e.part, "suggestion": e.suggestion,
                               "limit": e.limit})
        for e in moves.errors
    ]
    if any(isinstance(r, AskHelp) for r in requests):
        mail.note(oc.HELP)
    if not moves.errors and all(isinstance(r, GivePassword) for r in requests):
        mail.note(oc.NOTHING_TO_DO)

    manager = mail.manager
    if manager is not None and settings.passwords and manager.password_hash and not only_help:
        given = [r.password for r in requests if isinstance(r, GivePassword)]
        if not given or not any(verify_password(p, manager.password_hash) for p in given):
            mail.fail(oc.PASSWORD_WRONG if given else oc.PASSWORD_MISSING, address=address)
            mail.errors.extend(line_errors)
            mail.notices = [n for n in mail.notices if n.code in _KEPT_ON_REJECT]
            mail.note(oc.NOTHING_CHANGED)
            return result(False, ManagerInfo(address, manager.display_name, is_new=False), [])

    with savepoint(conn, "submit_moves") as point:
        new_password: str | None = None
        is_new = False
        if changing and manager is None:
            names = [clean(r.name) for r in requests if isinstance(r, SetManagerName)]
            display = names[-1] if names and names[-1] else clean(sender_name or "") or None
            new_password = generate_password() if settings.passwords else None
            hashed = hash_password(new_password, n=settings.password_cost) if new_password else None
            manager_id = manager_rows.insert_manager(conn, address, display, hashed, now, target)
            mail.manager = manager_rows.manager_by_id(conn, manager_id)
            is_new = True
            mail.note(oc.MANAGER_CREATED, address=address, password=new_password)
        elif changing and manager is not None and settings.passwords and not manager.password_hash:
            new_password = generate_password()
            hashed = hash_password(new_password, n=settings.password_cost)
            manager_rows.update_manager(conn, manager.id, password_hash=hashed)
            mail.note(oc.PASSWORD_ISSUED, password=new_password)

        before: dict[int, MoveRow | None] = {}
        if mail.manager is not None:
            before = {t.id: move_rows.current_move(conn, target, t.id) for t in mail.own_teams()}
            attached, _ = _attach_short_names(moves)
            mail.short_names = attached
            for request in requests:
                mail.carry_out(request)
        if any(isinstance(r, AskStatus) for r in requests):
            if mail.manager is None:
                mail.note(oc.NOT_REGISTERED, address=address)
            else:
                season, in_season = (
                    (target_round.season, target_round.round_in_season) if target_round
                    else next_numbering(current.season, current.round_in_season,
                                        settings.season_rounds)
                )
                mail.note(oc.STATUS, season=season, round=target, round_in_season=in_season,
                          deadline=target_round.deadline if target_round else None)
        mail.errors.extend(line_errors)

        accepted = not mail.errors
        if not accepted:
            point.rollback()
    if not accepted:
        mail.notices = [n for n in mail.notices if n.code in _KEPT_ON_REJECT]
        mail.note(oc.NOTHING_CHANGED)
        new_password = None
        if is_new:
            mail.manager, is_new = None, False
        elif mail.manager is not None:
            mail.manager = manager_rows.manager_by_id(conn, mail.manager.id)
        # A team registered by this very mail was rolled back with it: an
        # error must not list it among the manager's teams.
        stored = [t.name for t in mail.own_teams()] if mail.manager is not None else []
        mail.errors = [
            Notice(e.code, {**e.params, "own_teams": stored}) if e.code == oc.UNKNOWN_TEAM else e
            for e in mail.errors
        ]

    if accepted and mail.manager is not None and moves.language_known:
        # Newsletters and reminders follow the language of the latest accepted
        # mail that showed one (a bare lineup says nothing about it).
        manager_rows.update_manager(conn, mail.manager.id, language=moves.language)

    info: ManagerInfo | None = None
    teams: list[TeamState] = []
    if mail.manager is not None:
        info = ManagerInfo(address, mail.manager.display_name, is_new,
                           new_password if accepted else None)
        teams = team_states(conn, settings, mail.manager.id, target, before)
    return result(accepted, info, teams)
