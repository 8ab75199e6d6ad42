"""Fixtures of the league tests: a real database file per test and a mail helper."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from bot.league.service import League
from bot.rules.lineup import Lineup
from bot.rules.requests import (
    GivePassword,
    LineError,
    ParsedMoves,
    RegisterTeam,
    Request,
    SetLineup,
)

# The shared league fixture; the league tests import these names from here.
from tests.support.league import FAST, FIRST_DEADLINE, START, make_league, submit  # noqa: F401


@pytest.fixture
def league(tmp_path) -> League:
    return make_league(tmp_path)


def moves(*requests: Request, errors: tuple[LineError, ...] = (),
          password: str | None = None) -> ParsedMoves:
    reqs = list(requests)
    if password:
        reqs.insert(0, GivePassword(f"Passwort: {password}", password))
    return ParsedMoves(tuple(reqs), errors, ())


def lineup(text: str, team: str | None = None) -> SetLineup:
    line = f"{team}: {text}" if team else f"Aufstellung: {text}"
    return SetLineup(line, team, Lineup.parse(text))


def register(name: str, short: str | None = None) -> RegisterTeam:
    line = f"Neues Team: {name}" + (f" / {short}" if short else "")
    return RegisterTeam(line, name, short)


class Player:
    """A manager who remembers the password the bot gave him."""

    def __init__(self, league: League, address: str, name: str | None = None):
        self.league, self.address, self.name = league, address, name
        self.password: str | None = None

    def send(self, *requests: Request, now: datetime = START, errors=(),
             password: str | None = None):
        given = password if password is not None else self.password
        with self.league.db.transaction() as conn:
            result = submit(self.league, conn, sender=self.address, sender_name=self.name,
                                        moves=moves(*requests, errors=errors, password=given),
                                        now=now)
        if result.manager and result.manager.new_password:
            self.password = result.manager.new_password
        return result


def after_deadline(league: League, minutes: int = 1) -> datetime:
    """A moment just after the open round's deadline."""
    with league.db.read() as conn:
        rnd = league.open_round(conn)
    assert rnd is not None
    return rnd.deadline + timedelta(minutes=minutes)


def evaluate(league: League, seed: int | None = 1):
    """Evaluate the open round now that its deadline has passed."""
    now = after_deadline(league)
    result = league.evaluate_due(now, seed=seed)
    assert result is not None
    return result


def dump(league: League) -> dict[str, list[tuple]]:
    """Every row of every table, for comparing whole states."""
    with league.db.read() as conn:
        names = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        return {n: sorted(tuple(r) for r in conn.execute(f"SELECT * FROM {n}")) for n in names}
