"""No player lineup ever reaches a published text (RULES.md §5, §8).

Several real rounds (16 to 40 player teams, fixed seeds) are rendered in
German and English, as text, HTML, composed mails (bytes with headers, and
every decoded part) and archive files; each is scanned for every player
lineup in every notation of RULES.md §11. The scanner itself is tested
first: it must find a lineup in every notation and in an HTML table row,
and it must find the lineups in the full (non-public) report.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.mail.compose import compose
from bot.render import render_newsletter
from bot.render.archive import write_archive
from bot.rules.lineup import Lineup
from tests.render.conftest import DEADLINE
from tests.render.leaks import find_lineup, find_lineups, mail_texts, notations
from tests.render.rounds import Round, make_round

ROUNDS = [(16, 101), (23, 202), (31, 303), (40, 404)]


@pytest.fixture(scope="module", params=ROUNDS, ids=[f"{n}-teams" for n, _ in ROUNDS])
def played(request: pytest.FixtureRequest) -> Round:
    players, seed = request.param
    return make_round(players, seed, simulations=2000, number=seed % 50 + 1)


# ------------------------------------------------------------ the scanner


LINEUP = Lineup(3, 7, 21, 25, 18)


@pytest.mark.parametrize("form", notations(LINEUP))
def test_scanner_finds_every_notation(form: str) -> None:
    assert find_lineup(f"Aufstellung von Rote Teufel: {form}.", LINEUP)
    assert find_lineup(f"<p>{form.upper()}</p>", LINEUP)


@pytest.mark.parametrize(
    "text",
    [
        "<tr><td>Rote Teufel</td><td>3</td><td>7</td><td>21</td><td>25</td><td>18</td></tr>",
        "Rote Teufel   3   7  21  25  18",
        "Rote Teufel (3 - 7 - 21 - 25 - 18)",
        "S18 M25 V21 A7 T3",
        "Sturm: 18, Mittelfeld: 25, Verteidigung: 21, Ausputzer: 7, Torwart: 3",
        "forward 18 sweeper 7 keeper 3 defence 21 midfield 25",
    ],
)
def test_scanner_finds_tables_and_any_label_order(text: str) -> None:
    assert find_lineup(text, LINEUP)


@pytest.mark.parametrize(
    "text",
    ["3-7-21-25-19", "13-7-21-25-18", "3-7-21-25-180", "T3 A7 V21 M25", "Saison 3, Runde 7"],
)
def test_scanner_ignores_other_numbers(text: str) -> None:
    assert not find_lineup(text, LINEUP)


def test_scanner_finds_lineups_in_the_full_report(played: Round) -> None:
    found = find_lineups(json.dumps(played.report, ensure_ascii=False), played.player_lineups)
    assert set(found) == set(played.player_lineups)


# ------------------------------------------------------------ the texts


def test_no_player_lineup_in_newsletters_or_mails(played: Round) -> None:
    assert played.public["gm_teams"] or len(played.entrants) % 4 == 0
    for language in ("de", "en"):
        mail = render_newsletter(
            played.public_typed,
            round_info=played.round_info,
            wp_table=played.wp_table,
            psz_table=played.psz_table,
            next_deadline=DEADLINE,
            timezone="Europe/Berlin",
            language=language,
            game_name="Turnited",
            game_address="turnited@example.org",
        )
        composed = compose(
            kind="newsletter",
            sender="turnited@example.org",
            sender_name="Turnited",
            to="hans.meier@example.com",
            subject=mail.subject,
            text=mail.text,
            html=mail.html,
            date=DEADLINE,
            key=f"newsletter/{played.round_info.number}/{language}",
            language=language,
        )
        texts = {"subject": mail.subject, "text": mail.text, "html": mail.html}
        texts.update({f"mail part {i}": t for i, t in enumerate(mail_texts(composed.data))})
        for where, text in texts.items():
            leaks = find_lineups(text, played.player_lineups)
            assert not leaks, f"{language} {where} shows player lineups: {leaks}"
        # the GM lineups, by contrast, are published
        for gm in played.public["gm_teams"]:
            assert gm["lineup"] in mail.text


def test_no_player_lineup_in_the_archive(played: Round, tmp_path: Path) -> None:
    mail = render_newsletter(
        played.public_typed, round_info=played.round_info, wp_table=played.wp_table,
        psz_table=played.psz_table, next_deadline=None, timezone="UTC", language="de",
        game_name="Turnited",
    )
    write_archive(tmp_path, played.round_info.number, mail, played.public_typed,
                  game_name="Turnited")
    files = sorted(tmp_path.iterdir())
    assert {f.suffix for f in files} == {".html", ".txt", ".json"}
    for path in files:
        leaks = find_lineups(path.read_text(encoding="utf-8"), played.player_lineups)
        assert not leaks, f"{path.name} shows player lineups: {leaks}"
