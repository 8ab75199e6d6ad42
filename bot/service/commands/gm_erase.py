"""``Daten löschen: ADDRESS`` / ``Erase data: ADDRESS`` in the game master's
mail (RULES.md §12, §13): a manager's data erased on the game master's
word, in two steps (``_gm.ask``): the first mail gets what would go and a
code; only a second one with ``Bestätigen: CODE`` erases, with the players'
erasure (``bot.league.erasure.erase``, as ``erase_data`` does): address, name
and password gone, his teams retire (keeping WP and places in the results),
the ledger, outbox, bounces and spooled mails forget the address. The
manager is not told (nothing may keep his address: a mail to him would).
The address must still be that manager's when the code comes back."""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import N_
from bot.league import erasure
from bot.league.confirmations import Confirmation
from bot.league.service import UnknownManager
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands._gm import ERROR_CODES, ask, refused, registered, two_step
from bot.service.commands.base import Access, Audience, Command, Session
from bot.service.commands.new_address import parse_address
from bot.storage import managers as manager_rows
from bot.storage import teams as team_rows

#: The purpose of a waiting erasure of the game master's (``confirmations``).
ERASE = "gm_erase"
GM_ERASE_CODE = "gm_erase_code"
GM_ERASED = "gm_erased"


@dataclass(frozen=True, slots=True)
class GmErase(Request):
    address: str


def gm_erase(s: Session, request: GmErase) -> None:
    manager = registered(s, request, request.address)
    if manager is None:
        return
    teams = [t.name for t in team_rows.teams_of_manager(s.conn, manager.id)]
    ask(s, ERASE, GM_ERASE_CODE, manager_id=manager.id, payload={"address": manager.address},
        address=manager.address, teams=teams)


@two_step(ERASE)
def carry_out_erase(s: Session, confirmed: Confirmation, request: Request) -> None:
    address = str(confirmed.payload["address"])
    manager = manager_rows.manager_by_address(s.conn, address)
    if manager is None or manager.id != confirmed.manager_id:  # moved or gone since
        refused(s, request, UnknownManager(address))
        return
    done = erasure.erase(s.conn, manager.address, manager, s.now)
    s.note(GM_ERASED, retired=list(done.retired),  # the address is not repeated
           cancelled=list(done.cancelled))


COMMANDS = (
    Command(
        GmErase, gm_erase, Access.GM, audience=Audience.GM,
        codes={GM_ERASE_CODE: N_("The game master asked to delete a manager's data; code "
                                 "mailed to him."),
               GM_ERASED: N_("The game master deleted a manager's data."), **ERROR_CODES},
        keyword=KeywordCommand(
            "gm_erase", {"de": ("daten löschen", "daten loeschen"),
                         "en": ("erase data", "delete data")}, Value.REQUIRED,
            lambda line, value: GmErase(line, parse_address(value)),
            example=N_("Erase data: anna@example.org"),
            missing=N_("no address after the keyword")),
    ),
)
