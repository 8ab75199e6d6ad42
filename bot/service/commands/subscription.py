"""``Abmelden`` / ``Unsubscribe`` and ``Anmelden`` / ``Subscribe`` (RULES.md §12):
newsletters and reminders off and on again.

Unsubscribing needs no password: a mail client's unsubscribe button (the
``List-Unsubscribe: <mailto:BOT?subject=Abmelden>`` of every newsletter and
reminder, ``bot.mail.compose``) sends a bare mail with that subject. It only
stops mail (``League.recipients``, ``League.managers_without_lineup`` and
``remind --missing`` leave the manager out), and the reply goes to the
registered address only, never to a Reply-To, so a forged unsubscription is
seen by the manager, who undoes it with ``Anmelden`` (with his password, as
every command that is not marked otherwise). His teams keep playing whenever
he sends a lineup, and every mail of his is still answered.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import N_
from bot.league.outcome import Code
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands.base import Access, Command, Session
from bot.storage import managers as manager_rows

UNSUBSCRIBED = "unsubscribed"
SUBSCRIBED = "subscribed"
SUBSCRIPTION_UNKNOWN = "subscription_unknown"


@dataclass(frozen=True, slots=True)
class Unsubscribe(Request):
    pass


@dataclass(frozen=True, slots=True)
class Subscribe(Request):
    pass


def unsubscribe(s: Session, request: Unsubscribe) -> None:
    manager = s.manager
    if manager is None:
        s.note(SUBSCRIPTION_UNKNOWN, address=s.address)
        return
    s.reply_to, s.reply_to_name = manager.address, manager.display_name
    if not manager.unsubscribed:
        manager_rows.set_unsubscribed(s.conn, manager.id, s.now)
    s.note(UNSUBSCRIBED, already=manager.unsubscribed)


def subscribe(s: Session, request: Subscribe) -> None:
    manager = s.manager
    if manager is None:  # "Anmelden" from a stranger: he wants to play
        s.note(Code.NOT_REGISTERED, address=s.address)
        return
    if manager.unsubscribed:
        manager_rows.set_unsubscribed(s.conn, manager.id, None)
    s.note(SUBSCRIBED, already=not manager.unsubscribed)


COMMANDS = (
    Command(
        Unsubscribe, unsubscribe, Access.ANYONE, codes={
            UNSUBSCRIBED: N_("Unsubscribed from newsletters and reminders."),
            SUBSCRIPTION_UNKNOWN: N_("Unsubscribe from an address without a manager.")},
        keyword=KeywordCommand(
            "unsubscribe", {"de": ("abmelden", "abbestellen"), "en": ("unsubscribe",)},
            Value.NONE, lambda line, value: Unsubscribe(line),
        ),
    ),
    Command(
        Subscribe, subscribe, Access.MANAGER,
        codes={SUBSCRIBED: N_("Subscribed to newsletters and reminders again.")},
        keyword=KeywordCommand(
            "subscribe", {"de": ("anmelden",), "en": ("subscribe", "resubscribe")},
            Value.NONE, lambda line, value: Subscribe(line),
        ),
    ),
)
