"""Read-only commands need no password variables; ``status`` (and its JSON)
on a fresh game, a running game and a game whose deadlines run out;
``poll`` sends the replies it queued."""

from __future__ import annotations

import json
import logging
import sqlite3
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from zoneinfo import ZoneInfo

import pytest

from bot.cli import main
from bot.mail.maildir_transport import deliver
from bot.worker.logs import configure_logging

from .conftest import Game

IMAP_GAME = (
    "mail:\n  transport: imap\n  address: bot@example.org\n"
    "  imap:\n    host: imap.invalid\n    password_env: T_UNSET_IMAP_PW\n"
    "  smtp:\n    host: smtp.invalid\n    username: bot\n    password_env: T_UNSET_SMTP_PW\n"
    "gm:\n  address: gm@example.org\n"
)


def cli(capsys, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def imap_game(game: Game, monkeypatch) -> Game:
    """The demo's league, configured for IMAP with no password variable set."""
    monkeypatch.delenv("T_UNSET_IMAP_PW", raising=False)
    monkeypatch.delenv("T_UNSET_SMTP_PW", raising=False)
    text = game.config.read_text(encoding="utf-8")
    head, _mail = text.split("gm:\n", 1)
    game.config.write_text(head + IMAP_GAME, encoding="utf-8")
    return game


@pytest.mark.parametrize("command", [
    ["status"], ["status", "--json"], ["deadline", "show"], ["evaluate", "--dry-run"],
    ["replay", "--all"], ["managers", "--json"], ["missing"],
    ["backup", "{tmp}/b.sqlite3"],
])
def test_read_only_commands_of_an_imap_game_run_without_password_variables(
        imap_game: Game, command, tmp_path):
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    status, out, err = imap_game.cli(*args)
    assert status == 0, err
    assert err == "" and out


def test_commands_that_connect_still_name_the_unset_variable(imap_game: Game):
    for command in (["poll"], ["send"], ["run"]):
        status, _, err = imap_game.cli(*command)
        assert status == 2
        assert "T_UNSET_IMAP_PW" in err or "T_UNSET_SMTP_PW" in err


def test_status_json_of_a_running_game(game: Game):
    status, out, _ = game.cli("status", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["started"] is True
    assert (data["season"], data["round"], data["round_in_season"]) == (2, 6, 1)
    assert data["evaluated_rounds"] == 5 and data["teams"] == 10 and data["managers"] == 8
    assert data["outbox"]["failed"] == 0 and data["outbox"]["sent"] > 0
    assert data["deadlines"] == {"left": None, "last": None, "running_out": False}
    assert datetime.fromisoformat(data["deadline"]) == datetime(2027, 1, 17, 19, tzinfo=UTC)


def test_status_of_a_fresh_game_shows_the_first_deadline_also_as_json(tmp_path, capsys):
    assert cli(capsys, "init", str(tmp_path / "g"))[0] == 0
    config = str(tmp_path / "g" / "config.yaml")
    status, out, err = cli(capsys, "--config", config, "status", "--json")
    assert status == 0, err
    data = json.loads(out)
    assert data["started"] is False
    first = datetime.fromisoformat(data["first_deadline"]).astimezone(ZoneInfo("Europe/Berlin"))
    assert (first.weekday(), first.hour, first.minute) == (6, 20, 0)  # Sunday 20:00
    assert first > datetime.now(UTC)


def _explicit_deadlines(game: Game, days: list[int]) -> list[str]:
    zone = ZoneInfo("Europe/Berlin")
    base = datetime(2027, 1, 17, 20, 0, tzinfo=zone)  # the open round's deadline
    local = [f"{base + timedelta(days=d):%Y-%m-%d %H:%M}" for d in days]
    game.set_config('    cron: 0 20 * * SUN\n', "".join(f'    - "{d}"\n' for d in local))
    return local


def test_status_warns_a_round_before_the_deadlines_run_out(game: Game):
    local = _explicit_deadlines(game, [0, 7])
    status, out, _ = game.cli("status")
    assert status == 0
    last = datetime.fromisoformat(local[1])
    assert ("Die geplanten Einsendeschlüsse gehen aus: nach dem der offenen Runde ist nur noch 1 "
            f"geplant (der letzte: So., {last.day}. Januar 2027, 20:00 MEZ (Europe/Berlin))"
            ) in out
    out = game.cli("status", "--lang", "en")[1]
    assert ("The planned deadlines run out: only 1 is planned after the open round's (the last: "
            f"Sun {last.day} Jan 2027, 20:00 CET (Europe/Berlin))") in out
    data = json.loads(game.cli("status", "--json")[1])
    assert data["deadlines"]["left"] == 1 and data["deadlines"]["running_out"] is True


def test_status_says_when_no_round_follows_the_open_one(game: Game):
    _explicit_deadlines(game, [0])
    out = game.cli("status")[1]
    assert "Die geplanten Einsendeschlüsse gehen aus: nach dem der Spielrunde 6 ist keiner" in out


def test_status_is_quiet_while_enough_deadlines_are_planned(game: Game):
    _explicit_deadlines(game, [0, 7, 14])
    out = game.cli("status")[1]
    assert "Einsendeschlüsse gehen aus" not in out
    assert json.loads(game.cli("status", "--json")[1])["deadlines"]["left"] == 2


def _registration(sender: str, team: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "turnited@demo.example"
    msg["Subject"] = "Anmeldung"
    msg["Message-ID"] = f"<{team.replace(' ', '')}@new.example>"
    msg["Date"] = "Tue, 12 Jan 2027 10:00:00 +0100"
    msg.set_content(f"Neues Team: {team}\n")
    return msg.as_bytes()


def test_poll_sends_the_replies_it_queued(game: Game):
    deliver(game.state / "maildir" / "inbox", _registration("neu@players.example",
                                                            "Eintracht Neustadt"))
    status, out, err = game.cli("poll")
    assert status == 0, err
    assert "Gelesene Mails: 1; Antworten im Postausgang: 1" in out
    assert "Verschickt: 1;" in out
    rows = game.query("SELECT state FROM outbox WHERE recipient = 'neu@players.example'")
    assert [r["state"] for r in rows] == ["sent"]


def test_poll_no_send_keeps_the_replies_queued(game: Game):
    deliver(game.state / "maildir" / "inbox", _registration("neu2@players.example",
                                                            "Fortuna Altdorf"))
    status, out, _ = game.cli("poll", "--no-send")
    assert status == 0 and "Verschickt" not in out
    rows = game.query("SELECT state FROM outbox WHERE recipient = 'neu2@players.example'")
    assert [r["state"] for r in rows] == ["queued"]


def test_log_file_is_reopened_after_logrotate_moves_it(tmp_path):
    path = tmp_path / "worker.log"
    handler = configure_logging(level="INFO", file=path, secrets=("s3cret",))
    try:
        log = logging.getLogger("bot.test.rotate")
        log.info("before rotation s3cret")
        path.rename(tmp_path / "worker.log.1")  # what logrotate does (no copytruncate)
        log.info("after rotation")
    finally:
        logging.getLogger().removeHandler(handler)
        handler.close()
    assert "before rotation ***" in (tmp_path / "worker.log.1").read_text(encoding="utf-8")
    new = path.read_text(encoding="utf-8")
    assert "after rotation" in new and "before" not in new


def test_run_with_an_unwritable_log_file_is_one_line(game: Game, tmp_path):
    status, _, err = game.cli("run", "--log-file", str(tmp_path / "no" / "dir" / "x.log"))
    assert status == 2 and "--log-file" in err and err.count("\n") == 1
    assert not sqlite3.connect(game.state / "turnited.sqlite3").execute(
        "SELECT 1 FROM worker_events WHERE what LIKE '%started%'").fetchall()


def test_deadline_show_warns_too(game: Game):
    _explicit_deadlines(game, [0])
    status, out, err = game.cli("deadline", "show")
    assert status == 0, err
    assert out.rstrip().endswith("oder eine Cron-Zeile verwenden.")
    assert "nach dem der Spielrunde 6 ist keiner geplant" in out


def test_the_round_report_warns_a_round_before_the_deadlines_run_out(game: Game):
    import email
    import email.policy

    local = _explicit_deadlines(game, [0, 7, 14])
    status, _out, err = game.cli("evaluate", "--force")
    assert status == 0, err
    (row,) = game.query("SELECT message_id, raw FROM outbox WHERE kind = 'digest' AND round = 6")
    raw = bytes(row["raw"]) or game.delivered(row["message_id"])  # no body kept once sent
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert msg["Subject"].startswith("Turnited Demo: Rundenbericht zu Runde 6 vom ")
    text = " ".join(msg.get_body(("plain",)).get_content().split())
    assert "Die geplanten Einsendeschlüsse gehen aus: nach der offenen Runde ist nur noch 1 " \
           "Einsendeschluss geplant" in text
    day = local[2][:10].split("-")
    assert f"{int(day[2])}. Januar {day[0]}" in text  # the last planned deadline
    # round 7 is open now with the second date; status says the same
    assert "nach dem der offenen Runde ist nur noch 1 geplant" in game.cli("status")[1]
