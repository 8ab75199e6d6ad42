"""Who is the game master (RULES.md §13), through the real mail path: a mail
from ``gm.address`` with the GM password (and, when configured, a pass of
the receiving server) is his, read with his words and answered to him once;
anything less changes nothing, is told to him only, and is counted in the
digest. A GM password line is never a player's password, never quoted."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.service.business_app import GM, League, flat, kind, text_of, to
from tests.service.gm_app import AUTHSERV, GM_PASSWORD, gm_league, gm_send, only_reply

ANNA = "anna@player.example"


@pytest.fixture
def league(tmp_path: Path) -> League:
    return gm_league(tmp_path)


def state(league: League) -> list[tuple[object, ...]]:
    """What a mail may change: managers, teams, moves, rounds, confirmations."""
    return (league.sql("SELECT address, password_hash, banned_at FROM managers ORDER BY id")
            + league.sql("SELECT name, wp FROM teams ORDER BY id")
            + league.sql("SELECT round, team_id, lineup FROM moves ORDER BY id")
            + league.sql("SELECT number, deadline, state FROM rounds ORDER BY number")
            + league.sql("SELECT purpose, state FROM confirmations ORDER BY id"))


def test_status_in_german_and_english(league: League) -> None:
    league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    text = only_reply(gm_send(league, "Status"))
    assert "Wo das Spiel steht:" in text
    assert "    Spielrunde 1 (Saison 1, Runde 1); 0 Runden ausgewertet" in text
    assert "Rote Teufel" in text and "10-10-15-15-20" not in text  # never a lineup
    text = only_reply(gm_send(league, "Status", english=True))
    assert "Where the game stands:" in text
    assert "    Round 1 (season 1, round 1); 0 rounds evaluated" in text


def test_help_lists_the_game_masters_commands(league: League) -> None:
    text = only_reply(gm_send(league, "Hilfe"))
    assert "Die Befehle der Spielleitung" in flat_text(text)
    assert "GM-Passwort: dein-gm-passwort" in text
    english = only_reply(gm_send(league, "Help", english=True))
    assert "GM password: your-gm-password" in english
    # A mail of his without any command gets his help, not the players'.
    text = only_reply(gm_send(league, ""))
    assert "GM-Passwort: dein-gm-passwort" in text and "10-10-15-15-20" not in text


def test_a_managers_line_in_the_game_masters_own_lines_is_an_error(league: League) -> None:
    before = state(league)
    text = only_reply(gm_send(league, "Status\nRote Teufel: 10-10-15-15-20"))
    assert "FEHLER" in text and "Für ADRESSE:" in flat_text(text)
    assert "GM-Passwort: dein-gm-passwort" in text  # his help after the error
    assert state(league) == before  # nobody registered, nothing stored


def flat_text(text: str) -> str:
    return " ".join(text.split())


# -- attempts that are not his -------------------------------------------------------


def refused(league: League, mails: list, sender: str) -> str:
    """The one mail sent is the notice to the game master (no reply to ``sender``)."""
    assert [(to(m), kind(m)) for m in mails] == [(GM, "notice")], [(to(m), kind(m))
                                                                   for m in mails]
    assert f"von {sender}" in flat(mails[0])
    text = text_of(mails[0])
    assert GM_PASSWORD not in text
    return flat(mails[0])


def test_the_right_password_from_another_address_changes_nothing(league: League) -> None:
    password = league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    before = state(league)
    mails = league.send(ANNA, f"Passwort: {password}\nGM-Passwort: {GM_PASSWORD}\n"
                              "Rote Teufel: 9-9-16-16-20\nStatus")
    said = refused(league, mails, ANNA)
    assert f"eine Mail von {ANNA}" in said and "nichts geändert" in said
    assert "nur von gm.address" in said and "ist das richtige" in said
    assert state(league) == before


def test_a_wrong_gm_password_in_a_players_mail_is_never_echoed(league: League) -> None:
    password = league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    before = state(league)
    mails = league.send(ANNA, f"Passwort: {password}\nGM password: rate-mal-123\n"
                              "Rote Teufel: 9-9-16-16-20")
    said = refused(league, mails, ANNA)
    assert "rate-mal-123" not in said and "ist das richtige" not in said
    assert state(league) == before


def test_the_right_address_without_the_password_changes_nothing(league: League) -> None:
    before = state(league)
    said = refused(league, gm_send(league, "Fehlend", password=None), GM)
    assert "kein GM-Passwort" in said
    said = refused(league, gm_send(league, "Status", password="falsch-falsch-falsch"), GM)
    assert "GM-Passwort ist falsch" in said
    assert state(league) == before
    # Without a game master's keyword his mail is a player's (he may play a team).
    (reply,) = league.send(GM, "Status")
    assert kind(reply) == "reply" and "noch kein Manager eingetragen" in flat(reply)


def test_a_failing_authentication_result_changes_nothing(tmp_path: Path) -> None:
    league = gm_league(tmp_path, authserv_id=AUTHSERV)
    before = state(league)
    for verdict in (f"{AUTHSERV}; dmarc=fail header.from=game.example",
                    f"{AUTHSERV}; spf=pass smtp.mailfrom=evil@evil.example; "
                    "dkim=pass header.d=evil.example",
                    "other.example; dmarc=pass header.from=game.example"):
        said = refused(league, gm_send(league, "Status", Authentication_Results=verdict), GM)
        assert "Empfangsserver hat nicht bestätigt" in said
    assert state(league) == before
    passed = f"{AUTHSERV}; dkim=pass header.d=game.example; dmarc=pass header.from=game.example"
    assert "Wo das Spiel steht:" in only_reply(
        gm_send(league, "Status", Authentication_Results=passed))


def test_refused_attempts_are_counted_in_the_digest(league: League) -> None:
    league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    league.send(ANNA, f"GM-Passwort: {GM_PASSWORD}\nStatus")
    gm_send(league, "Status", password="falsch-falsch-falsch")
    gm_send(league, "Status")  # his own mail: no attempt to count
    digest = [m for m in league.evaluate() if kind(m) == "digest"]
    assert [to(m) for m in digest] == [GM]
    said = flat(digest[0])
    assert "Als Spielleitungs-Mail abgewiesen (nur die Spielleitung wurde benachrichtigt) 2" in said
    assert (f"{ANNA}: als Spielleitungs-Mail abgewiesen, nichts geändert. Eine "
            "GM-Passwort-Zeile von einer anderen Adresse als gm.address.") in said
    assert (f"{GM}: als Spielleitungs-Mail abgewiesen, nichts geändert. Falsches "
            "GM-Passwort.") in said
    assert "2 Punkte brauchen Aufmerksamkeit" in digest[0]["Subject"]
