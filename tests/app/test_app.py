"""The application over real files: mail in, replies, a deadline, the
newsletters, the archive, reminders and the GM digest (embedded Maildir)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.app import App
from bot.mail.maildir_transport import deliver
from tests.support.app import GM, START, body_of, mail, make_app, sent
from tests.support.clock import FakeClock


@pytest.fixture
def played(tmp_path: Path) -> tuple[App, FakeClock, dict[str, str]]:
    """Six managers register and send lineups; the deadline passes; evaluated."""
    clock = FakeClock(START)
    app = make_app(tmp_path, clock)
    lineups = {}
    for i in range(6):
        address = f"manager{i}@player.example"
        lineup = f"{i % 3 + 1}-{i % 2 + 2}-{17 + i}-{19 + i}-{23 + i}"
        lineups[address] = lineup
        deliver(app.config.maildir_root / "inbox", mail(
            f"Manager {i} <{address}>", f"Neues Team: Team Nummer {i}\nAufstellung: {lineup}\n",
            clock.now))
    report = app.poll_once()
    assert report.processed == 6 and report.replies == 6
    clock.now = app.open_round_deadline() + timedelta(minutes=1)
    assert app.evaluate_due() == 1
    app.drain_outbox()
    return app, clock, lineups


def test_round_lifecycle(played) -> None:
    app, _clock, lineups = played
    messages = sent(app)
    replies = [m for m in messages if m["Auto-Submitted"] == "auto-replied"]
    newsletters = [m for m in messages if m["Subject"].startswith("Turnited Test: Ergebnisse")]
    digests = [m for m in messages if m["To"].addresses[0].addr_spec == GM]
    assert len(replies) == 6 and len(newsletters) == 6 and len(digests) == 1
    assert sorted(m["To"].addresses[0].addr_spec for m in newsletters) == sorted(lineups)
    for m in newsletters:
        assert len(m["To"].addresses) == 1
        assert m.get_body(("html",)) is not None
        text = body_of(m)
        html = m.get_body(("html",)).get_content()
        for lineup in lineups.values():  # never a player's lineup
            assert lineup not in text and lineup not in html
        assert "Team Nummer 0" in text
    # the archive is written
    archive = app.config.state_dir / "archive"
    assert (archive / "index.html").exists()
    assert sorted(p.name for p in archive.glob("round-*")) == [
        "round-001.html", "round-001.json", "round-001.txt"]
    # round 2 is open with the next Sunday 20:00 Berlin deadline
    deadline = app.open_round_deadline()
    assert deadline == datetime(2026, 12, 13, 19, 0, tzinfo=UTC)


def test_evaluation_is_not_repeated_and_newsletters_not_requeued(played) -> None:
    app, _clock, _ = played
    before = len(sent(app))
    assert app.evaluate_due() is None
    assert app.catch_up() == []
    app.drain_outbox()
    assert len(sent(app)) == before


def test_crash_between_evaluation_and_newsletters_is_caught_up(tmp_path: Path) -> None:
    clock = FakeClock(START)
    app = make_app(tmp_path, clock)
    deliver(app.config.maildir_root / "inbox", mail(
        "solo@player.example", "Neues Team: Solisten\n10-10-15-15-20\n", clock.now))
    app.poll_once()
    clock.now = app.open_round_deadline() + timedelta(hours=1)
    assert app.league.evaluate_due(clock.now) is not None  # evaluated, newsletters not queued
    assert app.unpublished_rounds() == [1] and app.unpublished_rounds("digest") == [1]
    app.catch_up()
    assert app.unpublished_rounds() == [] and app.unpublished_rounds("digest") == []
    app.drain_outbox()
    assert sum(1 for m in sent(app) if "Ergebnisse" in str(m["Subject"])) == 1


def test_reminders_once_per_round_and_offset(played) -> None:
    app, clock, lineups = played
    clock.now = app.open_round_deadline() - timedelta(hours=47)
    # one manager already sent a lineup for round 2 (with password)
    first = next(iter(lineups))
    password = None
    for m in sent(app):
        match = re.search(r"^\s*Passwort: (\S+)\s*$", body_of(m), re.M)
        if match and m["To"].addresses[0].addr_spec == first:
            password = match.group(1)
    assert password
    deliver(app.config.maildir_root / "inbox", mail(
        first, f"Passwort: {password}\n3-3-20-20-20\n", clock.now))
    app.poll_once()
    assert app.send_reminders(clock.now, 48) == 5
    assert app.send_reminders(clock.now, 48) == 0
    clock.now += timedelta(hours=41)
    assert app.send_reminders(clock.now, 6) == 5
    app.drain_outbox()
    reminders = [m for m in sent(app) if "Erinnerung" in str(m["Subject"])]
    assert len(reminders) == 10
    assert first not in {m["To"].addresses[0].addr_spec for m in reminders}


def test_dry_run_changes_nothing(played) -> None:
    app, clock, _ = played
    clock.now = app.open_round_deadline() + timedelta(minutes=1)
    with app.db.read() as conn:
        before = conn.execute("SELECT COUNT(*), MAX(number) FROM rounds").fetchone()[:]
    preview = app.dry_run()
    assert preview is not None and "Spielrunde 2" in preview.newsletter.subject
    with app.db.read() as conn:
        assert conn.execute("SELECT COUNT(*), MAX(number) FROM rounds").fetchone()[:] == before


def test_digest_is_read_from_the_ledger(played) -> None:
    app, _clock, _ = played
    stats = app.digest_stats(1)
    assert stats["mails_processed"] == 6 and stats["moves"] == 6
    assert stats["errors"] == [] and stats["bounces"] == [] and stats["needs_attention"] == []
    assert stats["players_in_round"] == 6
    digests = [m for m in sent(app) if m["To"].addresses[0].addr_spec == GM]
    assert len(digests) == 1 and "6" in body_of(digests[0])
    assert app.unpublished_rounds("digest") == []


def test_one_render_cache_serves_every_use_case(tmp_path):
    """The renderer's ``Environments`` is made once per App and shared: the
    replies, the newsletters, the reminders and the digest compile each
    language's templates once."""
    clock = FakeClock(START)
    app = make_app(tmp_path, clock)
    assert app.ingestor.environments is app.services.environments is app.environments
    deliver(app.config.maildir_root / "inbox",
            mail("anna@player.example", "Neues Team: Rote Teufel\n10-10-15-15-20", START))
    app.poll_once()
    german = app.environments.get("de")
    clock.now = app.open_round_deadline() + timedelta(minutes=1)
    assert app.evaluate_due() == 1
    assert app.environments.get("de") is german  # newsletter and digest reused it
