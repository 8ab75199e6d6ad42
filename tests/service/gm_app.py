"""The whole application with a game master by mail (RULES.md §13): the
``business_app`` league with ``gm.password_env`` set (and, when asked, the
receiving server's ``authserv_id``); his mails in through the inbox, every
mail out read from the Maildir's ``sent`` folder."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

from tests.service.business_app import BOT, GM, League, kind, text_of, to

GM_PASSWORD = "Grün-und-geheim-42"
ENV_NAME = "TURNITED_GM_PASSWORD"
#: The receiving server whose Authentication-Results count (when configured).
AUTHSERV = "mx.game.example"

__all__ = ["AUTHSERV", "BOT", "GM", "GM_PASSWORD", "gm_league", "gm_send", "only_reply",
           "reply_and_others"]


def gm_league(root: Path, *, authserv_id: str | None = None,
              **sections: dict[str, object]) -> League:
    extra: dict[str, dict[str, object]] = {"gm": {"password_env": ENV_NAME}, **sections}
    if authserv_id:
        extra["mail"] = {"trust": {"authserv_id": authserv_id}}
    return League(root, extra, environ={ENV_NAME: GM_PASSWORD})


def gm_send(league: League, body: str, *, password: str | None = GM_PASSWORD,
            sender: str = GM, subject: str = "Spielleitung", english: bool = False,
            **headers: str) -> list[EmailMessage]:
    """A mail of the game master's (with his GM password line unless None); the mails sent."""
    line = ("GM password: " if english else "GM-Passwort: ") + (password or "")
    return league.send(sender, (line + "\n" if password is not None else "") + body, subject,
                       **headers)


def only_reply(mails: list[EmailMessage]) -> str:
    """The one mail sent, a reply to the game master; its text."""
    assert [(to(m), kind(m)) for m in mails] == [(GM, "reply")], [(to(m), kind(m)) for m in mails]
    text = text_of(mails[0])
    assert GM_PASSWORD not in text
    return text


def reply_and_others(mails: list[EmailMessage]) -> tuple[str, list[EmailMessage]]:
    """The one reply to the game master (its text) and the other mails sent."""
    replies = [m for m in mails if to(m) == GM and kind(m) == "reply"]
    assert len(replies) == 1, [(to(m), kind(m)) for m in mails]
    return only_reply(replies), [m for m in mails if m is not replies[0]]
