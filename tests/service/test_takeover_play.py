"""A league taken over plays on (RULES.md §14, issue 23): 36 teams of 26
managers imported (two teams for some, German and English, WP with two
decimals and a decimal comma, teams absent for more than three rounds),
the welcome mails sent through the embedded Maildir, the managers' lineups
read from their mails with the passwords of those welcome mails, the round
evaluated; WP to the hundredth against a hand computation, the WP table's
3-round rule from the imported last rounds. A second league plays to the
season's end and ages."""

from __future__ import annotations

import json
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from bot.mail.maildir_transport import deliver
from bot.render.formatting import datetime_long
from bot.rules.report import RoundReport
from bot.service.roster import managers
from bot.service.takeover import import_league
from tests.support.app import BOT, START, body_of, sent
from tests.support.clock import FakeClock
from tests.support.mails import player_mail
from tests.support.takeover import (
    csv_text,
    evaluate,
    imported_app,
    league_table,
    lineup_for,
    make_app,
    passwords_of,
    send_lineups,
)

SEASON, ROUND = 7, 3
FIRST = (SEASON - 1) * 5 + ROUND  # 33


def test_imported_league_plays_its_next_round_from_mail(tmp_path: Path) -> None:
    teams = league_table(FIRST)
    app, clock, passwords = imported_app(tmp_path, SEASON, ROUND, teams)
    welcome = sent(app)
    assert len(welcome) == 26 == len(passwords)
    by_address = {m["To"].addresses[0].addr_spec: m for m in welcome}
    with app.db.read() as conn:
        status = app.league.status(conn, clock.now)
    assert (status.season, status.round_in_season, status.round) == (SEASON, ROUND, FIRST)
    for t in teams:  # each manager reads his teams, WP and budget in his language
        text = body_of(by_address[t.address])
        english = t.language == "en"
        wp = f"{t.wp_value:.2f}" if english else f"{t.wp_value:.2f}".replace(".", ",")
        assert t.name in text
        assert (f"{wp} WP (may spend {int(t.wp_value)} WP" if english
                else f"{wp} WP (darf {int(t.wp_value)} WP") in text, text
        assert status.commitment and status.commitment in text
        assert ("Hello Manager" if english else "Hallo Manager") in text
        deadline = app.open_round_deadline()
        assert deadline is not None
        when = datetime_long(deadline, "Europe/Berlin", t.language or "de")
        assert (f"Deadline: {when}" if english else f"Einsendeschluss: {when}") in text
        assert ("https://turnited.example/archiv/index.html") in text
        assert ("How to play" if english else "So spielst du mit") in text
    # managers and status show the imported numbers
    listed = {team.name: team for m in managers(app.services).managers for team in m.teams}
    assert {name: t.wp for name, t in listed.items()} == {t.name: t.wp_value for t in teams}

    # the reminders reach the managers whose teams played in the last three rounds
    recent = {t.address for t in teams if int(t.last_round or FIRST - 1) >= FIRST - 3}
    assert app.send_reminders(clock.now, 0) == len(recent) < 26

    playing = {i for i in range(36) if i % 6 != 5}  # six teams send nothing
    send_lineups(app, clock, teams, playing, passwords)
    replies = [m for m in sent(app)[len(welcome):] if m["Auto-Submitted"] == "auto-replied"]
    assert len(replies) == 26 - sum(  # managers whose teams all sit out write nothing
        1 for a in {t.address for t in teams}
        if not any(i in playing for i, t in enumerate(teams) if t.address == a))
    assert not [r for r in replies if "FEHLER" in body_of(r) or "ERROR" in body_of(r)]
    with app.db.read() as conn:
        assert len(app.league.status(conn, clock.now).teams_with_lineup) == len(playing)

    assert evaluate(app, clock) == FIRST
    report = RoundReport.from_json(app.league.stored_report(FIRST))
    expected = {}
    for i, t in enumerate(teams):  # the hand computation: +0.20 a win, +0.10 a draw
        wp = t.wp_value
        if i in playing:
            rec = report.record[t.name]
            wp = wp + Decimal("0.20") * rec.won + Decimal("0.10") * rec.drawn
        expected[t.name] = wp.quantize(Decimal("0.01"))
    stored = {team.name: team.wp for m in managers(app.services).managers for team in m.teams}
    assert {n: w.quantize(Decimal("0.01")) for n, w in stored.items()} == expected
    # the budget of the round was floor(imported WP): 95,30 may spend 95
    with app.db.read() as conn:
        table = app.league.wp_table(conn, FIRST)
        budgets = dict(conn.execute(
            "SELECT t.name, e.budget FROM round_entries e JOIN teams t ON t.id = e.team_id"
            " WHERE e.round = ?", (FIRST,)).fetchall())
    assert budgets == {teams[i].name: int(teams[i].wp_value) for i in playing}
    # the WP table: who played in rounds 31..33 (here or, by last_round, before)
    visible = {t.name for i, t in enumerate(teams)
               if i in playing or int(t.last_round or FIRST - 1) >= FIRST - 2}
    assert {row.team for row in table} == visible
    assert len(visible) < 36  # some were absent too long to be listed
    assert {row.team: row.wp for row in table} == {n: expected[n] for n in visible}
    # the newsletter shows the same numbers to the hundredth, German decimal comma
    newsletters = [m for m in sent(app) if "Ergebnisse" in m["Subject"]]
    text = body_of(newsletters[0])
    lines = text.splitlines()
    for row in table:
        shown = f" {row.wp:.2f}".replace(".", ",")
        assert any(row.team in line and row.manager in line and shown in line
                   for line in lines), row
    # the archive marks where the imported history begins; the home page shows the table
    archive = app.config.state_dir / "archive"
    home = (archive / "index.html").read_text(encoding="utf-8")
    assert "Vor Runde 33: mit einem anderen Programm gespielt" in home
    data = json.loads((archive / "league.json").read_text("utf-8"))
    assert data["imported"]["first_round"] == FIRST and data["tables_after_round"] == FIRST
    assert [(r["team"], r["wp"]) for r in data["wp_table"]] == [
        (row.team, f"{row.wp:.2f}") for row in table]
    assert data["open_round"]["number"] == FIRST + 1


@pytest.mark.parametrize("start_round", [4])
def test_imported_league_ages_at_the_end_of_its_season(tmp_path: Path, start_round: int) -> None:
    first = (SEASON - 1) * 5 + start_round  # 34: rounds 34 and 35 end season 7
    teams = league_table(first)
    app, clock, passwords = imported_app(tmp_path, SEASON, start_round, teams)
    playing = {i for i in range(36) if i % 4 != 3}
    wp = {t.name: t.wp_value for t in teams}
    for number in (first, first + 1):
        send_lineups(app, clock, teams, playing, passwords)
        assert evaluate(app, clock) == number
        report = RoundReport.from_json(app.league.stored_report(number))
        for i in playing:
            rec = report.record[teams[i].name]
            wp[teams[i].name] += Decimal("0.20") * rec.won + Decimal("0.10") * rec.drawn
    # season 7 ended with round 35: every team aged, those that sat out too
    for name in wp:
        wp[name] = (Decimal(89) + (wp[name] - 89).sqrt()).quantize(
            Decimal("0.01"), rounding=ROUND_HALF_UP) if wp[name] > 89 else wp[name]
    stored = {team.name: team.wp for m in managers(app.services).managers for team in m.teams}
    assert stored == wp
    with app.db.read() as conn:
        status = app.league.status(conn, clock.now)
    assert (status.season, status.round_in_season, status.round) == (SEASON + 1, 1, first + 2)
    subject = f"HAI ZET Turnited: Ergebnisse der Spielrunde {first + 1}"
    newsletter = [m for m in sent(app) if m["Subject"].startswith(subject)]
    assert newsletter and "Alle Teams sind gealtert" in body_of(newsletter[0])


def test_without_welcome_mails_the_first_mail_of_a_manager_gets_his_password(
    tmp_path: Path,
) -> None:
    teams = league_table(FIRST)[:4]
    clock = FakeClock(START)
    app = make_app(tmp_path, clock)
    result = import_league(app.services, csv_text(teams).encode("utf-8"), source="liga.csv",
                           season=SEASON, round_in_season=ROUND,
                           deadline=app.plan.next_deadline(clock.now), welcome=False)
    assert result.welcome_mails == 0
    app.drain_outbox()
    assert sent(app) == []
    team = teams[0]
    deliver(app.config.maildir_root / "inbox", player_mail(
        team.address, f"{team.name}: {lineup_for(team, 0)}\n", to=BOT, when=clock.now))
    app.poll_once()
    app.drain_outbox()
    (reply,) = sent(app)
    assert passwords_of([reply]) and "FEHLER" not in body_of(reply)
    with app.db.read() as conn:
        assert app.league.status(conn, clock.now).teams_with_lineup == (team.name,)
