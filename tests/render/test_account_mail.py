"""The mails about a manager's account that answer no mail of the reader
(``bot.render.account_mail``): a subject of their own, the notices in the
reply's frame, both languages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.league.outcome import Notice
from bot.render.account_mail import render_account_mail

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
CODE = Notice("address_code", {"code": "K7FX-2QMP", "until": NOW + timedelta(days=7)})
MOVED = Notice("address_moved_away", {"address": "neu@mail.example"})


@pytest.mark.parametrize(("language", "subject", "line", "greeting"), [
    ("de", "Liga: Bestätige deine neue Adresse", "    Bestätigen: K7FX-2QMP", "Hallo Hans,"),
    ("en", "Liga: confirm your new address", "    Confirm: K7FX-2QMP", "Hello Hans,"),
])
def test_the_code_mail(language: str, subject: str, line: str, greeting: str) -> None:
    mail = render_account_mail("confirm_address", [CODE], language=language, now=NOW,
                               timezone="Europe/Berlin", game_name="Liga",
                               game_address="bot@liga.example", name="Hans")
    assert mail.subject == subject and mail.language == language
    assert line in mail.text.splitlines() and greeting in mail.text
    flat = " ".join(mail.text.split())
    assert ("Di., 8. Dezember 2026, 13:00 MEZ" if language == "de"
            else "Tue 8 Dec 2026, 13:00 CET") in flat


def test_the_word_to_the_old_address() -> None:
    mail = render_account_mail("address_moved", [MOVED], language="en", now=NOW,
                               timezone="Europe/Berlin", game_name="Liga", game_address=None)
    assert mail.subject == "Liga: your teams moved to a new address"
    assert "moved to neu@mail.example" in " ".join(mail.text.split())


def test_an_unknown_mail_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown account mail"):
        render_account_mail("welcome", [], language="de", now=NOW,  # type: ignore[arg-type]
                            timezone="Europe/Berlin", game_name="Liga", game_address=None)
