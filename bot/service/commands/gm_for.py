"""``Für ADDRESS:`` / ``For ADDRESS:`` in the game master's mail (RULES.md
§13): the lines below it, up to the next such line (``gm_access.BLOCKS``),
are carried out as that manager's mail, read with the players' grammar and
his team names, by the players' runner (``runner.carry_out``) — without his
password: the game master's checks stand for it. The manager gets a copy of
the reply, in his language, that opens by saying the game master sent the
lines; the game master's one reply shows the same text. The block is its own
mail: an error in it changes nothing of the manager's (and says so in the
copy), the rest of the game master's mail still counts. Only a registered
manager can be acted for (nobody is registered this way)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from bot.errors import N_
from bot.league.moves import sender_team_names
from bot.league.outcome import Notice
from bot.mail.compose import MailKind
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands import registry
from bot.service.commands._gm import ERROR_CODES, registered
from bot.service.commands.base import Access, Audience, Command, Session
from bot.service.commands.new_address import parse_address
from bot.service.outgoing import queue_mail

GM_FOR = "gm_for"
#: The first notice of the manager's copy: the game master sent these lines.
GM_ACTED = "gm_acted"


@dataclass(frozen=True, slots=True)
class GmFor(Request):
    """The lines below ``Für ADDRESS:``, as that manager's mail."""

    address: str
    text: str


def read(line: str, value: str) -> GmFor:
    head, _, text = value.partition("\n")
    return GmFor(line, parse_address(head.strip().rstrip(":").strip()), text)


def gm_for(s: Session, request: GmFor) -> None:
    # The registry loads every command module (``status`` too): the mail
    # pipeline only when a block is carried out.
    from bot.mail.grammar import parse_moves
    from bot.render.reply import render_reply
    from bot.service.commands.runner import carry_out

    manager = registered(s, request, request.address)
    if manager is None:
        return
    commands = registry()
    moves = parse_moves("", request.text, vocabulary=commands.vocabulary(),
                        team_names=sender_team_names(s.conn, manager.address))
    outcome = carry_out(s.conn, s.settings, sender=manager.address,
                        sender_name=manager.display_name, moves=moves, now=s.now, lot=s.lot,
                        context=s.ctx, inbound_id=s.inbound_id, commands=commands, gm=True)
    outcome = dataclasses.replace(outcome, notices=[Notice(GM_ACTED), *outcome.notices])
    settings = s.ctx.settings
    copy = render_reply(outcome, subject=None, now=s.now, timezone=settings.timezone,
                        game_name=settings.game_name, game_address=settings.game_address,
                        env=s.ctx.environments)
    done = sum(1 for n in s.notices if n.code == GM_FOR)
    queue_mail(s.conn, sender=settings.sender, kind=MailKind.REPLY,
               to=outcome.reply_to or manager.address,
               to_name=outcome.reply_to_name or manager.display_name, rendered=copy,
               key=f"gm-for/{s.inbound_id or s.message_id}/{done}", now=s.now,
               inbound_id=s.inbound_id)
    s.note(GM_FOR, address=manager.address, accepted=outcome.accepted, text=copy.text)


COMMANDS = (
    Command(
        GmFor, gm_for, Access.GM, audience=Audience.GM,
        codes={GM_FOR: N_("The game master sent lines for a manager (he got a copy)."),
               GM_ACTED: N_("The game master sent these lines for the manager."),
               **ERROR_CODES},
        keyword=KeywordCommand(
            "gm_for", {"de": ("für", "fuer"), "en": ("for",)}, Value.REQUIRED, read,
            example=N_("For anna@example.org:"), missing=N_("no address after the keyword")),
    ),
)
