"""The fast paths of ``bot.render.textwidth`` (ASCII text is one column per
character and needs no cleaning; the control characters are one character
class) give exactly what the character-by-character definitions give."""

from __future__ import annotations

import sys
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from bot.render.textwidth import _CONTROL, char_width, clean, width


def slow_clean(text: str) -> str:
    value = unicodedata.normalize("NFC", text)
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch
                   for ch in value)


def test_the_control_class_is_exactly_cc_zl_zp() -> None:
    for point in range(sys.maxunicode + 1):
        ch = chr(point)
        assert (_CONTROL.fullmatch(ch) is not None) == (
            unicodedata.category(ch) in ("Cc", "Zl", "Zp")), hex(point)


@given(st.text())
def test_width_and_clean_agree_with_their_definitions(text: str) -> None:
    assert width(text) == sum(char_width(ch) for ch in text)
    assert clean(text) == slow_clean(text)


@given(st.text(alphabet=st.characters(max_codepoint=0x7F)))
def test_ascii_agrees_too(text: str) -> None:
    assert width(text) == sum(char_width(ch) for ch in text)
    assert clean(text) == slow_clean(text)
