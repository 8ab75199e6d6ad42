"""Each team stands alone (RULES.md §11): one mail's requests grouped by team.

The runner (``bot.service.commands.runner``) carries out each ``Group`` in
its own savepoint: an error in a group (a line of the grammar that belongs
to it, or a request its handler refuses) rolls back that group only, and
the other teams' lineups and the mail's other commands are kept. Groups
run in the order of their first line; within a group the requests keep the
mail's order, except that its ``Team:`` and ``Neues Team:`` lines come
first (so ``10-10-15-15-20`` above ``Neues Team: Kiez Kicker`` is Kiez
Kicker's lineup).

Which group a request belongs to:

* ``NAME: L`` -> NAME's; a lineup without a name -> the team selected
  before it (``Team: NAME``, ``Neues Team: NAME``), else the manager's only
  team (his teams and the mail's registrations: exactly one), else a group
  of the unnamed lineups (its handlers refuse them: which team?);
* ``Team: NAME``, ``Neues Team: NAME`` -> NAME's; ``Kurzname:`` -> its
  registration's;
* a command about a team (``Zurückziehen: NAME``; the runner says which)
  -> NAME's; any other command -> a group of its own.

A name is taken as the league finds teams (``MailSession.find_team``: a
short name, or a name within two edits of one of the sender's teams, is
that team), so two spellings of one team are one group; a name registered
in the same mail is its registration's.

The grammar's errors (``LineError.scope``): ``TEAM_SCOPE`` belongs to its
``team``'s group, and without a team to the manager's only team;
**decision**: a broken lineup line that names no team while the manager
has no or several teams (and none was selected before it) could be meant
for any of them, so it keeps the **whole mail** from being stored, as does
a ``MAIL_SCOPE`` error (a line too long to read). ``LINE_SCOPE`` errors (a
command's value that cannot be read) fail on their own.

A first mail is a registration (``first_mail_registrations``): from an
address that owns no team, ``Team: NAME`` (``Mein Team:``, ``My team:``)
followed by a lineup, or ``NAME: LINEUP``, with a NAME no team has,
registers NAME exactly as ``Neues Team: NAME`` would (``RegisterTeam``
with ``implied``). Only in a mail without a ``Neues Team:`` line: whoever
wrote one knows how to register, and a second name in it is a typo.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from bot.league.names import name_key
from bot.league.session import MailSession, closest
from bot.rules.requests import (
    LINE_SCOPE,
    MAIL_SCOPE,
    GivePassword,
    LineError,
    RegisterTeam,
    Request,
    SelectTeam,
    SetLineup,
    SetShortName,
)

#: A group's key: ("team", id), ("name", key), ("unnamed",), ("own", index) or ("line", index).
Key = tuple[object, ...]
UNNAMED: Key = ("unnamed",)


@dataclass
class Group:
    """Requests (their indexes in the mail's list) and line errors of one team,
    or one command. ``team``: the team's name for the reply (as stored, or as
    written when there is no such team), None for a command's own group and
    the unnamed lineups."""

    key: Key
    team: str | None
    indexes: list[int] = field(default_factory=list)
    errors: list[LineError] = field(default_factory=list)


@dataclass
class Plan:
    """The groups in the order they run, and whether an error keeps the whole
    mail from being stored (module doc)."""

    groups: list[Group]
    whole_mail: bool


def plan(
    s: MailSession,
    requests: Sequence[Request],
    errors: Sequence[LineError],
    team_of: Callable[[int], str | None],
) -> Plan:
    """Group ``requests`` and ``errors`` (module doc). ``team_of(index)`` names
    the team of a request that is none of the lineup language's (None: the
    command is a group of its own)."""
    registered = {name_key(r.name) for r in requests if isinstance(r, RegisterTeam)}
    own = s.own_teams() if s.manager is not None else []
    names = {("team", t.id) for t in own} | {("name", k) for k in registered}
    only: Key | None = names.pop() if len(names) == 1 else None
    groups: dict[Key, Group] = {}

    def group(name: str | None, fallback: Key) -> Group:
        key, label = _key(s, name, registered) if name else (fallback, None)
        found = groups.setdefault(key, Group(key, label))
        found.team = found.team or label
        return found

    short_of = _registration_of_short_names(requests)
    selected: Key | None = None
    for index, request in enumerate(requests):
        if isinstance(request, GivePassword):
            continue  # checked by the runner before anything runs
        if isinstance(request, SelectTeam | RegisterTeam):
            name = request.team if isinstance(request, SelectTeam) else request.name
            target = group(name, UNNAMED)
            selected = target.key
        elif isinstance(request, SetLineup) and request.team is None:
            target = group(None, selected or only or UNNAMED)
        elif isinstance(request, SetLineup):
            target = group(request.team, UNNAMED)
        elif isinstance(request, SetShortName):
            registration = short_of.get(index)
            target = group(registration.name if registration else None, ("own", index))
        else:
            target = group(team_of(index), ("own", index))
        target.indexes.append(index)
    whole_mail = False
    for number, error in enumerate(errors):
        if error.scope == MAIL_SCOPE:
            whole_mail = True
        elif error.scope == LINE_SCOPE:
            group(None, ("line", number)).errors.append(error)
        elif error.team:
            group(error.team, UNNAMED).errors.append(error)
        elif only is not None:
            group(None, only).errors.append(error)
        else:
            whole_mail = True
    for found in groups.values():
        found.indexes.sort(key=lambda i: not isinstance(requests[i], SelectTeam | RegisterTeam))
        if found.team is None and found.key[0] in ("team", "name"):
            found.team = _label(s, found.key)
    return Plan(list(groups.values()), whole_mail)


def _key(s: MailSession, name: str, registered: set[str]) -> tuple[Key, str]:
    key = name_key(name)
    if key in registered:
        return ("name", key), name
    team, read_as = s.find_team(name)
    if team is not None and (read_as or team.manager_id == getattr(s.manager, "id", None)):
        return ("team", team.id), team.name
    close = closest(key, [(k, k) for k in registered])  # a typo of a name registered now
    if close is not None:
        return ("name", close), name
    return (("team", team.id), team.name) if team is not None else (("name", key), name)


def _label(s: MailSession, key: Key) -> str | None:
    """The name of the team of ``key`` (a group made by an unnamed lineup)."""
    if key[0] == "team":
        return next((t.name for t in s.own_teams() if t.id == key[1]), None)
    return None


def _registration_of_short_names(requests: Sequence[Request]) -> dict[int, RegisterTeam]:
    """Each ``Kurzname:`` line's registration: the one before it, else the next."""
    found: dict[int, RegisterTeam] = {}
    for index, request in enumerate(requests):
        if isinstance(request, SetShortName):
            before = [r for r in requests[:index] if isinstance(r, RegisterTeam)]
            after = [r for r in requests[index + 1:] if isinstance(r, RegisterTeam)]
            if before or after:
                found[index] = before[-1] if before else after[0]
    return found


def first_mail_registrations(s: MailSession, requests: Sequence[Request]) -> list[Request]:
    """``requests`` with a ``RegisterTeam(implied=True)`` for each team a first
    mail names with a lineup (module doc); the lineups then name the team as
    registered (``NAME / SHORT`` split)."""
    if (s.manager is not None and s.own_teams()) or any(
            isinstance(r, RegisterTeam) for r in requests):
        return list(requests)
    wanted: dict[str, RegisterTeam] = {}  # the name as written -> its registration
    selected: str | None = None
    for request in requests:
        if isinstance(request, SelectTeam):
            selected = request.team
        elif isinstance(request, SetLineup):
            name = request.team or selected
            if name and name not in wanted and _unknown(s, name):
                full, _, short = name.partition("/")
                wanted[name] = RegisterTeam(request.line, full.strip(), short.strip() or None,
                                            implied=True)
    if not wanted:
        return list(requests)
    out: list[Request] = []
    for request in requests:
        if isinstance(request, SelectTeam) and request.team in wanted:
            registration = wanted.pop(request.team)
            out.append(replace(registration, line=request.line))
            continue
        if isinstance(request, SetLineup) and request.team in wanted:
            out.append(wanted.pop(request.team))
        if isinstance(request, SetLineup) and request.team and "/" in request.team:
            request = replace(request, team=request.team.partition("/")[0].strip())
        out.append(request)
    return out


def _unknown(s: MailSession, name: str) -> bool:
    """No team has this name (the part before a ``/``)."""
    full = name.partition("/")[0].strip()
    return bool(full) and s.find_team(full)[0] is None
