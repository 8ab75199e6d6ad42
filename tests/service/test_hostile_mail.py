"""Hostile mail through the real pipeline (real SQLite file, real Maildir files):
retries and quarantine, time budget, oversized mail, fair limits, lost
passwords, Unicode addresses, loops, sender trust."""

from __future__ import annotations

import email
import re
import time
from email import policy

import pytest

import bot.service.inbound as inbound
from bot.mail.quotes import BOT_REPLY_MARKER
from bot.service.inbound import PASSWORD_OK
from tests.service.harness import Game

HANS = "hans@player.example"
REGISTER = "Neues Team: Rote Teufel\nAufstellung: 10-10-15-15-20\n"


class Replies:
    """The replies the outbox delivered since the last look."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.seen = 0

    def new(self) -> list[tuple[str, str, email.message.EmailMessage]]:
        sent = self.game.flush()
        fresh, self.seen = sent[self.seen:], len(sent)
        out = []
        for item in fresh:
            msg = email.message_from_bytes(item.raw, policy=policy.default)
            body = msg.get_body(("plain",))
            out.append((item.rcpt, body.get_content() if body else "", msg))
        return out


def password_in(text: str) -> str:
    match = re.search(r"^\s*(?:Passwort|Password): (\S+)\s*$", text, re.M)
    assert match, text
    return match.group(1)


def register(game: Game, replies: Replies, sender: str = HANS) -> str:
    game.send(game.mail(sender, REGISTER))
    [(_, text, _)] = replies.new()
    return password_in(text)


def lineup_of(game: Game, team: str = "Rote Teufel") -> str | None:
    with game.db.read() as conn:
        row = conn.execute(
            "SELECT m.lineup FROM moves m JOIN teams t ON t.id = m.team_id WHERE t.name = ?"
            " ORDER BY m.id DESC LIMIT 1", (team,)).fetchone()
    return row[0] if row else None


def quarantine_files(game: Game) -> list[bytes]:
    folder = game.root / "state" / "maildir" / "quarantine" / "cur"
    return [p.read_bytes() for p in folder.iterdir()] if folder.is_dir() else []


# -- no mail blocks the others ----------------------------------------------------


def test_a_mail_that_always_fails_is_quarantined_after_n_polls_and_the_others_pass(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    replies = Replies(game)
    bad = game.mail("eve@player.example", "Neues Team: Kaputt\n10-10-15-15-20\n")
    bad_id = email.message_from_bytes(bad)["Message-ID"]
    real = inbound.parse_moves

    def parse_moves(subject, text, **kw):  # type: ignore[no-untyped-def]
        if "Kaputt" in text:  # only this mail's handling breaks, every time
            raise RuntimeError(f"grammar broke on {bad_id}")
        return real(subject, text, **kw)

    monkeypatch.setattr(inbound, "parse_moves", parse_moves)
    for raw in (game.mail("anna@player.example", "Neues Team: Anna FC\n10-10-15-15-20\n"),
                bad, game.mail("bernd@player.example", "Neues Team: Bernd FC\n10-10-15-15-20\n")):
        game.inbox.deliver(raw)
    first = game.poll()
    assert [r.retry for r in first] == [False, True, False]
    assert first[0].outcome.startswith("accepted") and first[2].outcome.startswith("accepted")
    assert sorted(to for to, _, _ in replies.new()) == ["anna@player.example",
                                                        "bernd@player.example"]
    game.inbox.deliver(game.mail("carla@player.example", "Neues Team: Carla FC\n5-5-20-25-35\n"))
    second = game.poll()  # the failing mail again (now in a child process), the new one too
    assert [r.outcome.split(":")[0].split()[0] for r in second] == ["retry", "accepted"]
    (third,) = game.poll()
    assert third.quarantined and "RuntimeError" in third.outcome
    assert game.poll() == []
    assert quarantine_files(game) == [bad]
    [(_, text, _)] = [r for r in replies.new() if r[0] == "eve@player.example"]
    assert "interner Fehler" in text
    with game.db.read() as conn:
        rows = conn.execute("SELECT outcome FROM inbound WHERE sender = ?",
                            ("eve@player.example",)).fetchall()
        teams = {r[0] for r in conn.execute("SELECT name FROM teams")}
    assert len(rows) == 1 and rows[0][0].startswith("quarantined: handling failed 3 times")
    assert teams == {"Anna FC", "Bernd FC", "Carla FC"}


def test_a_mail_whose_reading_never_ends_is_stopped_at_the_budget(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = Game(tmp_path, handling_seconds=0.5, max_attempts=2)
    real = inbound.parse_moves

    def parse_moves(subject, text, **kw):  # type: ignore[no-untyped-def]
        if "endlos" in subject:
            while True:  # CPU-bound, no way out
                pass
        return real(subject, text, **kw)

    monkeypatch.setattr(inbound, "parse_moves", parse_moves)
    # Larger than bounded.ISOLATE_ABOVE: read in a child process from the first attempt.
    slow = game.mail(HANS, "Hallo\n" + ("Bla bla bla bla.\n" * 5000), subject="endlos")
    game.inbox.deliver(slow)
    game.inbox.deliver(game.mail("anna@player.example", "Neues Team: Anna FC\n10-10-15-15-20\n"))
    started = time.monotonic()
    first = game.poll()
    assert first[0].retry and "longer than 0.5 s" in first[0].outcome
    assert first[1].outcome.startswith("accepted")
    (second,) = game.poll()
    assert second.quarantined
    assert time.monotonic() - started < 5
    assert quarantine_files(game) == [slow]


# -- a mail too large to read ---------------------------------------------------------


def test_a_50_mb_mail_is_never_read_whole_and_gets_the_too_large_reply(game: Game) -> None:
    replies = Replies(game)
    head = game.mail(HANS, "x").split(b"\n\n", 1)[0]
    line = b"A" * 998 + b"\n"
    game.inbox.deliver(head + b"\n\n" + line * (50 * 1024 * 1024 // len(line)))
    (result,) = game.poll()
    assert result.outcome.startswith("too_large")
    [(to, text, _)] = replies.new()
    assert to == HANS and "zu groß" in text
    spooled = list((game.root / "state" / "spool").rglob("*"))
    assert sum(p.stat().st_size for p in spooled if p.is_file()) < 64 * 1024


# -- fair limits ---------------------------------------------------------------------------


def test_twenty_forged_mails_do_not_keep_the_genuine_one_out(game: Game) -> None:
    replies = Replies(game)
    password = register(game, replies)
    for n in range(20):  # a rival writes "as" Hans, without the password
        game.inbox.deliver(game.mail(HANS, f"Aufstellung: 1-1-1-1-{n + 1}\n"))
    results = game.poll()
    assert any(r.outcome.startswith("slow_down") for r in results)
    replies.new()
    game.send(game.mail(HANS, f"Passwort: {password}\nAufstellung: 5-5-20-25-35\n"))
    [(to, text, _)] = replies.new()
    assert to == HANS and "5-5-20-25-35" in text
    assert lineup_of(game) == "5-5-20-25-35"
    with game.db.read() as conn:
        (last,) = conn.execute("SELECT outcome FROM inbound ORDER BY id DESC LIMIT 1").fetchone()
    assert last.startswith("accepted") and last.endswith(PASSWORD_OK)


# -- lost passwords -------------------------------------------------------------------------


def test_forgot_password_mails_a_new_one_to_the_registered_address_once_a_day(
    game: Game,
) -> None:
    replies = Replies(game)
    old = register(game, replies)
    game.send(game.mail(HANS, "Passwort vergessen", Reply_To="evil@attacker.example"))
    [(to, text, msg)] = replies.new()
    assert to == HANS and "evil" not in str(msg["To"])  # never to the Reply-To
    new = password_in(text)
    assert new != old and BOT_REPLY_MARKER in text
    game.send(game.mail(HANS, f"Passwort: {old}\nAufstellung: 5-5-20-25-35\n"))
    [(_, text, _)] = replies.new()
    assert "falsch" in text and lineup_of(game) == "10-10-15-15-20"  # the old one is gone
    game.send(game.mail(HANS, f"Passwort: {new}\nAufstellung: 5-5-20-25-35\n"))
    replies.new()
    assert lineup_of(game) == "5-5-20-25-35"
    game.clock.advance(hours=3)
    game.send(game.mail(HANS, "Forgot password", subject="help"))
    [(_, text, _)] = replies.new()
    assert "today already" in text and "Password:" not in text
    game.clock.advance(days=1)
    game.send(game.mail(HANS, "Kennwort vergessen"))
    [(_, text, _)] = replies.new()
    assert password_in(text) not in (old, new)


def test_forgot_password_from_a_stranger_is_answered_politely_and_changes_nothing(
    game: Game,
) -> None:
    replies = Replies(game)
    game.send(game.mail("nobody@player.example", "Lost password", subject="Hi"))
    [(to, text, _)] = replies.new()
    assert to == "nobody@player.example" and "no manager is registered" in text
    with game.db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM managers").fetchone()[0] == 0


# -- every address a person can have -------------------------------------------------------


def test_a_unicode_domain_and_local_part_take_part_end_to_end(game: Game) -> None:
    replies = Replies(game)
    game.send(game.mail("Hans <hans@bücher.example>", REGISTER))
    game.send(game.mail("Jörg <jörg@müller.example>",
                        "Neues Team: Blaue Jungs\nAufstellung: 10-10-15-15-20\n"))
    got = replies.new()
    assert [to for to, _, _ in got] == ["hans@bücher.example", "jörg@müller.example"]
    assert all(password_in(text) for _, text, _ in got)
    assert "xn--bcher-kva.example" in str(got[0][2]["To"])
    with game.db.read() as conn:
        outcomes = [r[0] for r in conn.execute("SELECT outcome FROM inbound")]
    assert all(o.startswith("accepted") for o in outcomes), outcomes


def test_both_spellings_of_an_international_domain_are_one_manager(game: Game) -> None:
    """``bücher.example`` and its ASCII form ``xn--bcher-kva.example`` are
    one mailbox: the second spelling is the same manager (their password
    works, and it cannot register more than two teams)."""
    replies = Replies(game)
    game.send(game.mail("Hans <hans@bücher.example>", REGISTER))
    [(_, text, _)] = replies.new()
    password = password_in(text)
    for name in ("Blaue Jungs", "Grüne Jäger"):
        game.send(game.mail("Hans <HANS@xn--bcher-kva.example>",
                            f"Passwort: {password}\nNeues Team: {name}\n"
                            "Aufstellung: 10-10-15-15-20\n"))
    first, second = (text for _, text, _ in replies.new())
    assert "Neues Team „Blaue Jungs“" in first and "FEHLER" not in first
    assert "Du kannst „Grüne Jäger“ nicht anmelden: höchstens 2 Teams je Manager" in second
    with game.db.read() as conn:
        assert [r[0] for r in conn.execute("SELECT address FROM managers")] == [
            "hans@bücher.example"]


# -- loops -----------------------------------------------------------------------------------


def test_a_human_answer_to_the_bot_without_a_command_gets_one_reply_per_thread_and_day(
    game: Game,
) -> None:
    replies = Replies(game)
    register(game, replies)
    with game.db.read() as conn:
        (bot_id,) = conn.execute("SELECT message_id FROM outbox ORDER BY id LIMIT 1").fetchone()
    thanks = "Danke schön, bis bald!\n"
    game.send(game.mail(HANS, thanks, subject="Re: Aufstellung", In_Reply_To=bot_id))
    assert len(replies.new()) == 1
    game.send(game.mail(HANS, "Nochmals danke!\n", subject="Re: Aufstellung",
                        In_Reply_To=bot_id))
    assert replies.new() == []
    # Only the text shows it (a client that drops In-Reply-To): its own thread.
    quoted = f"Super!\n\n> {BOT_REPLY_MARKER}\n> Hallo Hans,\n"
    game.send(game.mail(HANS, quoted, subject="Re: x"))
    game.send(game.mail(HANS, quoted, subject="Re: x"))
    assert len(replies.new()) == 1
    game.clock.advance(days=1, minutes=1)
    game.send(game.mail(HANS, "Und danke!\n", subject="Re: Aufstellung", In_Reply_To=bot_id))
    assert len(replies.new()) == 1


def test_an_auto_responder_is_never_answered(game: Game) -> None:
    replies = Replies(game)
    register(game, replies)
    for _ in range(3):
        game.send(game.mail(HANS, "Ich bin im Urlaub.", subject="Abwesenheitsnotiz",
                            Auto_Submitted="auto-replied"))
    assert replies.new() == []


# -- sender trust --------------------------------------------------------------------------


def test_a_mail_the_receiving_server_found_forged_changes_nothing(tmp_path) -> None:
    game = Game(tmp_path, authserv_id="mx.turnited.example")
    replies = Replies(game)
    password = register(game, replies)
    forged = game.mail(HANS, f"Passwort: {password}\nAufstellung: 5-5-20-25-35\n",
                       Authentication_Results="mx.turnited.example; spf=fail "
                       "smtp.mailfrom=player.example; dmarc=fail header.from=player.example")
    (result,) = game.send(forged)
    assert result.outcome.startswith("forged") and replies.new() == []
    assert lineup_of(game) == "10-10-15-15-20"
    # The sender's own header with the server's id does not count: the server
    # puts its verdict on top.
    raw = game.mail(HANS, f"Passwort: {password}\nAufstellung: 6-6-20-25-33\n",
                    Authentication_Results="mx.turnited.example; dmarc=pass "
                    "header.from=player.example")
    genuine = b"Authentication-Results: mx.turnited.example; spf=pass " \
              b"smtp.mailfrom=player.example; dmarc=pass header.from=player.example\r\n" + raw
    (result,) = game.send(genuine)
    assert result.outcome.startswith("accepted") and lineup_of(game) == "6-6-20-25-33"
    forged_top = b"Authentication-Results: mx.turnited.example; dmarc=fail " \
                 b"header.from=player.example\r\n" + raw.replace(b"6-6-20-25-33", b"7-7-20-25-31")
    (result,) = game.send(forged_top)
    assert result.outcome.startswith("forged") and lineup_of(game) == "6-6-20-25-33"
