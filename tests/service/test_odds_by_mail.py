"""``Quote: X gegen Y`` / ``Odds: X vs Y`` through the real mail path (RULES.md §12):
the figures of the reply are ``turnited match``'s to the last digit in both
languages, ``gegen GM`` is the exact average over the GM teams' scheme, a
team's stored lineup is its manager's alone, and nothing is stored."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

import pytest

from bot.cli import main
from bot.render.odds import exact_percent, goals
from bot.rules.corrections import correct
from bot.rules.gm_teams import BACK_LINES, TACTICS, gm_lineup
from bot.rules.lineup import Lineup
from bot.rules.match import odds
from bot.rules.wp import budget
from bot.storage import teams as team_rows
from tests.service.harness import Game
from tests.service.mailed import Outbox

HANS = "hans@player.example"
EVA = "eva@player.example"
STRANGER = "someone@player.example"

PERCENT = re.compile(r"(\d+[,.]\d\d) %")
GOALS = re.compile(r"^\s*\S.*?(\d+[,.]\d\d) : (\d+[,.]\d\d)\s*$", re.M)


def figures(text: str) -> tuple[list[str], tuple[str, str]]:
    """Win, draw, loss (the number before `` %``) and the expected goals as
    printed (the last ones of ``text``)."""
    win_draw_loss = PERCENT.findall(text)[-3:]
    goals_x, goals_y = GOALS.findall(text)[-1]
    return win_draw_loss, (goals_x, goals_y)


def calculator(capsys: pytest.CaptureFixture[str], x: str, y: str, *more: str) -> str:
    assert main(["match", x, y, *more]) == 0
    out, _ = capsys.readouterr()
    return out


def odds_block(text: str) -> str:
    """The reply's odds, from its first line on (one question per mail here)."""
    start = text.index("exakt:") if "exakt:" in text else text.index("exact:")
    return text[start:]


def moves_and_managers(game: Game) -> tuple[int, int]:
    with game.db.read() as conn:
        return (conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0],
                conn.execute("SELECT COUNT(*) FROM managers").fetchone()[0])


def register(game: Game, outbox: Outbox, sender: str = HANS, team: str = "Rote Teufel",
             lineup: str = "10-10-15-15-20") -> str:
    game.send(game.mail(sender, f"Neues Team: {team}\nAufstellung: {lineup}\n"))
    match = re.search(r"^\s*(?:Passwort|Password): (\S+)\s*$", outbox.one().text, re.M)
    assert match
    return match.group(1)


PAIRS = [
    ("10-10-15-15-20", "0-10-30-20-20"),    # RULES.md §3's first example
    ("10-10-11-11-28", "0-0-20-20-50"),     # its second
    ("10-10-20-25-25", "12-3-10-40-50"),    # both corrected (budget; cap, 3:1, budget)
    ("0-0-10-40-40", "5-5-25-25-20"),
]


@pytest.mark.parametrize(("x", "y"), PAIRS)
def test_the_reply_says_the_calculators_figures_in_german(
    game: Game, capsys: pytest.CaptureFixture[str], x: str, y: str
) -> None:
    outbox = Outbox(game)
    results = game.send(game.mail(STRANGER, f"Quote: {x} gegen {y}", subject="Frage"))
    assert results[0].outcome == "accepted round 1: odds"
    reply = outbox.one()
    assert reply.to == STRANGER and "Die Quote von" in reply.text
    assert figures(odds_block(reply.text)) == figures(calculator(capsys, x, y))
    assert moves_and_managers(game) == (0, 0)  # nothing stored, nobody registered


@pytest.mark.parametrize(("x", "y"), PAIRS)
def test_the_reply_says_the_calculators_figures_in_english(
    game: Game, capsys: pytest.CaptureFixture[str], x: str, y: str
) -> None:
    outbox = Outbox(game)
    game.send(game.mail(STRANGER, f"Odds: {x} vs {y}", subject="Question"))
    reply = outbox.one()
    assert "The odds of" in reply.text
    assert figures(odds_block(reply.text)) == figures(calculator(capsys, x, y, "--lang", "en"))


def test_the_reply_names_the_corrections_as_the_calculator_does(game: Game) -> None:
    outbox = Outbox(game)
    game.send(game.mail(STRANGER, "Odds: 12-3-10-40-50 vs 10-10-15-15-20", subject="Q"))
    text = " ".join(outbox.one().text.split())
    played = correct(Lineup.parse("12-3-10-40-50"), 90).lineup
    assert f"12-3-10-40-50 plays as {played} with a budget of 90 WP." in text
    assert "Cap of 10 for goalkeeper and sweeper: T 12 -> 10." in text
    assert "3:1 rule: M 40 -> 30, S 50 -> 30." in text
    assert "10-10-15-15-20 plays as typed (budget 90 WP)." in text


def gm_average(lineup: str, wp: Decimal = Decimal(90)) -> tuple[Fraction, ...]:
    """Win, draw, loss and expected goals of ``lineup`` (as it plays for ``wp``)
    against each lineup of the GM teams' scheme, averaged (RULES.md §5)."""
    played = correct(Lineup.parse(lineup), budget(wp)).lineup
    games = [odds(played, gm_lineup(b, k)) for b in BACK_LINES for k in TACTICS]
    assert len(games) == 40
    return tuple(sum((value(g) for g in games), Fraction(0)) / 40 for value in (
        lambda g: g.win, lambda g: g.draw, lambda g: g.loss,
        lambda g: g.expected_goals[0], lambda g: g.expected_goals[1]))


@pytest.mark.parametrize(("line", "language"), [
    ("Quote: 10-10-15-15-20 gegen GM", "de"), ("Odds: 3-7-25-25-20 vs GM", "en"),
])
def test_against_gm_is_the_exact_average_over_the_scheme(
    game: Game, line: str, language: str
) -> None:
    outbox = Outbox(game)
    game.send(game.mail(STRANGER, line, subject="?"))
    win, draw, loss, gx, gy = gm_average(line.split(":", 1)[1].split()[0])
    block = odds_block(outbox.one().text)
    assert figures(block) == ([exact_percent(p, language)[:-2] for p in (win, draw, loss)],
                              (goals(gx, language), goals(gy, language)))
    assert "40" in block and ("GM-Teams" in block if language == "de" else "GM teams" in block)


def test_gm_may_stand_on_either_side(game: Game) -> None:
    outbox = Outbox(game)
    game.send(game.mail(STRANGER, "Odds: GM vs 10-10-15-15-20", subject="?"))
    win, draw, loss, gx, gy = gm_average("10-10-15-15-20")
    assert figures(odds_block(outbox.one().text)) == (
        [exact_percent(p, "en")[:-2] for p in (loss, draw, win)],
        (goals(gy, "en"), goals(gx, "en")))


def test_a_team_stands_for_its_stored_lineup_corrected_for_its_wp(
    game: Game, capsys: pytest.CaptureFixture[str]
) -> None:
    outbox = Outbox(game)
    password = register(game, outbox, lineup="10-10-20-25-25")
    with game.db.transaction() as conn:
        team = team_rows.team_by_key(conn, "rote teufel")
        assert team is not None
        team_rows.set_wp(conn, team.id, Decimal("95.30"))
    game.send(game.mail(HANS, f"Passwort: {password}\nQuote: Rote Teufel gegen 0-10-30-20-20"))
    text = outbox.one().text
    assert "Rote Teufel: deine Aufstellung für Spielrunde 1, 10-10-20-25-25, spielt mit dem " \
           "Budget des Teams von 95 WP als" in " ".join(text.split())
    assert figures(odds_block(text)) == figures(calculator(
        capsys, "10-10-20-25-25", "0-10-30-20-20", "--wp", "95.30", "--wp", "90"))
    # the lineup just sent in the same mail is the one that counts
    game.send(game.mail(HANS, f"Password: {password}\nRote Teufel: 0-0-30-30-30\n"
                              "Odds: Rote Teufel vs GM", subject="Odds"))
    text = outbox.one().text
    assert "0-0-30-30-30" in text
    win, draw, loss, gx, gy = gm_average("0-0-30-30-30", Decimal("95.30"))
    assert figures(odds_block(text)) == ([exact_percent(p, "en")[:-2] for p in (win, draw, loss)],
                                         (goals(gx, "en"), goals(gy, "en")))


def test_a_teams_lineup_needs_its_managers_password(game: Game) -> None:
    outbox = Outbox(game)
    register(game, outbox)
    register(game, outbox, sender=EVA, team="Blaue Jungs")
    before = moves_and_managers(game)
    game.send(game.mail(HANS, "Quote: Rote Teufel gegen GM"))
    text = outbox.one().text
    assert "Passwort" in text and "Die Quote" not in text and "10-10-15-15-20" not in text
    game.send(game.mail(STRANGER, "Quote: Rote Teufel gegen GM"))
    text = outbox.one().text
    assert "Rote Teufel" in text and "Die Quote" not in text and "10-10-15-15-20" not in text
    assert moves_and_managers(game) == before


def test_another_managers_team_is_refused(game: Game) -> None:
    outbox = Outbox(game)
    password = register(game, outbox)
    register(game, outbox, sender=EVA, team="Blaue Jungs")
    game.send(game.mail(HANS, f"Passwort: {password}\nQuote: Blaue Jungs gegen GM"))
    text = outbox.one().text
    assert "FEHLER" in text and "Blaue Jungs" in text and "Die Quote" not in text


def test_a_team_without_a_lineup_has_no_odds(game: Game) -> None:
    outbox = Outbox(game)
    password = register(game, outbox)
    game.send(game.mail(HANS, f"Passwort: {password}\nNeues Team: Blaue Jungs\n"))
    outbox.new()
    game.send(game.mail(HANS, f"Password: {password}\nOdds: Blaue Jungs vs GM", subject="Odds"))
    text = " ".join(outbox.one().text.split())
    assert '"Blaue Jungs" has no lineup for round 1 yet' in text
    assert "FEHLER" not in text and "ERRORS" not in text


@pytest.mark.parametrize(("line", "reason"), [
    ("Quote: 10-10-15-15-20", "nur eine Seite: die Quote vergleicht zwei"),
    # without a colon the line reads as a lineup with something beside it, which
    # belongs to the manager's only team (RULES.md §11): that team's lines stand or fall
    ("Quote 10-10-15-15-20 gegen", "neben der Aufstellung 10-10-15-15-20 ist nicht lesbar"),
    ("Quote: 10-10-15-15-20 gegen 1-2-3-4 gegen GM", "mehr als zwei Seiten"),
    ("Quote: 10-10-15-15 gegen GM", "4 Zahlen statt fünf"),
    ("Quote: 10-10-15-15-20x gegen GM", "10-10-15-15-20"),
    ("Quote:", "nach dem Stichwort fehlen die Aufstellungen"),
    ("Odds: 10-10-15-15-20", 'only one side: the odds compare two, joined by "vs"'),
    ("Odds: 10-10-15-15-20 vs 1-2-3-4 vs GM", "more than two sides"),
    ("Odds: 10/10/15/15 vs GM", "4 numbers instead of five"),
    ("Odds: 10-10-15-15-20 vs", "only one side"),
])
def test_an_odds_line_that_cannot_be_read_is_a_clear_error_that_changes_nothing(
    game: Game, line: str, reason: str
) -> None:
    outbox = Outbox(game)
    password = register(game, outbox)
    before = moves_and_managers(game)
    german = line.startswith("Quote")
    keyword = "Passwort" if german else "Password"
    body = f"{keyword}: {password}\n{line}\nRote Teufel: 5-5-20-20-20\n"
    game.send(game.mail(HANS, body, subject="Frage" if german else "Question"))
    text = " ".join(outbox.one().text.split())
    assert reason in text
    assert "Quote von" not in text and "odds of" not in text
    # the odds line changed nothing; the lineup beside it stands (each team stands
    # alone, RULES.md §11) unless the line was read as that team's broken lineup
    stored = 0 if line.startswith("Quote ") else 1
    assert moves_and_managers(game) == (before[0] + stored, before[1])
    if line.endswith(("gegen", "vs")):  # the numbers alone are the suggestion instead
        assert "10-10-15-15-20?" in text
    else:
        assert ("Richtig wäre z. B.: Quote: 10-10-15-15-20 gegen 0-10-30-20-20" in text
                if german else
                "The right form is e.g.: Odds: 10-10-15-15-20 vs 0-10-30-20-20" in text)


def test_the_help_names_the_odds(game: Game) -> None:
    outbox = Outbox(game)
    game.send(game.mail(STRANGER, "Hilfe", subject="Frage"))
    assert "Quote: 10-10-15-15-20 gegen GM" in outbox.one().text
    game.send(game.mail(STRANGER, "Help", subject="Question"))
    assert "Odds: 10-10-15-15-20 vs GM" in outbox.one().text
