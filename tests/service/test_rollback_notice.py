"""A rollback a worker cannot undo (RULES.md §13, issue 22): the reopened
round gets a deadline that is not in the past (``--deadline`` or the next
planned one), the console asks first (``--yes`` for scripts), and every
manager of the round is told, in his language, through the outbox, that its
results are withdrawn and when the new deadline is. A banned manager gets
no newsletter, no reminder and no such notice."""

from __future__ import annotations

import io
import sys
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import yaml

from bot.cli import main
from bot.mail.maildir_transport import deliver
from bot.service.deadlines import DeadlineNotInFuture
from bot.service.rollback import NoDeadlinePlanned, rollback, rollback_plan
from tests.support.app import START, field, mail, make_app, sent, write_config
from tests.support.clock import FakeClock

BERLIN = ZoneInfo("Europe/Berlin")


class Terminal(io.StringIO):
    """Standard input on a terminal, with what the game master types."""

    def isatty(self) -> bool:
        return True


def evaluated(tmp_path, count: int = 4):
    clock = FakeClock(START)
    app = make_app(tmp_path, clock)
    passwords = field(app, clock, count)
    # an English manager: his mails are English, so are the mails to him
    deliver(app.config.maildir_root / "inbox", mail(
        "Ann <ann@player.example>", "New team: Rovers\nLineup: 5-5-25-25-25\n", clock.now,
        subject="My lineup"))
    app.poll_once()
    clock.now = app.open_round_deadline() + timedelta(minutes=1)
    assert app.evaluate_due() == 1
    app.drain_outbox()
    return app, clock, passwords


def rollback_cli(config, *argv: str, stdin: io.StringIO | None = None,
                 monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(sys, "stdin", stdin or io.StringIO(""))
    return main(["--config", str(config), "rollback", *argv])


def test_the_console_asks_and_only_yes_takes_the_round_back(tmp_path, capsys, monkeypatch):
    app, _clock, _ = evaluated(tmp_path)
    config = write_config(tmp_path)
    # no terminal and no --yes: refused, nothing changed
    assert rollback_cli(config, monkeypatch=monkeypatch) == 2
    assert "braucht eine Bestätigung" in capsys.readouterr().err
    assert app.league.stored_report(1)  # still evaluated
    # asked, answered no
    assert rollback_cli(config, stdin=Terminal("n\n"), monkeypatch=monkeypatch) == 1
    out = capsys.readouterr().out
    assert out.startswith("Rücknahme der Spielrunde 1: ihre Ergebnisse gelten nicht mehr")
    assert "5 Manager erfahren es per Mail" in out
    assert "Spielrunde 1 zurücknehmen? [j/N] Nichts geändert." in out
    assert app.league.stored_report(1)
    # asked, answered yes
    assert rollback_cli(config, stdin=Terminal("ja\n"), monkeypatch=monkeypatch) == 0
    assert "Die Auswertung der Spielrunde 1 ist zurückgenommen" in capsys.readouterr().out
    with app.db.read() as conn:
        assert app.league.open_round(conn).number == 1


def test_a_given_deadline_in_german_and_a_notice_to_every_manager_in_his_language(
        tmp_path, capsys, monkeypatch):
    app, _clock, _ = evaluated(tmp_path)
    config = write_config(tmp_path)
    first = len(sent(app))
    assert main(["--config", str(config), "manager", "ban", "m3@player.example"]) == 0
    assert rollback_cli(config, "1", "--deadline", "24.01.2099 20:00 Uhr", "--yes",
                        monkeypatch=monkeypatch) == 0
    out = capsys.readouterr().out
    assert "bis Sa., 24. Januar 2099, 20:00 MEZ (Europe/Berlin) (der angegebene " \
           "Einsendeschluss)" in out
    assert app.open_round_deadline() == datetime(2099, 1, 24, 19, tzinfo=UTC)
    app.drain_outbox()
    notices = {m["To"].addresses[0].addr_spec: m for m in sent(app)[first:]}
    # the four managers who are not banned, the English one in English
    assert sorted(notices) == sorted(["ann@player.example", *(
        f"m{i}@player.example" for i in range(3))])
    ann = notices["ann@player.example"]
    assert str(ann["Subject"]) == "Turnited Test: round 1 is taken back, a new deadline"
    text = " ".join(ann.get_body(("plain",)).get_content().split())
    assert "the game master has taken back the evaluation of round 1" in text
    assert "Sat 24 Jan 2099, 20:00 CET (Europe/Berlin)" in text
    german = " ".join(notices["m0@player.example"].get_body(("plain",)).get_content().split())
    assert "Sa., 24. Januar 2099, 20:00 MEZ (Europe/Berlin)" in german
    assert ann["Content-Language"] == "en"
    # the same rollback twice cannot happen: the round is open, nothing is evaluated
    assert rollback_cli(config, "--yes", monkeypatch=monkeypatch) == 2
    assert "nichts zurückzunehmen" in capsys.readouterr().err


def test_a_deadline_in_the_past_or_none_planned_is_refused_before_anything_changes(tmp_path):
    app, clock, _ = evaluated(tmp_path)
    ctx = app.services
    with pytest.raises(DeadlineNotInFuture):
        rollback(ctx, None, clock.now - timedelta(hours=1))
    assert app.league.stored_report(1)  # nothing changed
    plan = rollback_plan(ctx)
    assert plan.deadline > clock.now and not plan.given  # the next planned one
    local = plan.deadline.astimezone(BERLIN)
    assert (local.weekday(), local.hour) == (6, 20)
    # a plan whose explicit deadlines ran out: a deadline must be given
    from dataclasses import replace

    from bot.schedule import DeadlinePlan, ScheduleSettings

    none_planned = DeadlinePlan(ScheduleSettings(cron=None, deadlines=()))
    empty = replace(ctx, settings=replace(ctx.settings, deadline_plan=none_planned))
    with pytest.raises(NoDeadlinePlanned, match="--deadline"):
        rollback(empty)
    assert app.league.stored_report(1)
    given = clock.now + timedelta(days=3)
    report = rollback(empty, None, given)
    assert report.undone.deadline == given and report.notified == 5


def test_the_worker_does_not_evaluate_the_reopened_round_again_at_its_next_tick(tmp_path):
    app, clock, _ = evaluated(tmp_path)
    report = rollback(app.services)
    assert report.undone.deadline > clock.now
    assert app.evaluate_due() is None  # what the worker's deadline job calls: not due
    clock.now = report.undone.deadline + timedelta(seconds=1)
    assert app.evaluate_due() == 1


def test_a_banned_manager_gets_no_newsletter_and_no_reminder(tmp_path):
    clock = FakeClock(START)
    app = make_app(tmp_path, clock)
    field(app, clock, 3)
    app.league.ban("m1@player.example", clock.now)
    clock.now = app.open_round_deadline() + timedelta(minutes=1)
    assert app.evaluate_due() == 1
    clock.now = app.open_round_deadline() - timedelta(hours=47)
    assert app.send_reminders(clock.now, 48) == 2  # the two others played and have no lineup
    app.drain_outbox()
    to_him = [m for m in sent(app) if m["To"].addresses[0].addr_spec == "m1@player.example"]
    assert [str(m["Subject"]) for m in to_him if "Ergebnisse" in str(m["Subject"])
            or "Erinnerung" in str(m["Subject"])] == []
    others = {m["To"].addresses[0].addr_spec for m in sent(app)
              if "Ergebnisse" in str(m["Subject"])}
    assert others == {"m0@player.example", "m2@player.example"}


def test_rollback_help_names_the_confirmation_and_the_deadline(capsys):
    with pytest.raises(SystemExit):
        main(["rollback", "--help"])
    text = capsys.readouterr().out
    assert "--yes" in text and "--deadline" in text and "example" in text


def test_the_config_file_says_german_too(tmp_path):
    """schedule.deadlines takes the German form as well (RULES.md §13: everywhere)."""
    path = write_config(tmp_path)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["schedule"]["deadlines"] = ["06.12.2099 20:00", "13.12.2099, 20 Uhr",
                                     "2099-12-20 20:00"]
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    from bot.config import load_config

    plan = load_config(path).schedule.deadlines
    assert [d.astimezone(BERLIN).strftime("%d.%m. %H:%M") for d in plan] == [
        "06.12. 20:00", "13.12. 20:00", "20.12. 20:00"]
