"""``Daten löschen`` / ``Delete my data`` (RULES.md §12): leave the game, and
the game forgets the address.

**Decision** (a code for an irreversible request): RULES.md §12 asks no
second mail of the player, but the erasure cannot be undone, a password
travels in clear in every mail (a forwarded or leaked one suffices to send
this line), and a line such as ``Daten löschen`` is easily written in
passing. So it takes two mails, with the one mechanism the game master's
destructive commands use too (RULES.md §13; ``bot.league.confirmations``):
this one (with the password) gets a code in its reply, which goes to the
registered address only; a second mail from that address with
``Bestätigen: CODE`` (and the password) within 7 days carries it out
(``carry_out_erasure``, through ``confirm``). Until then nothing changes.

Then (``bot.league.erasure``): the manager's address, name and password
are erased, his teams retire (they keep their WP and their place in the
results; the tables show them with "—" as manager while they are listed),
the ledger, the outbox and the bounces forget the address, and his raw
mails leave the spool. The reply to the confirming mail is the last mail
to the address; once it is sent its recipient is erased too
(``bot.service.erasure``). Someone without a manager, who only ever wrote,
can have the traces of his mails erased the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import N_
from bot.league import confirmations, erasure
from bot.league.confirmations import Confirmation
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands.base import Access, Command, Session
from bot.storage import erasure as erasure_rows

#: The purpose of a waiting erasure (``confirmations``).
ERASE = "erase"

ERASE_CODE = "erase_code"
ERASED = "erased"


@dataclass(frozen=True, slots=True)
class EraseData(Request):
    pass


def request_erasure(s: Session, request: EraseData) -> None:
    manager = s.manager
    address = manager.address if manager is not None else s.address
    issued = confirmations.issue(s.conn, purpose=ERASE, confirm_from=address,
                                 manager_id=manager.id if manager else None, now=s.now)
    s.reply_to = address
    s.reply_to_name = manager.display_name if manager is not None else None
    teams = [t.name for t in s.own_teams()] if manager is not None else []
    s.note(ERASE_CODE, confirmation=confirmations.shown(issued.code), until=issued.expires_at,
           teams=teams, registered=manager is not None)


def carry_out_erasure(s: Session, confirmed: Confirmation) -> None:
    """The erasure a code from the registered address confirmed (``confirm``)."""
    manager = s.manager
    if manager is not None and confirmed.manager_id != manager.id:  # pragma: no cover
        raise RuntimeError("an erasure confirmed for another manager")
    if manager is not None and manager.language_chosen:
        s.language = manager.language  # the farewell in the language he chose
    done = erasure.erase(s.conn, confirmed.confirm_from, manager, s.now)
    if s.inbound_id is not None:
        erasure_rows.mark_farewell(s.conn, s.inbound_id, s.now)
    s.reply_to, s.reply_to_name = confirmed.confirm_from, None
    s.manager = None  # nobody is left to show teams or a name of
    s.deadline = None  # nor a deadline to
    s.note(ERASED, retired=list(done.retired), cancelled=list(done.cancelled),
           registered=manager is not None)


COMMANDS = (
    Command(
        EraseData, request_erasure, Access.MANAGER, codes={
            ERASE_CODE: N_("Asked to delete the data; code mailed."),
            ERASED: N_("Data deleted on request (address erased).")},
        keyword=KeywordCommand(
            "erase",
            {"de": ("daten löschen", "daten loeschen", "meine daten löschen",
                    "meine daten loeschen"),
             "en": ("delete my data", "delete data", "erase my data")},
            Value.NONE, lambda line, value: EraseData(line),
        ),
    ),
)
