"""The player corpus (issue 20): realistic mails of players, each through the
real mail path with the effect it must have.

``tests/corpus/players/*.eml`` are mails as players write them (German and
English; phone, HTML-only and quoted replies; typos, greetings, questions,
good and broken lines mixed); ``effects.toml`` beside them says, for each,
what is stored, what the one reply must (not) say, and whether the mail goes
to the game master. Every mail is delivered to the Maildir inbox of a fresh
league that holds ``CAST`` and read by the ingest as the worker would.

``count_handled(root)`` (``python -m tests.service.test_player_corpus``)
prints how many mails a checkout handles right: the figure of the issue's
closing note (before and after the change).
"""

from __future__ import annotations

import email
import sys
import tempfile
import tomllib
from decimal import Decimal
from email import policy
from pathlib import Path

import pytest

from bot.league.names import name_key
from bot.league.passwords import hash_password
from bot.mail.maildir_transport import deliver
from bot.rules.lineup import Lineup
from bot.storage import managers as manager_rows
from bot.storage import moves as move_rows
from bot.storage import teams as team_rows
from tests.service.harness import START, Game

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "players"
GM = "gm@turnited.example"
#: address -> (name, password, language, ((team, short name), ...))
CAST = {
    "ole@kiez.example": ("Ole Hansen", "k7f-x2q-m4p", "de",
                         (("Kiez Kicker", "Kiez"), ("Hafen Elf", "Hafen"))),
    "sam@rovers.example": ("Sam Taylor", "r8v-pq2-n4m", "en",
                           (("Bath Rovers", "Bath"), ("Exeter Wanderers", "Exeter"))),
    "jens@koepenick.example": ("Jens Krüger", "h3r-t4a-k6p", "de",
                               (("Hertha Köpenick", "Köpenick"),)),
    "lena@altona.example": ("Lena Berg", "w5s-t7f-a2l", "de",
                            (("Westfalia Altona", "Westfalia"),)),
    "anna.schulz@luebeck.example": ("Anna Schulz", "b6w-l9k-q3z", "de",
                                    (("Blau-Weiß Lübeck", "BW Lübeck"),)),
    "mike@dublin.example": ("Mike O'Brien", "m2k-o4b-r7n", "en", (("Dublin Harps", "Harps"),)),
}
START_LINEUP = "10-10-15-15-20"


def effects() -> list[dict]:
    with (CORPUS / "effects.toml").open("rb") as handle:
        return tomllib.load(handle)["mail"]


def cast(game: Game) -> None:
    """The managers of ``CAST``, their teams (played before) and their lineups."""
    with game.db.transaction() as conn:
        for address, (name, password, language, teams) in CAST.items():
            manager = manager_rows.insert_manager(conn, address, name,
                                                  hash_password(password, n=2**4), START, 1)
            manager_rows.update_manager(conn, manager, language=language)
            for team, short in teams:
                team_id = team_rows.insert_team(
                    conn, name=team, name_key=name_key(team), short_name=short,
                    manager_id=manager, wp=Decimal("90.00"), psz=Decimal("250.00"),
                    registered_round=0, now=START)
                conn.execute("UPDATE teams SET last_played_round = 0 WHERE id = ?", (team_id,))
                move_rows.insert_move(conn, round_number=1, team_id=team_id, line="setup",
                                      lineup=Lineup.parse(START_LINEUP), now=START,
                                      inbound_id=None, message_id=None)


def lineups(game: Game) -> dict[str, str]:
    with game.db.read() as conn:
        rows = conn.execute(
            "SELECT t.name, (SELECT COALESCE(m.lineup, 'withdrawn') FROM moves m"
            " WHERE m.team_id = t.id AND m.round = 1 ORDER BY m.id DESC LIMIT 1)"
            " FROM teams t WHERE t.deleted_round IS NULL ORDER BY t.id")
        return {name: lineup or "" for name, lineup in rows}


def expected_lineups(case: dict) -> dict[str, str]:
    start = {team: START_LINEUP for *_, teams in CAST.values() for team, _ in teams}
    return {**start, **case.get("stored", {})}


def folded(text: str) -> str:
    return " ".join(text.split())


def problems(case: dict, root: Path) -> list[str]:
    """What is wrong with the effect of the case's mail (empty: handled right)."""
    game = Game(root)
    cast(game)
    raw = (CORPUS / f"{case['file']}.eml").read_bytes()
    sender = email.message_from_bytes(raw, policy=policy.default)["From"].addresses[0].addr_spec
    deliver(game.inbox.inbox, raw)
    game.poll()
    sent = []
    for mail in game.flush():
        msg = email.message_from_bytes(mail.raw, policy=policy.default)
        body = msg.get_body(("plain",))
        sent.append((msg["To"].addresses[0].addr_spec, folded(body.get_content() if body else "")))
    found: list[str] = []
    got = lineups(game)
    if got != expected_lineups(case):
        found.append(f"stored {got}, expected {expected_lineups(case)}")
    replies = [text for to, text in sent if to == sender]
    if len(replies) != 1:
        return [*found, f"{len(replies)} replies to {sender}"]
    reply = replies[0]
    for phrase in case.get("reply_has", []):
        if folded(phrase) not in reply:
            found.append(f"reply lacks {phrase!r}")
    lacks = list(case.get("reply_lacks", []))
    if not case.get("errors"):
        lacks += ["FEHLER", "ERRORS"]
    if not case.get("listed"):
        lacks += ["nicht verstanden", "not understood"]
    for phrase in lacks:
        if folded(phrase) in reply:
            found.append(f"reply says {phrase!r}")
    forwards = [text for to, text in sent if to == GM]
    if len(forwards) != (1 if case.get("forwarded") else 0):
        found.append(f"{len(forwards)} forwards to the game master")
    if found:
        found.append(f"reply: {reply[:1500]}")
    return found


CASES = effects()


def test_the_corpus_is_large_and_each_mail_has_its_effect() -> None:
    files = sorted(p.stem for p in CORPUS.glob("*.eml"))
    assert len(files) >= 40
    assert files == sorted(c["file"] for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_player_mail(case: dict, tmp_path: Path) -> None:
    assert problems(case, tmp_path) == []


def count_handled() -> tuple[int, int]:
    """(mails handled right, mails) of the checkout this module is imported from."""
    right = 0
    for case in CASES:
        with tempfile.TemporaryDirectory() as root:
            wrong = problems(case, Path(root))
        right += not wrong
        print(("ok    " if not wrong else "WRONG ") + case["file"]
              + ("" if not wrong else f": {wrong[0]}"))
    return right, len(CASES)


if __name__ == "__main__":
    handled, total = count_handled()
    print(f"{handled} of {total} player mails handled right")
    sys.exit(0)
