"""A player writing to the bot through the real Maildir pipeline, reading its
replies: the helper of the tests of issue 20's explaining half (the help,
the corrections, the status, the rules, the commitment, the late reply)."""

from __future__ import annotations

import email
import re
from decimal import Decimal
from email import policy

from tests.service.harness import Game

_PASSWORD = re.compile(r"(?:Passwort|Password): (\w{3}-\w{3}-\w{3})\b")


class Player:
    """One address; ``write`` sends a mail (the password added once known)
    and returns the plain text of the one reply."""

    def __init__(self, game: Game, address: str, *, language: str = "de") -> None:
        self.game, self.address, self.language = game, address, language
        self.subject = "Aufstellung" if language == "de" else "My lineup"
        self.password: str | None = None

    def write(self, body: str, *, password: bool = True, subject: str | None = None) -> str:
        if password and self.password:
            keyword = "Passwort" if self.language == "de" else "Password"
            body = f"{keyword}: {self.password}\n{body}"
        self.game.send(self.game.mail(self.address, body, subject=subject or self.subject))
        [text] = [t for to, t in sent(self.game) if to == self.address]
        found = _PASSWORD.search(text)
        if found and self.password is None:
            self.password = found.group(1)
        self.game.clock.advance(minutes=3)
        return text

    def set_wp(self, team: str, wp: str) -> None:
        """The WP a team has (as after earlier rounds)."""
        with self.game.db.transaction() as conn:
            conn.execute("UPDATE teams SET wp = ? WHERE name = ?", (str(Decimal(wp)), team))


def sent(game: Game) -> list[tuple[str, str]]:
    """(recipient, plain text) of every mail sent since the last call."""
    seen = getattr(game, "seen", 0)
    every = game.flush()
    game.seen = len(every)  # type: ignore[attr-defined]
    out = []
    for mail in every[seen:]:
        msg = email.message_from_bytes(mail.raw, policy=policy.default)
        body = msg.get_body(("plain",))
        text = body.get_content().replace("\r\n", "\n") if body else ""
        out.append((msg["To"].addresses[0].addr_spec, text))
    return out


def folded(text: str) -> str:
    """``text`` with every run of white space one space (wrapping undone)."""
    return " ".join(text.split())
