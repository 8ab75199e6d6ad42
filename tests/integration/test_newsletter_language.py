"""Newsletters and reminders in each manager's language.

A manager's language is the one of their latest accepted mail
(``ParsedMoves.language``), stored in ``managers.language`` (migration 2;
NULL until known, then the configured ``newsletter.language`` applies).
``App.publish`` renders the newsletter once per language it needs and
queues each recipient's copy in their language; subscribers who do not
play (``newsletter.extra_recipients``) and the public archive get the
configured language. Real SQLite files and the embedded Maildir transport.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from bot.app import App, build_app
from bot.config import Config
from bot.league.service import League
from bot.mail.maildir_transport import deliver, read_sent
from bot.service import publish
from bot.service.context import Context
from bot.storage.db import Database, open_database
from bot.storage.migrations import MIGRATIONS, apply_migrations
from bot.wiring import league_settings
from tests.support.clock import FakeClock
from tests.support.mails import player_mail

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)  # a Tuesday
BOT = "turnited@game.example"
GM = "gm@game.example"
FAN = "fan@subscribers.example"
GAME = "Turnited Test"

ANNA = "anna@player.example"  # writes German
BOB = "bob@player.example"  # writes English
CARL = "carl@player.example"  # English first, later German: German
DORA = "dora@player.example"  # English; a later German mail is rejected: English

GERMAN = {"subject": "Ergebnisse der Spielrunde 1", "heading": "Endstand",
          "reminder": "Erinnerung an die Aufstellung"}
ENGLISH = {"subject": "results of round 1", "heading": "Final standings",
           "reminder": "reminder to send your lineup"}
WORDS = {"de": GERMAN, "en": ENGLISH}


def make_app(tmp_path: Path, clock: FakeClock, newsletter_language: str | None = None) -> App:
    newsletter: dict[str, object] = {"extra_recipients": [FAN]}
    if newsletter_language:
        newsletter["language"] = newsletter_language
    config = Config.from_mapping({
        "state_dir": "state",
        "game": {"name": GAME},
        "analysis": {"simulations": 200},
        "schedule": {"timezone": "Europe/Berlin", "deadlines": {"cron": "0 20 * * SUN"}},
        "gm": {"address": GM, "name": "Greta GM"},
        "mail": {"transport": "maildir", "address": BOT},
        "newsletter": newsletter,
    }, tmp_path)
    settings = dataclasses.replace(league_settings(config), password_cost=16)
    app = build_app(config, clock=clock, league_settings=settings)
    app.ensure_started()
    return app


def send(app: App, clock: FakeClock, sender: str, subject: str, body: str) -> None:
    raw = player_mail(sender, body, to=BOT, when=clock.now, subject=subject)
    deliver(app.config.maildir_root / "inbox", raw)


def sent(app: App) -> list[EmailMessage]:
    return [message_from_bytes(m.raw, _class=EmailMessage, policy=policy.default)
            for m in read_sent(app.config.maildir_root)]


def to(msg: EmailMessage) -> str:
    return msg["To"].addresses[0].addr_spec


def text_of(msg: EmailMessage) -> str:
    return msg.get_body(("plain",)).get_content()


def password_of(app: App, address: str) -> str:
    for msg in sent(app):
        found = re.search(r"^\s*(?:Passwort|Password): (\S+)\s*$", text_of(msg), re.M)
        if found and to(msg) == address:
            return found.group(1)
    raise AssertionError(f"no password was mailed to {address}")


def languages(app: App) -> dict[str, str | None]:
    with app.db.read() as conn:
        return {r[0]: r[1] for r in conn.execute("SELECT address, language FROM managers")}


def register_four(app: App, clock: FakeClock) -> None:
    """Anna writes German, the others English; then Carl writes German (accepted)
    and Dora German with a wrong password (rejected, changes nothing)."""
    send(app, clock, f"Anna Alt <{ANNA}>", "Anmeldung",
         "Hallo,\nNeues Team: Rote Teufel\nAufstellung: 3-7-21-25-18\nViele Grüße\n")
    send(app, clock, f"Bob Brown <{BOB}>", "Sign-up",
         "Hello,\nNew team: Blue Eagles\nLineup: 4-6-20-22-19\nCheers\n")
    send(app, clock, f"Carl Clay <{CARL}>", "Sign-up",
         "Hi,\nNew team: Green Lions\nLineup: 5-5-19-23-18\nThanks\n")
    send(app, clock, f"Dora Day <{DORA}>", "Sign-up",
         "Hello,\nNew team: Grey Wolves\nLineup: 2-8-24-17-22\nRegards\n")
    assert app.poll_once().replies == 4
    app.drain_outbox()
    assert languages(app) == {ANNA: "de", BOB: "en", CARL: "en", DORA: "en"}
    clock.now += timedelta(hours=1)
    send(app, clock, CARL, "Aufstellung",
         f"Hallo,\nPasswort: {password_of(app, CARL)}\nAufstellung: 6-4-18-24-18\n")
    send(app, clock, DORA, "Aufstellung",
         "Hallo,\nPasswort: falsch-falsch\nAufstellung: 6-4-18-24-18\nGruß\n")
    report = app.poll_once()
    assert [r.move.accepted for r in report.results] == [True, False]


def newsletters(app: App) -> dict[str, EmailMessage]:
    """The round-1 newsletter each recipient got (in either language)."""
    found = {}
    for msg in sent(app):
        if GERMAN["subject"] in msg["Subject"] or ENGLISH["subject"] in msg["Subject"]:
            assert to(msg) not in found, f"two newsletters to {to(msg)}"
            found[to(msg)] = msg
    return found


def assert_language(msg: EmailMessage, language: str) -> None:
    """The mail is wholly in ``language``: subject, header, both parts."""
    words, other = WORDS[language], WORDS["en" if language == "de" else "de"]
    assert msg["Content-Language"] == language
    assert words["subject"] in msg["Subject"] and other["subject"] not in msg["Subject"]
    text, html = text_of(msg), msg.get_body(("html",)).get_content()
    assert words["heading"] in text and other["heading"] not in text
    assert words["heading"] in html and other["heading"] not in html
    assert f'<html lang="{language}">' in html


@pytest.fixture
def counted_renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The languages the newsletter is rendered in (``bot.service.publish.render_round``,
    which publishing calls; it still renders)."""
    calls: list[str] = []
    real = publish.render_round

    def counting(ctx: Context, round_number: int, language: str | None = None, **kw: Any):
        calls.append(language or ctx.settings.newsletter_language)
        return real(ctx, round_number, language, **kw)

    monkeypatch.setattr(publish, "render_round", counting)
    return calls


def common_part(text: str) -> str:
    """A copy's text without the reader's personal block (the paragraphs
    under the title about the reader's own teams)."""
    text = text.replace("\r\n", "\n")
    head, _, rest = text.partition("\n\n")
    paragraphs = rest.split("\n\n")
    while paragraphs and re.match(r"(Dein Team|Your team): |Deine Teams für |Your teams for |  ",
                                  paragraphs[0]):
        paragraphs.pop(0)
    return "\n\n".join([head, *paragraphs])


def evaluate(app: App, clock: FakeClock) -> None:
    clock.now = app.open_round_deadline() + timedelta(minutes=1)
    assert app.evaluate_due() == 1
    app.drain_outbox()


# ---------------------------------------------------------------- newsletters


def test_each_manager_reads_the_newsletter_in_their_language(tmp_path, counted_renders) -> None:
    clock = FakeClock(START)
    app = make_app(tmp_path, clock)  # newsletter.language: the game's, German
    register_four(app, clock)
    assert languages(app) == {ANNA: "de", BOB: "en", CARL: "de", DORA: "en"}
    evaluate(app, clock)

    got = newsletters(app)
    assert sorted(got) == sorted([ANNA, BOB, CARL, DORA, FAN])
    for address, language in {ANNA: "de", BOB: "en", CARL: "de", DORA: "en", FAN: "de"}.items():
        assert_language(got[address], language)
    # rendered once per language, not once per recipient
    assert counted_renders == ["de", "en"]
    # copies in one language are the same newsletter: only the head and each
    # manager's personal block (RULES.md §8) differ; the subscriber has none
    common = {to(m): common_part(text_of(m)) for m in got.values()}
    assert common[ANNA] == common[CARL] == common[FAN] == text_of(got[FAN]).replace("\r\n", "\n")
    assert common[BOB] == common[DORA] != common[FAN]
    for address in (ANNA, BOB, CARL, DORA):
        assert text_of(got[address]).replace("\r\n", "\n") != common[address]  # a block
    # the archive is in the configured language
    archive = (app.config.state_dir / "archive" / "round-001.txt").read_text("utf-8")
    assert GERMAN["heading"] in archive and ENGLISH["heading"] not in archive
    assert 'lang="de"' in (app.config.state_dir / "archive" / "round-001.html").read_text()


def test_configured_language_for_subscribers_unknown_managers_and_archive(
    tmp_path, counted_renders
) -> None:
    clock = FakeClock(START)
    app = make_app(tmp_path, clock, newsletter_language="en")
    register_four(app, clock)
    with app.db.transaction() as conn:  # as after the upgrade: language not yet known
        conn.execute("UPDATE managers SET language = NULL WHERE address = ?", (DORA,))
    evaluate(app, clock)

    got = newsletters(app)
    for address, language in {ANNA: "de", BOB: "en", CARL: "de", DORA: "en", FAN: "en"}.items():
        assert_language(got[address], language)
    assert counted_renders == ["en", "de"]
    archive = (app.config.state_dir / "archive" / "round-001.txt").read_text("utf-8")
    assert ENGLISH["heading"] in archive and GERMAN["heading"] not in archive


def test_one_language_needs_one_rendering(tmp_path, counted_renders) -> None:
    clock = FakeClock(START)
    app = make_app(tmp_path, clock)
    for n in range(5):
        send(app, clock, f"p{n}@player.example", "Anmeldung",
             f"Hallo,\nNeues Team: Elf {n}\nAufstellung: {n + 1}-5-20-20-20\n")
    app.poll_once()
    evaluate(app, clock)
    assert len(newsletters(app)) == 6
    assert counted_renders == ["de"]


# ---------------------------------------------------------------- reminders


def test_reminders_follow_the_managers_language(tmp_path) -> None:
    clock = FakeClock(START)
    app = make_app(tmp_path, clock)
    register_four(app, clock)
    evaluate(app, clock)
    before = len(sent(app))
    clock.now = app.open_round_deadline() - timedelta(hours=24)
    assert app.send_reminders(clock.now, 24) == 4
    app.drain_outbox()
    reminders = {to(m): m for m in sent(app)[before:]}
    assert sorted(reminders) == sorted([ANNA, BOB, CARL, DORA])
    for address, language in {ANNA: "de", BOB: "en", CARL: "de", DORA: "en"}.items():
        msg = reminders[address]
        assert msg["Content-Language"] == language
        assert WORDS[language]["reminder"] in msg["Subject"]
        assert msg.get_body(("html",)) is not None


# ---------------------------------------------------------------- the migration


def test_upgrade_adds_an_unknown_language_to_existing_managers(tmp_path) -> None:
    old = Database(tmp_path / "turnited.sqlite3")
    assert apply_migrations(old, MIGRATIONS[:1]) == [1]
    with old.transaction() as conn:
        conn.execute("INSERT INTO managers (address, display_name, created_at)"
                     " VALUES ('old@player.example', 'Olga', '2026-01-01T00:00:00+00:00')")
        conn.execute(
            "INSERT INTO teams (name, name_key, short_name, manager_id, wp, psz,"
            " registered_round, created_at) VALUES ('Alte Herren', 'alte herren', 'Alte', 1,"
            " '90', '250.00', 1, '2026-01-01T00:00:00+00:00')")
    old.close()

    db = open_database(tmp_path)  # applies migration 2
    assert db.schema_version() == MIGRATIONS[-1].version >= 2
    with db.read() as conn:
        (recipient,) = League(db).recipients(conn)
    assert (recipient.address, recipient.language) == ("old@player.example", None)
    with db.transaction() as conn, pytest.raises(Exception, match="CHECK constraint"):
        conn.execute("UPDATE managers SET language = 'fr'")

