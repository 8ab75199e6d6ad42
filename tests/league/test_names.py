"""Team name rules (RULES.md §7) and passwords (§9)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.league.names import (
    choose_names,
    clean,
    derive_short_name,
    is_reserved,
    name_key,
    shorten,
)
from bot.league.passwords import (
    ALPHABET,
    generate_password,
    hash_password,
    normalize,
    verify_password,
)

names = st.text(
    alphabet=st.characters(categories=("L", "N", "Zs"), include_characters=".-'&"),
    min_size=1, max_size=80,
)


@given(names, st.integers(min_value=1, max_value=40))
def test_shorten_respects_the_limit_and_keeps_short_names(text, limit):
    result = shorten(text, limit)
    assert len(result) <= limit
    if len(clean(text)) <= limit:
        assert result == clean(text)
    else:
        assert clean(text).startswith(result) or result == clean(text)[:limit]


@given(names)
def test_derived_short_names_fit_and_come_from_the_name(text):
    short = derive_short_name(text, 15)
    assert len(short) <= 15
    assert short.casefold() in clean(text).casefold()


@given(names)
def test_name_key_ignores_case_and_spacing(text):
    assert name_key(text) == name_key("  " + text.upper().replace(" ", "   ") + " ")
    assert name_key(name_key(text)) == name_key(text)


@given(names, st.one_of(st.none(), names))
def test_choose_names_obeys_both_limits(name, short):
    choice = choose_names(name, short, name_max=30, short_max=15)
    assert len(choice.name) <= 30 and len(choice.short_name) <= 15
    assert choice.key == name_key(choice.name)
    assert choice.name_shortened == (choice.name != clean(name))


@pytest.mark.parametrize(("name", "short"), [
    ("Rote Teufel", "Rote Teufel"),
    ("FC Wanderer Altona", "Wanderer Altona"),
    ("Borussia Mönchengladbach", "Mönchengladbach"),
    ("SV Werder Bremen von 1899 e.V.", "Werder Bremen"),
    ("Sportgemeinschaftsverein Nord", "Nord"),
])
def test_derived_short_name_examples(name, short):
    assert derive_short_name(name, 15) == short


def test_word_boundary_shortening():
    assert shorten("Sportfreunde Oberhausen Nord Süd Ost", 30) == "Sportfreunde Oberhausen Nord"
    assert shorten("Donaudampfschifffahrtsgesellschaft", 15) == "Donaudampfschif"


@pytest.mark.parametrize(("name", "reserved"), [
    ("GM 10-0-16-15-39", True), ("gm Stars", True), ("GM", True), ("  Gm   x", True),
    ("GMX", False), ("Agm Stars", False), ("G M", False),
])
def test_gm_prefix_is_reserved(name, reserved):
    assert is_reserved(name) is reserved


def test_generated_passwords_are_readable_and_distinct():
    passwords = {generate_password() for _ in range(500)}
    assert len(passwords) == 500
    for pw in passwords:
        groups = pw.split("-")
        assert [len(g) for g in groups] == [3, 3, 3]
        assert set("".join(groups)) <= set(ALPHABET)


def test_password_hash_is_salted_and_verifies_typed_variants():
    pw = "k7f-x2q-m4p"
    one, two = hash_password(pw, n=2), hash_password(pw, n=2)
    assert one != two  # salted
    for typed in ("k7f-x2q-m4p", "K7F X2Q M4P", "k7fx2qm4p", " k7f-x2q-m4p. "):
        assert verify_password(typed, one)
    assert not verify_password("k7f-x2q-m4q", one)
    assert normalize("K7F x2q") == "k7fx2q"


def test_password_hash_errors_are_clear():
    with pytest.raises(ValueError, match="power of two"):
        hash_password("x", n=3)
    with pytest.raises(ValueError, match="scrypt"):
        verify_password("x", "md5$abc")


def test_shortened_names_do_not_end_in_a_small_word():
    assert shorten("Red Devils of Dover and District United", 30) == "Red Devils of Dover"
    assert derive_short_name("Hertha Ost aus dem Wedding Nord", 15) == "Hertha Ost"
    assert derive_short_name("Grüne Jäger vom Bodensee Süd", 15) == "Grüne Jäger"
    assert shorten("Straße aus Stein und Beton", 15) == "Straße"
