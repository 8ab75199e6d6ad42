"""``Quote: X gegen Y`` / ``Odds: X vs Y``: the exact odds of two sides (RULES.md §12).

A side is a lineup (corrected for the 90 WP of a new team, as ``turnited
match`` does without ``--wp``), ``GM`` (the average over the GM teams'
scheme, RULES.md §5), or the name of one of the sender's teams for its
stored lineup of the round the mail counts for, corrected for the team's
WP. Two lineups or the GM field need no password (``AskOdds``); a team's
stored lineup is its manager's alone, so a question naming a team needs his
password (``AskTeamOdds``). The numbers are ``bot.rules.versus``', their
words ``bot.render.odds``' (the calculator's); nothing is stored.

A line with one side only, three sides or an unreadable lineup is an error
of the line (the grammar's), naming the right form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.errors import N_
from bot.league.names import name_key
from bot.league.outcome import Code
from bot.mail.lineup_text import clean_name, lineup_candidate, lineup_shape_error
from bot.mail.vocabulary import KeywordCommand, Value
from bot.render.languages import LANGUAGES
from bot.render.odds import odds_figures
from bot.rules.errors import InvalidLineupError
from bot.rules.lineup import Lineup
from bot.rules.requests import Request
from bot.rules.versus import GM_FIELD, GM_LINEUPS, Side, lineup_side, odds_of
from bot.rules.wp import INITIAL_WP
from bot.service.commands.base import Access, Command, Session
from bot.storage import moves as move_rows
from bot.storage import teams as team_rows

ODDS = "odds"
ODDS_NO_LINEUP = "odds_no_lineup"

#: Between the two sides: ``gegen``, ``gg.``, ``vs``, ``vs.``, ``versus``, ``against``.
_VERSUS = re.compile(r"(?:^|\s)(?:gegen|gg\.?|vs\.?|versus|against)(?:\s|$)", re.IGNORECASE)
#: The GM field as players write it.
_GM = frozenset({"gm", "die gm", "the gm", "gm teams", "gm-teams", "gm team", "gm-team",
                 "gm-mannschaften", "die gm-teams", "the gm teams"})

EXAMPLE = N_("Odds: 10-10-15-15-20 vs 0-10-30-20-20")
MISSING = N_("no lineups after the keyword")
ONE_SIDE = N_('only one side: the odds compare two, joined by "vs"')
MORE_SIDES = N_('more than two sides: the odds compare two, joined by "vs"')


@dataclass(frozen=True, slots=True)
class OddsSide:
    """One side as written: a lineup, a team of the sender's (by name), or the
    GM field (neither)."""

    lineup: Lineup | None = None
    team: str | None = None


@dataclass(frozen=True, slots=True)
class AskOdds(Request):
    """Two lineups, or a lineup and the GM field: open to anyone."""

    x: OddsSide
    y: OddsSide


@dataclass(frozen=True, slots=True)
class AskTeamOdds(Request):
    """A side names one of the sender's teams: its manager's, with his password."""

    x: OddsSide
    y: OddsSide


def read_side(text: str) -> OddsSide:
    """One side of the line (``ValueError`` with the reason when unreadable)."""
    text = clean_name(text)
    if " ".join(text.casefold().split()) in _GM:
        return OddsSide()
    candidate = lineup_candidate(text, guard=False)
    if isinstance(candidate, InvalidLineupError):
        raise ValueError(candidate.reason)
    if candidate is not None:
        return OddsSide(lineup=candidate)
    problem = lineup_shape_error(text)  # a lineup with words glued to it
    if problem is not None:
        raise ValueError(problem)
    return OddsSide(team=text)


def read_odds(line: str, value: str) -> AskOdds | AskTeamOdds:
    """``X gegen Y`` -> the request (``ValueError`` naming what is wrong)."""
    parts = [clean_name(p) for p in _VERSUS.split(value)]
    if len(parts) > 2:
        raise ValueError(MORE_SIDES)
    if len(parts) == 1 or not all(parts):
        for part in filter(None, parts):
            read_side(part)  # an unreadable lineup is the first thing to say
        raise ValueError(ONE_SIDE)
    x, y = read_side(parts[0]), read_side(parts[1])
    if x.team is not None or y.team is not None:
        return AskTeamOdds(line, x, y)
    return AskOdds(line, x, y)


def ask_odds(s: Session, request: AskOdds | AskTeamOdds) -> None:
    """Answer with the exact odds (the notice carries the figures in both
    languages, worded as the calculator words them)."""
    resolved = [_resolve(s, side, request.line) for side in (request.x, request.y)]
    if resolved[0] is None or resolved[1] is None:
        return
    (x, x_words), (y, y_words) = resolved[0], resolved[1]
    result = odds_of(x, y)
    s.note(ODDS, x=x_words, y=y_words,
           figures={language: odds_figures(result, language) for language in LANGUAGES})


def _resolve(s: Session, side: OddsSide, line: str) -> tuple[Side, dict[str, Any]] | None:
    """The side as it plays and what the reply says of it; None after noting
    why a team's side cannot play."""
    if side.lineup is not None:
        played = lineup_side(side.lineup, INITIAL_WP)
        return played, _words("lineup", played, wp=INITIAL_WP)
    if side.team is None:
        return GM_FIELD, {"kind": "gm", "count": len(GM_LINEUPS), "corrections": []}
    team = _own_team(s, side.team, line)
    if team is None:
        return None
    move = move_rows.current_move(s.conn, s.target, team.id)
    if move is None or move.lineup is None:
        s.note(ODDS_NO_LINEUP, team=team.name, round=s.target)
        return None
    played = lineup_side(move.lineup, team.wp)
    return played, _words("team", played, wp=team.wp, team=team.name, round=s.target)


def _own_team(s: Session, name: str, line: str) -> team_rows.TeamRow | None:
    if s.manager is not None:
        return s.resolve(name, line)
    team = team_rows.team_by_key(s.conn, name_key(name))  # a stranger has no team
    if team is None:
        s.fail(Code.UNKNOWN_TEAM, team=name, line=line, own_teams=[])
    else:
        s.fail(Code.TEAM_NOT_YOURS, team=team.name, line=line)
    return None


def _words(kind: str, side: Side, **more: object) -> dict[str, Any]:
    corrected = side.corrected
    assert corrected is not None
    return {
        "kind": kind, "sent": str(corrected.original), "played": str(corrected.lineup),
        "budget": corrected.budget, "changed": corrected.changed,
        "corrections": [c.to_json() for c in corrected.corrections], **more,
    }


_CODES = {ODDS: N_("Asked for the odds."),
          ODDS_NO_LINEUP: N_("Asked for the odds of a team without a lineup.")}

COMMANDS = (
    Command(
        AskOdds, ask_odds, Access.ANYONE, codes=_CODES,
        keyword=KeywordCommand(
            "odds", {"de": ("quote", "quoten"), "en": ("odds",)}, Value.REQUIRED, read_odds,
            example=EXAMPLE, missing=MISSING,
        ),
    ),
    Command(AskTeamOdds, ask_odds, Access.MANAGER),
)
