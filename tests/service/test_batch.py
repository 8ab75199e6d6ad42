"""The poll batch: one spool flush, one connection, one transaction; each mail
in its own savepoint, so one bad mail costs only itself; a crash inside the
batch keeps nothing of it, and the next poll handles every mail once."""

from __future__ import annotations

import email
import re
from datetime import timedelta
from email import policy

import pytest

from bot.mail import spool as spool_module
from bot.mail.maildir_transport import deliver
from bot.service import inbound
from bot.service.inbound import PollReport, poll
from bot.storage.db import Database
from tests.service.harness import Game

PLAYERS = [f"p{n}@player.example" for n in range(6)]


def text_of(sent) -> str:  # type: ignore[no-untyped-def]
    msg = email.message_from_bytes(sent.raw, policy=policy.default)
    return msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]


def register_all(game: Game) -> dict[str, str]:
    """Every player registers (one batch); returns address -> password."""
    for n, address in enumerate(PLAYERS):
        deliver(game.inbox.inbox, game.mail(address, f"Neues Team: Team {n}\n10-10-15-15-20\n"))
    report = poll(game.inbox, game.ingestor, batch=50)
    assert report.processed == len(PLAYERS)
    passwords = {}
    for sent in game.flush():
        match = re.search(r"Passwort: (\S+)", text_of(sent))
        assert match, text_of(sent)
        passwords[sent.rcpt] = match.group(1)
    return passwords


def queue_lineups(game: Game, passwords: dict[str, str], lineup: str = "5-5-20-25-35") -> None:
    game.clock.advance(minutes=10)
    for n, address in enumerate(PLAYERS):
        body = f"Passwort: {passwords[address]}\nTeam {n}: {lineup}\n"
        deliver(game.inbox.inbox, game.mail(address, body))


def lineups(game: Game) -> dict[str, str]:
    with game.db.read() as conn:
        rows = conn.execute(
            "SELECT t.name, m.lineup FROM moves m JOIN teams t ON t.id = m.team_id ORDER BY m.id"
        ).fetchall()
    return {name: lineup for name, lineup in rows}


def count(game: Game, sql: str) -> int:
    with game.db.read() as conn:
        return int(conn.execute(sql).fetchone()[0])


@pytest.fixture
def registered(game: Game) -> tuple[Game, dict[str, str]]:
    return game, register_all(game)


class Counting:
    """Counts calls of a real function (which still runs)."""

    def __init__(self, real) -> None:  # type: ignore[no-untyped-def]
        self.real, self.calls = real, 0

    def __call__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.calls += 1
        return self.real(*args, **kwargs)


def test_a_batch_uses_one_connection_one_transaction_and_one_spool_flush(
    registered: tuple[Game, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    game, passwords = registered
    queue_lineups(game, passwords)
    connects = Counting(Database.connect)
    flushes = Counting(spool_module.sync_filesystem)
    monkeypatch.setattr(Database, "connect", lambda self: connects(self))
    monkeypatch.setattr(spool_module, "sync_filesystem", flushes)
    report = poll(game.inbox, game.ingestor, batch=50)
    assert report.processed == len(PLAYERS) and report.replies == len(PLAYERS)
    assert connects.calls == 1
    assert flushes.calls == 1
    assert set(lineups(game).values()) == {"5-5-20-25-35"}
    assert len(game.flush()) == 2 * len(PLAYERS)  # one reply per mail


def test_the_per_mail_path_still_works_one_transaction_each(
    registered: tuple[Game, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    game, passwords = registered
    queue_lineups(game, passwords)
    connects = Counting(Database.connect)
    monkeypatch.setattr(Database, "connect", lambda self: connects(self))
    results = game.poll()  # ingest(mail) one by one
    assert all(r.move is not None and r.move.accepted for r in results)
    assert connects.calls == len(PLAYERS)


def test_a_long_batch_is_committed_in_parts(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = Game(tmp_path, max_transaction_seconds=0.0)  # commit after every mail
    passwords = register_all(game)
    queue_lineups(game, passwords)
    connects = Counting(Database.connect)
    monkeypatch.setattr(Database, "connect", lambda self: connects(self))
    report = poll(game.inbox, game.ingestor, batch=50)
    assert report.processed == len(PLAYERS)
    assert connects.calls == len(PLAYERS)


def test_one_bad_mail_rolls_back_only_itself(
    registered: tuple[Game, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    game, passwords = registered
    queue_lineups(game, passwords)
    real_submit = inbound.carry_out

    def submit(conn, settings, **kwargs):  # type: ignore[no-untyped-def]
        outcome = real_submit(conn, settings, **kwargs)  # the moves are written ...
        if kwargs["sender"] == PLAYERS[2]:
            raise RuntimeError("boom")  # ... and then something unexpected fails
        return outcome

    monkeypatch.setattr(inbound, "carry_out", submit)
    report = poll(game.inbox, game.ingestor, batch=50)
    outcomes = [r.outcome for r in report.results]
    assert outcomes[2].startswith("retry: 1 failed attempt(s): RuntimeError: boom")
    assert all(o.startswith("accepted") for i, o in enumerate(outcomes) if i != 2), outcomes
    # The failing mail is tried again at each poll, then quarantined with the apology.
    for _ in range(2, game.settings.max_attempts + 1):
        (again,) = poll(game.inbox, game.ingestor, batch=50).results
    assert again.quarantined and again.outcome.startswith(
        f"quarantined: handling failed {game.settings.max_attempts} times "
        "(last: RuntimeError: boom)")
    assert len(list((game.root / "state" / "maildir" / "quarantine" / "cur").iterdir())) == 1
    stored = lineups(game)
    assert stored["Team 2"] == "10-10-15-15-20"  # its change rolled back ...
    assert all(stored[f"Team {n}"] == "5-5-20-25-35" for n in range(6) if n != 2)  # ... only
    sent = game.flush()[len(PLAYERS):]  # after the registrations' replies
    assert sorted(s.rcpt for s in sent) == sorted(PLAYERS)
    apology = next(s for s in sent if s.rcpt == PLAYERS[2])
    assert "interner Fehler" in text_of(apology)
    assert count(game, "SELECT COUNT(*) FROM inbound") == 2 * len(PLAYERS)
    assert list(game.inbox.fetch_new()) == []  # all marked processed


class Killed(BaseException):
    """The process dies (not an ``Exception``: nothing may catch it)."""


def test_a_crash_inside_the_batch_keeps_nothing_and_the_next_poll_does_all_once(
    registered: tuple[Game, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    game, passwords = registered
    queue_lineups(game, passwords)
    before = count(game, "SELECT COUNT(*) FROM inbound")
    real_submit = inbound.carry_out
    seen: list[str] = []

    def dying(conn, settings, **kwargs):  # type: ignore[no-untyped-def]
        if len(seen) == 3:
            raise Killed
        seen.append(kwargs["sender"])
        return real_submit(conn, settings, **kwargs)

    monkeypatch.setattr(inbound, "carry_out", dying)
    with pytest.raises(Killed):
        poll(game.inbox, game.ingestor, batch=50)
    assert count(game, "SELECT COUNT(*) FROM inbound") == before
    assert count(game, "SELECT COUNT(*) FROM outbox WHERE kind = 'reply'") == len(PLAYERS)
    assert set(lineups(game).values()) == {"10-10-15-15-20"}
    monkeypatch.setattr(inbound, "carry_out", real_submit)

    # The restarted process: the mails are still in the inbox, all handled once.
    game.inbox._handed_out.clear()
    report: PollReport = poll(game.inbox, game.ingestor, batch=50)
    assert [r.duplicate for r in report.results] == [False] * len(PLAYERS)
    assert set(lineups(game).values()) == {"5-5-20-25-35"}
    assert count(game, "SELECT COUNT(*) FROM inbound") == before + len(PLAYERS)
    assert len(game.flush()) == 2 * len(PLAYERS)
    assert poll(game.inbox, game.ingestor, batch=50).results == ()


def test_the_same_bytes_twice_in_one_batch_are_applied_once(
    registered: tuple[Game, dict[str, str]],
) -> None:
    game, passwords = registered
    game.clock.advance(minutes=10)
    raw = game.mail(PLAYERS[0], f"Passwort: {passwords[PLAYERS[0]]}\nTeam 0: 5-5-20-25-35\n")
    deliver(game.inbox.inbox, raw)
    deliver(game.inbox.inbox, raw)
    report = poll(game.inbox, game.ingestor, batch=50)
    assert [r.duplicate for r in report.results] == [False, True]
    assert len(game.flush()) == len(PLAYERS) + 1


def test_the_rate_limit_counts_earlier_mails_of_the_same_batch(tmp_path) -> None:
    game = Game(tmp_path, max_mails_per_hour=3)
    for i in range(6):
        game.clock.now += timedelta(seconds=1)
        deliver(game.inbox.inbox, game.mail("spam@player.example", f"Status {i}\n",
                                            subject=f"s{i}"))
    report = poll(game.inbox, game.ingestor, batch=50)
    assert report.replies == 4  # three answered, one "slow down", then silence
    assert "mehr als 3 Mails" in text_of(game.flush()[3])


def test_a_spool_that_cannot_flush_stops_the_poll_before_anything_is_kept(
    registered: tuple[Game, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    game, passwords = registered
    queue_lineups(game, passwords)
    before = count(game, "SELECT COUNT(*) FROM inbound")

    def broken(folder) -> None:  # type: ignore[no-untyped-def]
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(spool_module, "sync_filesystem", broken)
    with pytest.raises(OSError):
        poll(game.inbox, game.ingestor, batch=50)
    assert count(game, "SELECT COUNT(*) FROM inbound") == before
    assert set(lineups(game).values()) == {"10-10-15-15-20"}
    monkeypatch.undo()
    game.inbox._handed_out.clear()
    assert poll(game.inbox, game.ingestor, batch=50).processed == len(PLAYERS)
