"""The game master's console on a real state directory (embedded Maildir):
``rollback``, ``manager reset-password|ban|unban``, ``verify`` and the
commitment in ``status``, invoked in-process through ``bot.cli.main``."""

from __future__ import annotations

import re
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.cli import main
from bot.league.passwords import verify_password
from bot.mail.maildir_transport import deliver
from bot.rules.lots import seed_commitment
from bot.storage import managers as manager_rows
from tests.support.app import START, field, mail, make_app, sent, state_rows, write_config
from tests.support.clock import FakeClock


def cli(config: Path, *argv: str) -> int:
    return main(["--config", str(config), *argv])


def test_rollback_on_a_state_directory(tmp_path, capsys) -> None:
    clock = FakeClock(START)
    app = make_app(tmp_path, clock)
    config = write_config(tmp_path)
    field(app, clock)
    clock.now = app.open_round_deadline() + timedelta(minutes=1)
    assert app.evaluate_due() == 1
    # the newsletters of round 1 are half sent: the first two went out
    with app.db.transaction() as conn:
        ids = [r[0] for r in conn.execute(
            "SELECT id FROM outbox WHERE kind = 'newsletter' AND round = 1 ORDER BY id")]
        conn.execute(f"UPDATE outbox SET state = 'sent' WHERE id IN ({ids[0]}, {ids[1]})")
    before = state_rows(app)
    archive = app.config.state_dir / "archive"
    assert (archive / "round-001.html").exists()

    assert cli(config, "rollback", "--state", str(app.config.state_dir), "--yes") == 0
    out = capsys.readouterr().out
    assert "Die Auswertung der Spielrunde 1 ist zurückgenommen" in out
    assert "4 nicht versandte Mails der Runde" in out  # 5 copies, 2 sent: 3, and the digest
    assert "5 Manager erfahren per Mail" in out
    assert not (archive / "round-001.html").exists()
    index = (archive / "index.html").read_text(encoding="utf-8")
    assert "round-001" not in index
    # the site's own index (with its hall of fame), not the bare list of rounds
    assert 'href="hall-of-fame.html"' in index
    with app.db.read() as conn:
        states = conn.execute("SELECT state, COUNT(*) FROM outbox WHERE kind = 'newsletter'"
                              " GROUP BY state").fetchall()
        assert [tuple(s) for s in states] == [("sent", 2)]
        assert conn.execute("SELECT COUNT(*) FROM round_results").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM wp_history").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM teams WHERE wp != '90'").fetchone()[0] == 0
    # round 1 is open again until the next planned deadline, never one in the past
    reopened = app.open_round_deadline()
    assert reopened > datetime.now(UTC)
    assert reopened.astimezone(ZoneInfo("Europe/Berlin")).strftime("%a %H:%M") == "Sun 20:00"
    app.drain_outbox()
    notices = [m for m in sent(app) if "zurückgenommen" in str(m["Subject"])]
    assert sorted(a.addr_spec for m in notices for a in m["To"].addresses) == sorted(
        f"m{i}@player.example" for i in range(5))
    body = notices[0].get_body(("plain",)).get_content()
    assert "Ergebnisse gelten nicht mehr" in body
    assert f"{reopened.astimezone(ZoneInfo('Europe/Berlin')).day}. " in body
    assert str(notices[0]["Subject"]) == ("Turnited Test: Spielrunde 1 zurückgenommen, neuer "
                                          "Einsendeschluss")

    clock.now = reopened + timedelta(minutes=1)
    assert app.evaluate_due() == 1
    after = state_rows(app)
    assert after == before  # same report bytes, same WP/PSZ as never rolled back
    assert cli(config, "replay", "--all", "--state", str(app.config.state_dir)) == 0
    assert "Spielrunde 1: gleich" in capsys.readouterr().out
    # the correction reaches everyone, the two who got the first one too
    app.drain_outbox()
    corrected = [m for m in sent(app) if m["Subject"].startswith("Turnited Test: Ergebnisse")]
    assert len(corrected) == 5
    for m in corrected:
        assert "berichtigt die frühere Auswertung" in m.get_body(("plain",)).get_content()
        assert "berichtigt die frühere Auswertung" in m.get_body(("html",)).get_content()
    assert (archive / "round-001.html").exists()

    # a round that was never evaluated cannot be rolled back
    assert cli(config, "rollback", "2", "--state", str(app.config.state_dir)) == 2
    assert "Spielrunde 2 wurde nicht ausgewertet" in capsys.readouterr().err


def test_rollback_refusals_in_english(tmp_path, capsys) -> None:
    clock = FakeClock(START)
    app = make_app(tmp_path, clock)
    config = write_config(tmp_path, "en")
    assert cli(config, "rollback", "--state", str(app.config.state_dir)) == 2
    assert "nothing to roll back" in capsys.readouterr().err
    for _ in range(2):
        clock.now = app.open_round_deadline() + timedelta(minutes=1)
        app.evaluate_due()
    assert cli(config, "rollback", "1", "--state", str(app.config.state_dir)) == 2
    err = capsys.readouterr().err
    assert "round 2 was evaluated after it" in err and "Traceback" not in err


def test_status_shows_the_commitment_and_verify_checks_it(tmp_path, capsys,
                                                         monkeypatch) -> None:
    clock = FakeClock(START)
    app = make_app(tmp_path, clock)
    config = write_config(tmp_path)
    state = str(app.config.state_dir)
    assert cli(config, "status", "--state", state) == 0
    line = [x for x in capsys.readouterr().out.splitlines() if "Prüfsumme" in x]
    with app.db.read() as conn:
        published = app.league.commitment(conn, 1)
    assert line == [f"Prüfsumme des Startwerts der Spielrunde 1: {published}"]
    clock.now = app.open_round_deadline() + timedelta(minutes=1)
    assert app.evaluate_due() == 1
    seed = app.league.stored_report(1, public=False)["seed"]
    assert seed_commitment(1, seed) == published
    # from the state, and from the command line without any state
    assert cli(config, "verify", "1", str(seed), "--state", state) == 0
    assert "Passt" in capsys.readouterr().out
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # no config.yaml here, and none named
    assert main(["verify", "1", str(seed), published.upper(), "--lang", "en"]) == 0
    assert "Matches" in capsys.readouterr().out
    assert cli(config, "verify", "1", str(seed + 1), "--state", state) == 1
    assert "Passt NICHT" in capsys.readouterr().out
    assert cli(config, "verify", "1", str(seed), "xyz", "--lang", "en") == 2
    assert "64 hexadecimal digits" in capsys.readouterr().err
    # the README's one-line check gives the same digest
    by_hand = subprocess.run(
        ["sh", "-c", f"printf 'turnited-seed:%s:%s' 1 {seed} | sha256sum"],
        capture_output=True, text=True, check=True).stdout.split()[0]
    assert by_hand == published


def test_ban_unban_and_reset_password(tmp_path, capsys) -> None:
    clock = FakeClock(START)
    app = make_app(tmp_path, clock)
    config = write_config(tmp_path)
    state = str(app.config.state_dir)
    passwords = field(app, clock, 3)
    assert cli(config, "manager", "ban", "M0@player.example", "--state", state) == 0
    assert "ist gesperrt" in capsys.readouterr().out
    assert cli(config, "manager", "ban", "m0@player.example", "--state", state) == 0
    assert "schon gesperrt" in capsys.readouterr().out
    # a banned manager's mail: ledgered as banned, no reply, nothing changed
    with app.db.read() as conn:
        replies = conn.execute("SELECT COUNT(*) FROM outbox WHERE kind = 'reply'").fetchone()[0]
        moves = conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0]
    deliver(app.config.maildir_root / "inbox", mail(
        "m0@player.example", f"Passwort: {passwords['m0@player.example']}\n"
        "Aufstellung: 0-0-30-30-30\n", clock.now))
    report = app.poll_once()
    assert [r.outcome for r in report.results] == ["banned: no reply, nothing changed"]
    with app.db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM outbox WHERE kind = 'reply'"
                            ).fetchone()[0] == replies
        assert conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0] == moves
    # his team sits out of the evaluation; his WP stay
    clock.now = app.open_round_deadline() + timedelta(minutes=1)
    assert app.evaluate_due() == 1
    with app.db.read() as conn:
        played = {r[0] for r in conn.execute(
            "SELECT t.name FROM round_entries e JOIN teams t ON t.id = e.team_id")}
        assert played == {"Team Nummer 1", "Team Nummer 2"}
        assert conn.execute("SELECT wp FROM teams WHERE name = 'Team Nummer 0'"
                            ).fetchone()[0] == "90"
    assert cli(config, "manager", "unban", "m0@player.example", "--state", state) == 0
    assert "aufgehoben" in capsys.readouterr().out
    deliver(app.config.maildir_root / "inbox", mail(
        "m0@player.example", f"Passwort: {passwords['m0@player.example']}\n"
        "Aufstellung: 0-0-30-30-30\n", clock.now))
    assert app.poll_once().results[0].outcome.startswith("accepted")

    # reset-password: mailed to that address only, the old password stops working
    old = passwords["m1@player.example"]
    assert cli(config, "manager", "reset-password", "m1@player.example", "--state", state) == 0
    assert "Neues Passwort für m1@player.example" in capsys.readouterr().out
    app.drain_outbox()
    notes = [m for m in sent(app) if "neues Passwort" in m["Subject"]]
    assert len(notes) == 1 and [a.addr_spec for a in notes[0]["To"].addresses] == [
        "m1@player.example"]
    new = re.search(r"Passwort: (\S+)", notes[0].get_body(("plain",)).get_content()).group(1)
    with app.db.read() as conn:
        stored = manager_rows.manager_by_address(conn, "m1@player.example").password_hash
    assert verify_password(new, stored) and not verify_password(old, stored)


@pytest.mark.parametrize("argv", [
    ["manager", "ban", "nobody@player.example"],
    ["manager", "reset-password", "not an address"],
])
def test_unknown_or_bad_addresses_are_clear_errors(tmp_path, capsys, argv) -> None:
    app = make_app(tmp_path, FakeClock(START))
    config = write_config(tmp_path, "en")
    assert cli(config, *argv, "--state", str(app.config.state_dir)) == 2
    err = capsys.readouterr().err
    assert ("no manager is registered" in err or "not a mail address" in err)
    assert "Traceback" not in err


@pytest.mark.parametrize("command", [["manager", "ban"], ["manager", "unban"],
                                     ["manager", "reset-password"], ["rollback"], ["verify"]])
def test_every_console_command_has_help_with_an_example(command, capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    assert done.value.code == 0
    assert "example" in capsys.readouterr().out


def test_a_crash_before_the_corrected_newsletter_is_caught_up(tmp_path) -> None:
    clock = FakeClock(START)
    app = make_app(tmp_path, clock)
    field(app, clock, 3)
    clock.now = app.open_round_deadline() + timedelta(minutes=1)
    assert app.evaluate_due() == 1
    app.drain_outbox()  # the first newsletters went out
    first = len(sent(app))
    app.league.rollback(clock.now)
    clock.now += timedelta(minutes=5)
    # evaluated again, then the process died before queueing the newsletters
    assert app.league.evaluate_due(clock.now) is not None
    assert app.unpublished_rounds() == [1] and app.unpublished_rounds("digest") == [1]
    assert app.catch_up() == []
    assert app.unpublished_rounds() == []
    app.drain_outbox()
    news = [m for m in sent(app)[first:] if "Ergebnisse" in m["Subject"]]
    assert len(news) == 3
    assert all("berichtigt" in m.get_body(("plain",)).get_content() for m in news)
