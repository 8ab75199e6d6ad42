"""``Sperren: ADDRESS`` / ``Ban: ADDRESS`` in the game master's mail (RULES.md
§13), in two steps (``_gm.ask``): the first mail gets a code, and only a
second one with ``Bestätigen: CODE`` bans the manager, as ``turnited manager
ban`` does (``bot.service.console.ban``): his mails get no reply and change
nothing, his teams sit out, no newsletter, no reminder; his WP stay. A
manager banned already is told so at once (nothing to confirm).
(``gm_unban`` lifts a ban in one mail.)"""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import N_
from bot.league.confirmations import Confirmation
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands._gm import ERROR_CODES, answer, ask, registered, two_step
from bot.service.commands.base import Access, Audience, Command, Session
from bot.service.commands.new_address import parse_address
from bot.service.console import ban

#: The purpose of a waiting ban (``confirmations``).
BAN = "gm_ban"
GM_BAN_CODE = "gm_ban_code"
GM_BAN = "gm_ban"


@dataclass(frozen=True, slots=True)
class GmBan(Request):
    address: str


def gm_ban(s: Session, request: GmBan) -> None:
    manager = registered(s, request, request.address)
    if manager is None:
        return
    if manager.banned:
        s.note(GM_BAN, result=ban(s.ctx, manager.address))  # nothing changes
    else:
        ask(s, BAN, GM_BAN_CODE, manager_id=manager.id, payload={"address": manager.address},
            address=manager.address)


@two_step(BAN)
def carry_out_ban(s: Session, confirmed: Confirmation, request: Request) -> None:
    # (a manager gone since the first mail: an error of the line)
    answer(s, request, GM_BAN, lambda: ban(s.ctx, str(confirmed.payload["address"])))


COMMANDS = (
    Command(
        GmBan, gm_ban, Access.GM, audience=Audience.GM,
        codes={GM_BAN_CODE: N_("The game master asked to ban a manager; code mailed to him."),
               GM_BAN: N_("The game master banned a manager."), **ERROR_CODES},
        keyword=KeywordCommand(
            "gm_ban", {"de": ("sperren",), "en": ("ban",)}, Value.REQUIRED,
            lambda line, value: GmBan(line, parse_address(value)),
            example=N_("Ban: anna@example.org"), missing=N_("no address after the keyword")),
    ),
)
