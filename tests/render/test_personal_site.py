"""The personal newsletter and the archive site over a real league: a demo
season (five rounds through the real pipeline, so the last one ages the
teams) with its mails read back from the Maildir.

Every manager's copy opens with their personal block (RULES.md §8), the
season's last newsletter explains the ageing, the archive has an index
naming each round's winner, a hall of fame and a page per team with SVG
charts, and no player lineup appears in any copy, block, index, team page
or the hall of fame.
"""

from __future__ import annotations

import email
import json
import re
import sqlite3
from decimal import Decimal
from email import policy

import pytest

from bot.app import build_app
from bot.config.load import load_config
from bot.demo.runner import run_demo
from bot.mail.maildir_transport import read_sent
from bot.render.formatting import datetime_long
from bot.render.personal import (
    HTML_MARK,
    STYLE_MARK,
    PersonalPart,
    TeamFacts,
    personal_block,
    render_personal,
    splice,
    team_class,
)
from bot.rules.gm_teams import all_gm_lineups
from bot.rules.lineup import Lineup
from bot.rules.lots import seed_commitment
from bot.service import publish as pub
from bot.storage import history, results
from bot.storage.values import time_from_db
from tests.render.leaks import find_lineups
from tests.render.rounds import Round

GM_LINEUPS = frozenset(all_gm_lineups())


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A played demo season and everything it mailed."""
    folder = tmp_path_factory.mktemp("season") / "game"
    summary = run_demo(folder, seed=7, managers=8, seasons=1, simulations=300,
                       log=lambda _line: None)
    state = folder / "state"
    mails = [email.message_from_bytes(m.raw, policy=policy.default)
             for m in read_sent(state / "maildir")]
    db = sqlite3.connect(state / "turnited.sqlite3")
    db.row_factory = sqlite3.Row
    lineups: dict[str, Lineup] = {}
    for (stored,) in db.execute("SELECT report FROM round_results"):
        for team in json.loads(results.decode(stored))["teams"]:
            lineup = Lineup.parse(team["lineup"])
            if not team["gm"] and lineup not in GM_LINEUPS:
                lineups[f"{team['name']}: {team['lineup']}"] = lineup
    owners = {}
    for row in db.execute("SELECT m.address, t.name FROM teams t JOIN managers m"
                          " ON m.id = t.manager_id"):
        owners.setdefault(row["address"], []).append(row["name"])
    return {"folder": folder, "summary": summary, "mails": mails, "db": db,
            "lineups": lineups, "owners": owners, "archive": state / "archive"}


def newsletters(season: dict, number: int) -> list[email.message.EmailMessage]:
    return [m for m in season["mails"]
            if re.search(rf"(Ergebnisse der Spielrunde|results of round) {number} \(",
                           str(m["Subject"]))]


def parts(msg: email.message.EmailMessage) -> tuple[str, str]:
    text = msg.get_body(("plain",)).get_content().replace("\r\n", "\n")
    return text, msg.get_body(("html",)).get_content()


def block_of(text: str) -> str:
    """The personal block of a copy's text: from under the title to the
    first paragraph that is not about one of the reader's teams."""
    out = []
    for paragraph in text.split("\n\n")[1:]:
        if not re.match(r"(Dein Team|Your team): |Deine Teams für |Your teams for |  ",
                        paragraph):
            break
        out.append(paragraph)
    return "\n\n".join(out)


def test_every_managers_copy_opens_with_their_personal_block(season: dict) -> None:
    for number in range(1, 6):
        copies = newsletters(season, number)
        assert copies, number
        for msg in copies:
            address = msg["To"].addresses[0].addr_spec
            text, html = parts(msg)
            lines = text.splitlines()
            assert lines[1].startswith("===")
            # first what the reader needs next: each team's WP and the WP it may
            # spend next round, and the next deadline (RULES.md §8)
            assert lines[3] in (f"Deine Teams für Spielrunde {number + 1}",
                                f"Your teams for round {number + 1}"), (number, lines[:5])
            owned = season["owners"][address]
            db = season["db"]
            shown_teams = 0
            while not lines[5 + shown_teams].lstrip().startswith(("Einsendeschluss:",
                                                                   "Deadline:")):
                shown_teams += 1
            assert 1 <= shown_teams <= 2
            for line in lines[5:5 + shown_teams]:
                team, figures = line.strip().rsplit(": ", 1)
                assert team in owned, (number, line)
                [(team_id,)] = db.execute("SELECT id FROM teams WHERE name = ?", (team,))
                wp = history.wp_just_before(db, team_id, number + 1)
                de = msg["Content-Language"] == "de"
                shown = f"{wp:.2f}".replace(".", "," if de else ".")
                assert figures == (f"{shown} WP, einsetzbar {int(wp)} WP" if de
                                   else f"{shown} WP, may spend {int(wp)} WP"), line
            deadline = datetime_long(
                time_from_db(db.execute("SELECT deadline FROM rounds WHERE number = ?",
                                        (number + 1,)).fetchone()[0]),
                "Europe/Berlin", msg["Content-Language"])
            assert deadline in lines[5 + shown_teams], (number, lines[:12])
            team = next(ln for ln in lines if re.match(r"(Dein Team|Your team): ", ln)
                        ).split(": ", 1)[1]
            assert team in season["owners"][address]
            # the HTML: the block before everything else, the own teams highlighted
            main = html.split('<main class="content">', 1)[1]
            assert main.lstrip().startswith('<section class="personal card next">')
            assert deadline in main.split("</section>", 1)[0]
            assert f".{team_class(team)}" in html
            assert HTML_MARK not in html and STYLE_MARK not in html


def test_personal_block_numbers_come_from_the_league(season: dict) -> None:
    db = season["db"]
    copy = newsletters(season, 3)[0]
    text = parts(copy)[0]
    team = next(ln for ln in text.splitlines() if re.match(r"(Dein Team|Your team): ", ln)
                ).split(": ", 1)[1]
    row = db.execute("SELECT e.wp_before, e.wp_gain, e.won, e.drawn, e.lost FROM round_entries e"
                     " JOIN teams t ON t.id = e.team_id WHERE e.round = 3 AND t.name = ?",
                     (team,)).fetchone()
    if row is None:  # the team did not play this round
        assert re.search(r"nicht gespielt|Did not play", text)
        return
    before, gain = Decimal(row["wp_before"]), Decimal(row["wp_gain"])
    de = copy["Content-Language"] == "de"
    fmt = (lambda d: f"{d:.2f}".replace(".", ",")) if de else (lambda d: f"{d:.2f}")
    assert f"WP: {fmt(before)} -> {fmt(before + gain)}" in text
    games = row["won"] + row["drawn"] + row["lost"]
    block = block_of(text)
    assert len(re.findall(r"^    \S.*\d+:\d+  ", block, re.M)) == games


def test_the_seasons_last_newsletter_explains_the_ageing(season: dict) -> None:
    db = season["db"]
    aged = db.execute("SELECT COUNT(*) FROM wp_history WHERE round = 5 AND kind = 'ageing'")
    assert aged.fetchone()[0] > 0
    for msg in newsletters(season, 5):
        text, html = parts(msg)
        assert re.search(r"Saisonende: Alle Teams sind gealtert|End of the season: every team "
                         r"has aged", text)
        assert re.search(r"vor Alterung|Before ageing", html)
        block = block_of(text)
        if "nicht gespielt" not in block and "Did not play" not in block:
            assert re.search(r"Alterung zum Saisonende|Season-end ageing", block)
    for msg in newsletters(season, 4):
        assert "gealtert" not in parts(msg)[0] and "has aged" not in parts(msg)[0]


def test_the_results_reveal_the_seed_and_its_commitment(season: dict) -> None:
    db = season["db"]
    for number in range(1, 6):
        seed = db.execute("SELECT seed FROM rounds WHERE number = ?", (number,)).fetchone()[0]
        text = parts(newsletters(season, number)[0])[0]
        assert str(seed) in text
        assert seed_commitment(number, seed) in text
        assert f"printf 'turnited-seed:{number}:{seed}' | sha256sum" in text
        committed = db.execute("SELECT seed FROM round_seeds WHERE round = ?",
                               (number + 1,)).fetchone()
        assert committed is not None  # the next round is open, its seed committed
        assert seed_commitment(number + 1, committed[0]) in text


def test_reminders_print_the_open_rounds_commitment_and_attach_the_deadline(
    season: dict,
) -> None:
    db = season["db"]
    reminders = [m for m in season["mails"] if re.search(r"Erinnerung|[Rr]eminder",
                                                         str(m["Subject"]))]
    assert reminders
    for msg in reminders:
        number = int(re.search(r"(?:Spielrunde|round) (\d+)", str(msg["Subject"])).group(1))
        seed = db.execute("SELECT seed FROM round_seeds WHERE round = ?",
                          (number,)).fetchone()[0]
        assert seed_commitment(number, seed) in msg.get_body(("plain",)).get_content()
        (ics,) = [p for p in msg.iter_attachments() if p.get_content_type() == "text/calendar"]
        assert f"round-{number}-deadline@" in ics.get_content()


def test_publishing_again_queues_no_second_copy(season: dict) -> None:
    app = build_app(load_config(season["folder"] / "config.yaml"))
    try:
        with app.db.read() as conn:
            before = conn.execute("SELECT COUNT(*) FROM outbox WHERE kind = 'newsletter'"
                                  " AND round = 5").fetchone()[0]
        app.publish(5)
        with app.db.read() as conn:
            after = conn.execute("SELECT COUNT(*) FROM outbox WHERE kind = 'newsletter'"
                                 " AND round = 5").fetchone()[0]
    finally:
        app.close()
    assert after == before == len(newsletters(season, 5))


def test_archive_index_names_each_rounds_winner(season: dict) -> None:
    index = (season["archive"] / "index.html").read_text(encoding="utf-8")
    for number, winner in season["summary"].winners:
        row = re.search(rf'<tr><td><a href="round-{number:03d}.html">{number}</a></td>(.*?)</tr>',
                        index)
        assert row, number
        assert winner in row.group(1).replace("&#39;", "'")
        assert re.search(r"\d+ \(\d+\)", row.group(1))  # the field size
    assert 'href="hall-of-fame.html"' in index


def test_archive_has_a_page_per_team_with_svg_charts(season: dict) -> None:
    db = season["db"]
    played = db.execute("SELECT id, name FROM teams t WHERE EXISTS"
                        " (SELECT 1 FROM round_entries e WHERE e.team_id = t.id)").fetchall()
    assert played
    for row in played:
        page = season["archive"] / f"team-{row['id']:03d}.html"
        html = page.read_text(encoding="utf-8")
        assert html.count("<svg") == 2 and ("<polyline" in html or "<circle" in html)
        rounds = db.execute("SELECT round FROM round_entries WHERE team_id = ?", (row["id"],))
        for (number,) in rounds:
            assert f'href="round-{number:03d}.html"' in html
        assert "<script" not in html and "http" not in html.replace(
            "http://www.w3.org/2000/svg", "")
    fame = (season["archive"] / "hall-of-fame.html").read_text(encoding="utf-8")
    # Five records, each a table or, while nobody holds it (no player team has
    # reached a semi-final in this season's lots, say), a dash.
    assert fame.count("<h2") == 5
    assert fame.count("<table") + fame.count('<p class="note">–</p>') == 5
    assert fame.count("<table") >= 3  # best WP, best PSZ and games played always have holders


def test_no_lineup_in_any_copy_block_or_archive_page(season: dict) -> None:
    lineups = season["lineups"]
    assert len(lineups) > 10
    texts = []
    for msg in season["mails"]:
        if msg["Auto-Submitted"] == "auto-replied":
            continue  # a reply shows the sender's own lineup, only to them
        texts.extend(parts(msg) if msg.get_body(("html",)) else [msg.get_content()])
    pages = [p for p in season["archive"].iterdir() if p.suffix == ".html"]
    assert any(p.name.startswith("team-") for p in pages)
    texts.extend(p.read_text(encoding="utf-8") for p in pages)
    for text in texts:
        assert find_lineups(text, lineups) == {}


# ------------------------------------------------------------ the block alone


def test_personal_block_of_a_round(round16: Round) -> None:
    public = round16.public_typed
    winner = public.placings[0]
    after_gain = Decimal("95.30") + public.wp_gain[winner]
    facts = [TeamFacts(winner, Decimal("95.30"), after_gain,
                       Decimal("91.51"), Decimal("250"), Decimal("262.4"), aged=True)]
    block = personal_block(public, facts, round16.wp_table)
    team = block.teams[0]
    assert team.place == 1 and team.reached == "final"
    record = public.record[winner]
    assert (team.won, team.drawn, team.lost) == (record.won, record.drawn, record.lost)
    assert len(team.games) == record.won + record.drawn + record.lost
    assert team.semi_chance is not None
    part = render_personal(block, language="en")
    assert "1st place: tournament winner!" in part.text
    assert f"WP: 95.30 -> {after_gain:.2f} (+{public.wp_gain[winner]:.2f})" in part.text
    assert f"Season-end ageing: {after_gain:.2f} -> 91.51" in part.text
    assert "PSZ: 250 -> 262" in part.text
    assert team_class(winner) in part.style
    assert find_lineups(part.text + part.html, round16.player_lineups) == {}


def test_splice_puts_the_block_under_the_title(round16: Round) -> None:
    from bot.render import render_newsletter
    from tests.render.conftest import DEADLINE

    common = render_newsletter(
        round16.public_typed, round_info=round16.round_info, wp_table=round16.wp_table,
        psz_table=round16.psz_table, next_deadline=DEADLINE, timezone="Europe/Berlin",
        language="de", game_name="Turnited",
    )
    assert HTML_MARK in common.html and STYLE_MARK in common.html
    bare = splice(common, None)
    assert bare.text == common.text and HTML_MARK not in bare.html
    copy = splice(common, PersonalPart("Dein Team: X\n", "<p>X</p>", "<style></style>"))
    lines = copy.text.splitlines()
    assert lines[0] == common.text.splitlines()[0] and lines[3] == "Dein Team: X"
    assert copy.text.endswith(common.text.split("\n", 2)[2])
    assert '<main class="content">\n<p>X</p>' in copy.html
    assert splice(common, render_personal(personal_block(round16.public_typed, [],
                                                          round16.wp_table), language="de")
                  ) == bare


def test_team_class_is_stable_and_safe() -> None:
    assert team_class("Rote Teufel") == team_class("Rote Teufel")
    assert team_class("Rote Teufel") != team_class("Rote  Teufel")
    assert re.fullmatch(r"t[0-9a-f]{8}", team_class('<"x">'))


def test_site_data_reads_history(season: dict) -> None:
    app = build_app(load_config(season["folder"] / "config.yaml"))
    try:
        with app.db.read() as conn:
            data = pub.site_data(conn)
    finally:
        app.close()
    assert [r.number for r in data.rounds] == [1, 2, 3, 4, 5]
    # what the site lists of each round and team's round, read as columns
    assert all(r.teams >= r.players > 0 and r.winner for r in data.rounds)
    assert {e.round for e in data.entries} == {1, 2, 3, 4, 5}
    assert all(e.reached in ("final", "third_place", "semi_final", "group") for e in data.entries)
    assert sum(e.place == 1 for e in data.entries) == sum(
        r.winner in {t.name for t in data.teams} for r in data.rounds)
    assert data.ageing and all(a.round == 5 for a in data.ageing)
    assert all(a.after <= a.before for a in data.ageing)
