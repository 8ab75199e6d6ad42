"""The lineup language's requests (RULES.md §7, §9): lineups, teams, names.

Each function is the handler of one request (``bot.service.commands``
registers them) and works on a ``MailSession`` inside the ingest's
transaction: it changes the state and notes what the reply says, or
refuses with an error (``MailSession.fail``); the runner
(``bot.service.commands.runner``) then rolls that team's lines back. Also
here: the manager's registration by his first mail, his password, and the
team states a reply shows.

Teams: see ``register_team``. **Decision** on the two-team limit: the team
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

from bot.league import ahead
from bot.league.addresses import normalize_address
from bot.league.errors import BadAddress
from bot.league.names import (
    choose_names,
    clean,
    find_clash,
    is_reserved,
    name_key,
    unique_short_name,
)
from bot.league.outcome import Code, TeamState
from bot.league.passwords import generate_password, hash_password
from bot.league.session import MailSession
from bot.league.settings import LeagueSettings
from bot.rules.corrections import correct
from bot.rules.requests import (
    ParsedMoves,
    RegisterTeam,
    SelectTeam,
    SetLineup,
    SetShortName,
)
from bot.rules.tournament import GM_PREFIX
from bot.rules.wp import budget
from bot.storage import managers as manager_rows
from bot.storage import moves as move_rows
from bot.storage import teams as team_rows
from bot.storage.moves import MoveRow
from bot.storage.teams import TeamRow

#: Longest manager display name kept.
DISPLAY_NAME_MAX = 60



def set_lineup(s: MailSession, request: SetLineup, rounds: int = 1) -> None:
    """A lineup for a team (named, selected, or the manager's only one), for
    ``rounds`` rounds from the mail's on (``bot.league.ahead``)."""
    if request.team is not None:
        team = s.resolve(request.team, request.line)
    else:
        team = s.implicit_team(request.line)
    if team is None:
        return
    lineup = request.lineup
    previous = move_rows.current_move(s.conn, s.target, team.id)
    had = previous.lineup if previous and not previous.withdrawn else None
    ahead.end(s, team)
    if had == lineup:
        s.note(Code.LINEUP_UNCHANGED, team=team.name, lineup=str(lineup), round=s.target)
    elif had is None:
        s.note(Code.LINEUP_SET, team=team.name, lineup=str(lineup), round=s.target)
    else:
        s.note(Code.LINEUP_REPLACED, team=team.name, lineup=str(lineup),
                  previous=str(had), round=s.target)
    if had != lineup or rounds > 1:
        ahead.store(s, team, request.line, lineup, rounds)
    corrected = correct(lineup, budget(team.wp))
    if corrected.changed:
        s.note(Code.LINEUP_CORRECTED, team=team.name, lineup=str(lineup),
                  played=str(corrected.lineup), budget=corrected.budget,
                  corrections=[c.to_json() for c in corrected.corrections])
    if team.doomed_round is not None:
        _announce_doom(s, team)


def _announce_doom(s: MailSession, team: TeamRow) -> None:
    because = team_rows.team_by_id(s.conn, team.doomed_by).name if team.doomed_by else None
    s.note(Code.TEAM_WILL_BE_DELETED, team=team.name, wp=team.wp,
              round=team.doomed_round, because=because)


def register_team(mail: MailSession, request: RegisterTeam) -> None:
    """``Neues Team: NAME / SHORT`` (module doc: names, the two-team limit)."""
    assert mail.manager is not None
    s = mail.settings
    extra = mail.short_names.get(id(request))
    given_short = extra.short_name if extra else request.short_name
    choice = choose_names(request.name, given_short, name_max=s.name_max,
                          short_max=s.short_max)
    if not choice.name:
        mail.fail(Code.NAME_EMPTY, line=request.line)
        return
    for candidate in (choice.name, choice.short_name):
        if is_reserved(candidate):
            # "GM ..." as typed keeps its code; other spellings that read
            # like a GM team (look-alike letters, "G.M.") get their own.
            code = Code.NAME_RESERVED if _plain_gm(candidate) else Code.NAME_GM_LOOK_ALIKE
            mail.fail(code, name=candidate, line=request.line)
            return
    taken = team_rows.team_by_key(mail.conn, choice.key)
    if taken is not None:
        mail.fail(Code.NAME_TAKEN, name=choice.name, line=request.line)
        return
    # Every stored team blocks its name: a registration withdrawn before
    # it ever played is removed (``_withdraw``), so it blocks nothing.
    other = find_clash(choice.name, team_rows.all_team_names(mail.conn))
    if other is not None:
        mail.fail(Code.NAME_CONFUSABLE, name=choice.name, other=other, line=request.line)
        return
    own = [t for t in mail.own_teams() if t.doomed_round is None]
    surplus = len(own) + 1 - s.max_teams
    older = [t for t in own if t.registered_round < mail.target]
    if surplus > len(older):
        new_teams = [t.name for t in own if t.registered_round >= mail.target]
        mail.fail(Code.TOO_MANY_TEAMS, team=choice.name, limit=s.max_teams, line=request.line,
                  new_teams=new_teams, withdraw=new_teams[-1] if new_teams else None)
        return
    # Short names are unique for good (RULES.md §7): a later team whose
    # short name reads like a stored one gets a number, once, here.
    stored = team_rows.all_short_names(mail.conn)
    short, clash = unique_short_name(choice.short_name, [sh for _, sh in stored], s.short_max)
    team_id = team_rows.insert_team(
        mail.conn, name=choice.name, name_key=choice.key, short_name=short,
        manager_id=mail.manager.id, wp=s.initial_wp, psz=s.initial_psz,
        registered_round=mail.target, now=mail.now,
    )
    mail.selected = team_id
    if request.implied:  # a first mail's team line (RULES.md §11)
        mail.note(Code.TEAM_REGISTERED_BY_NAME, team=choice.name, line=request.line)
    mail.note(Code.TEAM_REGISTERED, team=choice.name, short_name=short,
              round=mail.target, wp=s.initial_wp)
    if choice.name_shortened:
        mail.note(Code.NAME_SHORTENED, given=clean(request.name), name=choice.name,
                  limit=s.name_max)
    if choice.short_derived:
        mail.note(Code.SHORT_NAME_DERIVED, team=choice.name, short_name=choice.short_name)
    if choice.short_shortened:
        mail.note(Code.SHORT_NAME_SHORTENED, team=choice.name, given=choice.given_short,
                  short_name=choice.short_name, limit=s.short_max)
    if clash is not None:
        owner = next(name for name, sh in stored if sh == clash)
        mail.note(Code.SHORT_NAME_SUFFIXED, team=choice.name, given=choice.short_name,
                  short_name=short, other=owner)
    if surplus > 0:
        for weak in weakest(older, surplus, mail.lot):
            team_rows.doom_team(mail.conn, weak.id, mail.target, team_id)
            _announce_doom(mail, team_rows.team_by_id(mail.conn, weak.id))


def withdraw(s: MailSession, team_name: str, line: str) -> None:
    """Take a team out of the target round; a registration that never played is undone."""
    team = s.resolve(team_name, line)
    if team is None:
        return
    if team.registered_round == s.target and team.last_played_round is None:
        pardoned = team_rows.pardon_teams_doomed_by(s.conn, team.id)
        team_rows.cancel_registration(s.conn, team.id)
        if s.selected == team.id:
            s.selected = None
        s.note(Code.REGISTRATION_WITHDRAWN, team=team.name, round=s.target)
        for other in pardoned:
            s.note(Code.DELETION_CANCELLED, team=team_rows.team_by_id(s.conn, other).name)
        s.notices = [
            n for n in s.notices
            if not (n.code == Code.TEAM_WILL_BE_DELETED and n.params.get("because") == team.name)
        ]
        return
    previous = move_rows.current_move(s.conn, s.target, team.id)
    had_lineup = previous is not None and not previous.withdrawn
    ahead.end(s, team)  # a withdrawal ends a lineup sent for several rounds, too
    if previous is None or had_lineup:
        move_rows.insert_move(
            s.conn, round_number=s.target, team_id=team.id, line=line,
            lineup=None, now=s.now, inbound_id=s.inbound_id,
            message_id=s.message_id,
        )
    s.note(Code.WITHDRAWN, team=team.name, round=s.target, had_lineup=had_lineup)


def set_manager_name(s: MailSession, name: str) -> None:
    """The manager's display name (greeting, tables)."""
    assert s.manager is not None
    name = clean(name)[:DISPLAY_NAME_MAX].strip()
    if not name:
        return
    manager_rows.update_manager(s.conn, s.manager.id, display_name=name)
    s.manager = manager_rows.manager_by_id(s.conn, s.manager.id)
    s.note(Code.MANAGER_NAME_SET, name=name)


def select_team(s: MailSession, request: SelectTeam) -> None:
    """``Team: NAME``: the next lineup without a name is for NAME."""
    team = s.resolve(request.team, request.line)
    if team is not None:
        s.selected = team.id


def check_short_name(s: MailSession, request: SetShortName) -> None:
    """``Kurzname:`` belongs to a registration of the same mail (``attach_short_names``);
    alone it is refused: teams cannot be renamed."""
    if request not in s.short_names.values():
        s.fail(Code.SHORT_NAME_WITHOUT_TEAM, short_name=request.short_name, line=request.line)


def register_manager(s: MailSession, sender_name: str | None) -> str | None:
    """Register the sender as a new manager, named as his From header says
    until a ``Manager:`` line names him; returns the generated password (None
    when passwords are off)."""
    display = clean(sender_name or "") or None
    password = generate_password() if s.settings.passwords else None
    hashed = hash_password(password, n=s.settings.password_cost) if password else None
    manager_id = manager_rows.insert_manager(s.conn, s.address, display, hashed, s.now, s.target)
    s.manager = manager_rows.manager_by_id(s.conn, manager_id)
    s.note(Code.MANAGER_CREATED, address=s.address, password=password)
    return password


def issue_password(s: MailSession) -> str:
    """A password for a manager who had none (passwords switched on later)."""
    assert s.manager is not None
    password = generate_password()
    hashed = hash_password(password, n=s.settings.password_cost)
    manager_rows.update_manager(s.conn, s.manager.id, password_hash=hashed)
    s.note(Code.PASSWORD_ISSUED, password=password)
    return password


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



def weakest(teams: list[TeamRow], count: int, lot: random.Random) -> list[TeamRow]:
    """The ``count`` weakest teams: fewer WP; equal WP: played longer ago
    (never played = longest ago); then lot."""
    keyed = [(t.wp, t.last_played_round or 0, lot.random(), t) for t in teams]
    keyed.sort(key=lambda k: k[:3])
    return [k[3] for k in keyed[:count]]


def attach_short_names(moves: ParsedMoves) -> tuple[dict[int, SetShortName], list[SetShortName]]:
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
            until=ahead.until(conn, team.id, round_number) if lineup else None,
        ))
    return states
