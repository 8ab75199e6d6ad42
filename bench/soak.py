"""Soak: the real worker for a long time against a private Dovecot and SMTP
server, with player mail, hostile mail, deadlines every few minutes and
``kill -9`` at random moments (issue 11). Not part of the test suite.

The worker is the real program (``python -m bot --config CFG run``, its own
process group, as in ``tests/e2e``). Players register, learn their password
from the bot's reply and send lineups every round; mixed in are hostile
mails: a huge line without a space, a huge Subject, broken MIME (a multipart
without its closing boundary, bad base64, an unknown charset, a deep
nesting), forged mails "from" a player without her password or with a wrong
one, an auto-reply and a bounce. Deadlines come every ``--deadline-minutes``
(explicit deadlines in the configuration); the worker is killed with SIGKILL
at random moments (every ``--kill-min``..``--kill-max`` seconds) and started
again at once.

At the end (no more kills, the inbox read, the outbox sent, SIGTERM) it prints:
mails in, replies out, rounds evaluated, newsletters, kills, lost (mails in
with no ledger row, or a human mail without a reply: must be 0), doubled
(copies of one Message-ID beyond the first: at most one per kill, the
message in flight) and the worker's peak memory (VmHWM, the largest of all
its runs). Exit status 1 when something was lost or doubled beyond that.

    python -m bench.soak [--minutes 60] [--players 20] [--deadline-minutes 3]
                         [--kill-min 20] [--kill-max 90] [--huge-line 60000]
                         [--seed 11] [--keep DIR]
"""

from __future__ import annotations

import argparse
import base64
import logging
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from email import policy
from email.utils import format_datetime, make_msgid
from pathlib import Path

from tests.e2e.conftest import (  # the end-to-end harness: real worker, real servers
    BOT,
    GM,
    SMTP_LOGIN,
    SMTP_PASSWORD,
    Game,
    RecordingSmtp,
    WorkerProcess,
    compose_mail,
    team_name,
)
from tests.servers import DovecotServer

CRLF = "\r\n"


def peak_kib(pid: int) -> int:
    """The process's peak resident memory (VmHWM) in KiB, 0 if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def raw_mail(sender: str, subject: str, headers: str, body: str) -> bytes:
    return (f"From: {sender}{CRLF}To: Turnited <{BOT}>{CRLF}Subject: {subject}{CRLF}"
            f"Date: {format_datetime(datetime.now(UTC))}{CRLF}"
            f"Message-ID: {make_msgid(domain='hostile.example')}{CRLF}{headers}{CRLF}"
            f"{body}").encode("utf-8", "surrogateescape")


class Soak:
    def __init__(self, args: argparse.Namespace, base: Path) -> None:
        self.args = args
        self.rng = random.Random(args.seed)
        self.players = [f"soak{n:02d}@example.org" for n in range(1, args.players + 1)]
        users = {BOT: "bot-imap-soak", GM: "gm-soak"}
        users.update({p: f"pw-{p}" for p in self.players})
        self.dovecot = DovecotServer(users, name="soak")
        self.smtp = RecordingSmtp(users={SMTP_LOGIN: SMTP_PASSWORD})
        self.base = base
        self.game: Game | None = None
        self.worker: WorkerProcess | None = None
        self.passwords: dict[str, str] = {}
        self.registered: set[str] = set()
        self.sent_ids: list[str] = []
        self.human_ids: set[str] = set()
        self.kills = 0
        self.peak = 0
        self.hostile = Counter()

    # -- mail -------------------------------------------------------------

    def append(self, raw: bytes, human: bool) -> None:
        from email import message_from_bytes

        assert self.game is not None
        message_id = str(message_from_bytes(raw, policy=policy.default)["Message-ID"]).strip()
        self.game.dovecot.append(raw)
        self.sent_ids.append(message_id)
        if human:
            self.human_ids.add(message_id)

    def lineup(self) -> str:
        while True:
            t, a = self.rng.choice((0, 5, 10)), self.rng.choice((0, 5, 10))
            rest = 90 - 2 * t - 2 * a
            v = self.rng.randint(10, rest - 20)
            m = self.rng.randint(5, rest - v - 5)
            s = rest - v - m
            if s >= 0:
                return f"{t}-{a}-{v}-{m}-{s}"

    def player_mail(self, player: str) -> None:
        if player not in self.registered:
            body = f"Hallo,\n\nNeues Team: {team_name(player)}\nAufstellung: {self.lineup()}\n"
            self.registered.add(player)
        elif player in self.passwords:
            body = f"Passwort: {self.passwords[player]}\n{team_name(player)}: {self.lineup()}\n"
        else:
            return  # waiting for the reply with the password
        msg = compose_mail(player, "Aufstellung", body)
        self.append(msg.as_bytes(policy=policy.SMTP), human=True)

    def hostile_mail(self) -> None:
        kind = self.rng.choice(("huge_line", "huge_subject", "open_multipart", "bad_base64",
                                "bad_charset", "deep_mime", "forged", "wrong_password",
                                "auto_reply", "bounce"))
        self.hostile[kind] += 1
        victim = self.rng.choice(self.players)
        n = self.args.huge_line
        if kind == "huge_line":
            raw = raw_mail(victim, "Aufstellung", "", "x" * n + CRLF)
        elif kind == "huge_subject":
            raw = raw_mail(victim, "A" * n, "", "Status" + CRLF)
        elif kind == "open_multipart":
            raw = raw_mail(victim, "kaputt", 'MIME-Version: 1.0\r\nContent-Type: multipart/'
                           'mixed; boundary="b1"\r\n', "--b1\r\nContent-Type: text/plain\r\n"
                           "\r\nStatus\r\n--b1\r\nContent-Type: text/plain\r\n\r\nnie zu")
        elif kind == "bad_base64":
            raw = raw_mail(victim, "b64", "MIME-Version: 1.0\r\nContent-Type: text/plain; "
                           "charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n",
                           "!!!%%%" + base64.b64encode(b"Status").decode()[:-1] + CRLF)
        elif kind == "bad_charset":
            raw = raw_mail(victim, "=?x-unknown?B?SGFsbG8=?=", "MIME-Version: 1.0\r\n"
                           "Content-Type: text/plain; charset=x-klingon\r\n", "Status\r\n")
        elif kind == "deep_mime":
            depth = 60
            head = "".join(f"--d{i}\r\nContent-Type: multipart/mixed; boundary=\"d{i + 1}\""
                           "\r\n\r\n" for i in range(depth))
            raw = raw_mail(victim, "tief", 'MIME-Version: 1.0\r\nContent-Type: multipart/mixed;'
                           ' boundary="d0"\r\n', head + f"--d{depth}\r\nContent-Type: text/plain"
                           "\r\n\r\nStatus\r\n")
        elif kind == "forged":
            body = f"{team_name(victim)}: 0-0-0-0-90\n"
            raw = compose_mail(victim, "Aufstellung", body).as_bytes(policy=policy.SMTP)
        elif kind == "wrong_password":
            body = f"Passwort: falsch-{self.rng.randint(0, 999)}\n{team_name(victim)}: 0-0-0-0-90\n"
            raw = compose_mail(victim, "Aufstellung", body).as_bytes(policy=policy.SMTP)
        elif kind == "auto_reply":
            raw = raw_mail(victim, "Abwesenheitsnotiz", "Auto-Submitted: auto-replied\r\n",
                           "Ich bin nicht im Büro.\r\n")
        else:
            raw = raw_mail(f"MAILER-DAEMON@{victim.split('@')[1]}", "Undelivered Mail",
                           "Content-Type: text/plain\r\n",
                           f"This is the mail system.\r\n<{victim}>: host said: 550 no such "
                           "user\r\n")
        self.append(raw, human=False)

    def learn_passwords(self) -> None:
        assert self.game is not None
        for reply in self.game.smtp.sent_of("reply"):
            known = reply.rcpt in self.registered and reply.rcpt not in self.passwords
            if known and reply.password:
                self.passwords[reply.rcpt] = reply.password

    # -- the worker --------------------------------------------------------

    def start_worker(self) -> None:
        assert self.game is not None
        self.worker = self.game.start_worker()

    def kill_worker(self) -> None:
        assert self.worker is not None
        self.peak = max(self.peak, peak_kib(self.worker.pid))
        self.worker.kill9()
        self.kills += 1

    # -- the run -----------------------------------------------------------

    def run(self) -> int:
        args = self.args
        self.dovecot.start()
        self.smtp.start()
        try:
            self.game = Game(self.base, self.dovecot, self.smtp)
            start = datetime.now(UTC)
            minutes = args.minutes
            step = timedelta(minutes=args.deadline_minutes)
            deadlines = [start + step * (i + 1) for i in range(int(minutes // args.deadline_minutes)
                                                                + 2)]
            # explicit deadlines at whole seconds; the last ones after the soak's end
            self.game.configure([d.replace(microsecond=0) for d in deadlines], language="de")
            self.start_worker()
            end = time.monotonic() + minutes * 60
            next_kill = time.monotonic() + self.rng.uniform(args.kill_min, args.kill_max)
            while time.monotonic() < end:
                for _ in range(self.rng.randint(1, 4)):
                    if self.rng.random() < 0.25:
                        self.hostile_mail()
                    else:
                        self.player_mail(self.rng.choice(self.players))
                self.learn_passwords()
                if time.monotonic() >= next_kill:
                    self.kill_worker()
                    if self.rng.random() < 0.3:
                        time.sleep(self.rng.uniform(0.5, 5))  # down for a moment
                    self.start_worker()
                    next_kill = time.monotonic() + self.rng.uniform(args.kill_min, args.kill_max)
                else:
                    assert self.worker is not None
                    self.peak = max(self.peak, peak_kib(self.worker.pid))
                if not self.worker.alive():
                    print(self.worker.log_tail(), file=sys.stderr)
                    raise SystemExit("soak: the worker exited on its own")
                time.sleep(self.rng.uniform(0.5, 3.0))
            return self.finish()
        finally:
            if self.game is not None:
                self.game.kill_all()
            self.smtp.wait_stopped()
            self.smtp.stop()
            self.dovecot.remove()

    def settle(self, timeout: float = 600) -> bool:
        """Wait until the inbox is read, every mail ledgered and the outbox sent."""
        assert self.game is not None
        game = self.game
        limit = time.monotonic() + timeout
        while time.monotonic() < limit:
            inbox = game.dovecot.list_folder("INBOX")
            waiting = game.scalar("SELECT count(*) FROM outbox WHERE state IN "
                                  "('queued', 'sending')")
            if not inbox and waiting == 0:
                return True
            assert self.worker is not None
            self.peak = max(self.peak, peak_kib(self.worker.pid))
            time.sleep(1)
        return False

    def finish(self) -> int:
        assert self.game is not None and self.worker is not None
        game = self.game
        settled = self.settle()
        self.peak = max(self.peak, peak_kib(self.worker.pid))
        status = self.worker.terminate()
        ledgered = {r[0] for r in game.query("SELECT message_id FROM inbound")}
        lost_ledger = [m for m in self.sent_ids if m not in ledgered]
        replies = game.smtp.sent_of("reply")
        answered = {r.in_reply_to for r in replies}
        lost_reply = sorted(m for m in self.human_ids if m not in answered)
        copies = Counter(s.message_id for s in game.smtp.sent())
        doubled = sum(n - 1 for n in copies.values() if n > 1)
        rounds = game.scalar("SELECT count(*) FROM rounds WHERE state = 'evaluated'")
        newsletters = len(game.smtp.sent_of("newsletter"))
        failed = game.scalar("SELECT count(*) FROM outbox WHERE state = 'failed'")
        bodies = game.scalar("SELECT count(*) FROM outbox WHERE state = 'sent' AND length(raw) > 0")
        lost = len(lost_ledger) + len(lost_reply)
        print(f"soak: {self.args.minutes:g} min, {len(self.players)} players, "
              f"deadlines every {self.args.deadline_minutes:g} min")
        print(f"mails in:          {len(self.sent_ids)} ({len(self.human_ids)} player mails, "
              f"{sum(self.hostile.values())} hostile: "
              + ", ".join(f"{k} {v}" for k, v in sorted(self.hostile.items())) + ")")
        print(f"replies out:       {len(replies)}")
        print(f"rounds evaluated:  {rounds}; newsletters {newsletters}")
        print(f"kill -9:           {self.kills}")
        print(f"lost:              {lost} ({len(lost_ledger)} not ledgered, "
              f"{len(lost_reply)} player mails without a reply)")
        print(f"doubled:           {doubled} (allowed: one in flight per kill, {self.kills})")
        print(f"outbox:            {failed} failed, {bodies} delivered bodies kept")
        print(f"peak memory:       {self.peak / 1024:.0f} MiB (worker VmHWM)")
        print(f"settled: {settled}; last worker's exit status on SIGTERM: {status}")
        for message_id in (lost_ledger + lost_reply)[:5]:
            print(f"  lost: {message_id}")
        ok = settled and lost == 0 and doubled <= self.kills and bodies == 0
        print("OK" if ok else "PROBLEM")
        return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    logging.getLogger("mail.log").setLevel(logging.ERROR)  # aiosmtpd's deprecation notes
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--deadline-minutes", type=float, default=3.0)
    parser.add_argument("--kill-min", type=float, default=20.0)
    parser.add_argument("--kill-max", type=float, default=90.0)
    parser.add_argument("--huge-line", type=int, default=60_000,
                        help="characters of the huge line and the huge Subject")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--keep", type=Path, help="keep the game directory in DIR")
    args = parser.parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        return Soak(args, args.keep).run()
    with tempfile.TemporaryDirectory(prefix="turnited-soak-") as tmp:
        code = Soak(args, Path(tmp)).run()
        shutil.rmtree(Path(tmp) / "game", ignore_errors=True)
        return code


if __name__ == "__main__":
    raise SystemExit(main())
