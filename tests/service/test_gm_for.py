"""``Für ADDRESS:`` / ``For ADDRESS:`` in the game master's mail (RULES.md
§13), through the real mail path: the lines below it are carried out as
that manager's mail without his password; he gets a copy of the reply, the
game master his one reply with the same text."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.service.business_app import GM, League, kind, text_of, to
from tests.service.gm_app import gm_league, gm_send, reply_and_others

ANNA = "anna@player.example"
BOB = "bob@player.example"


@pytest.fixture
def league(tmp_path: Path) -> League:
    league = gm_league(tmp_path)
    league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    league.register(BOB, "Blaue Jungs", "10-10-15-15-20", english=True)
    return league


def words(text: str) -> str:
    return " ".join(text.split())


def lineups(league: League) -> list[tuple[object, ...]]:
    return league.sql("SELECT t.name, m.lineup FROM moves m JOIN teams t ON t.id = m.team_id"
                      " ORDER BY m.id")


def copies(mails: list) -> dict[str, str]:
    found = {to(m): text_of(m) for m in mails}
    assert all(kind(m) == "reply" for m in mails) and len(found) == len(mails)
    return found


def test_lines_for_a_manager_without_his_password_and_a_copy_to_him(league: League) -> None:
    text, others = reply_and_others(gm_send(
        league, f"Für {ANNA}:\nRote Teufel: 9-9-16-16-20"))
    assert lineups(league)[-1] == ("Rote Teufel", "9-9-16-16-20")
    (copy,) = copies(others).items()
    assert copy[0] == ANNA
    assert words(copy[1].split("\n\n")[1]).startswith(  # first, after the greeting
        "Die Spielleitung hat die folgenden Zeilen für dich geschickt"), copy[1]
    assert "9-9-16-16-20" in copy[1] and "Passwort" not in words(copy[1]).split("Befehle")[0]
    assert f"Für {ANNA}: die Zeilen wurden als seine Mail ausgeführt" in words(text)
    assert "    Die Spielleitung hat die folgenden Zeilen für dich geschickt" in text
    # the copy stands apart from the sentence before it, its greeting on a line of its own
    said = text.split("Kopie der Antwort bekommen:", 1)[1]
    assert said.startswith("\n\n    ") and "\n    Hallo " in said, text
    # the manager's copy tells him how to reach the game master; the GM's own part does not
    assert words(copy[1]).count("Spielleitung (einen Menschen)") == 1
    assert words(text).count("Spielleitung (einen Menschen)") == 1  # in the copy only
    assert "9-9-16-16-20" in text


def test_two_managers_in_english_and_a_command_of_his_own(league: League) -> None:
    body = (f"Status\nFor {BOB}:\nBlaue Jungs: 8-8-17-17-20\n\nFor {ANNA}:\n"
            "Rote Teufel: 9-9-16-16-20\n")
    text, others = reply_and_others(gm_send(league, body, english=True))
    assert "Where the game stands:" in text
    assert f"For {BOB}: the lines were carried out as his mail" in words(text)
    assert f"For {ANNA}: the lines were carried out" in words(text)
    sent = copies(others)
    assert sorted(sent) == [ANNA, BOB]
    assert "The game master sent the following lines for you" in words(sent[BOB])
    assert "Die Spielleitung hat die folgenden Zeilen" in words(sent[ANNA])  # her language
    assert lineups(league)[-2:] == [("Blaue Jungs", "8-8-17-17-20"),
                                    ("Rote Teufel", "9-9-16-16-20")]


def test_an_error_in_the_lines_changes_nothing_of_his(league: League) -> None:
    before = lineups(league)
    text, others = reply_and_others(gm_send(league, f"Für {ANNA}:\nRote Teufel: 9-9-16"))
    assert lineups(league) == before
    assert f"Für {ANNA}: wegen Fehlern in den Zeilen wurde bei ihm nichts geändert" in words(
        text)
    assert "FEHLER" in copies(others)[ANNA]


def test_nobody_is_registered_by_it(league: League) -> None:
    text, others = reply_and_others(gm_send(
        league, "Für neu@player.example:\nNeues Team: Grüne Welle\nAufstellung: 10-10-15-15-20"))
    assert "FEHLER" in text and "neu@player.example" in text and others == []
    assert league.sql("SELECT COUNT(*) FROM managers") == [(2,)]


def test_without_the_gm_password_it_changes_nothing(league: League) -> None:
    before = lineups(league)
    mails = gm_send(league, f"Für {ANNA}:\nRote Teufel: 9-9-16-16-20", password=None)
    assert [(to(m), kind(m)) for m in mails] == [(GM, "notice")]  # told, refused
    assert lineups(league) == before
