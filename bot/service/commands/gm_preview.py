"""``Vorschau`` / ``Preview`` in the game master's mail (RULES.md §13): the
open round evaluated on a copy of the state and its newsletter, as
``turnited evaluate --dry-run`` shows it (``bot.service.preview``): before
the deadline with a fresh random seed, never the committed one, said in its
first line; after the deadline with the committed seed. Every preview is
recorded (by mail) and listed in the round's digest."""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import N_
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands.base import Access, Audience, Command, Session
from bot.storage.previews import MAIL

GM_PREVIEW = "gm_preview"
GM_NO_PREVIEW = "gm_no_preview"


@dataclass(frozen=True, slots=True)
class GmPreview(Request):
    pass


def gm_preview(s: Session, request: GmPreview) -> None:
    from bot.service.preview import preview  # evaluation and numpy: only when asked

    result = preview(s.ctx, via=MAIL, language=s.moves.language)
    if result is None:
        s.note(GM_NO_PREVIEW)
        return
    s.note(GM_PREVIEW, text=result.preview.text, fresh=result.fresh, round=result.round)


COMMANDS = (
    Command(
        GmPreview, gm_preview, Access.GM, audience=Audience.GM,
        codes={GM_PREVIEW: N_("The game master asked for a preview."),
               GM_NO_PREVIEW: N_("The game master asked for a preview, but no round is open.")},
        keyword=KeywordCommand("gm_preview", {"de": ("vorschau",), "en": ("preview",)},
                               Value.NONE, lambda line, value: GmPreview(line)),
    ),
)
