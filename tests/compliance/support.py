"""Shared helpers of the compliance tests: a league on a real SQLite file that
managers talk to in mail text (the real grammar, the real service)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.league.news import EvaluationResult
from bot.league.outcome import MoveOutcome
from bot.league.service import League, LeagueSettings
from tests.support import league as shared
from tests.support.grammar import parse_moves
from tests.support.league import submit

START = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
FIRST_DEADLINE = START + timedelta(days=6)
FAST = shared.FAST


def make_league(tmp_path: Path, settings: LeagueSettings = FAST, lot_seed: int = 0) -> League:
    """The shared league fixture, with round 1 opened on the compliance dates."""
    return shared.make_league(tmp_path, settings, lot_seed, start=START, deadline=FIRST_DEADLINE)


def open_deadline(league: League) -> datetime:
    with league.db.read() as conn:
        rnd = league.open_round(conn)
    assert rnd is not None
    return rnd.deadline


def evaluate(league: League, seed: int = 1) -> EvaluationResult:
    """Evaluate the open round one minute after its deadline."""
    result = league.evaluate_due(open_deadline(league) + timedelta(minutes=1), seed=seed)
    assert result is not None
    return result


class Manager:
    """A player who writes mail text to the league and keeps the password he got."""

    def __init__(self, league: League, address: str, name: str | None = None) -> None:
        self.league, self.address, self.name = league, address, name
        self.password: str | None = None

    def write(self, text: str, *, now: datetime | None = None, subject: str = "",
              password: bool = True) -> MoveOutcome:
        """Send ``text`` (the password line is added once known, unless ``password``
        is False); ``now`` defaults to one hour before the open deadline."""
        if password and self.password:
            text = f"Passwort: {self.password}\n{text}"
        when = now or open_deadline(self.league) - timedelta(hours=1)
        with self.league.db.transaction() as conn:
            outcome = submit(self.league, conn, sender=self.address, sender_name=self.name,
                moves=parse_moves(subject, text), now=when,
            )
        if outcome.manager is not None and outcome.manager.new_password:
            self.password = outcome.manager.new_password
        return outcome


def team(league: League, name: str) -> dict:
    """The team's row (deleted teams included) as a dict."""
    with league.db.read() as conn:
        row = conn.execute("SELECT * FROM teams WHERE name = ?", (name,)).fetchone()
    assert row is not None, f"no team {name!r}"
    return dict(row)


def codes(outcome: MoveOutcome) -> list[str]:
    return outcome.codes()


def reply_text(outcome: MoveOutcome, language: str | None = None) -> str:
    """The reply the manager reads, whitespace folded (lines are wrapped)."""
    from bot.render.reply import render_reply

    rendered = render_reply(
        outcome, subject="Aufstellung", now=START, timezone="Europe/Berlin",
        game_name="Turnited", game_address="bot@turnited.example", language=language,
    )
    return " ".join(rendered.text.split())
