"""Issue 20: each correction explained by its real cause, once, with the lineup
as it will play; unused WP named with a lineup that would spend them
(RULES.md §2.1, §9). Through the real Maildir pipeline, German and English."""

from __future__ import annotations

import pytest

from tests.service.harness import Game
from tests.service.players import Player, folded

REGISTER = {"de": "Neues Team: Kickers\nKickers: 10-10-15-15-20",
            "en": "New team: Strikers\nLineup: 10-10-15-15-20"}
TEAM = {"de": "Kickers", "en": "Strikers"}


@pytest.fixture
def game(tmp_path) -> Game:
    return Game(tmp_path)


def kickers(game: Game, language: str, wp: str = "91.40") -> Player:
    player = Player(game, f"kick-{language}@player.example", language=language)
    player.write(REGISTER[language])
    player.set_wp(TEAM[language], wp)
    return player


def test_the_3_to_1_rule_is_named_not_the_budget_and_the_unused_wp_too(game: Game) -> None:
    """The issue's case: 10-10-5-30-31 with 91 WP is cut by the 3:1 rule."""
    german = folded(kickers(game, "de").write("Kickers: 10-10-5-30-31"))
    assert ("„Kickers“ spielt 10-10-5-15-15, nicht 10-10-5-30-31 wie gesendet: 3:1-Regel: "
            "keine Feldreihe darf mehr als das Dreifache der kleinsten haben; die kleinste "
            "ist V mit 5, also höchstens 15: M 30 -> 15, S 31 -> 15. Der Überschuss "
            "verfällt. 16 der 91 WP bleiben ungenutzt. Diese Aufstellung würde alle 91 WP "
            "einsetzen: Kickers: 10-10-8-21-22") in german
    assert "Budget" not in german  # the budget did not cut it
    assert german.count("3:1-Regel") == 1 and german.count("ungenutzt") == 1  # once
    assert "es spielt: 10-10-5-15-15 (Kosten 75 von 91 WP)" in german  # the teams section

    english = folded(kickers(game, "en").write("Lineup: 10-10-5-30-31"))
    assert ('"Strikers" plays 10-10-5-15-15, not 10-10-5-30-31 as sent: 3:1 rule: no field '
            "row may be more than three times the smallest; the smallest is V with 5, so at "
            "most 15: M 30 -> 15, S 31 -> 15. The excess is lost. 16 of the 91 WP are left "
            "unused. This lineup would spend all 91 WP: Strikers: 10-10-8-21-22") in english
    assert "Budget" not in english and english.count("3:1 rule") == 1
    assert "plays as: 10-10-5-15-15 (cost 75 of 91 WP)" in english


@pytest.mark.parametrize("language", ["de", "en"])
def test_the_suggested_line_copied_back_plays_as_sent_and_spends_everything(
        game: Game, language: str) -> None:
    player = kickers(game, language)
    reply = player.write(f"{TEAM[language]}: 10-10-5-30-31")
    suggested = next(line.strip() for line in reply.splitlines()
                     if line.startswith(f"    {TEAM[language]}: "))
    again = folded(player.write(suggested))
    assert ("es spielt so (Kosten 91 von 91 WP)" if language == "de"
            else "plays as sent (cost 91 of 91 WP)") in again
    assert "ungenutzt" not in again and "unused" not in again


def test_a_budget_cut_says_what_the_lineup_cost_and_what_may_be_spent(game: Game) -> None:
    german = folded(kickers(game, "de", wp="90.00").write("Kickers: 10-10-20-25-25"))
    assert ("„Kickers“ spielt 8-8-16-21-21, nicht 10-10-20-25-25 wie gesendet: Budget: die "
            "Aufstellung kostet 110 WP, einsetzbar sind 90 WP, also wird jede Reihe im "
            "Verhältnis gekürzt: T 10 -> 8, A 10 -> 8, V 20 -> 16, M 25 -> 21, "
            "S 25 -> 21.") in german
    assert "3:1" not in german and "ungenutzt" not in german  # all 90 WP are spent
    english = folded(kickers(game, "en", wp="90.00").write("Lineup: 12-3-10-40-50"))
    assert ("Cap of 10: goalkeeper and sweeper have a strength of at most 10: T 12 -> 10."
            in english)
    assert "Budget: the lineup costs 96 WP, 90 WP may be spent" in english


@pytest.mark.parametrize(("language", "expected"), [
    ("de", "* Kickers (Kickers): 91,40 WP, einsetzbar 91 WP, PSZ 250 noch kein Turnier "
           "gespielt Aufstellung: "
           "10-10-15-15-20 es spielt so (Kosten 90 von 91 WP) 1 der 91 WP bleibt "
           "ungenutzt. Diese Aufstellung würde alle 91 WP einsetzen: "
           "Kickers: 10-10-15-15-21"),
    ("en", "* Strikers (Strikers): 91.40 WP, budget 91 WP, PSZ 250 no tournament played "
           "yet lineup: 10-10-15-15-20 "
           "plays as sent (cost 90 of 91 WP) 1 of the 91 WP is left unused. This lineup "
           "would spend all 91 WP: Strikers: 10-10-15-15-21"),
])
def test_a_lineup_that_plays_as_sent_names_its_unused_wp_in_the_teams_section(
        game: Game, language: str, expected: str) -> None:
    """No correction, no notice: the teams section says it, in the singular."""
    assert expected in folded(kickers(game, language).write("Status"))


@pytest.mark.parametrize("language", ["de", "en"])
def test_a_correction_not_made_by_this_mail_is_explained_in_the_teams_section(
        game: Game, language: str) -> None:
    player = kickers(game, language)
    player.write(f"{TEAM[language]}: 0-0-10-40-40")
    status = folded(player.write("Status"))
    rule = "3:1-Regel" if language == "de" else "3:1 rule"
    assert status.count(rule) == 1
    assert ("die kleinste ist V mit 10, also höchstens 30: M 40 -> 30, S 40 -> 30"
            if language == "de" else
            "the smallest is V with 10, so at most 30: M 40 -> 30, S 40 -> 30") in status
    # 21 unused WP, spent in the manner sent as far as the 3:1 rule lets them
    assert f"{TEAM[language]}: 0-0-13-39-39" in status
