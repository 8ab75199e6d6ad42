"""The game master's console on the demo's league (a real state directory):
managers, missing, remind --missing, broadcast, backup, publish."""

from __future__ import annotations

import email
import email.policy
import json
import re
import sqlite3
from decimal import Decimal
from email.header import decode_header, make_header

import pytest

from bot.cli import build_parser
from bot.rules.lots import seed_commitment

from .conftest import Game

ACTIVE_TEAMS = "SELECT t.name, t.short_name, t.wp, m.address FROM teams t JOIN managers m" \
               " ON m.id = t.manager_id WHERE t.deleted_round IS NULL ORDER BY t.id"


def _subject(raw: bytes) -> str:
    return str(make_header(decode_header(email.message_from_bytes(raw)["Subject"])))


def _text(raw: bytes) -> str:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    return message.get_body(("plain",)).get_content()


def test_managers_json_lists_every_manager_with_teams_as_the_database_has_them(game: Game):
    status, out, err = game.cli("managers", "--json")
    assert status == 0, err
    managers = json.loads(out)
    addresses = {r["address"] for r in game.query(ACTIVE_TEAMS)}
    assert {m["address"] for m in managers} == addresses
    for m in managers:
        assert {"address", "name", "language", "teams", "last_mail", "bounces"} <= set(m)
        assert m["language"] in ("de", "en", None)
    teams = {t["name"]: t for m in managers for t in m["teams"]}
    rows = game.query(ACTIVE_TEAMS)
    assert set(teams) == {r["name"] for r in rows}
    for r in rows:
        assert teams[r["name"]]["short_name"] == r["short_name"]
        assert Decimal(str(teams[r["name"]]["wp"])) == Decimal(r["wp"]).quantize(
            Decimal(str(teams[r["name"]]["wp"])))
    jack = next(m for m in managers if m["address"] == "jack.clarke@players.example")
    assert jack["name"] == "Jack Clarke" and jack["language"] == "en"
    assert jack["last_mail"] is not None


def test_managers_text_follows_the_game_language(game: Game):
    status, out, _ = game.cli("managers")
    assert status == 0
    name, short, wp, _address = game.query(ACTIVE_TEAMS)[0]
    whole, cents = str(Decimal(wp).quantize(Decimal("0.01"))).split(".")
    assert out.startswith("8 Manager mit Team:")
    assert f"{name} ({short})  WP {whole},{cents}" in out  # German decimal comma
    game.set_config("language: de", "language: en")
    status, out, _ = game.cli("managers")
    assert out.startswith("8 managers with a team:")
    assert f"{name} ({short})  WP {whole}.{cents}" in out


def test_missing_lists_the_teams_without_a_move_and_drops_one_that_sends(game: Game):
    status, out, _ = game.cli("missing", "--json")
    assert status == 0
    report = json.loads(out)
    assert report["round"] == 6
    names = [t["name"] for t in report["teams"]]
    assert sorted(names) == sorted(r["name"] for r in game.query(ACTIVE_TEAMS))
    # one team sends a lineup for round 6: it is no longer missing
    conn = sqlite3.connect(game.state / "turnited.sqlite3")
    with conn:
        team_id = conn.execute("SELECT id FROM teams WHERE name = 'Bristol Town'").fetchone()[0]
        conn.execute("INSERT INTO moves (round, team_id, line, lineup, received_at)"
                     " VALUES (6, ?, 'Aufstellung: 10-10-20-20-30', '10-10-20-20-30',"
                     " '2027-01-10T12:00:00+00:00')", (team_id,))
    conn.close()
    status, out, _ = game.cli("missing")
    assert status == 0
    assert out.startswith("Spielrunde 6 (Einsendeschluss So., 17. Januar 2027, 20:00 MEZ "
                          "(Europe/Berlin)): 9 Teams ohne Aufstellung:")
    assert "Bristol Town" not in out and "Alemannia Lübeck (Alemannia): uschi" in out


def test_remind_missing_mails_only_them_once_a_day_in_their_language(game: Game):
    missing = {t["address"] for t in json.loads(game.cli("missing", "--json")[1])["teams"]}
    status, out, err = game.cli("remind", "--missing")
    assert status == 0, err
    queued = game.query("SELECT recipient, raw FROM outbox WHERE state = 'queued'"
                        " AND kind = 'reminder'")
    assert {r["recipient"] for r in queued} == missing
    assert f"{len(missing)} Erinnerungen für Spielrunde 6" in out
    english = next(r for r in queued if r["recipient"] == "jack.clarke@players.example")
    assert "Bristol Town" in _text(english["raw"])
    # RULES.md §4: the seed's commitment is in every reminder, these too
    ((number, seed),) = game.query(
        "SELECT s.round, s.seed FROM round_seeds s JOIN rounds r ON r.number = s.round"
        " WHERE r.state = 'open'")
    assert all(seed_commitment(number, int(seed)) in _text(r["raw"]) for r in queued)
    assert email.message_from_bytes(english["raw"])["Content-Language"] == "en"
    assert game.cli("remind", "--missing")[1].startswith("Keine Erinnerung neu eingereiht")
    assert len(game.query("SELECT 1 FROM outbox WHERE kind = 'reminder' AND state = 'queued'"
                          )) == len(missing)
    status, out, _ = game.cli("send")
    assert status == 0 and out.startswith(f"Verschickt: {len(missing)};")


def test_remind_without_missing_says_what_to_give(game: Game):
    status, _, err = game.cli("remind")
    assert status == 2 and "--missing" in err


def test_broadcast_reaches_every_manager_once_and_subscribers_with_all(game: Game):
    game.set_config("mail:\n", "newsletter:\n  extra_recipients: [list@fans.example]\nmail:\n")
    news = game.root / "news.txt"
    news.write_text("Subject: Winterpause\n\nAm 27. Dezember ruht der Ball.\n\n"
                    "Eure Spielleitung\n", encoding="utf-8")
    status, out, err = game.cli("broadcast", str(news))
    assert status == 0, err
    rows = game.query("SELECT recipient, raw FROM outbox WHERE state = 'queued'")
    managers = {r["address"] for r in game.query(ACTIVE_TEAMS)}
    assert {r["recipient"] for r in rows} == managers
    assert {_subject(r["raw"]) for r in rows} == {"Turnited Demo: Winterpause"}
    body = _text(rows[0]["raw"])
    assert "Am 27. Dezember ruht der Ball." in body and "Subject:" not in body
    # the same file again: nothing new; with --all the subscriber is added
    status, out, _ = game.cli("broadcast", str(news))
    assert f"0 Empfänger in den Postausgang gestellt, {len(managers)} hatten es schon" in out
    status, out, _ = game.cli("broadcast", str(news), "--all")
    assert "an 1 Empfänger" in out
    assert len(game.query("SELECT 1 FROM outbox WHERE state = 'queued'")) == len(managers) + 1


def test_broadcast_of_an_empty_or_missing_file_is_a_clear_error(game: Game):
    empty = game.root / "empty.txt"
    empty.write_text("Subject: Nichts\n\n  \n", encoding="utf-8")
    before = len(game.query("SELECT 1 FROM outbox"))
    status, _, err = game.cli("broadcast", str(empty))
    assert status == 2 and "das Rundschreiben hat keinen Text zum Verschicken" in err
    status, _, err = game.cli("broadcast", str(game.root / "nope.txt"))
    assert status == 2 and "das Rundschreiben" in err and "ist nicht lesbar" in err
    assert len(game.query("SELECT 1 FROM outbox")) == before


def test_backup_is_a_consistent_copy_that_passes_integrity_check(game: Game, tmp_path):
    dest = tmp_path / "backup.sqlite3"
    status, out, err = game.cli("backup", str(dest), "--json")
    assert status == 0, err
    report = json.loads(out)
    assert report["integrity"] == "ok" and report["path"] == str(dest)
    copy = sqlite3.connect(dest)
    assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    for table in ("managers", "teams", "moves", "round_results", "outbox"):
        original = game.query(f"SELECT COUNT(*) FROM {table}")[0][0]
        assert copy.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == original
    copy.close()
    # never overwritten; a directory gets the default name
    status, _, err = game.cli("backup", str(dest))
    assert status == 2 and "eine Sicherung überschreibt nie eine Datei" in err
    status, out, _ = game.cli("backup", str(tmp_path))
    (dated,) = tmp_path.glob("turnited-backup-*.sqlite3")  # a directory gets a dated name
    assert status == 0 and re.fullmatch(r"turnited-backup-\d{4}-\d\d-\d\d-\d{6}\.sqlite3",
                                        dated.name)
    assert "Sicherung geschrieben" in out and "Wiederherstellen" in out


def test_a_restored_backup_replays_identically(game: Game, tmp_path):
    dest = tmp_path / "b.sqlite3"
    assert game.cli("backup", str(dest))[0] == 0
    restored = tmp_path / "restored"
    restored.mkdir()
    dest.rename(restored / "turnited.sqlite3")
    status, out, _ = game.cli("replay", "--all", "--state", str(restored))
    assert status == 0 and out.count(": gleich (Startwert") == 5


def test_publish_copies_the_archive_to_a_web_root(game: Game, tmp_path):
    web = tmp_path / "www"
    status, out, err = game.cli("publish", str(web))
    assert status == 0, err
    archive = game.state / "archive"
    files = sorted(p.relative_to(archive) for p in archive.rglob("*") if p.is_file())
    assert sorted(p.relative_to(web) for p in web.rglob("*") if p.is_file()) == files
    assert (web / "index.html").read_bytes() == (archive / "index.html").read_bytes()
    status, out, _ = game.cli("publish", str(web))
    assert f"{len(files)} Dateien" in out and "(0 neu oder geändert)" in out


@pytest.mark.parametrize("command", ["managers", "missing", "remind", "broadcast", "backup",
                                     "publish", "status", "poll", "send", "evaluate", "demo",
                                     "deadline", "run", "init", "replay"])
def test_every_console_command_has_help_with_an_example(command: str):
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    text = sub.choices[command].format_help()
    assert "example" in text and "turnited" in text.split("example", 1)[1]


def test_a_banned_manager_is_marked_and_gets_no_broadcast_or_reminder(game: Game):
    jack = "jack.clarke@players.example"
    status, _, err = game.cli("manager", "ban", jack)
    assert status == 0, err
    managers = {m["address"]: m for m in json.loads(game.cli("managers", "--json")[1])}
    assert managers[jack]["banned"] is True
    assert [a for a, m in managers.items() if m["banned"]] == [jack]
    assert "GESPERRT" in next(line for line in game.cli("managers")[1].splitlines()
                              if line.startswith(jack))
    news = game.root / "news.txt"
    news.write_text("Hallo zusammen!\n", encoding="utf-8")
    status, out, _ = game.cli("broadcast", str(news))
    assert "1 gesperrter Manager ausgelassen." in out
    assert game.cli("remind", "--missing")[0] == 0
    assert jack not in {r["recipient"] for r in game.query("SELECT recipient FROM outbox"
                                                           " WHERE state = 'queued'")}
