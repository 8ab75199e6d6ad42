"""The real worker pulled out of the socket (SIGKILL to its process group) at
several points, then started again: nothing is lost, nothing done twice.

- during the ingest of many queued mails, inside the batch's one
  transaction: nothing of the batch was kept, and after the restart every
  mail is ledgered, applied and answered exactly once, and every player's
  latest lineup counts;
- inside the evaluation (a large Monte Carlo makes it take a while; the
  JSON log says when it starts): the restart evaluates the round once;
- while sending (a slow SMTP server), twice: every newsletter arrives, at
  most one copy more per kill (the one in flight);
- while a deadline passes: the start catches up the missed deadline once,
  after reading the inbox, so a lineup that arrived in time counts;
- a second worker on the same state refuses to start.

Plus the regression test that a due deadline job gets the mailbox at once
(it used to wait for the mail loop's whole wait for mail, up to 10 s).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.config import Config
from bot.worker.scheduler import Worker, WorkerTimings
from tests.e2e.conftest import (
    GM,
    Game,
    duplicates,
    local_text,
    player,
    team_name,
    wait_until,
    whole_seconds,
)
from tests.worker.fake_app import FakeApp


def real(test):
    """Mark a test that runs the worker process against Dovecot and SMTP."""
    return pytest.mark.servers(pytest.mark.slow(test))


LINEUPS = ("10-10-20-20-30", "5-5-20-25-35", "0-10-20-30-30", "8-8-24-24-26")


def now() -> datetime:
    return datetime.now(UTC)


def register(game: Game, count: int, *, simulations: int = 0) -> dict[str, str]:
    """``count`` players register a team with a lineup for round 1 (the worker
    answers them and is then killed, with nothing left to send). The round's
    deadline is two hours away. Returns address -> password."""
    t0 = whole_seconds(now())
    game.configure([t0 + timedelta(hours=2), t0 + timedelta(days=1), t0 + timedelta(days=2)],
                   simulations=simulations)
    addresses = [player(i) for i in range(1, count + 1)]
    game.send_many([(a, "Anmeldung", f"Neues Team: {team_name(a)}\nAufstellung: {LINEUPS[0]}\n")
                    for a in addresses])
    worker = game.start_worker()

    def answered() -> dict[str, str] | None:
        replies = {r.rcpt: r.password for r in game.smtp.sent_of("reply")}
        return replies if set(replies) == set(addresses) else None

    passwords = wait_until(answered, f"replies to {count} registrations", context=game.logs)
    wait_until(game.outbox_empty, "an empty outbox", context=game.logs)
    worker.kill9()
    assert all(passwords.values())
    return passwords


def move_deadline(game: Game, moment: datetime) -> None:
    """``turnited deadline set`` (the worker is down, so no re-planning wait)."""
    done = game.cli("deadline", "set", local_text(moment))
    assert done.returncode == 0, done.stderr


def writing(game: Game) -> bool:
    """True while another connection holds the database's write lock."""
    conn = sqlite3.connect(game.state / "turnited.sqlite3", timeout=0, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc):
            return True
        raise
    finally:
        conn.close()  # rolls our own transaction back at once
    return False


def spooled(game: Game) -> int:
    return len(list((game.state / "spool").glob("*/*.eml.gz")))


def inbound_ids(game: Game) -> list[str]:
    return [r[0] for r in game.query("SELECT message_id FROM inbound ORDER BY id")]


# ---------------------------------------------------------------- kill while polling


@real
def test_kill_during_the_ingest_of_many_mails(game: Game) -> None:
    passwords = register(game, 20)
    # While the worker is down, every player sends three lineups, in turns.
    mails = [(a, f"Aufstellung {k}", f"Passwort: {pw}\n{team_name(a)}: {LINEUPS[k]}\n")
             for k in (1, 2, 3) for a, pw in passwords.items()]
    message_ids = game.send_many(mails)
    total = len(passwords) + len(mails)

    first = game.start_worker()
    # The batch is spooled first, then ingested in one transaction: kill inside it.
    wait_until(lambda: spooled(game) == total and writing(game),
               "the queued mails spooled and their transaction open", interval=0.02,
               context=game.logs)
    first.kill9()
    done = game.scalar("SELECT count(*) FROM inbound")
    assert done < total, "the whole batch was ingested before the kill; queue more mails"
    assert done == len(passwords)  # one transaction: nothing of the batch kept, none half
    assert len(game.dovecot.list_folder("INBOX")) == len(mails)  # none marked processed yet

    second = game.start_worker()
    wait_until(lambda: game.scalar("SELECT count(*) FROM inbound") == total
               and not game.dovecot.list_folder("INBOX"),
               "every queued mail ingested and moved", context=game.logs)
    wait_until(lambda: set(message_ids) <= {s.in_reply_to for s in game.smtp.sent_of("reply")},
               "a reply to every queued mail", context=game.logs)
    wait_until(game.outbox_empty, "an empty outbox", context=game.logs)
    second.kill9()

    # Each mail ledgered once, each lineup stored once, the latest one counts.
    ledger = inbound_ids(game)
    assert len(ledger) == len(set(ledger)) == total
    stored = [r[0] for r in game.query("SELECT message_id FROM moves WHERE round = 1")]
    assert sorted(m for m in stored if m in message_ids) == sorted(message_ids)
    assert len(stored) == total  # the registrations' lineups and the 60 changes
    assert game.latest_lineups(1) == {team_name(a): LINEUPS[3] for a in passwords}
    assert len(game.dovecot.list_folder("Processed")) == total
    # Each mail answered once; a copy more only for a reply in flight at the kill.
    replies = game.smtp.sent_of("reply")
    assert len({r.message_id for r in replies}) == total
    assert sum(duplicates(replies).values()) <= 1
    assert game.outbox_empty()


# ---------------------------------------------------------------- kill while evaluating


@real
def test_kill_inside_the_evaluation(game: Game) -> None:
    passwords = register(game, 12, simulations=1_500_000)
    deadline = whole_seconds(now()) + timedelta(seconds=4)
    move_deadline(game, deadline)

    first = game.start_worker()
    first.wait_event("evaluation_started", timeout=60)
    time.sleep(0.3)
    first.kill9()
    assert game.rounds() == [(1, "open")], (
        "the evaluation finished before the kill; raise analysis.simulations")
    assert game.query("SELECT round FROM round_results") == []
    assert game.smtp.sent_of("newsletter") == []

    second = game.start_worker()  # the catch-up: the missed deadline, once
    started = second.wait_event("evaluation_started")
    assert started[0]["startup"] is True
    wait_until(lambda: game.rounds() == [(1, "evaluated"), (2, "open")],
               "round 1 evaluated after the restart", context=game.logs)
    def every_player_has_it() -> list | None:
        letters = game.smtp.sent_of("newsletter")
        return letters if {x.rcpt for x in letters} == set(passwords) else None

    letters = wait_until(every_player_has_it, "the newsletter to every player",
                         context=game.logs)
    wait_until(lambda: game.smtp.sent_of("digest"), "the digest", context=game.logs)
    second.kill9()

    third = game.start_worker()  # nothing is due any more: nothing happens twice
    third.wait_event("worker_started")
    third.wait_event("deadline_planned", count=2)
    third.kill9()
    assert [r[0] for r in game.query("SELECT round FROM round_results")] == [1]
    assert game.rounds() == [(1, "evaluated"), (2, "open")]
    assert len(game.smtp.sent_of("newsletter")) == len(letters) == len(passwords)
    assert [d.rcpt for d in game.smtp.sent_of("digest")] == [GM]
    assert len(game.events_of_all("evaluation_started")) == 2


# ---------------------------------------------------------------- kill while sending


@real
def test_kills_while_sending_lose_no_newsletter(game: Game) -> None:
    passwords = register(game, 24)
    game.smtp.set_delay(0.15)  # a slow server: a mail is in flight most of the time
    move_deadline(game, whole_seconds(now()) + timedelta(seconds=3))
    expected = len(passwords) + 1  # the newsletters and the digest

    def arrived() -> int:
        return len({s.message_id for s in game.smtp.sent() if s.kind in ("newsletter", "digest")})

    kills = 0
    for stop_at in (6, 14):
        worker = game.start_worker()
        wait_until(lambda n=stop_at: arrived() >= n, f"{stop_at} mails of the round sent",
                   interval=0.02, context=game.logs)
        worker.kill9()
        kills += 1
        assert arrived() < expected, "everything was sent before the kill"
    last = game.start_worker()
    wait_until(lambda: arrived() == expected, "every newsletter and the digest",
               context=game.logs)
    wait_until(game.outbox_empty, "an empty outbox", context=game.logs)
    last.kill9()

    round_mail = [s for s in game.smtp.sent() if s.kind in ("newsletter", "digest")]
    assert {s.rcpt for s in round_mail} == {*passwords, GM}
    extra = duplicates(round_mail)
    assert sum(extra.values()) <= kills and all(n == 1 for n in extra.values())
    assert [r[0] for r in game.query("SELECT round FROM round_results")] == [1]


# ---------------------------------------------------------------- down at the deadline


@real
def test_a_deadline_missed_while_down_is_caught_up_once_after_reading_the_inbox(
    game: Game,
) -> None:
    passwords = register(game, 6)
    anna, bernd = player(1), player(2)
    deadline = whole_seconds(now()) + timedelta(seconds=3)
    move_deadline(game, deadline)
    # In time (the worker is down, the mail waits in the INBOX) ...
    on_time = game.send(anna, "Neue Aufstellung",
                        f"Passwort: {passwords[anna]}\n{team_name(anna)}: {LINEUPS[2]}\n")
    # ... and too late (IMAP's INTERNALDATE counts whole seconds: well after it).
    wait_until(lambda: now() > deadline + timedelta(seconds=1.2), "the deadline to pass")
    late = game.send(bernd, "Neue Aufstellung",
                     f"Passwort: {passwords[bernd]}\n{team_name(bernd)}: {LINEUPS[3]}\n")

    worker = game.start_worker()
    wait_until(lambda: game.rounds() == [(1, "evaluated"), (2, "open")],
               "the missed deadline caught up", context=game.logs)
    wait_until(lambda: len(game.smtp.sent_of("newsletter")) == len(passwords),
               "the newsletters", context=game.logs)
    played = {r["name"]: r["lineup"] for r in game.query(
        "SELECT t.name, e.lineup FROM round_entries e JOIN teams t ON t.id = e.team_id"
        " WHERE e.round = 1")}
    assert played[team_name(anna)] == LINEUPS[2]  # arrived before the deadline: counts
    assert played[team_name(bernd)] == LINEUPS[0]  # arrived after it: the next round
    assert game.latest_lineups(2) == {team_name(bernd): LINEUPS[3]}
    assert "Spielrunde 2" in game.reply_to(late).text
    assert "Spielrunde 1" in game.reply_to(on_time).text
    worker.kill9()

    again = game.start_worker()
    again.wait_event("deadline_planned", count=2)
    again.kill9()
    assert [r[0] for r in game.query("SELECT round FROM round_results")] == [1]
    assert len(game.smtp.sent_of("newsletter")) == len(passwords)
    assert duplicates(game.smtp.sent()) == {}


# ---------------------------------------------------------------- one worker only


@real
def test_a_second_worker_on_the_same_state_refuses_to_start(game: Game) -> None:
    game.configure([whole_seconds(now()) + timedelta(hours=2)])
    first = game.start_worker()
    first.wait_event("worker_started")
    second = game.cli("run", "--log-format", "json", "--lang", "en")
    assert second.returncode != 0
    assert "another worker is already running" in second.stderr
    assert f"process {first.pid}" in second.stderr
    assert "Traceback" not in second.stderr
    # The first one is unharmed and still answers mail.
    game.reply_to(game.send(player(1), "Hilfe", "Hilfe\n"))
    assert first.alive()


# ---------------------------------------------------------------- regression


class _InterruptibleApp(FakeApp):
    """Waits for mail like IMAP IDLE, but wakes at once when told to stop."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.quit = threading.Event()

    def wait_for_mail(self, timeout: float) -> bool:
        self._record("wait", round(timeout, 3))
        self.quit.wait(timeout)
        return False


def test_a_due_deadline_job_gets_the_mailbox_at_once(tmp_path: Path) -> None:
    """The mail loop used to take the mailbox straight back after each poll
    (a plain lock is not fair) and then wait for mail for its whole slice,
    so the deadline job could start ``mail_wait`` seconds late."""
    config = Config.from_mapping({"state_dir": str(tmp_path)}, tmp_path, environ={})
    delays = []
    for _ in range(8):
        deadline = now() + timedelta(seconds=0.3)
        app = _InterruptibleApp(deadline, clock=now)
        worker = Worker(app, config, timings=WorkerTimings(mail_wait=2.0))
        worker.start()
        try:
            wait_until(lambda a=app: "evaluate_start" in a.names(), "the evaluation",
                       timeout=20, interval=0.01)
            started = app.times[app.names().index("evaluate_start")]
            delays.append(started - time.monotonic() + (now() - deadline).total_seconds())
        finally:
            worker.request_stop()
            app.quit.set()
            worker.stop()
    assert max(delays) < 1.0, delays
