"""Bounded state (issue 22): after each evaluation the spool files and the
delivered outbox rows older than their period (``retention`` in the
configuration) go; the ledger, the rounds and everything ``replay`` needs
stay; no old round looks unpublished; ``check`` still finds every spool file
it should and reports the size per round and what is kept. The real App on
real files (embedded Maildir)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.app import App, build_app
from bot.config import Config
from bot.config.errors import ConfigError
from bot.mail.maildir_transport import deliver
from bot.render.words import Words
from bot.service.health import check_state, text
from bot.service.retention import apply_retention
from bot.storage import open_database, outbox, results, retention
from tests.support.clock import FakeClock
from tests.support.mails import player_mail

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)  # a Tuesday; deadlines Sunday 20:00
BOT = "turnited@game.example"


def make_app(tmp_path: Path, clock: FakeClock, kept: dict[str, object]) -> App:
    config = Config.from_mapping({
        "state_dir": "state",
        "analysis": {"simulations": 0},
        "schedule": {"timezone": "Europe/Berlin", "deadlines": {"cron": "0 20 * * SUN"}},
        "gm": {"address": "gm@game.example"},
        "mail": {"transport": "maildir", "address": BOT},
        "retention": kept,
    }, tmp_path)
    app = build_app(config, clock=clock)
    app.ensure_started()
    return app


def play(app: App, clock: FakeClock, rounds: int) -> None:
    """Three managers write each round (one mail each), the round is evaluated."""
    for number in range(1, rounds + 1):
        deadline = app.open_round_deadline()
        assert deadline is not None
        clock.now = deadline - timedelta(days=2)
        for i in range(3):
            team = f"Neues Team: Elf {i}\n" if number == 1 else ""
            body = f"{team}Aufstellung: 10-10-15-15-20\n"
            deliver(app.config.maildir_root / "inbox",
                    player_mail(f"m{i}@player.example", body, to=BOT, when=clock.now))
        app.poll_once()
        app.drain_outbox()
        clock.now = deadline + timedelta(minutes=1)
        assert app.evaluate_due() == number
        app.drain_outbox()


def spool_files(app: App) -> set[str]:
    spool = app.config.state_dir / "spool"
    return {str(p.relative_to(spool)) for p in spool.rglob("*.eml.gz")}


def test_old_spool_files_and_delivered_rows_go_and_nothing_replay_needs(tmp_path) -> None:
    clock = FakeClock(START)
    app = make_app(tmp_path, clock, {"spool_days": 10, "outbox_days": 10})
    play(app, clock, rounds=4)
    with app.db.read() as conn:
        ledger_rows = conn.execute(
            "SELECT spool_path, spool_pruned_at IS NOT NULL, received_at FROM inbound"
            " ORDER BY id").fetchall()
        kinds_by_round = conn.execute(
            "SELECT kind, round, COUNT(*) FROM outbox GROUP BY kind, round").fetchall()
        replies = conn.execute("SELECT created_at FROM outbox WHERE kind = 'reply'").fetchall()
        run = retention.last_run(conn)
    # Every mail stays in the ledger; the files of the mails older than 10
    # days at the last evaluation are gone, the newer ones are there.
    assert len(ledger_rows) == 12
    cutoff = (clock.now - timedelta(days=10)).isoformat()
    gone = {path for path, pruned, _ in ledger_rows if pruned}
    assert gone == {path for path, _, at in ledger_rows if at < cutoff} and len(gone) == 6
    assert spool_files(app) == {path for path, *_ in ledger_rows} - gone
    # Replies older than 10 days are gone; of each round's newsletters and
    # digest the newest row stays, so no round looks unpublished.
    assert all(at >= cutoff for (at,) in replies) and len(replies) == 6
    assert {(k, r) for k, r, _n in kinds_by_round if k in ("newsletter", "digest")} == {
        (k, r) for k in ("newsletter", "digest") for r in (1, 2, 3, 4)}
    with app.db.read() as conn:
        assert outbox.unqueued_rounds(conn, "newsletter") == []
        assert outbox.unqueued_rounds(conn, "digest") == []
        assert results.evaluated_rounds(conn) == [1, 2, 3, 4]
    assert all(app.league.replay(n).identical for n in (1, 2, 3, 4))
    assert run is not None and (run.spool_days, run.outbox_days) == (10, 10)
    assert run.at == clock.now
    # check: every kept spool file is found, and the size finding says what is kept.
    findings = {f.topic: f for f in check_state(app.config.state_dir, now=clock.now)}
    assert findings["spool"].ok and findings["spool"].values["count"] == 6
    size = findings["size"]
    assert size.ok and size.code == "size" and size.values["rounds"] == 4
    assert "Spool 10, zugestellte Post 10" in text(size, Words("de"))
    assert "spool 10, delivered mail 10" in text(size, Words("en"))
    app.close()


def test_null_keeps_everything_and_the_run_says_so(tmp_path) -> None:
    clock = FakeClock(START)
    app = make_app(tmp_path, clock, {"spool_days": None, "outbox_days": None})
    play(app, clock, rounds=3)
    with app.db.read() as conn:
        pruned = conn.execute("SELECT COUNT(*) FROM inbound WHERE spool_pruned_at IS NOT NULL"
                              ).fetchone()[0]
        replies = conn.execute("SELECT COUNT(*) FROM outbox WHERE kind = 'reply'").fetchone()[0]
        run = retention.last_run(conn)
    assert pruned == 0 and replies == 9 and len(spool_files(app)) == 9
    assert run is not None and (run.spool_days, run.outbox_days, run.spool_files,
                                run.outbox_rows) == (None, None, 0, 0)
    size = {f.topic: f for f in check_state(app.config.state_dir, now=clock.now)}["size"]
    assert "Spool ∞, zugestellte Post ∞" in text(size, Words("de"))
    app.close()


def test_a_mail_still_to_be_tried_keeps_its_file_and_a_crash_is_caught_up(tmp_path) -> None:
    clock = FakeClock(START)
    app = make_app(tmp_path, clock, {"spool_days": 10, "outbox_days": None})
    play(app, clock, rounds=1)
    spool = app.config.state_dir / "spool"
    with app.db.transaction() as conn:  # the first mail failed and waits for its retry
        conn.execute("UPDATE inbound SET code = 'retry' WHERE id = 1")
        waiting, crashed = [r[0] for r in conn.execute(
            "SELECT spool_path FROM inbound WHERE id IN (1, 2) ORDER BY id")]
    (spool / crashed).unlink()  # a crash after removing the file, before recording it
    later = clock.now + timedelta(days=30)
    pruned = apply_retention(app.db, spool, spool_days=10, outbox_days=None, now=later)
    assert (pruned.spool_files, pruned.outbox_rows) == (2, 0)
    assert spool_files(app) == {waiting}
    with app.db.read() as conn:
        marked = [r[0] for r in conn.execute(
            "SELECT id FROM inbound WHERE spool_pruned_at IS NOT NULL ORDER BY id")]
    assert marked == [2, 3]
    assert apply_retention(app.db, spool, spool_days=10, outbox_days=None,
                           now=later).spool_files == 0
    app.close()


def test_the_outbox_keeps_queued_mail_and_the_newest_row_of_each_round(tmp_path) -> None:
    db = open_database(tmp_path)
    old = START - timedelta(days=100)
    with db.transaction() as conn:
        for n, (kind, rnd, state) in enumerate([
            ("newsletter", 1, "sent"), ("newsletter", 1, "sent"), ("newsletter", 1, "failed"),
            ("reply", None, "sent"), ("reply", None, "queued"), ("notice", None, "failed"),
            ("digest", 1, "sent"), ("reminder", 2, "sent"), ("reminder", 2, "sent"),
            ("reply", None, "sent"),
        ]):
            outbox.enqueue(conn, raw=b"x", message_id=f"<o{n}@x>", kind=kind,
                           recipient=f"r{n}@x", now=old, round=rnd)
            if state != "queued":
                conn.execute("UPDATE outbox SET state = ?, raw = X'' WHERE message_id = ?",
                             (state, f"<o{n}@x>"))
        # queued long ago, delivered only now: kept as long as a fresh one
        conn.execute("UPDATE outbox SET sent_at = ? WHERE message_id = '<o9@x>'",
                     ((START - timedelta(hours=1)).isoformat(),))
        assert retention.prune_outbox(conn, START - timedelta(days=101)) == 0  # none old enough
        assert retention.prune_outbox(conn, START - timedelta(days=1)) == 5
        left = conn.execute("SELECT message_id FROM outbox ORDER BY id").fetchall()
    assert [r[0] for r in left] == ["<o2@x>", "<o4@x>", "<o6@x>", "<o8@x>", "<o9@x>"]


@pytest.mark.parametrize("days", [0, -3, 1.5, "a year"])
def test_a_retention_is_whole_days_or_null(tmp_path, days) -> None:
    with pytest.raises(ConfigError, match="spool_days"):
        Config.from_mapping({"retention": {"spool_days": days}}, tmp_path)


def test_the_defaults_keep_a_year_of_mail_and_ninety_days_of_delivered_rows(tmp_path) -> None:
    kept = Config.from_mapping({}, tmp_path).retention
    assert (kept.spool_days, kept.outbox_days) == (365, 90)
