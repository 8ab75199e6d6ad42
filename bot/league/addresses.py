"""The league's spelling of a sender's address, and the numbering of rounds:
two small facts read by the mail's commands and by the console alike (kept
apart from ``bot.league.moves`` so a console command loads neither the
names' look-alike tables nor the lineup language)."""

from __future__ import annotations

from email.utils import parseaddr

from bot.league.errors import BadAddress
from bot.storage.addresses import canonical_address


def normalize_address(sender: str) -> str:
    """The lower-cased ``local@domain`` of a sender (display names dropped),
    in the one spelling the league keys managers by (``canonical_address``:
    an internationalised domain in Unicode, whichever form the mail used)."""
    _, address = parseaddr(sender or "")
    address = address.strip().lower()
    local, at, domain = address.rpartition("@")
    if not at or not local or not domain or " " in address:
        raise BadAddress(sender)
    return canonical_address(address)


def next_numbering(season: int, round_in_season: int, season_rounds: int) -> tuple[int, int]:
    """(season, round in season) of the round after the given one."""
    if round_in_season >= season_rounds:
        return season + 1, 1
    return season, round_in_season + 1


__all__ = ["next_numbering", "normalize_address"]
