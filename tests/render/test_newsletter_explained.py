"""Issue 20: the newsletter explains WP gains and the PSZ in one line under
their tables (RULES.md §6, §10), in text and HTML, German and English."""

from __future__ import annotations

import re

import pytest

from bot.rules.wp import DRAW_GAIN, WIN_GAIN
from tests.render.rounds import Round
from tests.render.test_newsletter import render

WP_LINE = {"de": "WP: +0,2 je Sieg, +0,1 je Unentschieden, in jedem Spiel (ein "
                 "Losentscheid zählt als Unentschieden).",
           "en": "WP: +0.2 per win, +0.1 per draw, in every game (a game decided by lot "
                 "counts as a draw)."}
PSZ_LINE = {"de": "PSZ: Spielstärke, gewogen mit der Stärke der Gegner; ab 250 kommt je "
                  "Turnier der Schnitt je Spiel aus ±40 (Sieg/Niederlage) plus PSZ des "
                  "Gegners minus eigener PSZ dazu.",
            "en": "PSZ: playing strength weighed by the opponents' strength; from 250, each "
                  "tournament adds the average per game of ±40 (win/loss) plus the "
                  "opponent's PSZ minus one's own."}
HEADS = {"de": ("WP-Tabelle", "PSZ-Tabelle", "Nächster Einsendeschluss"),
         "en": ("WP table", "PSZ table", "Next deadline")}


def folded(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("language", ["de", "en"])
def test_each_table_has_its_line_below_it(round16: Round, language: str) -> None:
    mail = render(round16, language)
    text = folded(mail.text)
    wp_head, psz_head, deadline_head = HEADS[language]
    # below the WP table's last row, above the PSZ table; below the PSZ table
    last_wp = round16.wp_table[-1].team
    table_row = text.index(last_wp, text.index(wp_head))
    assert (text.index(wp_head) < table_row < text.index(WP_LINE[language])
            < text.index(psz_head) < text.index(PSZ_LINE[language])
            < text.index(deadline_head))
    # the same figures as the rules core
    mark = "," if language == "de" else "."
    for gain in (WIN_GAIN, DRAW_GAIN):
        assert f"+{gain}".replace(".", mark) in WP_LINE[language]
    html = folded(re.sub(r"<[^>]+>", " ", mail.html or "").replace("&#39;", "'"))
    assert WP_LINE[language] in html and PSZ_LINE[language] in html
    assert html.index(WP_LINE[language]) < html.index(psz_head) < html.index(PSZ_LINE[language])


def test_an_empty_table_has_no_line(round_empty: Round) -> None:
    mail = render(round_empty, "de", wp_table=[], psz_table=[])
    assert WP_LINE["de"] not in folded(mail.text) and PSZ_LINE["de"] not in folded(mail.text)
