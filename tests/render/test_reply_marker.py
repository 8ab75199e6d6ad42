"""Every reply carries the bot's reply marker, so a player's answer that
quotes or pastes it never has its old commands read again (issue 14)."""

from __future__ import annotations

import pytest

from bot.mail.quotes import BOT_REPLY_MARKER, strip_quotes
from bot.render.environment import Environments


@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("template", ["reply.txt.j2", "reply_problem.txt.j2"])
def test_each_reply_template_opens_with_the_marker(language: str, template: str) -> None:
    source = Environments().get(language).loader.get_source(  # type: ignore[union-attr]
        Environments().get(language), template)[0]
    assert '{% include "reply_marker.txt.j2" %}' in source
    marker = Environments().get(language).get_template("reply_marker.txt.j2").render()
    assert marker.strip() == BOT_REPLY_MARKER


def test_text_pasted_below_the_marker_is_not_read() -> None:
    marker = Environments().get("de").get_template("reply_marker.txt.j2").render().strip()
    text = f"Aufstellung: 10-10-15-15-20\n\n{marker}\nHallo,\nRote Teufel: 0-0-30-30-30\n"
    fresh = strip_quotes(text)
    assert "10-10-15-15-20" in fresh
    assert "0-0-30-30-30" not in fresh
