"""``turnited check``: integrity, foreign keys, schema, permissions, free disk,
missing spool files and the outbox backlog of a real state directory, in the
game's language, as text or JSON; exit status 1 on a problem. Real files, the
real command line (in-process and one ``python -m bot`` without passwords)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.cli import main
from bot.mail.spool import spool
from bot.storage import ledger
from bot.storage.db import DATABASE_FILE, open_database
from bot.storage.outbox import enqueue

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime.now(UTC)


def league_state(tmp_path: Path, *, mails: int = 3) -> Path:
    """A private state with spooled, ledgered mail and one queued reply."""
    state = tmp_path / "state"
    db = open_database(state)
    with db.transaction() as conn:
        for n in range(mails):
            raw = f"From: m{n}@example.org\r\nSubject: {n}\r\n\r\n10-10-15-15-20\r\n".encode()
            spooled = spool(state / "spool", raw, NOW)
            ledger.insert(conn, ledger.InboundRecord(
                source="cli", uidvalidity=None, uid=None, message_id=f"<i{n}@x>",
                sha256=spooled.sha256, spool_path=spooled.relative_path, received_at=NOW,
                sender=f"m{n}@example.org", subject=str(n), kind="human"))
        enqueue(conn, raw=b"Subject: r\r\n\r\nok\r\n", message_id="<r@x>", kind="reply",
                recipient="m0@example.org", now=NOW)
    db.close()
    return state


def check(capsys, state: Path, *extra: str) -> tuple[int, dict]:
    config = state.parent / "defaults.yaml"  # every key its default
    config.write_text("", encoding="utf-8")
    code = main(["--config", str(config), "check", "--state", str(state), "--json", *extra])
    return code, json.loads(capsys.readouterr().out)


def verdicts(report: dict) -> dict[str, tuple[bool, str]]:
    return {f["topic"]: (f["ok"], f["code"]) for f in report["findings"]}


def test_a_healthy_state_passes_every_check(tmp_path, capsys):
    state = league_state(tmp_path)
    code, report = check(capsys, state, "--min-free-mb", "1")
    assert code == 0 and report["ok"] is True
    assert verdicts(report) == {
        "database": (True, "integrity_ok"), "foreign_keys": (True, "fk_ok"),
        "schema": (True, "schema_ok"), "permissions": (True, "perm_ok"),
        "disk": (True, "disk_ok"), "spool": (True, "spool_ok"), "outbox": (True, "outbox_ok"),
        "size": (True, "size_unpruned")}
    by_topic = {f["topic"]: f for f in report["findings"]}
    assert by_topic["spool"]["values"]["count"] == 3
    assert by_topic["size"]["values"]["rounds"] == 0
    assert by_topic["size"]["values"]["bytes"] > sum(
        p.stat().st_size for p in (state / "spool").rglob("*.gz"))
    assert by_topic["outbox"]["values"]["waiting"] == 1
    assert by_topic["outbox"]["values"]["bodies"] == 1


def test_each_problem_is_named_and_fails_the_check(tmp_path, capsys):
    state = league_state(tmp_path)
    missing = next((state / "spool").rglob("*.eml.gz"))
    missing.unlink()
    os.chmod(state / DATABASE_FILE, 0o644)
    conn = sqlite3.connect(state / DATABASE_FILE)  # a reply to a mail the ledger lacks
    conn.execute("UPDATE outbox SET inbound_id = 999, created_at = ?",
                 ((NOW - timedelta(days=2)).isoformat(),))
    conn.commit()
    conn.close()
    code, report = check(capsys, state, "--min-free-mb", str(10**9))
    assert code == 1 and report["ok"] is False
    got = verdicts(report)
    assert got["spool"] == (False, "spool_missing")
    assert got["permissions"] == (False, "perm_bad")
    assert got["foreign_keys"] == (False, "fk_bad")
    assert got["outbox"] == (False, "outbox_stuck")
    assert got["disk"] == (False, "disk_low")
    texts = {f["topic"]: f["text"] for f in report["findings"]}
    assert missing.name in texts["spool"] and "Sicherung" in texts["spool"]
    assert f"{state / DATABASE_FILE} (0644)" in texts["permissions"]
    assert "outbox row 1 -> inbound" in texts["foreign_keys"]


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_corrupt_database_is_one_clear_finding(tmp_path, capsys, damage):
    state = league_state(tmp_path)
    path = state / DATABASE_FILE
    sqlite3.connect(path).execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
    data = path.read_bytes()
    path.write_bytes(b"not a database\n" * 400 if damage == "garbage" else
                     data[:4096] + b"\xff" * (len(data) - 4096))
    code, report = check(capsys, state, "--lang", "en")
    assert code == 1
    [database] = [f for f in report["findings"] if f["topic"] == "database"]
    assert database["ok"] is False and database["code"] in ("db_unusable", "integrity_bad")
    assert "\n" not in database["text"] and ("corrupt" in database["text"]
                                             or "damaged" in database["text"])


def test_no_database_is_a_problem_and_creates_nothing(tmp_path, capsys):
    code, report = check(capsys, tmp_path / "nowhere")
    assert code == 1 and verdicts(report)["database"] == (False, "db_missing")
    assert not (tmp_path / "nowhere").exists()


def test_text_output_follows_the_game_language_and_needs_no_password(tmp_path):
    league_state(tmp_path)
    config = tmp_path / "config.yaml"
    config.write_text(
        "state_dir: state\ngame:\n  language: {lang}\ngm:\n  address: gm@example.org\n"
        "mail:\n  transport: imap\n  address: bot@example.org\n"
        "  imap:\n    host: localhost\n    password_env: TURNITED_TEST_UNSET_IMAP\n"
        "  smtp:\n    host: localhost\n    username: bot@example.org\n"
        "    password_env: TURNITED_TEST_UNSET_SMTP\n")
    template = config.read_text()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNITED_")}
    env["PYTHONPATH"] = str(ROOT)
    out = {}
    for lang in ("de", "en"):
        config.write_text(template.replace("{lang}", lang))
        done = subprocess.run([sys.executable, "-m", "bot", "--config", str(config), "check",
                               "--min-free-mb", "1"], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr
        out[lang] = done.stdout
    assert "Datenbank unversehrt" in out["de"] and "alle 3 Spool-Dateien" in out["de"]
    assert "database intact" in out["en"] and "all 3 spool files present" in out["en"]


def test_the_worker_on_a_corrupt_database_says_so_in_one_line(tmp_path):
    """``turnited run`` on a corrupt database exits 2 with one line; the mail
    waiting in the inbox stays there, unread."""
    from bot.mail.maildir_transport import deliver

    (tmp_path / "config.yaml").write_text(
        "state_dir: state\ngm:\n  address: gm@example.org\n"
        "mail:\n  transport: maildir\n  address: bot@example.org\n")
    state = tmp_path / "state"
    state.mkdir()
    (state / DATABASE_FILE).write_bytes(b"not a database\n" * 400)
    inbox = state / "maildir" / "inbox"
    deliver(inbox, b"From: a@example.org\r\nSubject: x\r\n\r\nStatus\r\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "bot", "--config", str(tmp_path / "config.yaml"),
                           "run"], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=60)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert "is corrupt or not a Turnited database" in done.stderr
    assert len(list((inbox / "new").iterdir())) == 1
    assert (state / DATABASE_FILE).read_bytes() == b"not a database\n" * 400
