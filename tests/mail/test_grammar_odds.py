"""The odds line in the mail grammar (RULES.md §12): ``Quote: X gegen Y`` /
``Odds: X vs Y``, each side a lineup, ``GM`` or a team's name."""

from __future__ import annotations

import pytest

from bot.rules.lineup import Lineup
from bot.service.commands.odds import AskOdds, AskTeamOdds, OddsSide
from tests.support.grammar import parse_moves

L = Lineup.parse("10-10-15-15-20")


@pytest.mark.parametrize(("line", "expected"), [
    ("Quote: 10-10-15-15-20 gegen 0-10-30-20-20",
     AskOdds("Quote: 10-10-15-15-20 gegen 0-10-30-20-20", OddsSide(L),
             OddsSide(Lineup.parse("0-10-30-20-20")))),
    ("Odds 10/10/15/15/20 vs. GM", AskOdds("Odds 10/10/15/15/20 vs. GM", OddsSide(L),
                                           OddsSide())),
    ("Quote: Rote Teufel gegen die GM-Teams",
     AskTeamOdds("Quote: Rote Teufel gegen die GM-Teams", OddsSide(team="Rote Teufel"),
                 OddsSide())),
    ("odds: GM against Red Devils",
     AskTeamOdds("odds: GM against Red Devils", OddsSide(), OddsSide(team="Red Devils"))),
])
def test_the_odds_line(line: str, expected: AskOdds | AskTeamOdds) -> None:
    moves = parse_moves("", line)
    assert moves.requests == (expected,) and moves.errors == ()
