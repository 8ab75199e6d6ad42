"""``Rundschreiben`` / ``Broadcast`` in the game master's mail (RULES.md
§13): the rest of the mail is an announcement to every manager (not a
banned one), read as ``turnited broadcast FILE`` reads its file — a first
line ``Betreff: ...`` / ``Subject: ...`` is its subject — and sent by the
same use case (``bot.service.broadcast``); ``Rundschreiben: alle`` /
``Broadcast: all`` sends it to the newsletter's subscribers too (``--all``).
The same text twice is sent once. The lines below the keyword are handed
over by ``gm_access.read_moves`` (``BLOCKS``)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import N_, TurnitedError
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.broadcast import broadcast, parse_announcement
from bot.service.commands._gm import ERROR_CODES, refused
from bot.service.commands.base import Access, Audience, Command, Session

GM_BROADCAST = "gm_broadcast"
#: What may follow the keyword: the subscribers too.
ALL = frozenset({"alle", "an alle", "all", "to all", "everyone"})
ALONE = N_("write 'Broadcast' alone on its line, or 'Broadcast: all' for the newsletter's "
           "subscribers too; the announcement follows on the lines below")


@dataclass(frozen=True, slots=True)
class GmBroadcast(Request):
    """The announcement as written (its first line may be ``Subject: ...``)."""

    text: str
    subscribers: bool = False


def read(line: str, value: str) -> GmBroadcast:
    head, _, text = value.partition("\n")
    head = " ".join(head.strip(" :=-").split()).lower()
    if head and head not in ALL:
        raise ValueError(ALONE)
    return GmBroadcast(line, text, bool(head))


def gm_broadcast(s: Session, request: GmBroadcast) -> None:
    try:
        announcement = parse_announcement(request.text.encode("utf-8"))
        report = broadcast(s.ctx, announcement, subscribers=request.subscribers)
    except TurnitedError as error:
        refused(s, request, error)
        return
    s.note(GM_BROADCAST, report=report, subject=announcement.subject)


COMMANDS = (
    Command(
        GmBroadcast, gm_broadcast, Access.GM, audience=Audience.GM,
        codes={GM_BROADCAST: N_("The game master sent an announcement."), **ERROR_CODES},
        keyword=KeywordCommand("gm_broadcast", {"de": ("rundschreiben", "rundbrief"),
                                                "en": ("broadcast",)},
                               Value.OPTIONAL, read),
    ),
)
