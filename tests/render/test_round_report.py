"""The game master's round report (the digest) says everything in the game's
language: every outcome and code of the ledger as a sentence, the round in
the title, and a warning when the planned deadlines run out."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.league.outcome import Code
from bot.render.digest import read_item, render_digest
from bot.storage.ledger import Outcome

NOW = datetime(2026, 12, 6, 19, 5, tzinfo=UTC)
ALL_CODES = ", ".join(c.value for c in Code)


def report(stats: dict, language: str):
    return render_digest(stats, now=NOW, timezone="Europe/Berlin", game_name="Liga",
                         language=language)


@pytest.mark.parametrize("language", ["de", "en"])
def test_every_code_and_outcome_reads_as_a_sentence(language: str):
    errors = [f"a@example.org: rejected round 5: {ALL_CODES}",
              "b@example.org: accepted round 5: lineup_set, late"]
    errors += [f"c@example.org: {o}: nothing changed"
               for o in ("too_large", "too_many_lines", "unreadable", "slow_down")]
    errors += ["d@example.org: rate_limited: no reply (told already)"]
    attention = ["e@example.org: internal_error: KeyError: 'x'",
                 "3 outgoing mail(s) waiting for more than a day"]
    bounces = ["bounce (mailbox full): f@example.org"]
    text = report({"errors": errors, "needs_attention": attention, "bounces": bounces,
                   "evaluated_round": 5, "players_in_round": 9,
                   "teams_deleted": ["Alte Herren"]}, language).text
    for code in (c for c in Code if "_" in c.value):
        assert code.value not in text, f"{code.value} is shown as a code ({language})"
    for outcome in Outcome:  # never the ledger's raw shape "addr: CODE round N:" / "CODE:"
        assert f"{outcome.value} round" not in text and f" {outcome.value}:" not in text
    for raw in ("players_in_round", "evaluated_round", "teams_deleted", "told already"):
        assert raw not in text
    if language == "de":
        assert "waiting for" not in text and "nothing changed" not in text
    assert "KeyError: 'x'" in " ".join(text.split())  # the detail a human needs stays
    assert ("3 ausgehende Mails warten seit mehr als einem Tag" if language == "de" else
            "3 outgoing mails waiting for more than a day") in " ".join(text.split())
    assert "(s)" not in text  # real plurals


@pytest.mark.parametrize(("language", "expected"), [
    ("de", "1 ausgehende Mail wartet seit mehr als einem Tag auf den Versand."),
    ("en", "1 outgoing mail waiting for more than a day."),
])
def test_one_waiting_mail_is_singular(language: str, expected: str):
    text = report({"needs_attention": ["1 outgoing mail(s) waiting for more than a day"]},
                  language).text
    assert expected in " ".join(text.split())


@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("code", list(Code), ids=lambda c: c.value)
def test_each_code_alone_is_a_sentence(code: Code, language: str):
    text = report({"errors": [f"a@example.org: accepted round 5: {code.value}"]}, language).text
    line = " ".join(text.split("\n  - a@example.org: ", 1)[1].split())
    sentence = line.split(". ", 1)[1]
    assert sentence.endswith(".") and sentence[0].isupper()
    assert code.value not in sentence.lower().split() or len(sentence.split()) > 1


def test_german_report_in_detail():
    mail = report({"errors": ["anna@example.org: rejected round 5: nothing_changed, "
                              "password_missing"], "evaluated_round": 5,
                   "players_in_round": 9}, "de")
    assert mail.subject == "Liga: Rundenbericht zu Runde 5 vom 6. Dezember 2026"
    assert mail.text.startswith("Liga: Rundenbericht zu Runde 5 für die Spielleitung\n")
    assert ("- anna@example.org: abgelehnt, nichts geändert (Runde 5). Wegen der Fehler "
            "wurde nichts gespeichert.") in " ".join(mail.text.split())
    assert "Passwort fehlte." in mail.text
    assert "Spielerteams in der Runde" in mail.text


def test_english_report_in_detail():
    mail = report({"bounces": ["bounce (user unknown): x@example.org, y@example.org"],
                   "evaluated_round": 7}, "en")
    assert mail.subject == ("Liga: round report on round 7 of 6 Dec 2026 – 1 item needs "
                            "attention")
    assert "  - Bounce for x@example.org, y@example.org (user unknown)" in mail.text


@pytest.mark.parametrize(("language", "left", "expected"), [
    ("de", 1, "nach der offenen Runde ist nur noch 1 Einsendeschluss geplant (der letzte: "
              "So., 13. Dezember"),
    ("de", 2, "nach der offenen Runde sind nur noch 2 Einsendeschlüsse geplant (der letzte: "
              "So., 13. Dezember"),
    ("de", 0, "nach ihrer Auswertung beginnt keine neue Runde"),
    ("en", 1, "only 1 deadline is planned after the open round (the last: Sun 13 Dec 2026"),
    ("en", 2, "only 2 deadlines are planned after the open round (the last: Sun 13 Dec 2026"),
    ("en", 0, "so no new round opens after its evaluation"),
])
def test_running_out_of_deadlines_is_an_alarm(language: str, left: int, expected: str):
    last = datetime(2026, 12, 13, 19, 0, tzinfo=UTC) if left else None
    mail = report({"deadlines_left": left, "last_deadline": last, "evaluated_round": 4},
                  language)
    flat = " ".join(mail.text.split())
    assert expected in flat
    assert "schedule.deadlines" in flat
    assert ("1 Punkt braucht" if language == "de" else "1 item needs") in mail.subject


def test_no_warning_without_deadlines_left():
    text = report({"evaluated_round": 4}, "de").text
    assert "Einsendeschlüsse gehen aus" not in text and "Alles in Ordnung" in text


def test_a_line_of_another_shape_is_shown_as_it_is():
    item = read_item("Round 12 could not be evaluated:\r\n  database is locked")
    assert item.outcome is None
    assert item.text == "Round 12 could not be evaluated: database is locked"
    parts = read_item("hans@example.org: accepted round 3: lineup_set, late")
    assert (parts.who, parts.outcome, parts.round, parts.codes) == (
        "hans@example.org", "accepted", 3, ("lineup_set", "late"))
