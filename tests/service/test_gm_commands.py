"""The game master's commands by mail (RULES.md §13) through the real mail
path, German and English, each the very use case the console runs:
``Fehlend``, ``Einsendeschluss``, ``Erinnern``; each answered once, to
``gm.address``."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.service.business_app import League, kind, of_kind, text_of, to
from tests.service.gm_app import gm_league, gm_send, only_reply, reply_and_others

ANNA = "anna@player.example"
BOB = "bob@player.example"


@pytest.fixture
def league(tmp_path: Path) -> League:
    league = gm_league(tmp_path)
    league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    league.register(BOB, "Blaue Jungs", "10-10-15-15-20", english=True)
    league.evaluate()  # round 2 is open: nobody has a lineup for it yet
    return league


def deadline(league: League) -> datetime:
    (row,) = league.sql("SELECT deadline FROM rounds WHERE state = 'open'")
    return datetime.fromisoformat(str(row[0])).astimezone(UTC)


def test_missing_in_german_and_english(league: League) -> None:
    text = only_reply(gm_send(league, "Fehlend"))
    assert "Wer fehlt:" in text and "2 Teams ohne Aufstellung" in " ".join(text.split())
    assert f"    Rote Teufel (Rote Teufel): {ANNA}" in text
    assert f"    Blaue Jungs (Blaue Jungs): {BOB}" in text
    text = only_reply(gm_send(league, "Missing", english=True))
    assert "Who is missing:" in text and "2 teams without a lineup" in " ".join(text.split())
    # his own reply does not tell him how to reach the game master
    assert "game master (a person)" not in " ".join(text.split())


def test_the_deadline_shown_and_moved_in_both_date_forms(league: League) -> None:
    text = only_reply(gm_send(league, "Einsendeschluss"))
    assert "Die Einsendeschlüsse:" in text and "Einsendeschluss der Spielrunde 2:" in text
    text = only_reply(gm_send(league, "Einsendeschluss: 20.12.2026 21:30"))
    assert "Der Einsendeschluss ist verschoben:" in text
    assert ("Der Einsendeschluss der Spielrunde 2 ist jetzt So., 20. Dezember 2026, 21:30"
            in " ".join(text.split()))
    # the reply's last line tells the new deadline, not the old one
    assert "Einsendeschluss für Spielrunde 2: So., 20. Dezember 2026, 21:30" in text
    assert deadline(league) == datetime(2026, 12, 20, 20, 30, tzinfo=UTC)
    text = only_reply(gm_send(league, "Deadline: 2026-12-27 20:00", english=True))
    assert "The deadline is moved:" in text
    assert deadline(league) == datetime(2026, 12, 27, 19, 0, tzinfo=UTC)


@pytest.mark.parametrize(("line", "why"), [
    ("Einsendeschluss: 01.12.2026 20:00", "liegt nicht in der Zukunft"),
    ("Einsendeschluss: 31.11.2026 20:00", "'31.11.2026 20:00'"),
    ("Einsendeschluss: nächsten Sonntag", "'nächsten Sonntag'"),
])
def test_a_deadline_the_use_case_refuses_changes_nothing(league: League, line: str,
                                                          why: str) -> None:
    before = deadline(league)
    text = only_reply(gm_send(league, f"{line}\nStatus"))
    assert "FEHLER" in text and why in " ".join(text.split())
    # The refused line changes nothing; the mail's other command is carried
    # out all the same (RULES.md §11: each line stands alone), after the error.
    assert deadline(league) == before
    assert text.index("FEHLER") < text.index("Wo das Spiel steht")


def test_remind_those_missing(league: League) -> None:
    league.send(ANNA, "Hilfe")  # no lineup: still missing
    text, others = reply_and_others(gm_send(league, "Erinnern"))
    assert "Erinnerungen:" in text and "2 Erinnerungen für Spielrunde 2" in " ".join(text.split())
    assert sorted(of_kind(others, "reminder")) == [ANNA, BOB]
    # The same day again: nobody is reminded twice.
    text, others = reply_and_others(gm_send(league, "Remind", english=True))
    assert "No reminder queued" in text and others == []
    assert all(kind(m) != "reminder" or to(m) in (ANNA, BOB) for m in others)


# -- Rundschreiben / Broadcast ---------------------------------------------------------


def test_a_broadcast_is_the_rest_of_the_mail(league: League) -> None:
    body = ("Status\nRundschreiben\nBetreff: Pause über Weihnachten\nLiebe Leute,\n\n"
            "am 27. Dezember wird nicht gespielt.\nStatus\nGreta")
    text, others = reply_and_others(gm_send(league, body))
    assert "Wo das Spiel steht:" in text  # the line above it is a command
    assert "Das Rundschreiben „Pause über Weihnachten“:" in text
    assert "an 2 Empfänger in den Postausgang" in " ".join(text.split())
    sent = of_kind(others, "newsletter")
    assert sorted(sent) == [ANNA, BOB]
    assert sent[ANNA]["Subject"] == "Turnited Test: Pause über Weihnachten"
    assert text_of(sent[BOB]) == ("Liebe Leute,\n\nam 27. Dezember wird nicht gespielt.\n"
                                  "Status\nGreta\n")  # the lines below it are its text
    # The same announcement again is sent once.
    text, others = reply_and_others(gm_send(league, body))
    assert of_kind(others, "newsletter") == {}
    assert "2 hatten es schon" in " ".join(text.split())


def test_a_broadcast_to_the_subscribers_too_in_english(tmp_path: Path) -> None:
    league = gm_league(tmp_path, newsletter={"extra_recipients": ["fan@fans.example"]})
    league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    text, others = reply_and_others(gm_send(league, "Broadcast: all\nNo games at Christmas.",
                                            english=True))
    assert "The announcement:" in text
    sent = of_kind(others, "newsletter")
    assert sorted(sent) == [ANNA, "fan@fans.example"]
    assert sent["fan@fans.example"]["Subject"] == ("Turnited Test: Nachricht der "
                                                   "Spielleitung")


@pytest.mark.parametrize(("body", "why"), [
    ("Rundschreiben", "hat keinen Text"),
    ("Rundschreiben\nBetreff:\nHallo", "nennt keinen Betreff"),
    ("Rundschreiben an die Spieler\nHallo", "allein in seine Zeile"),
])
def test_a_broadcast_that_cannot_be_sent_changes_nothing(league: League, body: str,
                                                         why: str) -> None:
    text, others = reply_and_others(gm_send(league, body))
    assert "FEHLER" in text and why in " ".join(text.split()) and others == []


# -- Entsperren / Unban, Neues Passwort / Reset password ---------------------------------


def banned(league: League, address: str) -> bool:
    (row,) = league.sql("SELECT banned_at FROM managers WHERE address = ?", address)
    return row[0] is not None


def test_unban_in_german_and_english(league: League) -> None:
    from bot.service.console import ban

    ban(league.app.services, ANNA)
    text = only_reply(gm_send(league, f"Entsperren: {ANNA}"))
    assert "Entsperren:" in text and f"Die Sperre von {ANNA} ist aufgehoben" in " ".join(
        text.split())
    assert not banned(league, ANNA)
    text = only_reply(gm_send(league, f"Unban: {ANNA}", english=True))
    assert f"{ANNA} was not banned; nothing changed." in " ".join(text.split())
    text = only_reply(gm_send(league, "Entsperren: niemand@player.example"))
    assert "FEHLER" in text and "niemand@player.example" in text


def test_reset_password_mails_it_to_the_manager_only(league: League) -> None:
    (old,) = league.sql("SELECT password_hash FROM managers WHERE address = ?", BOB)
    text, others = reply_and_others(gm_send(league, f"Reset password: {BOB}", english=True))
    assert "New password:" in text and f"goes to {BOB} only" in " ".join(text.split())
    assert [(to(m), kind(m)) for m in others] == [(BOB, "notice")]
    password = re.search(r"^\s*Password: (\S+)\s*$", text_of(others[0]), re.M)
    assert password is not None and password.group(1) not in text
    assert league.sql("SELECT password_hash FROM managers WHERE address = ?", BOB) != [old]
    # The new one works, from his address.
    (reply,) = league.send(BOB, f"Password: {password.group(1)}\nBlaue Jungs: 9-9-16-16-20")
    assert "ERROR" not in text_of(reply) and "9-9-16-16-20" in text_of(reply)
    text = only_reply(gm_send(league, "Neues Passwort: keine-adresse"))
    assert "FEHLER" in text and "keine einzelne Mailadresse" in " ".join(text.split())


# -- Vorschau / Preview -----------------------------------------------------------------


def results(league: League) -> list[tuple[object, ...]]:
    return league.sql("SELECT number, state FROM rounds ORDER BY number") + league.sql(
        "SELECT round, COUNT(*) FROM round_entries GROUP BY round")


def test_a_preview_before_the_deadline_plays_a_fresh_seed(league: League) -> None:
    before = results(league)
    first = only_reply(gm_send(league, "Vorschau"))
    said = first.split("\n\n")[1]  # the first line after the greeting
    assert said.startswith("Vorschau der Spielrunde 2 mit einem neuen Zufallsstartwert")
    assert "    Turnited Test: Ergebnisse der Spielrunde 2" in first
    second = only_reply(gm_send(league, "Vorschau"))
    seeds = [re.search(r"Startwert\s+(\d+)", text) for text in (first, second)]
    assert seeds[0] and seeds[1] and seeds[0].group(1) != seeds[1].group(1)  # other lots
    assert results(league) == before  # a preview changes nothing
    english = only_reply(gm_send(league, "Preview", english=True))
    assert "Preview of round 2 with a fresh random seed" in english
    digest = [m for m in league.evaluate() if kind(m) == "digest"]
    listed = " ".join(text_of(digest[0]).split())
    assert listed.count("per Mail: mit einem neuen Zufallsstartwert") == 3


def test_a_preview_after_the_deadline_plays_the_committed_seed(league: League) -> None:
    league.clock.now = league.app.open_round_deadline() + timedelta(minutes=5)
    text = only_reply(gm_send(league, "Preview", english=True))
    assert " ".join(text.split()).startswith(
        "-- Turnited-Spielleitung · automatische Antwort · automatic reply -- Hello Greta GM, "
        "Preview of round 2 with its committed seed (the deadline has passed)")
