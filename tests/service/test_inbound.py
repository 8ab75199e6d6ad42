"""The ingest pipeline end to end on real files: one reply per human mail,
none to robots, nothing lost, nothing applied twice."""

from __future__ import annotations

import email
import re
from email import policy

from bot.mail.quotes import BOT_REPLY_MARKER
from bot.mail.transport import IncomingMail
from bot.service import inbound
from tests.service.harness import BOT, Game


def reply_texts(game: Game) -> list[tuple[str, str, str]]:
    out = []
    for sent in game.flush():
        msg = email.message_from_bytes(sent.raw, policy=policy.default)
        body = msg.get_body(("plain",))
        text = body.get_content() if body else ""
        if msg["Auto-Submitted"] == "auto-replied":
            # Every reply opens with the bot's marker (never read again as a command).
            marker, _, text = text.partition("\n")
            assert marker.strip() == BOT_REPLY_MARKER, text
        out.append((msg["To"], str(msg["Subject"]), text))
    return out


def password_of(text: str) -> str:
    match = re.search(r"^\s*(?:Passwort|Password): (\S+)\s*$", text, re.M)
    assert match, text
    return match.group(1)


def test_new_manager_registers_and_gets_password(game: Game) -> None:
    results = game.send(game.mail(
        "Hans Meier <hans@player.example>",
        "Hallo,\nNeues Team: Rote Teufel / Teufel\nAufstellung: 10-10-20-25-25\nGruß Hans\n",
    ))
    assert [r.kind for r in results] == ["human"]
    assert results[0].move is not None and results[0].move.accepted
    [(to, subject, text)] = reply_texts(game)
    assert "hans@player.example" in to
    assert subject == "Re: Aufstellung"
    assert "Rote Teufel" in text and "8-8-16-21-21" in text  # budget shortening shown
    assert "| Hallo," not in text  # a greeting is not listed (RULES.md §11)
    assert "Gruß Hans" not in text  # a sign-off is no "not understood" line (RULES.md §9)
    assert password_of(text)


def test_password_required_on_second_mail_and_nothing_changes_without(game: Game) -> None:
    game.send(game.mail("hans@player.example", "Neues Team: Rote Teufel\n10-10-15-15-20\n"))
    password = password_of(reply_texts(game)[0][2])
    game.clock.advance(minutes=5)
    game.send(game.mail("hans@player.example", "Rote Teufel: 0-0-30-30-30\n"))
    [(_, _, text)] = reply_texts(game)[1:]
    assert "Passwort" in text and "nichts" in text
    with game.db.read() as conn:
        lineups = [r[0] for r in conn.execute("SELECT lineup FROM moves ORDER BY id")]
    assert lineups == ["10-10-15-15-20"]
    game.clock.advance(minutes=5)
    body = f"Passwort: {password}\nRote Teufel: 0-0-30-30-30\n"
    game.send(game.mail("hans@player.example", body))
    with game.db.read() as conn:
        lineups = [r[0] for r in conn.execute("SELECT lineup FROM moves ORDER BY id")]
    assert lineups == ["10-10-15-15-20", "0-0-30-30-30"]


def test_english_mail_gets_english_reply(game: Game) -> None:
    body = "New team: Red Devils / Devils\nLineup: 10-10-15-15-20\n"
    game.send(game.mail("jane@player.example", body, subject="my lineup"))
    [(_, _, text)] = reply_texts(game)
    assert text.startswith("Hello") and "Lineup for \"Red Devils\" stored" in text


def test_invalid_lineup_changes_nothing_and_quotes_the_line(game: Game) -> None:
    body = "Neues Team: Rote Teufel\nAufstellung: 10-10-15-15\n"
    game.send(game.mail("hans@player.example", body))
    [(_, _, text)] = reply_texts(game)
    assert "10-10-15-15" in text and "10-10-15-15-20" in text  # the line and the right form
    with game.db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM teams").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0] == 0


def test_quoted_old_lineup_is_ignored(game: Game) -> None:
    game.send(game.mail("hans@player.example", "Neues Team: Rote Teufel\n10-10-15-15-20\n"))
    password = password_of(reply_texts(game)[0][2])
    body = (f"Passwort: {password}\nRote Teufel: 5-5-20-20-30\n\n"
            "Am 01.12.2026 um 12:00 schrieb Turnited <bot@turnited.example>:\n"
            "> Rote Teufel: 10-10-15-15-20\n> Aufstellung: 9-9-9-9-9\n")
    game.send(game.mail("hans@player.example", body, subject="Re: Aufstellung"))
    with game.db.read() as conn:
        lineups = [r[0] for r in conn.execute("SELECT lineup FROM moves ORDER BY id")]
    assert lineups == ["10-10-15-15-20", "5-5-20-20-30"]


def test_no_reply_to_robots_and_own_address(game: Game) -> None:
    bounce = "This is the mail system.\n<x@y.example>: user unknown"
    game.send(game.mail("MAILER-DAEMON@mx.example", bounce,
                        subject="Undelivered Mail Returned to Sender"))
    game.send(game.mail("hans@player.example", "Ich bin im Urlaub.", subject="Abwesend",
                        Auto_Submitted="auto-replied"))
    game.send(game.mail(BOT, "loop?", subject="Re: Re: Aufstellung"))
    game.send(game.mail("list@player.example", "news", Precedence="bulk"))
    assert reply_texts(game) == []
    with game.db.read() as conn:
        kinds = [r[0] for r in conn.execute("SELECT kind FROM inbound ORDER BY id")]
    assert kinds == ["bounce", "auto", "self", "auto"]


def test_same_mail_twice_is_applied_once(game: Game) -> None:
    raw = game.mail("hans@player.example", "Neues Team: Rote Teufel\n10-10-15-15-20\n")
    game.send(raw)
    again = game.ingestor.ingest(IncomingMail("maildir:x", None, None, raw, "k2"))
    assert again.duplicate
    imap_copy = IncomingMail("imap://h/INBOX", 7, 42, raw + b"\n", "7:42")
    assert not game.ingestor.ingest(imap_copy).duplicate
    assert game.ingestor.ingest(imap_copy).duplicate  # same UIDVALIDITY+UID
    assert len(reply_texts(game)) == 2


def test_mail_without_commands_gets_help(game: Game) -> None:
    game.send(game.mail("newbie@player.example", "Wie kann ich mitspielen?\n", subject="Frage"))
    # A question is forwarded to the game master as well (RULES.md §11).
    [(_, _, text)] = [r for r in reply_texts(game) if "newbie@player.example" in r[0]]
    assert "So spielst du mit" in text


def test_rate_limit_answers_slow_down_once(tmp_path) -> None:
    game = Game(tmp_path, max_mails_per_hour=3)
    for i in range(6):
        game.clock.advance(minutes=1)
        game.send(game.mail("spam@player.example", f"Status {i}\n", subject=f"s{i}"))
    texts = [t for _, _, t in reply_texts(game)]
    assert len(texts) == 4  # three answered, one "slow down", then silence
    assert "mehr als 3 Mails" in texts[3]


def test_oversized_mail_is_refused(tmp_path) -> None:
    game = Game(tmp_path, max_text_bytes=1024)
    game.send(game.mail("hans@player.example", "Neues Team: Rote Teufel\n" + "x" * 2000 + "\n"))
    [(_, _, text)] = reply_texts(game)
    assert "zu groß" in text
    with game.db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM teams").fetchone()[0] == 0


def test_internal_error_is_retried_then_quarantined_with_one_reply(
    game: Game, monkeypatch
) -> None:
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(inbound, "carry_out", broken)
    body = "Neues Team: Rote Teufel\n10-10-15-15-20\n"
    results = game.send(game.mail("hans@player.example", body))
    assert results[0].outcome.startswith("retry: 1 failed attempt(s): RuntimeError: boom")
    assert results[0].retry and reply_texts(game) == []
    results = game.poll()
    assert results[0].outcome.startswith("retry: 2 failed attempt(s)")
    results = game.poll()
    assert results[0].quarantined and results[0].outcome.startswith("quarantined")
    [(_, _, text)] = reply_texts(game)
    assert "interner Fehler" in text
    with game.db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM teams").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM inbound").fetchone()[0] == 1
    assert list(game.inbox.fetch_new()) == []  # quarantined: not retried forever
    assert len(list((game.root / "state" / "maildir" / "quarantine" / "cur").iterdir())) == 1


def test_bounce_for_a_known_manager_shows_in_status(game: Game, capsys) -> None:
    from bot.cli import main

    game.send(game.mail("hans@player.example", "Neues Team: Rote Teufel\n10-10-15-15-20\n"))
    bounce = ("This is the mail system at host mx.example.\n\n"
              "<hans@player.example>: host mx.player.example said: 550 5.1.1 User unknown\n")
    game.send(game.mail("MAILER-DAEMON@mx.example", bounce,
                        subject="Undelivered Mail Returned to Sender"))
    assert main(["status", "--state", str(game.root / "state"), "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "Managers whose mail bounced: 1" in out and "hans@player.example: 1 bounce" in out


def test_a_bare_lineup_keeps_the_managers_language(game: Game) -> None:
    """A mail without any language clue (a bare lineup) is answered in the
    manager's known language and does not switch it."""
    import dataclasses

    game.league.settings = dataclasses.replace(game.league.settings, passwords=False)
    game.send(game.mail("jane@player.example", "New team: Red Devils\nLineup: 10-10-15-15-20\n",
                        subject="hello"))
    game.clock.advance(minutes=5)
    game.send(game.mail("jane@player.example", "9-9-15-15-20\n", subject=""))
    first, second = (text for _, _, text in reply_texts(game))
    assert first.startswith("Hello") and second.startswith("Hello")
    with game.db.read() as conn:
        assert conn.execute("SELECT language FROM managers").fetchone()[0] == "en"
