"""What the bot mailed in a pipeline test (``tests.service.harness.Game``): each
message the outbox delivered since the last look, with its plain text."""

from __future__ import annotations

import email
import email.message
from dataclasses import dataclass
from email import policy

from tests.service.harness import Game


@dataclass(frozen=True)
class Mailed:
    to: str
    subject: str
    text: str
    html: str | None
    message: email.message.EmailMessage


class Outbox:
    """The mails delivered since the last ``new()``."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.seen = 0

    def new(self) -> list[Mailed]:
        sent = self.game.flush()
        fresh, self.seen = sent[self.seen:], len(sent)
        out = []
        for item in fresh:
            msg = email.message_from_bytes(item.raw, policy=policy.default)
            assert isinstance(msg, email.message.EmailMessage)
            plain, html = msg.get_body(("plain",)), msg.get_body(("html",))
            out.append(Mailed(item.rcpt, str(msg["Subject"]),
                              plain.get_content() if plain else "",
                              html.get_content() if html else None, msg))
        return out

    def one(self) -> Mailed:
        """The one mail delivered since the last look."""
        (mail,) = self.new()
        return mail
