"""Lineups ahead (RULES.md §12): a lineup for this and the next rounds.

``Rote Teufel: 10-10-15-15-20 für 3 Runden`` stores the lineup for the round
the mail counts for and the two after it, a move row per round
(``bot.storage.ahead``), so each round plays it corrected against the WP
the team has then (RULES.md §2), like any lineup sent for that round.

**Decision** (what ends it): the latest line for a team counts from its
round on. A newer lineup for the team (for one round or several) or a
withdrawal ends a lineup ahead with the round it is sent for: the lineup
ahead no longer stands in the rounds after it, and the reply says so
(``LINEUP_AHEAD_ENDED``). A lineup sent again for one round only ends it
too, even if it is the same lineup: the reply names the round until which
the old one would have stood, so the manager can send ``für N Runden``
again.

The notice codes are written here (by ``bot.league.moves`` for a lineup or
a withdrawal) and declared with the command of a lineup ahead
(``bot.service.commands.lineup_ahead``), which also has their templates.
"""

from __future__ import annotations

import sqlite3

from bot.league.session import MailSession
from bot.rules.lineup import Lineup
from bot.storage import ahead as ahead_rows
from bot.storage import moves as move_rows
from bot.storage.teams import TeamRow

#: A lineup stored for several rounds. params: team, lineup, first, until, rounds.
LINEUP_AHEAD = "lineup_ahead"
#: A lineup ahead ended by a newer move. params: team, round, until (its old last round).
LINEUP_AHEAD_ENDED = "lineup_ahead_ended"
#: More rounds than allowed (or none). params: team, rounds, limit, line.
TOO_MANY_ROUNDS = "too_many_rounds"


def store(s: MailSession, team: TeamRow, line: str, lineup: Lineup, rounds: int) -> None:
    """``lineup`` for the mail's round and the ``rounds`` - 1 after it (the
    reply says until which round it stands)."""
    if rounds == 1:
        move_rows.insert_move(s.conn, round_number=s.target, team_id=team.id, line=line,
                              lineup=lineup, now=s.now, inbound_id=s.inbound_id,
                              message_id=s.message_id)
        return
    last = s.target + rounds - 1
    ahead_rows.insert_ahead(s.conn, team_id=team.id, first=s.target, last=last, line=line,
                            lineup=lineup, now=s.now, inbound_id=s.inbound_id,
                            message_id=s.message_id)
    s.note(LINEUP_AHEAD, team=team.name, lineup=str(lineup), first=s.target, until_round=last,
           rounds=rounds)


def end(s: MailSession, team: TeamRow) -> None:
    """A newer move for the mail's round ends the team's lineup ahead there
    (module doc); the reply says until when it would have stood."""
    until = ahead_rows.cut(s.conn, team.id, s.target)
    if until is not None:
        s.note(LINEUP_AHEAD_ENDED, team=team.name, round=s.target, until_round=until)


def until(conn: sqlite3.Connection, team_id: int, round_number: int) -> int | None:
    """The last round for which the team's lineup for ``round_number`` was sent,
    when that is a lineup ahead that stands beyond it or stood before it; else
    None (a lineup for that round alone)."""
    found = ahead_rows.standing(conn, team_id, round_number)
    return _shown(found[0], found[1], round_number) if found is not None else None


def standing(conn: sqlite3.Connection, manager_id: int, round_number: int
             ) -> list[tuple[str, int]]:
    """(team, last round) of the manager's teams whose lineup for
    ``round_number`` was sent for several rounds (as ``until`` says it)."""
    return [(name, last) for name, first, last
            in ahead_rows.standing_of_manager(conn, manager_id, round_number)
            if _shown(first, last, round_number) is not None]


def _shown(first: int, last: int, round_number: int) -> int | None:
    return last if last > round_number or first < round_number else None


__all__ = ["LINEUP_AHEAD", "LINEUP_AHEAD_ENDED", "TOO_MANY_ROUNDS", "end", "standing", "store",
           "until"]
