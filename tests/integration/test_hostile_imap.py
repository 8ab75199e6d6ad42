"""Hostile mail against a REAL Dovecot: a 50 MB mail is never fetched whole, a
mail that always fails ends in the Quarantine folder (created), in the game
master's digest and in ``status``, while the other mails go through."""

from __future__ import annotations

import email
import tracemalloc
from pathlib import Path

import pytest

import bot.service.inbound as inbound
from bot.cli import main
from tests.integration.test_imap_pipeline import (
    ANNA,
    BERND,
    START,
    imap_config,
    make_app,
    player_mail,
)
from tests.servers import DovecotServer, SmtpServer
from tests.support.clock import FakeClock

pytestmark = pytest.mark.servers

MB = 1024 * 1024


def outcomes(app) -> list[str]:  # type: ignore[no-untyped-def]
    with app.db.read() as conn:
        return [r[0] for r in conn.execute("SELECT outcome FROM inbound ORDER BY id")]


def test_a_50_mb_mail_is_answered_from_its_header_and_memory_stays_small(
    tmp_path: Path, dovecot: DovecotServer, smtp_server: SmtpServer
) -> None:
    app = make_app(imap_config(tmp_path, dovecot, smtp_server), FakeClock(START))
    try:
        head = player_mail(ANNA, "Riesig", "x").split(b"\r\n\r\n", 1)[0]
        line = b"B" * 998 + b"\r\n"
        big = head + b"\r\n\r\n" + line * (50 * MB // len(line))
        small = player_mail(BERND, "Lineup", "New team: Brook FC\nLineup: 10-10-15-15-20\n")
        dovecot.append_many([big, small])
        del big
        tracemalloc.start()
        try:
            report = app.poll_once()
            peak = tracemalloc.get_traced_memory()[1] / MB
        finally:
            tracemalloc.stop()
        assert report.processed == 2 and report.replies == 2
        assert outcomes(app)[0].startswith("too_large") and outcomes(app)[1].startswith("accepted")
        assert peak < 10, f"the poll took {peak:.1f} MB of Python memory for a 50 MB mail"
        assert dovecot.list_folder("INBOX") == []
        assert len(dovecot.list_folder("Processed")) == 2
        app.drain_outbox()
        replies = [email.message_from_bytes(m.content) for m in smtp_server.messages()]
        anna = next(r for r in replies if "anna@" in r["To"])
        assert "zu gro" in anna.get_payload(decode=True).decode("utf-8")
    finally:
        app.close()


def test_a_mail_that_always_fails_goes_to_quarantine_digest_and_status(
    tmp_path: Path, dovecot: DovecotServer, smtp_server: SmtpServer,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    app = make_app(imap_config(tmp_path, dovecot, smtp_server), FakeClock(START))
    try:
        bad = player_mail("Eve <eve@player.example>", "Lineup", "New team: Kaputt\n5-5-20-25-35\n")
        real = inbound.parse_moves

        def parse_moves(subject, text, **kw):  # type: ignore[no-untyped-def]
            if "Kaputt" in text:  # this one mail makes the grammar raise, every time
                raise RuntimeError("the grammar broke")
            return real(subject, text, **kw)

        monkeypatch.setattr(inbound, "parse_moves", parse_moves)
        good = [player_mail(ANNA, "Lineup", "New team: Adler FC\nLineup: 10-10-15-15-20\n"),
                player_mail(BERND, "Lineup", "New team: Brook FC\nLineup: 10-10-15-15-20\n")]
        dovecot.append_many([good[0], bad, good[1]])
        first = app.poll_once()
        assert [r.retry for r in first.results] == [False, True, False]
        assert dovecot.list_folder("INBOX") == [bad]  # the others are through
        assert sorted(dovecot.list_folder("Processed")) == sorted(good)
        app.poll_once()
        third = app.poll_once()
        assert [r.quarantined for r in third.results] == [True]
        assert dovecot.list_folder("INBOX") == []
        assert "Quarantine" in dovecot.folders()
        assert dovecot.list_folder("Quarantine") == [bad]
        assert app.poll_once().results == ()

        app.drain_outbox()
        eve = [m for m in smtp_server.messages() if m.rcpt_tos == ("eve@player.example",)]
        assert len(eve) == 1  # one apology, as for every mail

        assert main(["status", "--state", str(app.config.state_dir), "--lang", "en"]) == 0
        assert "Mails in quarantine: 1" in capsys.readouterr().out
        assert app.evaluate_due(force=True) == 1
        stats = app.digest_stats(1)
        assert [q.split(":")[0] for q in stats["quarantined"]] == ["eve@player.example"]
        assert any("quarantined" in a for a in stats["needs_attention"])
        app.drain_outbox()
        digest = next(m for m in smtp_server.messages() if m.rcpt_tos == ("gm@example.org",))
        text = email.message_from_bytes(digest.content).get_payload(decode=True).decode()
        assert "Quarant" in text and "eve@player.example" in text
    finally:
        app.close()

