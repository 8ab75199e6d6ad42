"""The requests of the lineup language: lineups, teams, registration, password.

The grammar reads these by their shape (``NAME: LINEUP``, ``Team:``,
``Neues Team:``, ``Kurzname:``, ``Passwort:``; ``bot.mail.grammar``), so
they have no keyword here; their handlers are the league's
(``bot.league.moves``). Each registers a stranger as a manager, but the
password line, which the runner checks (``runner``).
"""

from __future__ import annotations

from bot.league import moves
from bot.rules.requests import GivePassword, RegisterTeam, SelectTeam, SetLineup, SetShortName
from bot.service.commands.base import Access, Command, Session


def _password(s: Session, request: GivePassword) -> None:
    """Nothing to do: the runner checked it before any other request ran."""


COMMANDS = (
    Command(SelectTeam, moves.select_team, Access.MANAGER, registers=True),
    Command(SetLineup, moves.set_lineup, Access.MANAGER, registers=True),
    Command(RegisterTeam, moves.register_team, Access.MANAGER, registers=True),
    Command(SetShortName, moves.check_short_name, Access.MANAGER, registers=True),
    Command(GivePassword, _password, Access.MANAGER),
)
