"""The game master's destructive commands take two mails (RULES.md §13):
``Sperren``, ``Zurücknehmen``, ``Daten löschen: ADDRESS``. The first one's
reply to ``gm.address`` carries ``Bestätigen: CODE`` and changes nothing;
only a second GM mail with that line carries it out. A wrong, expired,
reused or replaced code changes nothing. Through the real mail path, German
and English, each the very use case the console runs."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest

from tests.service.business_app import GM, League, flat, kind, text_of, to
from tests.service.gm_app import gm_league, gm_send, only_reply, reply_and_others

ANNA = "anna@player.example"
BOB = "bob@player.example"


@pytest.fixture
def league(tmp_path: Path) -> League:
    league = gm_league(tmp_path)
    league.passwords = {  # type: ignore[attr-defined]
        ANNA: league.register(ANNA, "Rote Teufel", "10-10-15-15-20"),
        BOB: league.register(BOB, "Blaue Jungs", "10-10-15-15-20", english=True)}
    return league


def state(league: League) -> list[tuple[object, ...]]:
    """What a mail may change: managers, teams, moves, rounds."""
    return (league.sql("SELECT address, password_hash, banned_at FROM managers ORDER BY id")
            + league.sql("SELECT name, wp, manager_id FROM teams ORDER BY id")
            + league.sql("SELECT round, team_id, lineup FROM moves ORDER BY id")
            + league.sql("SELECT number, deadline, state FROM rounds ORDER BY number"))


def words(text: str) -> str:
    return " ".join(text.split())


def code_in(text: str, word: str = "Bestätigen") -> str:
    found = re.search(rf"^    {word}: (\w{{4}}-\w{{4}})$", text, re.M)
    assert found, text
    return found.group(1)


def banned(league: League, address: str) -> bool:
    (row,) = league.sql("SELECT banned_at FROM managers WHERE address = ?", address)
    return row[0] is not None


# -- Sperren / Ban -------------------------------------------------------------------


def test_a_ban_takes_a_second_mail_with_the_code(league: League) -> None:
    before = state(league)
    text = only_reply(gm_send(league, f"Sperren: {ANNA}"))
    assert f"{ANNA} sperren?" in words(text) and "dieser Zeile:" in words(text)
    code = code_in(text)
    assert state(league) == before  # the first mail changes nothing
    text = only_reply(gm_send(league, f"Bestätigen: {code}"))
    assert "Sperren:" in text and f"{ANNA} ist gesperrt" in words(text)
    assert banned(league, ANNA) and not banned(league, BOB)
    # A banned manager's mail changes nothing and gets no reply.
    assert league.send(ANNA, f"Passwort: {league.passwords[ANNA]}\nRote Teufel: 9-9-16-16-20"
                       ) == []
    # The same code again: used.
    text = only_reply(gm_send(league, f"Bestätigen: {code}"))
    assert "FEHLER" in text and "schon benutzt" in words(text)


def test_a_ban_in_english(league: League) -> None:
    text = only_reply(gm_send(league, f"Ban: {BOB}", english=True))
    assert f"Ban {BOB}?" in words(text)
    text = only_reply(gm_send(league, f"Confirm: {code_in(text, 'Confirm')}", english=True))
    assert f"{BOB} is banned" in words(text) and banned(league, BOB)
    # Banned already: said at once, nothing to confirm.
    text = only_reply(gm_send(league, f"Ban: {BOB}", english=True))
    assert f"{BOB} was banned already; nothing changed." in words(text)
    assert "Confirm:" not in text


def test_a_ban_of_nobody_is_an_error(league: League) -> None:
    text = only_reply(gm_send(league, "Sperren: niemand@player.example"))
    assert "FEHLER" in text and "niemand@player.example" in text
    assert league.sql("SELECT COUNT(*) FROM confirmations") == [(0,)]


def test_a_wrong_code_changes_nothing_and_is_counted(league: League) -> None:
    code = code_in(only_reply(gm_send(league, f"Sperren: {ANNA}")))
    wrong = "ABCD-EFGH" if code != "ABCD-EFGH" else "HGFE-DCBA"
    before = state(league)
    text = only_reply(gm_send(league, f"Status\nBestätigen: {wrong}"))
    assert "FEHLER" in text and "noch 4 Versuche" in words(text)
    assert state(league) == before  # the Status beside it is answered (RULES.md §11)
    assert text.index("FEHLER") < text.index("Wo das Spiel steht")
    text = only_reply(gm_send(league, f"Bestätigen: {code}"))  # the right one still works
    assert banned(league, ANNA)


def test_an_expired_code_changes_nothing(league: League) -> None:
    code = code_in(only_reply(gm_send(league, f"Sperren: {ANNA}")))
    league.clock.now += timedelta(days=1, minutes=1)
    text = only_reply(gm_send(league, f"Bestätigen: {code}"))
    assert "FEHLER" in text and "ist abgelaufen" in words(text)
    assert not banned(league, ANNA)


def test_a_newer_request_replaces_the_older_code(league: League) -> None:
    first = code_in(only_reply(gm_send(league, f"Sperren: {ANNA}")))
    second = code_in(only_reply(gm_send(league, f"Sperren: {ANNA}")))
    text = only_reply(gm_send(league, f"Bestätigen: {first}"))
    assert "FEHLER" in text and "neuere" in words(text) and not banned(league, ANNA)
    only_reply(gm_send(league, f"Bestätigen: {second}"))
    assert banned(league, ANNA)


def test_the_game_masters_code_is_no_players_and_needs_his_password(league: League) -> None:
    code = code_in(only_reply(gm_send(league, f"Sperren: {ANNA}")))
    # From his address without the GM password: a player's mail, nothing confirmed.
    league.send(GM, f"Bestätigen: {code}")
    # Anna cannot confirm her own ban's code, nor anybody else.
    (reply,) = league.send(ANNA, f"Passwort: {league.passwords[ANNA]}\nBestätigen: {code}")
    assert to(reply) == ANNA and "FEHLER" in text_of(reply)
    assert not banned(league, ANNA)
    only_reply(gm_send(league, f"Bestätigen: {code}"))  # still waiting: his works
    assert banned(league, ANNA)


def test_the_digest_lists_a_wrong_code(league: League) -> None:
    code = code_in(only_reply(gm_send(league, f"Sperren: {ANNA}")))
    gm_send(league, "Bestätigen: ABCD-2345")
    gm_send(league, f"Bestätigen: {code}")
    digest = [m for m in league.evaluate() if kind(m) == "digest"]
    assert [to(m) for m in digest] == [GM]
    assert f"{GM}: abgelehnt, nichts geändert (Runde 1)" in flat(digest[0])
    assert "Falscher Bestätigungscode." in flat(digest[0])


# -- Zurücknehmen / Rollback ---------------------------------------------------------


def evaluated(league: League) -> list[tuple[object, ...]]:
    return league.sql("SELECT number, state FROM rounds ORDER BY number")


def test_a_rollback_takes_a_second_mail_and_tells_the_managers(league: League) -> None:
    league.evaluate()  # round 1 evaluated, round 2 open
    before = state(league)
    text = only_reply(gm_send(league, "Zurücknehmen: Runde 1"))
    assert "Zurücknehmen, sobald du es bestätigst:" in text
    assert ("Rücknahme der Spielrunde 1" in words(text)
            and "13. Dezember 2026" in words(text)), text  # the next planned deadline
    code = code_in(text)
    assert state(league) == before
    text, others = reply_and_others(gm_send(league, f"Bestätigen: {code}"))
    assert "Zurücknehmen:" in text and "Die Auswertung der Spielrunde 1" in words(text)
    assert evaluated(league) == [(1, "open")]
    assert "Einsendeschluss für Spielrunde 1: So., 13. Dezember 2026" in words(text)
    told = {to(m): m for m in others}
    assert sorted(told) == [ANNA, BOB] and all(kind(m) == "notice" for m in others)
    assert "zurückgenommen" in flat(told[ANNA]) and "withdrawn" in flat(told[BOB])
    text = only_reply(gm_send(league, f"Bestätigen: {code}"))  # reused: nothing again
    assert "FEHLER" in text and evaluated(league) == [(1, "open")]


def test_a_rollback_in_english_with_a_deadline(league: League) -> None:
    league.evaluate()
    text = only_reply(gm_send(league, "Rollback: round 1 until 2026-12-20 20:00",
                              english=True))
    assert "Rollback, once you confirm it:" in text and "the deadline given" in words(text)
    code = code_in(text, "Confirm")
    text, others = reply_and_others(gm_send(league, f"Confirm: {code}", english=True))
    assert "The evaluation of round 1 is taken back" in words(text)
    assert league.sql("SELECT deadline FROM rounds WHERE state = 'open'") == [
        ("2026-12-20T19:00:00+00:00",)]
    assert len(others) == 2


@pytest.mark.parametrize(("line", "why"), [
    ("Zurücknehmen: Runde 2", "Spielrunde 2"),  # open, not evaluated
    ("Zurücknehmen: Runde 1 bis 01.12.2026 20:00", "nicht in der Zukunft"),
    ("Zurücknehmen: die letzte", "Zurücknehmen: Runde 12"),
])
def test_a_rollback_that_cannot_be_done_asks_nothing(league: League, line: str,
                                                       why: str) -> None:
    league.evaluate()
    before = state(league)
    text = only_reply(gm_send(league, line))
    assert "FEHLER" in text and why in words(text)
    assert not re.search(r"^    Bestätigen: \w{4}-\w{4}$", text, re.M)  # no code
    assert state(league) == before
    assert league.sql("SELECT COUNT(*) FROM confirmations") == [(0,)]


def test_a_rollback_code_after_another_evaluation_changes_nothing(league: League) -> None:
    league.evaluate()
    code = code_in(only_reply(gm_send(league, "Zurücknehmen: Runde 1")))
    league.evaluate()  # round 2 is the last evaluated now
    before = state(league)
    text = only_reply(gm_send(league, f"Bestätigen: {code}"))
    assert "FEHLER" in text and state(league) == before


# -- Daten löschen: ADDRESS / Erase data: ADDRESS -------------------------------------


def test_erasing_a_managers_data_takes_a_second_mail(league: League) -> None:
    league.evaluate()  # Rote Teufel played: it retires, keeping its place
    before = state(league)
    text = only_reply(gm_send(league, f"Daten löschen: {ANNA}"))
    assert f"Die Daten von {ANNA} löschen?" in words(text)
    assert "Teams, die abtreten: Rote Teufel." in words(text)
    code = code_in(text)
    assert state(league) == before
    text, others = reply_and_others(gm_send(league, f"Bestätigen: {code}"))
    assert others == []  # he is not told
    assert "Die Daten des Managers sind gelöscht" in words(text) and ANNA not in text
    assert league.sql("SELECT COUNT(*) FROM managers WHERE address = ?", ANNA) == [(0,)]
    assert league.sql("SELECT COUNT(*) FROM inbound WHERE sender LIKE ?", f"%{ANNA}%") == [
        (0,)]
    assert league.sql("SELECT name FROM teams WHERE name = 'Rote Teufel'") == [
        ("Rote Teufel",)]  # the team stays in the results
    assert league.sql("SELECT COUNT(*) FROM managers WHERE address = ?", BOB) == [(1,)]


def test_erasing_in_english_and_a_used_code(league: League) -> None:
    code = code_in(only_reply(gm_send(league, f"Erase data: {BOB}", english=True)),
                   "Confirm")
    text = only_reply(gm_send(league, f"Confirm: {code}", english=True))
    assert "The manager's data is deleted" in words(text)
    text = only_reply(gm_send(league, f"Confirm: {code}", english=True))
    assert "ERROR" in text  # his data took the waiting code with it: nothing waits
    assert league.sql("SELECT COUNT(*) FROM managers WHERE address = ?", ANNA) == [(1,)]


def test_erasing_nobody_or_without_an_address_asks_nothing(league: League) -> None:
    text = only_reply(gm_send(league, "Daten löschen: niemand@player.example"))
    assert "FEHLER" in text and "niemand@player.example" in text
    text = only_reply(gm_send(league, "Daten löschen"))  # whose? not his command
    assert "nicht verstanden und übergangen: | Daten löschen" in words(text)
    assert "Daten löschen: anna@example.org" in text  # his help shows how
    assert league.sql("SELECT COUNT(*) FROM confirmations") == [(0,)]


def test_his_help_lists_the_two_step_commands(league: League) -> None:
    text = only_reply(gm_send(league, "Hilfe"))
    for line in ("Sperren: anna@example.org", "Zurücknehmen: Runde 12",
                 "Daten löschen: anna@example.org", "Für anna@example.org:",
                 "Bestätigen: K7FX-2QMP"):
        assert f"    {line}" in text, line
    text = only_reply(gm_send(league, "Help", english=True))
    for line in ("Ban: anna@example.org", "Rollback: round 12", "Erase data: anna@example.org",
                 "For anna@example.org:", "Confirm: K7FX-2QMP"):
        assert f"    {line}" in text, line
