"""The evaluated round flows into publishing: one evaluation and its
newsletters, archive and digest read no stored report back; a stored round
is read from storage once, only when it is published again (``publish``,
the catch-up after a crash between evaluation and publishing).

The reader is counted where every read goes through: the storage function
that returns a stored report's text, and ``RoundReport.from_json``, which
parses one. Both are spies that call the real function (real SQLite file,
real Maildir, real renderer)."""

from __future__ import annotations

import email
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from email import policy
from pathlib import Path
from typing import Any

import pytest

from bot.app import App, build_app
from bot.config import Config
from bot.mail.maildir_transport import deliver, read_sent
from bot.rules.report import RoundReport
from bot.storage import results
from tests.support.clock import FakeClock
from tests.support.mails import player_mail

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
BOT = "turnited@flow.example"


def make_app(tmp_path: Path, clock: FakeClock) -> App:
    config = Config.from_mapping({
        "state_dir": "state",
        "game": {"name": "Turnited Flow"},
        "analysis": {"simulations": 200},
        "schedule": {"timezone": "Europe/Berlin", "deadlines": {"cron": "0 20 * * SUN"}},
        "gm": {"address": "gm@flow.example", "name": "Greta GM"},
        "mail": {"transport": "maildir", "address": BOT},
        "newsletter": {"extra_recipients": ["fan@flow.example"]},
    }, tmp_path)
    app = build_app(config, clock=clock)
    app.ensure_started()
    return app


def register(app: App, clock: FakeClock, first: int, count: int) -> None:
    """``count`` new managers register a team with a lineup (no password needed)."""
    for i in range(first, first + count):
        deliver(app.config.maildir_root / "inbox", player_mail(
            f"Manager {i} <m{i}@player.example>",
            f"Neues Team: Flow Team {i}\nAufstellung: {i % 4}-{i % 3 + 1}-{18 + i}-{20 + i}-{22}\n",
            to=BOT, when=clock.now,
            subject="Aufstellung" if i % 2 else "Lineup"))  # some in English
    app.poll_once()


def deadline_passes(app: App, clock: FakeClock) -> None:
    deadline = app.open_round_deadline()
    assert deadline is not None
    clock.now = deadline + timedelta(minutes=1)


class Reads:
    """Calls of the stored report's reader and parser, per kind."""

    def __init__(self) -> None:
        self.texts: list[int] = []
        self.parsed = 0

    def reset(self) -> None:
        self.texts.clear()
        self.parsed = 0


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[Reads]:
    counted = Reads()
    real_text = results.stored_report
    real_parse = RoundReport.from_json.__func__  # type: ignore[attr-defined]

    def text(conn: Any, round_number: int, *, public: bool) -> str | None:
        counted.texts.append(round_number)
        return real_text(conn, round_number, public=public)

    def parse(cls: type[RoundReport], data: object) -> RoundReport:
        counted.parsed += 1
        return real_parse(cls, data)

    monkeypatch.setattr(results, "stored_report", text)
    monkeypatch.setattr(RoundReport, "from_json", classmethod(parse))
    yield counted


def newsletters(app: App, round_number: int) -> list[str]:
    """The recipients of round ``round_number``'s newsletter (either language)."""
    out = []
    for m in read_sent(app.config.maildir_root):
        msg = email.message_from_bytes(m.raw, policy=policy.default)
        subject = str(msg["Subject"])
        if ".newsletter." in str(msg["Message-ID"]) and (
                f"Spielrunde {round_number} " in subject or f"round {round_number} " in subject):
            out.append(m.rcpt)
    return out


def digests(app: App) -> list[str]:
    return [str(email.message_from_bytes(m.raw, policy=policy.default)["Subject"])
            for m in read_sent(app.config.maildir_root) if m.rcpt == "gm@flow.example"]


def played_two_rounds(tmp_path: Path,
                      between: Callable[[App], None] | None = None) -> tuple[App, FakeClock]:
    """Round 1 evaluated and published (four teams); round 2 (three more new
    teams) due, ``between`` done, not evaluated yet."""
    clock = FakeClock(START)
    app = make_app(tmp_path, clock)
    register(app, clock, 0, 4)
    deadline_passes(app, clock)
    assert app.evaluate_due() == 1
    register(app, clock, 4, 3)
    deadline_passes(app, clock)
    if between is not None:
        between(app)
    return app, clock


def test_an_evaluation_publishes_without_reading_its_report_back(tmp_path: Path,
                                                                  reads: Reads) -> None:
    app, _clock = played_two_rounds(tmp_path)
    reads.reset()
    assert app.evaluate_due() == 2  # evaluation, newsletters, archive site, digest
    assert (reads.texts, reads.parsed) == ([], 0)
    app.drain_outbox()
    # and it did publish: every manager and the subscriber, the archive, the digest
    got = newsletters(app, 2)
    assert sorted(got) == sorted([*(f"m{i}@player.example" for i in range(7)),
                                  "fan@flow.example"])
    archive = app.config.state_dir / "archive"
    assert {"round-002.html", "round-002.json", "index.html", "hall-of-fame.html"} <= {
        p.name for p in archive.iterdir()}
    assert len(digests(app)) == 2  # rounds 1 and 2
    app.close()


def test_a_stored_round_is_read_once_when_published_again(tmp_path: Path,
                                                          reads: Reads) -> None:
    app, _clock = played_two_rounds(tmp_path)
    assert app.evaluate_due() == 2
    app.drain_outbox()
    reads.reset()
    app.publish(2)
    assert (reads.texts, reads.parsed) == ([2], 1)
    reads.reset()
    app.send_digest(2)
    assert (reads.texts, reads.parsed) == ([], 0)
    # the same Message-IDs: nothing is queued twice
    app.drain_outbox()
    assert len(newsletters(app, 2)) == 8 and len(digests(app)) == 2
    app.close()


def test_catch_up_reads_each_unpublished_round_once(tmp_path: Path, reads: Reads) -> None:
    def crash(app: App) -> None:  # evaluated, then the process died before publishing
        assert app.league.evaluate_due(app.clock()) is not None

    app, _clock = played_two_rounds(tmp_path, crash)
    assert app.unpublished_rounds() == [2] and app.unpublished_rounds("digest") == [2]
    reads.reset()
    assert app.catch_up() == []
    assert (reads.texts, reads.parsed) == ([2], 1)
    assert app.unpublished_rounds() == [] and app.unpublished_rounds("digest") == []
    app.drain_outbox()
    assert len(newsletters(app, 2)) == 8
    app.close()
