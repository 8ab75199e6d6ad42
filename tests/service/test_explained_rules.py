"""Issue 20: the rules a player can read (RULES.md §12): ``Regeln`` / ``Rules``
by mail, open to anyone without a password, answer with the document in the
mail's language; the archive has it as ``rules.html``; the document's
examples are what the rules engine computes. Real Maildir pipeline."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from bot.render.rules_doc import RULES_PAGE, rules_html, rules_text, write_rules_page
from bot.rules import Lineup, correct
from bot.rules.wp import age
from bot.service.publish import write_site_now
from tests.service.harness import Game
from tests.service.players import Player, folded

TITLE = {"de": "Die Regeln von Turnited", "en": "The rules of Turnited"}
#: What RULES.md §12 says the document covers, as each language words it.
TOPICS = {
    "de": ("T-A-V-M-S", "3:1-Regel", "gekürzt", "Torchancen", "WM-Modus", "Halbfinale",
           "+0,2 WP", "+0,1 WP", "altern", "89 + √(WP − 89)", "höchstens zwei Teams",
           "PSZ", "Befehle per Mail", "Passwort vergessen"),
    "en": ("T-A-V-M-S", "3:1 rule", "shortened", "goal chances", "World-Cup-style",
           "semi-finals", "+0.2 WP", "+0.1 WP", "ages", "89 + √(WP − 89)",
           "at most two teams", "PSZ", "Commands by mail", "Forgot password"),
}


@pytest.fixture
def game(tmp_path) -> Game:
    return Game(tmp_path)


@pytest.mark.parametrize(("language", "command"), [
    ("de", "Regeln"), ("en", "Rules"), ("de", "Spielregeln"), ("en", "rules?")])
def test_a_stranger_gets_the_rules_without_registering(
        game: Game, language: str, command: str) -> None:
    reply = Player(game, "curious@player.example", language=language).write(command)
    assert TITLE[language] in reply and "=" * len(TITLE[language]) in reply
    flat = folded(reply)
    assert folded(rules_text(language)) in flat  # the whole document, as shipped
    for topic in TOPICS[language]:
        assert topic in flat
    # then the help's command list, the rules command itself among them
    assert ("Die Befehle, je einer pro Zeile:" if language == "de"
            else "The commands, one per line:") in flat
    assert ("Regeln (die Spielregeln)" if language == "de"
            else "Rules (the rules of the game)") in flat
    assert "FEHLER" not in flat and "ERRORS" not in flat
    with game.db.read() as conn:
        assert tuple(conn.execute("SELECT COUNT(*) FROM managers").fetchone()) == (0,)


@pytest.mark.parametrize("language", ["de", "en"])
def test_a_manager_gets_the_rules_without_his_password(game: Game, language: str) -> None:
    player = Player(game, f"m-{language}@player.example", language=language)
    player.write("Neues Team: Kickers\nKickers: 10-10-15-15-20" if language == "de"
                 else "New team: Strikers\nLineup: 10-10-15-15-20")
    reply = player.write("Regeln" if language == "de" else "Rules", password=False)
    assert TITLE[language] in reply
    assert "FEHLER" not in reply and "ERRORS" not in reply
    assert "kein Passwort" not in reply and "no password" not in reply


@pytest.mark.parametrize("language", ["de", "en"])
def test_the_documents_examples_are_what_the_rules_compute(language: str) -> None:
    text = folded(rules_text(language))
    decimal = "," if language == "de" else "."
    # corrections: "0-0-10-40-40 ... 0-0-10-30-30", "10-10-20-25-25 ... 90 WP ... 8-8-16-21-21"
    assert str(correct(Lineup.parse("0-0-10-40-40"), 90).lineup) == "0-0-10-30-30"
    assert re.search(r"0-0-10-40-40 (?:spielt also als|plays as) 0-0-10-30-30", text)
    assert str(correct(Lineup.parse("10-10-20-25-25"), 90).lineup) == "8-8-16-21-21"
    assert re.search(r"10-10-20-25-25 (?:spielt mit 90 WP als|with 90 WP plays as) "
                     r"8-8-16-21-21", text)
    assert Lineup.parse("10-10-15-15-20").cost == 90 and "10-10-15-15-20 " in text
    # ageing: 100 -> 92.32, 95.30 -> 91.51, 90.00 -> 90.00
    for before, after in (("100", "92.32"), ("95.30", "91.51"), ("90.00", "90.00")):
        assert age(Decimal(before)) == Decimal(after)
        assert after.replace(".", decimal) in text
    # a sweeper for 17 WP is impossible: strength points cost 2 WP each
    assert "17 WP" in text
    # the same sections in both languages
    headings = re.findall(r"^-{3,}$", rules_text(language), re.MULTILINE)
    assert len(headings) == len(re.findall(r"^-{3,}$", rules_text("en"), re.MULTILINE)) == 9


@pytest.mark.parametrize("language", ["de", "en"])
def test_lines_fit_a_mail_window(language: str) -> None:
    assert all(len(line) <= 72 for line in rules_text(language).splitlines())


def test_the_archive_has_the_rules_page(game: Game) -> None:
    write_site_now(game.context)  # what publishing a round does
    page = (game.context.settings.archive_dir / RULES_PAGE).read_text(encoding="utf-8")
    assert "<title>Turnited: die Regeln</title>" in page
    assert "<h1>Die Regeln von Turnited</h1>" in page and "<h2>Die PSZ</h2>" in page
    assert '<a class="light" href="index.html">' in page
    assert "<code>Regeln</code> (die Spielregeln)" in page
    assert re.search(r"<(?:img|script|link|iframe)\b", page) is None  # self-contained


def test_the_page_is_the_english_document_in_an_english_game(tmp_path) -> None:
    path = write_rules_page(tmp_path, game_name="Liga <b>", language="en")
    page = path.read_text(encoding="utf-8")
    assert "<title>Liga &lt;b&gt;: the rules</title>" in page  # names are escaped
    assert rules_html("en") in page
    assert "<h2>Ageing at the end of a season</h2>" in page


def test_raw_html_in_the_source_would_be_escaped() -> None:
    from markdown_it import MarkdownIt

    assert "<script>" not in MarkdownIt("commonmark", {"html": False}).render("<script>x")
    assert "<script" not in rules_html("de") and "<script" not in rules_html("en")
