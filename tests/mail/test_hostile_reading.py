"""Bounded work per mail (issue 11): hostile mails are read, capped and
reported, never stall. The figures are in bench/bench_reading.py; these tests
pin what the reader does with such mails (each would take minutes if any
step were quadratic)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_reading as hostile

from bot.mail.body import MAX_FRESH_CHARS, MAX_HTML_CHARS
from bot.mail.classify import classify
from bot.mail.dsn import MAX_RECIPIENTS, addresses_in_bounce_text
from bot.mail.quotes import strip_quotes
from bot.mail.reading import MAX_READ_SIZE, read_message

BOT = ("spielleitung@turnited.example",)


def test_a_one_megabyte_subject_is_read_whole() -> None:
    mail = read_message(hostile.subject(1 << 20))
    assert mail.subject == "A" * (1 << 20)
    assert mail.fresh_text == "Status"
    assert classify(mail, BOT).kind == "human"


def test_a_60000_character_line_without_spaces() -> None:
    mail = read_message(hostile.long_line(60_000))
    assert mail.fresh_text == "x!" * 30_000
    assert strip_quotes("y" * 60_000 + ":\n> alt") == "y" * 60_000 + ":"


def test_ten_thousand_lines_that_look_like_attributions_and_headers() -> None:
    mail = read_message(hostile.many_lines(10_000 * 20))
    assert mail.fresh_text.startswith("Aufstellung: 10-10-15-15-20")
    assert len(mail.text.splitlines()) == 10_000


def test_deep_mime_nesting_is_read_as_text_with_a_defect() -> None:
    mail = read_message(hostile.deep_mime(1000 * 1000))
    assert any("MIME boundaries" in d for d in mail.defects)
    assert "Status" in mail.text
    shallow = read_message(hostile.deep_mime(40 * 1000))
    assert any("nesting too deep" in d for d in shallow.defects)


def test_many_parts_are_capped() -> None:
    mail = read_message(hostile.many_parts(900 * 100))
    assert any("more than 500 MIME parts" in d for d in mail.defects)
    assert mail.text.startswith("Teil 0 ")
    assert 490 < mail.text.count("Teil ") < 500  # the multipart containers count too
    huge = read_message(hostile.many_parts(5000 * 100))
    assert any("part delimiters" in d for d in huge.defects)


def test_a_huge_mail_is_read_up_to_the_cap_and_keeps_its_size() -> None:
    raw = b"From: Hans <hans@example.de>\nSubject: x\n\nStatus\n" + b"x" * (50 << 20)
    mail = read_message(raw)
    assert mail.size == len(raw)
    assert mail.sender == "hans@example.de"
    assert any(
        f"only the first {MAX_READ_SIZE - 0}" in d or "only the first" in d for d in mail.defects
    )
    assert len(mail.text) <= MAX_READ_SIZE
    small = read_message(raw, max_size=4096)
    assert small.size == len(raw) and len(small.text) < 4096


def test_html_and_fresh_text_are_capped() -> None:
    mail = read_message(hostile.html(1 << 20))
    assert any(f"the first {MAX_HTML_CHARS}" in d for d in mail.defects)
    assert len(strip_quotes("a\n" * MAX_FRESH_CHARS)) <= 2 * MAX_FRESH_CHARS


def test_deep_unclosed_blockquotes_get_bounded_quote_marks() -> None:
    mail = read_message(hostile.html(64 * 1024))
    assert max(len(line) for line in mail.text.splitlines()) < 200


def test_bounce_with_thousands_of_addresses_is_capped() -> None:
    mail = read_message(hostile.bounce(1 << 20))
    result = classify(mail, BOT)
    assert result.kind == "bounce"
    assert len(result.bounced_recipients) == MAX_RECIPIENTS
    assert result.bounced_recipients[0] == "user0@example.org"
    assert any("not scanned for bounce recipients" in d for d in mail.defects)


@pytest.mark.parametrize("text", ["!" * 60_000, "a@" * 30_000, "'" * 60_000 + "@x"])
def test_address_scan_of_long_runs(text: str) -> None:
    assert len(addresses_in_bounce_text(text)) <= MAX_RECIPIENTS
