"""Quotes in every language players write (issue 14): hand-written replies of the
common clients in tests/mail/eml/lang/, each with the fresh text it must give.

Every mail quotes (with ``>`` or pasted without) an earlier reply of the bot
with an old lineup ``0-0-30-30-30`` and password ``alt-1``: none of it may
reach the fresh text, and nothing in the quoted part may read as a command.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.mail.quotes import BOT_REPLY_MARKER, is_bot_reply_id, strip_quotes
from bot.mail.reading import read_message
from tests.support.grammar import parse_moves

LANG = Path(__file__).parent / "eml" / "lang"

#: file stem -> the fresh text read from it
EXPECTED: dict[str, str] = {
    "bot-reply-pasted-after-blank": "Aufstellung: 10-10-15-15-20\nKennwort: neu-2",
    "bot-reply-pasted-unquoted": "Aufstellung: 10-10-15-15-20\n\nJürgen",
    "bot-reply-quoted-marker": "Aufstellung: 10-10-15-15-20\n\nHans",
    "cs-outlook-puvodni": "Aufstellung: 10-10-15-15-20\n\nPetr",
    "cs-thunderbird-napsal": "Dobrý den,\n\nAufstellung: 10-10-15-15-20\n\nPetr",
    "da-gmail-skrev": "Aufstellung: 10-10-15-15-20\n\nMette",
    "da-outlook-fra-sendt": "Hej,\n\nAufstellung: 10-10-15-15-20\n\nMed venlig hilsen\nMette",
    "de-gmx-gesendet-block": "Hallo,\n\nAufstellung: 10-10-15-15-20\n\nViele Grüße\nLena",
    "en-gmail-date-led": "Lineup: 10-10-20-25-25\nPassword: abc-123",
    "en-gmail-wrote-without-colon": "Lineup: 10-10-20-25-25\n\nCheers,\nSam",
    "es-gmail-escribio": "Hola,\n\nAufstellung: 10-10-15-15-20\n\nSaludos,\nLucía",
    "es-outlook-mensaje-original": "Aufstellung: 10-10-15-15-20\n\nLucía",
    "fr-outlook-de-envoye-block": (
        "Bonjour,\n\nAufstellung: 10-10-15-15-20\n\nCordialement,\nCamille"
    ),
    "fr-thunderbird-a-ecrit": "Aufstellung: 10-10-15-15-20\n\nCamille",
    "it-gmail-ha-scritto": "Ciao,\n\nAufstellung: 10-10-15-15-20\n\nMarco",
    "it-outlook-da-inviato": "Aufstellung: 10-10-15-15-20\n\nMarco",
    "ja-gmail-date-led": "こんにちは。\n\nAufstellung: 10-10-15-15-20\n\n山田",
    "ja-outlook-sashidashinin": "Aufstellung: 10-10-15-15-20\n\n山田",
    "list-google-groups-footer": "Lineup: 10-10-20-25-25\n\nSam",
    "list-mailman-footer": "Aufstellung: 10-10-15-15-20\n\nLena",
    "nl-gmail-schreef": "Hoi,\n\nAufstellung: 10-10-15-15-20\n\nGroeten,\nDaan",
    "nl-outlook-van-verzonden": "Aufstellung: 10-10-15-15-20\n\nDaan",
    "no-gmail-skrev": "Hei,\n\nAufstellung: 10-10-15-15-20\n\nHilsen Ola",
    "no-outlook-opprinnelig": "Aufstellung: 10-10-15-15-20\n\nOla",
    "pl-gmail-napisal": "Cześć,\n\nAufstellung: 10-10-15-15-20\n\nPozdrawiam\nAnna",
    "pl-thunderbird-pisze": "Aufstellung: 10-10-15-15-20\n\nAnna",
    "pt-gmail-escreveu": "Olá,\n\nAufstellung: 10-10-15-15-20\n\nAbraços,\nJoão",
    "pt-outlook-de-enviado": "Aufstellung: 10-10-15-15-20\n\nJoão",
    "ru-gmail-napisal-block-unquoted": "Aufstellung: 10-10-15-15-20",
    "ru-outlook-ishodnoe": "Добрый день,\n\nAufstellung: 10-10-15-15-20\n\nИван",
    "ru-yandex-napisal": "Aufstellung: 10-10-15-15-20",
    "sv-apple-den-skrev": "Aufstellung: 10-10-15-15-20",
    "sv-outlook-ursprungligt": "Hej!\n\nAufstellung: 10-10-15-15-20\n\nErik",
    "tr-gmail-yazdi": "Merhaba,\n\nAufstellung: 10-10-15-15-20\n\nAyşe",
    "tr-outlook-kimden": "Aufstellung: 10-10-15-15-20\n\nAyşe",
}


def test_table_covers_the_folder_exactly() -> None:
    assert {p.stem for p in LANG.glob("*.eml")} == set(EXPECTED)


def test_every_required_language_is_covered() -> None:
    prefixes = {stem.split("-", 1)[0] for stem in EXPECTED}
    wanted = {"de", "en", "fr", "es", "it", "nl", "da", "sv", "no", "pl", "pt", "ru", "cs", "tr"}
    assert wanted | {"ja", "list", "bot"} <= prefixes


@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_fresh_text_is_what_the_writer_typed(stem: str) -> None:
    mail = read_message((LANG / f"{stem}.eml").read_bytes())
    assert mail.fresh_text == EXPECTED[stem]
    assert "0-0-30-30-30" not in mail.fresh_text
    assert "alt-1" not in mail.fresh_text
    assert "0-0-30-30-30" in mail.text  # the quote is there, only not read


@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_no_quoted_command_counts(stem: str) -> None:
    mail = read_message((LANG / f"{stem}.eml").read_bytes())
    moves = parse_moves(mail.subject, mail.fresh_text)
    assert "0-0-30-30-30" not in repr(moves)
    assert "alt-1" not in repr(moves)


@pytest.mark.parametrize("prefix", ["", "  ", "*", "| ", "\t"])
def test_bot_marker_pasted_without_quote_marks_cuts_the_rest(prefix: str) -> None:
    text = f"Aufstellung: 10-10-15-15-20\n\n{prefix}{BOT_REPLY_MARKER}\nRote Teufel: 0-0-30-30-30"
    assert strip_quotes(text) == "Aufstellung: 10-10-15-15-20"


@pytest.mark.parametrize("prefix", ["> ", ">> ", "> > ", ">"])
def test_quoted_bot_reply_is_dropped_and_an_answer_below_it_kept(prefix: str) -> None:
    text = (
        f"Am 28.03.2026 um 18:00 schrieb Turnited <spielleitung@turnited.example>:\n"
        f"{prefix}{BOT_REPLY_MARKER}\n{prefix}Rote Teufel: 0-0-30-30-30\n\n"
        "Aufstellung: 10-10-15-15-20"
    )
    assert strip_quotes(text) == "Aufstellung: 10-10-15-15-20"


def test_bot_marker_survives_html_and_a_changed_separator() -> None:
    text = "10-10-15-15-20\nTURNITED-SPIELLEITUNG - automatische Antwort - automatic reply\nalt"
    assert strip_quotes(text) == "10-10-15-15-20"


def test_replies_to_the_bot_are_known_by_their_ids() -> None:
    mail = read_message((LANG / "de-gmx-gesendet-block.eml").read_bytes())
    assert mail.answers_bot
    assert is_bot_reply_id("<turnited.reply.3f9a0c1d2e4b5a6978c0d1e2f3a4b5c6@turnited.example>")
    assert not is_bot_reply_id("<turnited.reply@gmail.com>")
    assert not read_message((LANG / "list-mailman-footer.eml").read_bytes()).answers_bot


@pytest.mark.parametrize(
    "text",
    [
        "Am Samstag schrieb ich dir:\nAufstellung: 10-10-15-15-20",
        "Von: mir\nAn: dich\nAufstellung: 10-10-15-15-20",
        "Turnier 2017 um 16:30:\nAufstellung: 10-10-15-15-20",
        "Da: 10-10-15-15-20\nA: alle",
    ],
)
def test_fresh_lines_that_look_a_little_like_headers_are_kept(text: str) -> None:
    assert strip_quotes(text) == text
