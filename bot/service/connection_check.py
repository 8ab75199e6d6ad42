"""``turnited check --connect``: can the bot read and send with these
settings? Before the first player writes, a wrong host, port, TLS mode,
login, folder or sender shows here, one line per step, instead of in the
running worker's log.

IMAP (``bot.mail.imap_probe``) and SMTP (``bot.mail.smtp_probe``) are
checked at the same time, each with its own ``timeout`` per network step,
so a server that does not answer costs about ``timeout`` seconds, not twice
that. Nothing is sent: the sender is tried with ``MAIL FROM`` and ``RSET``.
The only change the check may make is the one the bot would make at once:
a missing processed or quarantine folder is created. Passwords and tokens
are used, never shown.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from bot.mail.imap_probe import probe_imap
from bot.mail.imap_settings import ImapSettings
from bot.mail.probe import Status, Step
from bot.mail.smtp_probe import probe_smtp
from bot.mail.smtp_settings import SmtpSettings

#: Seconds each network step may wait for the server.
DEFAULT_TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class ConnectionReport:
    """The steps of both servers, IMAP first; empty with the embedded
    Maildir transport (there is no server to check)."""

    transport: str
    steps: tuple[Step, ...]

    @property
    def ok(self) -> bool:
        return all(step.status is not Status.PROBLEM for step in self.steps)

    def as_json(self) -> dict[str, object]:
        return {"transport": self.transport, "ok": self.ok,
                "steps": [step.as_json() for step in self.steps]}


def check_connections(transport: str, imap: ImapSettings, smtp: SmtpSettings, *,
                      mail_from: str, timeout: float = DEFAULT_TIMEOUT) -> ConnectionReport:
    """Check both servers of the ``imap`` transport (``mail_from``: the
    bot's address, the envelope sender of every mail)."""
    if not timeout > 0:
        raise ValueError(f"timeout={timeout!r}: expected seconds > 0")
    if transport != "imap":
        return ConnectionReport(transport, ())
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="check-connect") as pool:
        reading = pool.submit(probe_imap, imap, timeout=timeout)
        sending = pool.submit(probe_smtp, smtp, mail_from=mail_from, timeout=timeout)
        return ConnectionReport(transport, (*reading.result(), *sending.result()))
