"""The reminder to a manager and the game master's digest."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from bot.render.digest import MAX_ITEMS, render_digest
from bot.render.errors import InvalidTimeError
from bot.render.model import ReminderTeam, RoundInfo
from bot.render.reminder import render_reminder
from bot.render.textwidth import width
from tests.render.conftest import DEADLINE

ROUND = RoundInfo(3, 2, 12)


def remind(language: str = "de", **overrides: object):
    kwargs = {
        "manager": "Jürgen Öztürk",
        "teams": [ReminderTeam("Grüne Jäger", 92), "Dynamo Ölberg"],
        "round_info": ROUND,
        "deadline": DEADLINE,
        "now": DEADLINE - timedelta(days=2, hours=3, minutes=10),
        "timezone": "Europe/Berlin",
        "language": language,
        "game_name": "Turnited",
        "game_address": "turnited@example.org",
    }
    kwargs.update(overrides)
    return render_reminder(**kwargs)


def test_reminder_german() -> None:
    mail = remind("de")
    assert mail.subject == (
        "Turnited: Erinnerung an die Aufstellung für die Spielrunde 12 (Saison 3, Runde 2)"
    )
    text = mail.text
    assert text.startswith("Hallo Jürgen Öztürk,\n")
    assert "fehlen noch die\nAufstellungen deiner Teams:" in text
    assert "  - Grüne Jäger (einsetzbar: 92 WP)\n  - Dynamo Ölberg\n" in text
    assert "Einsendeschluss: So., 6. Dezember 2026, 20:00 MEZ (Europe/Berlin)" in text
    assert "Du hast noch 2 Tage und 3 Stunden Zeit." in text
    assert "turnited@example.org" in text
    assert max(width(line) for line in text.split("\n")) <= 76


def test_reminder_english_one_team() -> None:
    mail = remind("en", teams=["Dynamo Ölberg"], now=DEADLINE - timedelta(minutes=45))
    assert mail.subject == "Turnited: reminder to send your lineup for round 12 (season 3, round 2)"
    assert "your team has no lineup yet for round 12" in mail.text
    assert "Deadline: Sun 6 Dec 2026, 20:00 CET (Europe/Berlin)" in mail.text
    assert "You have 45 minutes left." in mail.text
    assert "You have <strong>45 minutes</strong> left." in mail.html


@pytest.mark.parametrize("language", ["de", "en"])
def test_reminder_says_everything_once(language: str) -> None:
    """The plain text once said its greeting, teams and deadline twice."""
    text = remind(language).text
    for line in ("Hallo Jürgen Öztürk," if language == "de" else "Hello Jürgen Öztürk,",
                 "  - Dynamo Ölberg", "Einsendeschluss: " if language == "de" else "Deadline: "):
        assert text.count(line) == 1, (line, text)


def test_reminder_html_escapes_names() -> None:
    mail = remind("de", manager="<b>Hans</b>", teams=['<script>alert("x")</script>'])
    assert "<script>" not in mail.html and "<b>Hans" not in mail.html
    assert "&lt;b&gt;Hans&lt;/b&gt;" in mail.html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in mail.html
    assert "src=" not in mail.html and "<img" not in mail.html


def test_reminder_needs_a_future_deadline_and_a_team() -> None:
    with pytest.raises(InvalidTimeError, match="not after now"):
        remind(now=DEADLINE)
    with pytest.raises(ValueError, match="at least one team"):
        remind(teams=[])


STATS = {
    "mails_processed": 42,
    "moves": 17,
    "errors": ["hans@example.com: Zeile 3 '10-10-15': nur drei Werte statt fünf"],
    "bounces": [],
    "failed_sends": ["anna@example.com: 550 5.1.1 Mailbox unavailable"],
    "needs_attention": ["Round 12 could not be evaluated:\r\n  database is locked"],
    "spool_bytes": 123456,
}


def test_digest_counts_lists_and_alarm() -> None:
    mail = render_digest(STATS, now=DEADLINE, timezone="Europe/Berlin", game_name="Turnited")
    assert mail.html is None
    assert mail.subject == (
        "Turnited: Rundenbericht vom 6. Dezember 2026 – 2 Punkte brauchen Aufmerksamkeit"
    )
    text = mail.text
    rows = dict(re.findall(r"^  (\S.*?)\s{2,}([\d.]+)$", text, re.M))
    assert rows["Verarbeitete Mails"] == "42"
    assert rows["Angenommene Spielzüge"] == "17"
    assert rows["Fehlerhafte Mails (mit Fehlerantwort)"] == "1"
    assert rows["Unzustellbarkeitsmeldungen (Bounces)"] == "0"
    assert rows["spool_bytes"] == "123.456"  # unknown keys are shown, not dropped
    assert "  - Round 12 could not be evaluated: database is locked" in text
    assert "  - anna@example.com: 550 5.1.1 Mailbox unavailable" in text
    # what needs a human comes first
    first = text.index("Braucht einen Menschen:\n")
    assert first < text.index("Fehlerhafte Mails (mit Fehlerantwort):\n")


def test_digest_all_well_in_english() -> None:
    mail = render_digest(
        {"mails_processed": 3, "moves": 1}, now=DEADLINE, timezone="UTC",
        game_name="Turnited", language="en",
    )
    assert mail.subject == "Turnited: round report of 6 Dec 2026"
    assert "All well: nothing needs a human." in mail.text


def test_digest_long_lists_are_cut() -> None:
    bounces = [f"player{i}@example.com" for i in range(MAX_ITEMS + 7)]
    mail = render_digest(
        {"bounces": bounces}, now=DEADLINE, timezone="UTC", game_name="T", language="en"
    )
    assert f"player{MAX_ITEMS - 1}@example.com" in mail.text
    assert f"player{MAX_ITEMS}@example.com" not in mail.text
    assert "... and 7 more" in mail.text


@pytest.mark.parametrize("bad", [{"moves": -1}, {"moves": True}, {"moves": "many"}])
def test_digest_refuses_nonsense(bad: dict) -> None:
    with pytest.raises((TypeError, ValueError), match="moves"):
        render_digest(bad, now=DEADLINE, timezone="UTC", game_name="T")
