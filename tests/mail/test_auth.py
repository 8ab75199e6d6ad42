"""Sender trust from Authentication-Results: only the configured server's header counts."""

from __future__ import annotations

import pytest

from bot.mail.auth import sender_trust
from bot.mail.reading import read_message

MX = "mx.example.org"


@pytest.mark.parametrize(
    ("value", "forged"),
    [
        (f"{MX}; dmarc=fail (p=reject) header.from=example.com", True),
        (f"{MX}; spf=pass smtp.mailfrom=example.com; dmarc=pass header.from=example.com", False),
        (f"{MX}; spf=fail smtp.mailfrom=example.com; dkim=none", True),
        (f"{MX}; spf=fail smtp.mailfrom=example.com", True),
        (f"{MX}; spf=fail smtp.mailfrom=example.com; dkim=pass header.d=example.com", False),
        (f"{MX}; spf=softfail smtp.mailfrom=example.com; dkim=none", False),
        (f"{MX}; spf=fail smtp.mailfrom=x.com; dkim=pass header.d=x.com; dmarc=fail", True),
        (f"{MX}; spf=fail smtp.mailfrom=x.com; dmarc=pass header.from=x.com", False),
        (f"{MX}; none", False),
        (f"{MX.upper()} 1; dmarc=fail header.from=example.com", True),
    ],
)
def test_verdicts(value, forged):
    assert sender_trust([value], MX).forged is forged


def test_other_servers_headers_are_ignored():
    assert not sender_trust(["evil.example; dmarc=fail"], MX).forged
    assert not sender_trust(["mx.example.org.evil; dmarc=fail"], MX).forged
    assert not sender_trust([f"{MX}; dmarc=fail"], None).checked


def test_the_topmost_header_of_the_server_wins_over_one_the_sender_forged():
    raw = (
        f"Authentication-Results: {MX}; spf=fail smtp.mailfrom=example.com; dmarc=fail\r\n"
        "From: anna@example.com\r\n"
        f"Authentication-Results: {MX}; dmarc=pass header.from=example.com\r\n"
        "Subject: x\r\n\r\nhi\r\n"
    ).encode()
    mail = read_message(raw)
    assert sender_trust(mail.header_values("authentication-results"), MX).forged


def test_unparsable_header_is_unchecked_not_forged():
    trust = sender_trust([f"{MX}; ;;; =="], MX)
    assert not trust.forged and not trust.checked


# -- a game master's mail must pass (RULES.md §13) -----------------------------------


@pytest.mark.parametrize(
    ("value", "passed"),
    [
        (f"{MX}; dmarc=pass header.from=game.example", True),
        (f"{MX}; dkim=pass header.d=game.example; spf=fail smtp.mailfrom=x@evil.example", True),
        (f"{MX}; dkim=pass header.d=game.example; dmarc=none", True),
        (f"{MX}; spf=pass smtp.mailfrom=gm@game.example", True),
        # not merely "not forged": a pass for the From's domain is needed
        (f"{MX}; none", False),
        (f"{MX}; spf=softfail smtp.mailfrom=gm@game.example", False),
        (f"{MX}; dmarc=fail header.from=game.example", False),
        (f"{MX}; dmarc=pass header.from=game.example; dmarc=fail", True),
        # a pass for another domain says nothing about the From
        (f"{MX}; dkim=pass header.d=evil.example; spf=pass smtp.mailfrom=x@evil.example", False),
        (f"{MX}; dkim=pass header.d=example; spf=pass smtp.mailfrom=x@sub.game.example", False),
        ("other.example; dmarc=pass header.from=game.example", False),
    ],
)
def test_a_game_masters_mail_needs_a_pass_for_its_domain(value, passed):
    from bot.mail.auth import sender_verified

    assert sender_verified([value], MX, "gm@game.example").passed is passed
    assert sender_verified([value], MX, "gm@mail.game.example").passed is (
        passed and "spf=pass" not in value)
