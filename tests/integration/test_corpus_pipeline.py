"""Every file of the real-world corpus (tests/corpus) through the WHOLE
application: delivered into ``STATE/maildir/inbox``, read by ``App.poll_once``,
replies sent by ``App.drain_outbox`` into ``STATE/maildir/sent``.

For every file: no exception, archived in the spool byte for byte, exactly
one ledger row with the kind decided in ``tests/mail/test_corpus.py``; no
reply to bounces, auto-replies or mail without a usable sender; exactly one
"no command found" reply (with the how-to) to every human mail, threaded
under its Message-ID when that id is usable; a human mail that is plainly a
message to a person is forwarded to the game master as well, and its reply
says so instead (RULES.md §11).
"""

from __future__ import annotations

import email
import hashlib
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest

import bot.service.outgoing
from bot.app import App, PollReport, build_app
from bot.config import Config
from bot.league.settings import LeagueSettings
from bot.mail.address_check import ComposeError
from bot.mail.compose import is_message_id
from bot.mail.maildir_transport import deliver, read_sent
from bot.mail.reading import read_message
from bot.mail.spool import read_spooled
from tests.mail.test_corpus import BOT, EXPECTED, FILES, HUMAN

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
BOT_ADDRESS = BOT[0]
#: The sentence for "no command found" and the how-to heading, per language.
NOT_UNDERSTOOD = {
    "de": ("In deiner Mail habe ich keinen Befehl gefunden.", "So spielst du mit"),
    "en": ("I found no command in your mail.", "How to play"),
}
#: The sentence for "forwarded to the game master", per language.
FORWARDED = {
    "de": "Deine Nachricht habe ich an die Spielleitung weitergeleitet",
    "en": "I forwarded your message to the game master",
}
GM_ADDRESS = "gm@turnited.example"


def make_app(state: Path) -> App:
    config = Config.from_mapping(
        {
            "state_dir": str(state),
            "game": {"name": "Turnited Korpus"},
            "schedule": {"timezone": "Europe/Berlin", "deadlines": {"cron": "0 20 * * SUN"}},
            "gm": {"address": GM_ADDRESS},
            "mail": {"transport": "maildir", "address": BOT_ADDRESS},
        },
        state.parent,
    )
    app = build_app(
        config, clock=lambda: NOW,
        league_settings=LeagueSettings(password_cost=2**4, simulations=0),
    )
    app.ensure_started()
    return app


def number(path: Path) -> str:
    return path.name[:3]


@dataclass
class Run:
    """The corpus after one poll and one drain."""

    app: App
    report: PollReport
    inbound: dict[str, tuple]  # file number -> its inbound row
    outbox: dict[int, list[tuple]]  # inbound id -> outbox rows
    sent: dict[str, EmailMessage]  # Message-ID -> message in the sent folder
    sent_count: int


def ledger(app: App) -> tuple[dict[str, list[tuple]], dict[int, list[tuple]]]:
    with app.db.read() as conn:
        inbound = conn.execute(
            "SELECT id, source, sha256, spool_path, sender, kind, outcome, message_id"
            " FROM inbound ORDER BY id"
        ).fetchall()
        outbox = conn.execute(
            "SELECT inbound_id, message_id, kind, recipient, state FROM outbox ORDER BY id"
        ).fetchall()
    by_sha: dict[str, list[tuple]] = {}
    for row in inbound:
        by_sha.setdefault(row[2], []).append(row)
    by_inbound: dict[int, list[tuple]] = {}
    for row in outbox:
        by_inbound.setdefault(row[0], []).append(row)
    return by_sha, by_inbound


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    app = make_app(tmp_path_factory.mktemp("corpus") / "state")
    for path in FILES:
        deliver(app.config.maildir_root / "inbox", path.read_bytes())
    report = app.poll_once()
    drained = app.drain_outbox()
    assert drained.failed == [] and drained.stopped is None
    by_sha, by_inbound = ledger(app)
    inbound = {}
    for path in FILES:
        rows = by_sha.get(hashlib.sha256(path.read_bytes()).hexdigest(), [])
        assert len(rows) == 1, f"{path.name}: {len(rows)} ledger rows, expected exactly one"
        inbound[number(path)] = rows[0]
    messages = read_sent(app.config.maildir_root)
    sent = {}
    for message in messages:
        parsed = email.message_from_bytes(message.raw, policy=policy.default)
        sent[str(parsed["Message-ID"])] = parsed
    return Run(app, report, inbound, by_inbound, sent, len(messages))


def test_the_corpus_files_are_all_different() -> None:
    digests = {hashlib.sha256(path.read_bytes()).hexdigest() for path in FILES}
    assert len(digests) == len(FILES) == len(EXPECTED)


def test_one_poll_takes_every_file_without_an_error(run: Run) -> None:
    assert run.report.processed == len(FILES)
    assert not any(r.duplicate for r in run.report.results)
    internal = [r.outcome for r in run.report.results if r.outcome.startswith("internal_error")]
    assert internal == []
    assert run.report.kinds == Counter(kind for kind, _ in EXPECTED.values())
    root = run.app.config.maildir_root
    assert list((root / "inbox" / "new").iterdir()) == []
    assert list((root / "inbox" / "cur").iterdir()) == []
    assert len(list((root / "processed" / "cur").iterdir())) == len(FILES)
    assert run.app.poll_once().results == ()  # nothing left over


@pytest.mark.parametrize("path", FILES, ids=number)
def test_spooled_byte_for_byte_and_ledgered_with_its_kind(run: Run, path: Path) -> None:
    raw = path.read_bytes()
    row_id, source, sha, spool_path, _sender, kind, outcome, _mid = run.inbound[number(path)]
    assert source == "maildir"
    assert sha == hashlib.sha256(raw).hexdigest()
    assert read_spooled(run.app.config.state_dir / "spool", spool_path) == raw
    assert kind == EXPECTED[number(path)][0]
    assert outcome and not outcome.startswith("internal_error"), outcome
    assert row_id > 0


@pytest.mark.parametrize("path", FILES, ids=number)
def test_one_not_understood_reply_to_people_none_to_machines(run: Run, path: Path) -> None:
    row_id, _src, _sha, _spool, sender, kind, outcome, message_id = run.inbound[number(path)]
    rows = run.outbox.get(row_id, [])
    if kind != HUMAN:
        assert rows == [], f"{path.name} ({kind}) must not be answered"
        if kind == "unreadable":  # no usable sender: ledgered, nobody to answer
            assert sender is None and outcome.startswith("no reply")
        return
    forwarded = "forwarded" in outcome.split(": ", 1)[1].split(", ")
    assert outcome.endswith("nothing_to_do") or forwarded, outcome
    forwards = [r for r in rows if r[2] == "notice"]
    assert [r[3] for r in forwards] == ([GM_ADDRESS] if forwarded else [])
    [(_inbound, reply_id, reply_kind, recipient, state)] = [r for r in rows if r[2] != "notice"]
    assert (reply_kind, state) == ("reply", "sent")
    assert recipient == sender == read_message(path.read_bytes()).sender
    reply = run.sent[reply_id]
    assert reply["To"].addresses[0].addr_spec == sender
    assert reply["Auto-Submitted"] == "auto-replied"
    text = reply.get_body(("plain",)).get_content()
    sentence, howto = NOT_UNDERSTOOD[str(reply["Content-Language"])]
    if forwarded:  # a stranger's message: forwarded, and he gets the how-to
        sentence = FORWARDED[str(reply["Content-Language"])]
    assert sentence in " ".join(text.split()) and howto in text
    if message_id and is_message_id(message_id):
        # (a long id is folded onto its own line; the parser keeps the fold's space)
        assert str(reply["In-Reply-To"]).strip() == message_id
        assert str(reply["References"]).split()[-1] == message_id
    else:
        assert reply["In-Reply-To"] is None


def test_exactly_one_sent_reply_per_human_mail(run: Run) -> None:
    humans = sum(1 for kind, _ in EXPECTED.values() if kind == HUMAN)
    rows = [row for rows in run.outbox.values() for row in rows]
    replies = [row for row in rows if row[2] == "reply"]
    forwards = [row for row in rows if row[2] == "notice"]  # to the game master
    assert len(replies) == humans == run.report.replies
    assert len(replies) + len(forwards) == run.sent_count == len(run.sent)


def test_bounces_are_recorded_against_their_failed_recipients(run: Run) -> None:
    with run.app.db.read() as conn:
        rows = conn.execute("SELECT inbound_id, recipient FROM bounces").fetchall()
    found: dict[int, set[str]] = {}
    for inbound_id, recipient in rows:
        found.setdefault(inbound_id, set()).add(recipient.lower())
    expected = {
        run.inbound[num][0]: {r.lower() for r in recipients}
        for num, (kind, recipients) in EXPECTED.items()
        if kind == "bounce" and recipients
    }
    assert found == expected


def test_the_corpus_again_is_recognised_and_changes_nothing(tmp_path: Path) -> None:
    app = make_app(tmp_path / "state")
    inbox = app.config.maildir_root / "inbox"
    for path in FILES:
        deliver(inbox, path.read_bytes())
    first = app.poll_once()
    for path in FILES:  # the same bytes again, as new Maildir files
        deliver(inbox, path.read_bytes())
    second = app.poll_once()
    assert first.processed == len(FILES)
    assert len(second.results) == len(FILES) and second.processed == 0
    assert all(r.duplicate for r in second.results)
    with app.db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM inbound").fetchone()[0] == len(FILES)
        forwards = sum("forwarded" in r.outcome for r in first.results)
        assert conn.execute("SELECT COUNT(*) FROM outbox").fetchone()[0] == (
            first.replies + forwards)
    app.close()


def _human_mail(message_id: str, references: str) -> bytes:
    return (
        "From: Hanna <hanna@player.example>\r\n"
        f"To: {BOT_ADDRESS}\r\nSubject: Frage\r\nMessage-ID: {message_id}\r\n"
        f"References: {references}\r\nDate: Tue, 01 Dec 2026 12:00:00 +0000\r\n\r\n"
        "Wie geht das?\r\n"
    ).encode()


def test_a_message_id_without_domain_still_gets_its_one_reply(tmp_path: Path) -> None:
    """Regression (corpus 057, ``Message-ID: <xxxx>``): compose refused the id as
    In-Reply-To, so the reply AND the internal-error apology failed."""
    app = make_app(tmp_path / "state")
    inbox = app.config.maildir_root / "inbox"
    deliver(inbox, _human_mail("<xxxx>", "<older@player.example>"))
    deliver(inbox, _human_mail("<fresh@player.example>", "<bad> <older@player.example>"))
    report = app.poll_once()
    # a question: forwarded to the game master too (RULES.md §11)
    assert [r.outcome for r in report.results] == ["accepted round 1: forwarded, help"] * 2
    assert report.replies == 2
    app.drain_outbox()
    replies = [email.message_from_bytes(m.raw, policy=policy.default)
               for m in read_sent(app.config.maildir_root)]
    replies = [r for r in replies if r["To"].addresses[0].addr_spec != GM_ADDRESS]
    assert [r["In-Reply-To"] for r in replies] == [None, "<fresh@player.example>"]
    assert replies[0]["References"] is None
    assert str(replies[1]["References"]) == "<older@player.example> <fresh@player.example>"
    app.close()


def test_a_dead_letter_whose_apology_fails_is_not_counted_as_replied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: the result said ``replied`` although no reply was queued."""

    def broken_compose(**_kwargs: object) -> None:
        raise ComposeError("injected: composing is broken")

    monkeypatch.setattr(bot.service.outgoing, "compose", broken_compose)
    app = make_app(tmp_path / "state")
    deliver(app.config.maildir_root / "inbox", _human_mail("<a@player.example>", "<b@x.example>"))
    [result] = app.poll_once().results
    assert result.outcome.startswith("retry: 1 failed attempt(s): ComposeError")
    for _ in range(2, app.ingestor.settings.max_attempts + 1):  # retried, then quarantined
        [result] = app.poll_once().results
    assert result.quarantined and result.outcome.startswith("quarantined")
    assert "ComposeError" in result.outcome
    assert result.replied is False
    with app.db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM inbound").fetchone()[0] == 1
        assert conn.execute("SELECT COUNT(*) FROM outbox").fetchone()[0] == 0
    app.close()
