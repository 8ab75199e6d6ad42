"""The real worker plays three rounds against real mail servers.

``python -m bot --config CFG run`` runs in its own process group against a
private Dovecot (the bot's INBOX, the players' mailboxes) and a recording SMTP
server that hands every accepted mail on to Dovecot over LMTP, so players read
their answers over IMAP like anyone else. The schedule is an explicit list of
local date-times in Europe/Berlin, seconds apart:

- round 1 ends at D1: five players register and set lineups (German and
  English), one corrects his lineup with the password from his reply;
- round 2 ends at D2: its reminder (``hours_before: [1]``) is already due
  when the round opens, so it goes out at once, once; one player sets a
  lineup for round 2 and, right after D2, one for round 3;
- round 3 ends at D3 = D2 + 1 h + a few seconds: its reminder is a planned
  job that fires during the test and reminds only the four without a lineup.

Checked: one threaded reply per mail, the latest lineup counts, each round
evaluated once at its deadline, every player gets each newsletter (in their
language) and the game master each digest, the next round opens with the
next deadline (``turnited status`` and the database), SIGTERM stops the
worker with status 0, and no password ever appears in the log.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from tests.e2e.conftest import GM, Game, duplicates, player, wait_until, whole_seconds

pytestmark = [pytest.mark.servers, pytest.mark.slow]

ANNA, BERND, CARLA, DORA, ERIK = (player(i) for i in range(1, 6))
PLAYERS = (ANNA, BERND, CARLA, DORA, ERIK)
ENGLISH = {BERND, DORA}

REGISTRATIONS = {
    ANNA: ("Aufstellung", "Hallo,\n\nNeues Team: Rote Teufel / Teufel\n"
           "Aufstellung: 10-10-15-15-20\n\nGruß Anna\n"),
    BERND: ("my lineup", "Hi,\n\nNew team: Blue Devils / Devils\n"
            "Lineup: GK 10 SW 10 D 20 M 25 F 25\n\nRegards, Bernd\n"),
    CARLA: ("Anmeldung", "Neues Team: FC Cortes / Cortes\nT8 A9 V20 M25 S28\n"),
    DORA: ("sign-up", "New team: Dreher 04 / Dreher\nLineup: 5-5-20-20-30\n"),
    ERIK: ("Anmeldung", "Neues Team: Eintracht Erik / Erik\nAufstellung: 10-10-20-20-20\n"),
}
ROUND_1 = {
    "Rote Teufel": "10-10-15-15-20",
    "Blue Devils": "10-10-20-25-25",
    "FC Cortes": "8-9-20-25-28",
    "Dreher 04": "5-5-20-20-30",
    "Eintracht Erik": "1-1-28-29-29",  # the correction, not the first lineup
}


def test_three_rounds_of_mail_deadlines_newsletters_and_reminders(game: Game) -> None:
    game.smtp.forward_to = game.dovecot  # players read their answers over IMAP
    t0 = whole_seconds(datetime.now(UTC))
    d1 = t0 + timedelta(seconds=18)
    d2 = d1 + timedelta(seconds=14)
    d3 = d2 + timedelta(hours=1, seconds=12)  # its 1-hour reminder fires 12 s after D2
    d4 = d3 + timedelta(days=7)
    game.configure([d1, d2, d3, d4], hours_before=[1], simulations=2000)
    smtp = game.smtp

    worker = game.start_worker()
    worker.wait_event("worker_started")
    assert game.rounds() == [(1, "open")]
    assert game.round_deadline(1) == d1

    # -- round 1: registrations, replies with passwords, a correction ----------
    sent_ids = dict(zip(PLAYERS, game.send_many(
        [(p, *REGISTRATIONS[p]) for p in PLAYERS]), strict=True))
    def all_answered() -> dict | None:
        got = {r.rcpt: r for r in smtp.sent_of("reply")}
        return got if len(got) == len(PLAYERS) else None

    replies = wait_until(all_answered, "a reply to each of the five registrations",
                         context=game.logs)
    for address, reply in replies.items():
        assert reply.in_reply_to == sent_ids[address]  # threaded under the player's mail
        assert reply.password, reply.text
    passwords = {a: r.password for a, r in replies.items()}
    assert "Blue Devils" in replies[BERND].text and "Password" in replies[BERND].text
    assert "Rote Teufel" in replies[ANNA].text and "Passwort" in replies[ANNA].text

    correction = game.send(ERIK, "Re: Anmeldung",
                           f"Passwort: {passwords[ERIK]}\nEintracht Erik: 1-1-28-29-29\n")
    assert "1-1-28-29-29" in game.reply_to(correction).text
    # The players read their answers in their own IMAP mailboxes.
    def erik_reads() -> list[bytes] | None:
        mails = game.dovecot.list_folder(user=ERIK)
        return mails if len(mails) == 2 else None

    erik_inbox = wait_until(erik_reads, "Erik's two answers in his INBOX")
    assert all(b"Eintracht Erik" in raw for raw in erik_inbox)
    assert datetime.now(UTC) < d1, (
        "the registrations took longer than round 1 lasts; the machine is too slow for "
        "this schedule")
    assert game.latest_lineups(1) == ROUND_1
    assert game.dovecot.list_folder("INBOX") == []  # every mail moved to Processed
    assert len(game.dovecot.list_folder("Processed")) == 6

    # -- D1: round 1 evaluated, newsletters, round 2 opens, its reminder is due ----
    wait_until(lambda: game.rounds() == [(1, "evaluated"), (2, "open")],
               "round 1 evaluated and round 2 open", context=game.logs)
    assert datetime.now(UTC) >= d1
    assert game.round_deadline(2) == d2
    news_1 = wait_until(lambda: _per_recipient(smtp.sent_of("newsletter"), 5),
                        "the round 1 newsletter to every player", context=game.logs)
    for address, [letter] in news_1.items():
        assert letter.message["Content-Language"] == ("en" if address in ENGLISH else "de")
        assert "Rote Teufel" in letter.text and "Eintracht Erik" in letter.text
        assert "1-1-28-29-29" not in letter.text  # never a player's lineup
    wait_until(lambda: [d for d in smtp.sent_of("digest") if d.rcpt == GM],
               "the round 1 digest to the game master", context=game.logs)
    # D2 - 1 h lies before the round opened: the due reminder goes out at once.
    reminders_2 = wait_until(lambda: _per_recipient(smtp.sent_of("reminder"), 5),
                             "the round 2 reminder to every player", context=game.logs)
    assert set(reminders_2) == set(PLAYERS)

    anna_2 = game.send(ANNA, "Runde 2", f"Passwort: {passwords[ANNA]}\n"
                                        "Rote Teufel: 12-12-22-22-22\n")
    assert "(Spielrunde 2)" in game.reply_to(anna_2).text
    assert datetime.now(UTC) < d2, "Anna's round 2 lineup was late: the machine is too slow"

    # -- D2: round 2 evaluated with Anna's lineup, round 3 opens -----------------
    wait_until(lambda: game.rounds() == [(1, "evaluated"), (2, "evaluated"), (3, "open")],
               "round 2 evaluated and round 3 open", context=game.logs)
    assert game.round_deadline(3) == d3
    assert game.latest_lineups(2) == {"Rote Teufel": "12-12-22-22-22"}
    anna_3 = game.send(ANNA, "Runde 3", f"Passwort: {passwords[ANNA]}\n"
                                        "Rote Teufel: 11-11-22-22-24\n")
    assert "(Spielrunde 3)" in game.reply_to(anna_3).text
    assert datetime.now(UTC) < d2 + timedelta(seconds=12), "the round 3 reminder came first"
    wait_until(lambda: _per_recipient(smtp.sent_of("newsletter"), 5, count=2),
               "the round 2 newsletter to every player", context=game.logs)

    # -- D3 - 1 h: the planned reminder reaches the four without a lineup --------
    worker.wait_event("reminders_queued", count=2, timeout=60)
    wait_until(lambda: len(smtp.sent_of("reminder")) >= 9,
               "the round 3 reminders", context=game.logs)
    time.sleep(1.0)  # room for a wrong extra reminder to show up
    reminders = smtp.sent_of("reminder")
    per_player = {p: len([r for r in reminders if r.rcpt == p]) for p in PLAYERS}
    assert per_player == {ANNA: 1, BERND: 2, CARLA: 2, DORA: 2, ERIK: 2}
    assert sorted((r["round"], r["hours_before"]) for r in game.query(
        "SELECT round, hours_before FROM reminders_sent")) == [(2, 1)] * 5 + [(3, 1)] * 4

    status = game.cli("status", "--lang", "en")
    assert status.returncode == 0, status.stderr
    assert "Round 3 (season 1, round 3); 2 rounds evaluated" in status.stdout
    assert "Teams with a lineup for round 3: 1" in status.stdout

    assert worker.terminate() == 0
    log = worker.log_text()
    assert "Traceback" not in log
    for secret in game.secrets():
        assert secret not in log
    assert [e["event"] for e in worker.events()][-1] == "worker_stopped"
    # Each evaluation started right at its deadline (not after a whole wait for mail).
    started = worker.events("evaluation_started")
    assert [e["deadline"] for e in started] == [d1.isoformat(), d2.isoformat()]
    for event in started:
        late = datetime.fromisoformat(event["ts"]) - datetime.fromisoformat(event["deadline"])
        assert timedelta(0) <= late < timedelta(seconds=5), event

    # Each round exactly once; each mail answered once; nothing sent twice.
    assert game.rounds() == [(1, "evaluated"), (2, "evaluated"), (3, "open")]
    assert [r[0] for r in game.query("SELECT round FROM round_results ORDER BY round")] == [1, 2]
    assert duplicates(smtp.sent()) == {}
    assert len(smtp.sent_of("reply")) == 8
    assert len(smtp.sent_of("digest")) == 2
    assert game.outbox_empty()


def _per_recipient(sent, players: int, *, count: int = 1):
    """recipient -> its copies when ``players`` recipients have ``count`` each."""
    groups: dict[str, list] = {}
    for s in sent:
        groups.setdefault(s.rcpt, []).append(s)
    if len(groups) == players and all(len(v) == count for v in groups.values()):
        return groups
    return None
