"""``Daten löschen`` / ``Delete my data`` through the real mail path (RULES.md
§12): asked with the password, confirmed by the code from the registered
address; then the address, name and password are gone from the database
file, its WAL, the ledger, the outbox and every spool file, the teams
retire keeping their WP and their place (the tables say "—"), the reply is
the last mail, and ``turnited replay --all`` still says identical."""

from __future__ import annotations

import gzip
import json
import re
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest

from bot.cli import main
from bot.mail.maildir_transport import deliver
from bot.storage.db import database_files
from tests.service.business_app import BOT, League, flat, of_kind, text_of, to
from tests.support.mails import player_mail

ANNA = "anna@player.example"
BOB = "bob@player.example"
CARL = "carl@player.example"
NAME = "Annabella Alt"


@pytest.fixture
def league(tmp_path: Path) -> League:
    return League(tmp_path)


def code_in(msg: EmailMessage) -> str:
    found = re.search(r"^    (?:Bestätigen|Confirm): (\S+)$", text_of(msg), re.M)
    assert found, text_of(msg)
    return found.group(1)


def bounce_of(address: str) -> bytes:
    """A delivery status notification: mail to ``address`` could not be delivered."""
    return (
        "From: MAILER-DAEMON@mx.player.example (Mail Delivery System)\r\n"
        f"To: {BOT}\r\nSubject: Undelivered Mail Returned to Sender\r\n"
        "Date: Tue, 01 Dec 2026 13:00:00 +0000\r\nMessage-ID: <dsn1@mx.player.example>\r\n"
        "Auto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\r\n\r\n'
        "--b\r\nContent-Type: text/plain\r\n\r\nYour mail could not be delivered.\r\n"
        "--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx\r\n\r\n"
        f"Final-Recipient: rfc822; {address}\r\nAction: failed\r\nStatus: 5.2.2\r\n"
        "Diagnostic-Code: smtp; 552 mailbox full\r\n--b--\r\n"
    ).encode()


def traces(league: League, *needles: str, database: bool = True) -> list[str]:
    """Every file of the database (``database``) and of the spool
    (decompressed) that holds one of ``needles``, as 'file: needle'."""
    found = []
    files = [(p, p.read_bytes()) for p in database_files(league.app.db.path)
             if database and p.exists()]
    for path in sorted((league.state / "spool").rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            files.append((path, gzip.decompress(data) if path.name.endswith(".gz") else data))
    for path, data in files:
        for needle in needles:
            if needle.encode() in data or needle.lower().encode() in data.lower():
                found.append(f"{path.relative_to(league.root)}: {needle}")
    return found


def replayed(league: League, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """``turnited replay --all``, each round's verdict."""
    capsys.readouterr()
    assert main(["replay", "--all", "--state", str(league.state), "--lang", "en"]) == 0
    return [line.split(" (seed")[0] for line in capsys.readouterr().out.splitlines()]


def test_a_manager_leaves_and_the_game_forgets_him(league: League, capsys) -> None:
    anna = league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    league.send(ANNA, f"Passwort: {anna}\nManager: {NAME}")
    bob = league.register(BOB, "Blaue Jungs", "5-5-25-25-25")
    league.register(CARL, "Grüne Jäger", "5-5-19-23-18")
    league.evaluate()  # round 1: three teams play
    (wp_before,) = league.sql("SELECT wp FROM teams WHERE name = 'Rote Teufel'")
    # Round 2: a lineup, a second team that never plays, a bounce, a lost password.
    league.send(ANNA, f"Passwort: {anna}\nRote Teufel: 9-9-16-16-20\n"
                      "Neues Team: Rote Zwerge\nRote Zwerge: 10-10-15-15-20")
    deliver(league.app.config.maildir_root / "inbox", bounce_of(ANNA))
    league.app.poll_once()
    (forgot,) = league.send(ANNA, "Passwort vergessen")
    anna = re.search(r"Passwort: (\S+)", text_of(forgot)).group(1)  # type: ignore[union-attr]
    assert traces(league, ANNA, NAME)  # the address is everywhere before

    (asked,) = league.send(ANNA, f"Daten löschen\nPasswort: {anna}")
    assert to(asked) == ANNA
    assert "Das lässt sich nicht rückgängig machen" in flat(asked)
    assert "Teams, die abtreten: Rote Teufel, Rote Zwerge." in flat(asked)
    assert league.sql("SELECT COUNT(*) FROM managers WHERE address = ?", ANNA) == [(1,)]

    deliver(league.app.config.maildir_root / "inbox", player_mail(
        ANNA, f"Bestätigen: {code_in(asked)}\nPasswort: {anna}", to=BOT, when=league.clock.now))
    league.app.poll_once()
    # The raw mails left the spool as the erasure committed; the farewell still waits.
    assert traces(league, ANNA, NAME, anna, database=False) == []
    assert league.sql("SELECT COUNT(*) FROM spool_removals") == [(0,)]
    (farewell,) = league.flush()
    assert to(farewell) == ANNA
    assert "Dies ist die letzte Mail, die du von uns bekommst" in flat(farewell)
    assert "Abgetreten (sie behalten ihre WP und ihren Platz in den Ergebnissen): " \
           "Rote Teufel." in flat(farewell)
    assert "ihre Namen sind wieder frei: Rote Zwerge." in flat(farewell)

    # Nowhere in the state: the database file, its WAL, the ledger, the outbox, the spool.
    assert traces(league, ANNA, NAME, anna) == []
    assert league.sql("SELECT COUNT(*) FROM inbound WHERE sender LIKE '%anna%'"
                      " OR outcome LIKE '%anna%' OR subject IS NOT NULL AND sender = '(erased)'"
                      ) == [(0,)]
    assert league.sql("SELECT COUNT(*) FROM outbox WHERE recipient LIKE '%anna%'") == [(0,)]
    assert league.sql("SELECT COUNT(*) FROM bounces") == [(0,)]
    # Every round replays identically from its stored inputs.
    assert replayed(league, capsys) == ["round 1: identical"]

    # The team retired: it keeps its WP, plays no more, and the tables say "—".
    league.send(BOB, f"Passwort: {bob}\nBlaue Jungs: 5-5-25-25-25")
    mails = league.evaluate()
    assert ANNA not in {to(m) for m in mails}
    assert league.sql("SELECT wp, deleted_round, retired FROM teams WHERE name = 'Rote Teufel'"
                      ) == [(wp_before[0], 2, 1)]
    assert league.sql("SELECT COUNT(*) FROM teams WHERE name = 'Rote Zwerge'") == [(0,)]
    played = league.sql("SELECT t.name FROM round_entries e JOIN teams t ON t.id = e.team_id"
                        " WHERE e.round = 2 ORDER BY t.name")
    assert played == [("Blaue Jungs",)]
    text = text_of(of_kind(mails, "newsletter")[BOB])
    (row,) = [line for line in text.splitlines() if "Rote Teufel" in line and "," in line]
    assert "—" in row and NAME not in text
    assert traces(league, ANNA, NAME, anna) == []
    assert replayed(league, capsys) == ["round 1: identical", "round 2: identical"]


def test_english_and_the_state_stays_sound(league: League, capsys) -> None:
    bob = league.register(BOB, "Blue Eagles", "4-6-20-22-19", english=True)
    league.evaluate()
    (asked,) = league.send(BOB, f"Delete my data\nPassword: {bob}", "Delete")
    assert "This cannot be undone" in flat(asked) and "Teams that retire: Blue Eagles." in flat(
        asked)
    (farewell,) = league.send(BOB, f"Confirm: {code_in(asked)}\nPassword: {bob}", "Confirm")
    assert "Your data is deleted" in flat(farewell)
    assert "This is the last mail you get from us" in flat(farewell)
    assert farewell["Content-Language"] == "en"
    assert traces(league, BOB, bob) == []
    capsys.readouterr()  # the state is sound (the test's files are not private: ignored)
    main(["check", "--state", str(league.state), "--min-free-mb", "0", "--json"])
    found = {f["topic"]: f for f in json.loads(capsys.readouterr().out)["findings"]}
    assert all(found[t]["ok"] for t in ("database", "foreign_keys", "spool", "outbox"))
    assert found["spool"]["values"]["missing"] == 0
    # The address may come back as a new manager; the retired team's name stays taken.
    (reply,) = league.send(BOB, "New team: Blue Eagles\nLineup: 4-6-20-22-19", "Sign-up")
    assert "ERRORS" in text_of(reply)
    assert league.sql("SELECT COUNT(*) FROM managers WHERE address = ?", BOB) == [(0,)]


def test_nothing_is_erased_without_password_or_the_right_code(league: League) -> None:
    anna = league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    before = league.sql("SELECT * FROM managers")
    (reply,) = league.send(ANNA, "Daten löschen")
    assert "FEHLER" in text_of(reply) and "Passwort" in flat(reply)
    assert league.sql("SELECT COUNT(*) FROM confirmations") == [(0,)]
    (asked,) = league.send(ANNA, f"Daten löschen\nPasswort: {anna}")
    code = code_in(asked)
    for body, words in (
        (f"Bestätigen: {code}", "Passwort"),  # the code alone is not enough
        (f"Bestätigen: AAAA-BBBB\nPasswort: {anna}", "Der Code ist nicht der, der dir"),
        # (a broken lineup beside it no longer holds the rest of the mail back:
        # each team stands alone, RULES.md §11; a line without its code does)
        (f"Bestätigen:\nPasswort: {anna}", "FEHLER"),
    ):
        (reply,) = league.send(ANNA, body)
        assert words in flat(reply) and "FEHLER" in text_of(reply), body
    (reply,) = league.send("fremd@player.example", f"Bestätigen: {code}")
    assert "Von dieser Adresse wartet keine Anfrage auf eine Bestätigung" in flat(reply)
    league.clock.now += timedelta(days=7, minutes=1)
    (reply,) = league.send(ANNA, f"Bestätigen: {code}\nPasswort: {anna}")
    assert "ist abgelaufen" in flat(reply)
    assert league.sql("SELECT * FROM managers") == before
    assert traces(league, ANNA)  # all there still


def test_someone_who_only_wrote_can_have_his_mails_forgotten(league: League) -> None:
    league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    stranger = "neugierig@player.example"
    league.send(stranger, "Hallo, wie funktioniert das Spiel?")
    league.send(stranger, "Status")
    assert traces(league, stranger)
    (asked,) = league.send(stranger, "Daten löschen")
    assert "Das Spiel vergisst diese Adresse" in flat(asked)
    (farewell,) = league.send(stranger, f"Bestätigen: {code_in(asked)}")
    assert "Das Spiel hat diese Adresse vergessen" in flat(farewell)
    assert traces(league, stranger) == []
    assert traces(league, ANNA)  # nobody else's data is touched
    assert league.sql("SELECT address FROM managers") == [(ANNA,)]
