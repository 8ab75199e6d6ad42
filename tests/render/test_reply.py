"""Every notice code (the league's and the commands') has a German and an
English sentence in its own template, and the reply shows the manager's
whole state."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from bot.errors import N_
from bot.league.outcome import Code, ManagerInfo, MoveOutcome, Notice, TeamState
from bot.render.environment import TEMPLATES_DIR as TEMPLATES
from bot.render.odds import odds_figures
from bot.render.reply import PROBLEMS, render_problem, render_reply, reply_subject
from bot.render.words import Words
from bot.rules.corrections import correct
from bot.rules.lineup import Lineup
from bot.rules.versus import GM_FIELD, lineup_side, odds_of
from bot.schedule import DateTimeError
from bot.service.commands import registry

CODES = sorted({*Code, *registry().codes()})

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


class _Said:
    """A game master's use case's result: what ``lines`` says in the reader's words."""

    def lines(self, w: Words) -> list[str]:
        return [w._("Teams: %(count)s", count=2), "  Rote Teufel"]

PARAMS = {
    "address": "hans@player.example", "password": "abc-def-ghi", "name": "Rote Teufel",
    "team": "Rote Teufel", "short_name": "Teufel", "round": 3, "wp": Decimal("91.30"),
    "given": "Rote Teufel aus dem schönen Süderelbe", "limit": 30, "lineup": "10-10-15-15-20",
    "previous": "9-9-15-15-20", "played": "8-8-16-21-21", "budget": 91, "corrections": [],
    "had_lineup": True, "because": "Blaue Engel", "missed": 2, "deadline": NOW,
    "season": 1, "round_in_season": 3, "line": "Aufstellung: 10-10-15-15", "line_number": 2,
    "reason": "4 numbers instead of five", "example": "10-10-15-15-20",
    "own_teams": ["Rote Teufel", "Blaue Engel"], "other": "R\u043ete Teufel",
    "new_teams": ["Rote Teufel", "Blaue Engel"], "withdraw": "Blaue Engel",
    "already": False, "language": "en", "until": NOW + timedelta(days=7), "code": "K7FX-2QMP",
    "old": "hans@old.example", "attempts_left": 2, "max_wrong": 5, "expired_at": NOW,
    "teams": ["Rote Teufel"], "registered": True, "confirmation": "K7FX-2QMP",
    "retired": ["Rote Teufel"], "cancelled": [],
    "not_stored": ["Blaue Engel"], "written": "Rote Teufl", "max_teams": 2,
    # a lineup ahead (RULES.md §12)
    "first": 3, "until_round": 5, "rounds": 3,
    # the odds of two sides (RULES.md §12)
    "x": {"kind": "team", "team": "Rote Teufel", "round": 3, "sent": "10-10-20-25-25",
          "played": "8-8-16-21-21", "budget": 90, "changed": True, "corrections": []},
    "y": {"kind": "gm", "count": 40, "corrections": []},
    # a round's results again (RULES.md §12)
    "text": "Turnited: Ergebnisse der Spielrunde 3\n\nDein Team: Rote Teufel\n",
    "last": 2, "exists": True,
    "figures": {language: odds_figures(odds_of(lineup_side(Lineup.parse("10-10-20-25-25")),
                                               GM_FIELD), language) for language in ("de", "en")},
    # the game master's commands: a use case's result and a refusal, in words
    "report": (said := _Said()), "result": said, "plan": said, "accepted": True,
    "subject": "Pause über Weihnachten",
    "fresh": True,
    "error": DateTimeError(N_("%(text)s is not a date and time; write e.g. '17.01.2027 20:00' "
                              "or '2027-01-17 20:00'"), text="'morgen'"),
}


def outcome(codes: list[str], language: str) -> MoveOutcome:
    lineup = Lineup.parse("10-10-20-25-25")
    team = TeamState(
        name="Rote Teufel", short_name="Teufel", wp=Decimal("90.00"), budget=90,
        psz=Decimal("250.00"), lineup=lineup, corrected=correct(lineup, 90),
        previous=None, changed=True, withdrawn=False, doomed=False, registered_this_round=True,
    )
    notices = [Notice(code, dict(PARAMS)) for code in codes]
    return MoveOutcome(
        manager=ManagerInfo("hans@player.example", "Hans Meier", True, "abc-def-ghi"),
        accepted=True, round=3, late=False, deadline=NOW + timedelta(days=2),
        notices=notices, teams=[team], ignored=("Hallo", ""), language=language,
    )


@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("code", CODES)
def test_every_code_has_a_sentence(code: str, language: str) -> None:
    text = render_reply(outcome([code], language), subject="Aufstellung", now=NOW,
                        timezone="Europe/Berlin", game_name="Turnited",
                        game_address="bot@turnited.example").text
    body = text.split("\n\n", 1)[1]
    first = body.strip().splitlines()[0]
    assert first != code, f"{code} has no {language} sentence"
    assert (TEMPLATES / "mail" / "notice" / f"{code}.txt.j2").is_file()


@pytest.mark.parametrize("language", ["de", "en"])
def test_reply_shows_state_corrections_deadline_and_ignored_lines(language: str) -> None:
    text = render_reply(outcome(["lineup_set"], language), subject="Re: AW: Aufstellung",
                        now=NOW, timezone="Europe/Berlin", game_name="Turnited",
                        game_address="bot@turnited.example")
    assert text.subject == "Re: AW: Aufstellung" or text.subject.startswith("Re: ")
    body = text.text
    assert "8-8-16-21-21" in body and "10-10-20-25-25" in body  # sent and played
    assert "abc-def-ghi" in body  # the new password, on its own line
    assert ("MEZ" in body) if language == "de" else ("CET" in body)  # deadline with zone
    assert "| Hallo" in body and "|\n" not in body  # ignored lines, blank ones skipped


def test_reply_subject_has_one_re() -> None:
    assert reply_subject("Re: RE: Aufstellung", "de") == "Re: Aufstellung"
    assert reply_subject("", "en") == "Re: Turnited"


@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("problem", PROBLEMS)
def test_every_problem_renders(problem: str, language: str) -> None:
    rendered = render_problem(problem, subject="x", language=language, game_name="Turnited",
                              game_address=None, limit=4096)  # type: ignore[arg-type]
    assert ("nichts gespeichert" in rendered.text) == (language == "de")
    assert ("Nothing from this mail was stored" in rendered.text) == (language == "en")


#: A sentence end right before the next sentence, without a space: two trans
#: blocks of a notice template run together (``trim_blocks`` eats the newline).
GLUED = re.compile(r"[a-zäöüß)“\"]\.[A-ZÄÖÜ]")


@pytest.mark.parametrize("language", ["de", "en"])
def test_no_two_sentences_of_a_notice_run_together(language: str) -> None:
    for code in CODES:
        text = render_reply(outcome([code], language), subject="x", now=NOW,
                            timezone="Europe/Berlin", game_name="Turnited",
                            game_address="bot@turnited.example").text.replace("\n", " ")
        text = text.replace("n.L.", "")  # "nach Losentscheid": a mark, not a sentence's end
        assert not GLUED.search(text), (code, GLUED.search(text))
