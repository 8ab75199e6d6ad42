"""Bounces of the major MTAs and providers (issue 14), hand-written in
tests/mail/eml/bounce/, each with the recipients whose delivery failed.

Postfix, Exim, Sendmail (with and without a DSN part), qmail, Exchange /
Office 365, Gmail, GMX, web.de and Yahoo; plus the cases our own reader got
wrong: a DSN nested in ``message/rfc822``, "The original message was
received at ..." (not the start of the original), a ``Warning:`` subject on
a permanent failure (not a delay), and addresses with ``'`` or ``=`` glued on.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.mail.classify import classify
from bot.mail.dsn import address_from_field, addresses_in_bounce_text
from bot.mail.reading import read_message

BOUNCES = Path(__file__).parent / "eml" / "bounce"
BOT = ("spielleitung@turnited.example",)

#: file stem -> failed recipients (empty: a delay warning only)
EXPECTED: dict[str, tuple[str, ...]] = {
    "exim-permanent": ("sam.taylor@example.net",),
    "gmail-address-not-found": ("daan.devries@example.nl",),
    "gmx-mail-delivery-failed": ("mette.jensen@example.dk",),
    "nested-dsn-in-rfc822": ("petr.novak@example.cz",),
    "office365-undeliverable": ("joao.silva@contoso.example",),
    "postfix-user-unknown": ("lena.vogt@example.org",),
    "provider-glued-quote-and-equals": ("marco.rossi@example.it",),
    "qmail-failure-notice": ("anna.kowalska@example.pl",),
    "sendmail-delay-warning": (),
    "sendmail-dsn": ("ola.nordmann@example.no",),
    "sendmail-original-received-at": ("erik.lindqvist@example.se",),
    "warning-subject-permanent": ("ayse.yilmaz@example.com.tr",),
    "webde-unzustellbar": ("hans.mueller@example.de",),
    "yahoo-failure-notice": ("ivan.petrov@example.ru",),
}


def test_table_covers_the_folder_exactly() -> None:
    assert {p.stem for p in BOUNCES.glob("*.eml")} == set(EXPECTED)


@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_bounce_and_its_failed_recipients(stem: str) -> None:
    mail = read_message((BOUNCES / f"{stem}.eml").read_bytes())
    result = classify(mail, BOT)
    assert result.kind == "bounce", result.reason
    assert result.bounced_recipients == EXPECTED[stem], result.reason


def test_a_delay_is_named_by_the_detector_but_fails_nobody() -> None:
    mail = read_message((BOUNCES / "sendmail-delay-warning.eml").read_bytes())
    assert mail.bounce_delayed == ("erik.lindqvist@example.se",)
    assert mail.bounce_failed == ()
    assert "delay" in classify(mail, BOT).reason


def test_personal_mail_is_not_given_to_the_detector() -> None:
    raw = b"From: Hans <hans@example.de>\nSubject: Aufstellung\n\nAufstellung: 10-10-15-15-20\n"
    mail = read_message(raw)
    assert (mail.bounce_failed, mail.bounce_delayed) == ((), ())
    assert classify(mail, BOT).kind == "human"


def test_the_original_message_was_received_at_is_not_the_original() -> None:
    text = (
        "The original message was received at Fri, 24 Nov 2017 16:32:14 +0100\n"
        "from mail.turnited.example [192.0.2.10]\n\n"
        "   ----- The following addresses had permanent fatal errors -----\n<erik@example.se>\n"
        "   ----- Original message follows -----\nTo: other@example.se\n"
    )
    assert addresses_in_bounce_text(text) == ["erik@example.se"]


@pytest.mark.parametrize(
    ("value", "address"),
    [
        ("'marco@example.it'", "marco@example.it"),
        ("to=marco@example.it,", "marco@example.it"),
        ("rfc822; <Marco@Example.IT>", "marco@example.it"),
        ("recipient=o'brien@example.ie", "o'brien@example.ie"),
        ('"mette@example.dk":', "mette@example.dk"),
    ],
)
def test_quotes_and_keys_glued_to_an_address_are_not_part_of_it(value: str, address: str) -> None:
    assert address_from_field(value) == address
    assert addresses_in_bounce_text(value) == [address]
