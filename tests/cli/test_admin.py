"""``turnited init``, ``deadline show|set`` and ``run`` through the real CLI."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.cli import main
from bot.config import example_config_text, load_config
from bot.storage.db import DATABASE_FILE
from bot.worker.lock import LOCK_FILE, WorkerLock
from tests.support.mails import player_mail

BERLIN = ZoneInfo("Europe/Berlin")


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def game(tmp_path, capsys) -> Path:
    """A game directory made by ``turnited init``; returns its config path."""
    status, _, err = cli(capsys, "init", str(tmp_path / "game"))
    assert status == 0, err
    return tmp_path / "game" / "config.yaml"


def test_init_writes_the_example_and_an_empty_state(tmp_path, capsys):
    status, out, _ = cli(capsys, "init", str(tmp_path / "game"))
    assert status == 0
    config_path = tmp_path / "game" / "config.yaml"
    assert config_path.read_text(encoding="utf-8") == example_config_text()
    assert (tmp_path / "game" / "state" / DATABASE_FILE).is_file()
    assert f"{config_path} geschrieben." in out
    assert load_config(config_path).state_dir == tmp_path / "game" / "state"


def test_init_refuses_to_overwrite_a_config(game, capsys):
    game.write_text("game:\n  name: Mine\n", encoding="utf-8")
    status, _, err = cli(capsys, "init", str(game.parent))
    assert status == 2
    assert "gibt es schon und wird nicht überschrieben" in err
    assert game.read_text(encoding="utf-8") == "game:\n  name: Mine\n"


def test_init_without_directory_writes_the_config_path(tmp_path, capsys):
    target = tmp_path / "elsewhere" / "liga.yaml"
    status, _, _ = cli(capsys, "--config", str(target), "init")
    assert status == 0
    assert target.read_text(encoding="utf-8") == example_config_text()
    assert (tmp_path / "elsewhere" / "state" / DATABASE_FILE).is_file()


def test_a_config_error_is_one_line_with_exit_2_and_nothing_starts(tmp_path, capsys):
    path = tmp_path / "config.yaml"
    path.write_text("game:\n  language: fr\nstate_dir: st\n", encoding="utf-8")
    for command in (["run"], ["deadline", "show"], ["deadline", "set", "2099-01-01 20:00"]):
        status, _out, err = cli(capsys, "--config", str(path), *command)
        assert status == 2
        assert "game.language = 'fr' is invalid" in err
        assert "'de', 'en'" in err
        assert "Traceback" not in err
    assert not (tmp_path / "st").exists()  # no state, no lock: the worker never started


def test_deadline_commands_need_no_password_variables_but_run_names_them(game, capsys,
                                                                       monkeypatch):
    monkeypatch.delenv("T_UNSET_IMAP_PASSWORD", raising=False)
    game.write_text(
        "mail:\n  transport: imap\n  address: bot@example.org\n"
        "  imap:\n    host: imap.invalid\n    password_env: T_UNSET_IMAP_PASSWORD\n"
        "  smtp:\n    host: smtp.invalid\ngm:\n  address: gm@example.org\n",
        encoding="utf-8",
    )
    status, out, err = cli(capsys, "--config", str(game), "deadline", "show")
    assert status == 0, err
    assert "Die nächsten Einsendeschlüsse (Crontab-Zeile '0 20 * * SUN'" in out
    status, out, err = cli(capsys, "--config", str(game), "deadline", "set", "2099-01-04 20:00")
    assert status == 0, err
    status, _, err = cli(capsys, "--config", str(game), "run")
    assert status == 2
    assert "environment variable 'T_UNSET_IMAP_PASSWORD' is not set" in err


def test_missing_config_says_how_to_make_one(tmp_path, capsys):
    status, _, err = cli(capsys, "--config", str(tmp_path / "nope.yaml"), "deadline", "show")
    assert status == 2
    assert "turnited init" in err


def _en(day: datetime, time: str) -> str:
    """A summer day at ``time`` in Berlin as the English console writes it."""
    return f"{day:%a} {day.day} {day:%b %Y}, {time} CEST (Europe/Berlin)"


@pytest.mark.parametrize("form", ["{d:%Y-%m-%d} 20:00", "{d:%d.%m.%Y} 20:00",
                                  "{d.day}.{d.month}.{d.year}, 20 Uhr"])
def test_deadline_set_then_show_in_local_time(game, capsys, form):
    # a Monday in July next year (summer time), off the weekly cron on purpose
    july = datetime(datetime.now(UTC).year + 1, 7, 1)
    monday = july + timedelta(days=(0 - july.weekday()) % 7)
    status, out, err = cli(capsys, "--config", str(game), "deadline", "set",
                           form.format(d=monday))
    assert status == 0, err
    assert (f"Der Einsendeschluss der Spielrunde 1 ist jetzt Mo., {monday.day}. Juli "
            f"{monday.year}, 20:00 MESZ (Europe/Berlin).") in out
    status, out, _ = cli(capsys, "--config", str(game), "deadline", "show", "--lang", "en")
    assert status == 0
    assert f"Deadline of round 1: {_en(monday, '20:00')} (open)" in out
    assert f"Reminder 48 hours before: {_en(monday - timedelta(days=2), '20:00')}" in out
    assert f"Reminder 6 hours before: {_en(monday, '14:00')} (planned)" in out
    # the deadlines planned after it: the Sundays at 20:00 (cron) that follow
    assert out.splitlines()[-3] == f"  {_en(monday + timedelta(days=6), '20:00')}"


@pytest.mark.parametrize(("text", "message"), [
    ("2020-01-05 20:00", "So., 5. Januar 2020, 20:00 MEZ (Europe/Berlin) liegt nicht in der "
                         "Zukunft"),
    ("05.01.2020 20:00", "liegt nicht in der Zukunft"),
    ("next sunday", "'next sunday' ist kein Datum mit Uhrzeit; z. B. '17.01.2027 20:00' oder "
                    "'2027-01-17 20:00' schreiben"),
    ("31.01.2030", "hat keine Uhrzeit"),
    ("2030-03-31 02:30", "'2030-03-31 02:30' gibt es in Europe/Berlin nicht"),
    ("31.03.2030 02:30 Uhr", "'2030-03-31 02:30' gibt es in Europe/Berlin nicht"),
])
def test_deadline_set_refuses_bad_moments(game, capsys, text, message):
    status, _, err = cli(capsys, "--config", str(game), "deadline", "set", text)
    assert status == 2
    assert message in err


def test_a_second_worker_exits_with_a_clear_message(game):
    with WorkerLock(game.parent / "state"):
        proc = subprocess.run(
            [sys.executable, "-m", "bot", "--config", str(game), "run"],
            capture_output=True, text=True, timeout=60,
        )
    assert proc.returncode == 2
    assert "läuft schon ein Worker" in proc.stderr
    assert f"Prozess {os.getpid()}" in proc.stderr
    assert "Traceback" not in proc.stderr


def incoming(sender: str, body: str) -> bytes:
    when = datetime(2026, 11, 30, 12, 0, tzinfo=timezone(timedelta(hours=1)))
    return player_mail(f"Hans Meier <{sender}>", body, to="bot@turnited.invalid", when=when,
                       subject="Frage")


def test_run_answers_mail_and_stops_cleanly_on_sigterm(game, tmp_path):
    from bot.mail.maildir_transport import deliver, read_sent

    state = game.parent / "state"
    log_path = tmp_path / "worker.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "--config", str(game), "run", "--log-format", "json"],
            stdout=log, stderr=subprocess.STDOUT, text=True,
        )
    try:
        deliver(state / "maildir" / "inbox", incoming("hans@example.org", "Hilfe\n"))
        end = time.monotonic() + 30
        replies: list = []
        while time.monotonic() < end and not replies:
            time.sleep(0.1)
            replies = [m for m in read_sent(state / "maildir")
                       if m.rcpt == "hans@example.org"]
        assert replies, log_path.read_text()
        assert (state / LOCK_FILE).read_text().strip() == str(proc.pid)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = log_path.read_text()
    assert '"event": "worker_started"' in text
    assert '"event": "worker_stopped"' in text
    assert "Traceback" not in text
    assert (state / LOCK_FILE).read_text() == ""
    # The first round was opened with the planned deadline (next Sunday 20:00).
    from bot.app import build_app

    app = build_app(load_config(game))
    try:
        deadline = app.open_round_deadline()
    finally:
        app.close()
    assert deadline is not None
    local = deadline.astimezone(BERLIN)
    assert (local.weekday(), local.hour, local.minute) == (6, 20, 0)
    assert timedelta(0) < deadline - datetime.now(UTC) <= timedelta(days=7)
