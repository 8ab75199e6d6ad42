"""The league's home page, its calendar, feed and JSON, checked by parsing
them: the calendar with ``icalendar``, the Atom feed with an XML parser
against RFC 4287's required elements, the JSON against the tables (issue
23). A league taken over plays two rounds, so the archive has rounds, team
pages, an imported history and a next deadline."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from icalendar import Calendar

from bot.app import App
from bot.render.calendar import deadline_event
from bot.render.model import RoundInfo
from bot.rules.report import RoundReport
from tests.support.clock import FakeClock
from tests.support.takeover import evaluate, imported_app, league_table, send_lineups

A = "{http://www.w3.org/2005/Atom}"
FIRST = 33  # season 7, round 3


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[App, FakeClock]:
    teams = league_table(FIRST)
    app, clock, passwords = imported_app(tmp_path_factory.mktemp("home"), 7, 3, teams)
    for _ in range(2):
        send_lineups(app, clock, teams, {i for i in range(36) if i % 5 != 2}, passwords)
        evaluate(app, clock)
    return app, clock


def archive(app: App) -> Path:
    return app.config.state_dir / "archive"


def test_calendar_lists_every_planned_deadline_as_the_reminders_do(played) -> None:
    app, clock = played
    cal = Calendar.from_ical((archive(app) / "calendar.ics").read_bytes())
    assert cal.get("method") == "PUBLISH" and "Einsendeschl" in str(cal.get("x-wr-calname"))
    events = cal.walk("VEVENT")
    open_deadline = app.open_round_deadline()
    assert open_deadline is not None
    planned = [open_deadline, *app.plan.upcoming(open_deadline, 9)]
    assert [e.decoded("dtstart") for e in events] == planned  # two seasons ahead
    assert all(isinstance(d, datetime) and d.tzinfo for d in planned)
    # the same entry as the reminder's attachment of that round (its UID)
    reminder = Calendar.from_ical(deadline_event(
        round_info=RoundInfo(7, 5, 35), deadline=open_deadline, now=clock.now,
        game_name="HAI ZET Turnited", language="de", address=app.config.mail.address))
    assert str(events[0]["uid"]) == str(reminder.walk("VEVENT")[0]["uid"])
    assert [str(e["summary"]) for e in events[:2]] == [
        "Einsendeschluss HAI ZET Turnited: Spielrunde 35",
        "Einsendeschluss HAI ZET Turnited: Spielrunde 36"]
    assert "Saison 8, Runde 1" in str(events[1]["description"])


def test_feed_is_atom_with_one_entry_per_round(played) -> None:
    app, _clock = played
    root = ET.fromstring((archive(app) / "feed.atom").read_bytes())
    assert root.tag == f"{A}feed"
    for required in ("id", "title", "updated"):
        assert root.find(f"{A}{required}") is not None and root.find(f"{A}{required}").text
    assert root.find(f"{A}author/{A}name").text
    base = root.get("{http://www.w3.org/XML/1998/namespace}base")
    assert base == "https://turnited.example/archiv/"
    entries = root.findall(f"{A}entry")
    assert len(entries) == 2
    ids = set()
    for entry, number in zip(entries, (FIRST + 1, FIRST), strict=True):  # newest first
        ids.add(entry.find(f"{A}id").text)
        assert entry.find(f"{A}id").text.startswith("urn:uuid:")
        assert f"Spielrunde {number}" in entry.find(f"{A}title").text
        datetime.fromisoformat(entry.find(f"{A}updated").text.replace("Z", "+00:00"))
        link = entry.find(f"{A}link")
        assert link.get("rel") == "alternate" and link.get("href") == f"round-0{number}.html"
        assert (archive(app) / link.get("href")).is_file()
        winner = RoundReport.from_json(app.league.stored_report(number)).placings[0]
        assert entry.find(f"{A}summary").text == f"Sieger der Spielrunde {number}: {winner}"
    assert len(ids) == 2


def test_json_and_home_page_show_the_current_tables(played) -> None:
    app, clock = played
    data = json.loads((archive(app) / "league.json").read_text(encoding="utf-8"))
    with app.db.read() as conn:
        table = app.league.wp_table(conn, FIRST + 1)
        status = app.league.status(conn, clock.now)
    assert data["tables_after_round"] == FIRST + 1
    assert [(r["place"], r["team"], r["wp"]) for r in data["wp_table"]] == [
        (r.place, r.team, f"{r.wp:.2f}") for r in table]
    assert data["open_round"] == {"number": FIRST + 2, "season": 7, "round_in_season": 5,
                                  "deadline": status.deadline.isoformat().replace("+00:00", "Z"),
                                  "commitment": status.commitment}
    assert [r["report"] for r in data["rounds"]] == ["round-034.json", "round-033.json"]
    for r in data["rounds"]:
        assert json.loads((archive(app) / r["report"]).read_text(encoding="utf-8"))
    html = (archive(app) / "index.html").read_text(encoding="utf-8")
    for needle in ('href="rules.html"', 'href="feed.atom"', 'href="round-034.html"',
                   "webcal://turnited.example/archiv/calendar.ics", status.commitment,
                   "Vor Runde 33: mit einem anderen Programm gespielt",
                   'type="application/atom+xml"'):
        assert needle in html, needle
    for row in table:
        assert row.team in html
