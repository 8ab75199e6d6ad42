"""``archive.url``: every newsletter links to its page in the published
archive (the page ``turnited publish`` copies there)."""

from __future__ import annotations

from bot.render.archive import round_stem
from bot.render.environment import archive_page_function

from .conftest import Game


def test_the_link_names_the_page_the_archive_writes():
    page = archive_page_function("https://example.org/liga/")
    for number in (1, 7, 999, 1000, 12345):
        assert page(number) == f"https://example.org/liga/{round_stem(number)}.html"
    assert archive_page_function(None)(3) is None


def test_newsletter_links_its_archive_page_when_archive_url_is_set(game: Game):
    status, out, err = game.cli("evaluate", "--dry-run")
    assert status == 0, err
    assert "im Archiv" not in out and "round-006.html" not in out
    game.set_config("state_dir: state\n",
                    "state_dir: state\narchive:\n  url: https://example.org/liga\n")
    status, out, err = game.cli("evaluate", "--dry-run")
    assert status == 0, err
    assert "Diese Ausgabe im Archiv: https://example.org/liga/round-006.html" in out


def test_the_html_and_english_newsletters_link_it_too(game: Game):
    from bot.app import build_app
    from bot.config import load_config

    game.set_config("state_dir: state\n",
                    "state_dir: state\narchive:\n  url: https://example.org/liga/\n")
    app = build_app(load_config(game.config))
    try:
        german = app.render_round(5, "de")
        english = app.render_round(5, "en")
    finally:
        app.close()
    url = "https://example.org/liga/round-005.html"
    assert f'<a href="{url}">{url}</a>' in german.html
    assert f"This issue in the archive: {url}" in english.text
    assert f'<a href="{url}">' in english.html
