"""``Rote Teufel: 10-10-15-15-20 für 3 Runden`` / ``... for 3 rounds``: a lineup
for the round the mail counts for and the next ones (RULES.md §12).

The grammar reads the suffix on any lineup line (``bot.mail.ahead_text``:
with a team name, after ``Aufstellung:`` / ``Lineup:``, or for the selected
team) into a ``SetLineupAhead``. At most ``MAX_ROUNDS_AHEAD`` rounds: more
(or none) is an error of the line that changes nothing. The lineup is
stored like any lineup, once per round (``bot.league.ahead``: how it is
stored, and how a newer lineup or a withdrawal ends it); the reply, the
reminders and ``Status`` say until which round it stands.
"""

from __future__ import annotations

from bot.errors import N_
from bot.league import moves
from bot.league.ahead import LINEUP_AHEAD, LINEUP_AHEAD_ENDED, TOO_MANY_ROUNDS
from bot.rules.requests import MAX_ROUNDS_AHEAD, SetLineupAhead
from bot.service.commands.base import Access, Command, Session


def set_lineup_ahead(s: Session, request: SetLineupAhead) -> None:
    if not 1 <= request.rounds <= MAX_ROUNDS_AHEAD:
        s.fail(TOO_MANY_ROUNDS, team=request.team, rounds=request.rounds,
               limit=MAX_ROUNDS_AHEAD, line=request.line)
        return
    moves.set_lineup(s, request, rounds=request.rounds)


COMMANDS = (
    Command(
        SetLineupAhead, set_lineup_ahead, Access.MANAGER, registers=True,
        codes={LINEUP_AHEAD: N_("Sent a lineup for several rounds."),
               LINEUP_AHEAD_ENDED: N_("Ended a lineup for several rounds."),
               TOO_MANY_ROUNDS: N_("Sent a lineup for too many rounds.")},
    ),
)
