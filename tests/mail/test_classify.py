"""classify: who gets an answer (only people), and which recipients bounced."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.mail.classify import KINDS, Classification, classify
from bot.mail.reading import InboundMail, read_message

EML = Path(__file__).parent / "eml"
BOT = "spielleitung@turnited.example"
OWN = {BOT, "Bot-Alias@Turnited.example"}


def load(name: str) -> InboundMail:
    return read_message((EML / name).read_bytes())


def mail(headers: str, body: str = "Hallo\nStatus\n") -> InboundMail:
    """A small mail from the given header lines (From defaults to a manager)."""
    if not any(line.lower().startswith("from:") for line in headers.splitlines()):
        headers = "From: Hans Meier <hans.meier@example.de>\n" + headers
    raw = f"{headers.strip()}\nTo: {BOT}\nMIME-Version: 1.0\n\n{body}"
    return read_message(raw.encode("utf-8"))


def verdict(m: InboundMail) -> Classification:
    result = classify(m, OWN)
    assert result.kind in KINDS
    assert result.reason
    return result


@pytest.mark.parametrize(
    "name",
    [
        "thunderbird-de-flowed.eml",
        "outlook-de-qp-cp1252.eml",
        "outlook-en-underscore-block.eml",
        "gmail-en-alternative.eml",
        "html-only-de-gmail-quote.eml",
        "apple-mail-de-base64.eml",
        "iphone-de-qp.eml",
        "android-de-latin1-8bit.eml",
        "outlook-web-en-html-only.eml",
        "gmail-en-forward.eml",
        "mislabelled-utf8-declared-latin1.eml",
        "unknown-charset-cp1252.eml",
        "errors-de.eml",
    ],
)
def test_people_are_answered(name: str) -> None:
    result = verdict(load(name))
    assert result.kind == "human"
    assert result.answerable
    assert result.bounced_recipients == ()


def test_own_address_in_any_case_is_self() -> None:
    result = verdict(load("self-sent-copy.eml"))
    assert result.kind == "self"
    assert not result.answerable
    alias = verdict(mail("From: bot-alias@TURNITED.example\nSubject: x"))
    assert alias.kind == "self"


def test_dsn_bounce_names_the_failed_recipient_once() -> None:
    result = verdict(load("bounce-postfix-to-bot.eml"))
    assert result.kind == "bounce"
    assert result.bounced_recipients == ("hans.alt@example.de",)
    assert "delivery status" in result.reason


def test_subject_only_out_of_office_is_auto() -> None:
    result = verdict(load("autoreply-de-abwesenheit-subject-only.eml"))
    assert result.kind == "auto"
    assert "Abwesenheitsnotiz" in result.reason


@pytest.mark.parametrize(
    ("headers", "kind"),
    [
        ("Auto-Submitted: auto-replied", "auto"),
        ("Auto-Submitted: auto-generated (vacation)", "auto"),
        ("Auto-Submitted: no", "human"),
        ("Precedence: bulk", "auto"),
        ("Precedence: junk", "auto"),
        ("Precedence: list", "auto"),
        ("Precedence: first-class", "human"),
        ("X-Autoreply: yes", "auto"),
        ("X-Autorespond: Urlaub", "auto"),
        ("X-Auto-Response-Suppress: All", "auto"),
        ("X-Apple-Action: VACATION", "auto"),
        ("X-Apple-Auto-Reply: true", "auto"),
        ("Return-Path: <>", "auto"),
        ("Return-Path: <hans.meier@example.de>", "human"),
        ("X-Envelope-From: <>", "auto"),
        ("List-Id: Turnited Fans <fans.lists.example>", "auto"),
        ("List-Unsubscribe: <mailto:leave@lists.example>", "auto"),
    ],
)
def test_automation_headers(headers: str, kind: str) -> None:
    assert verdict(mail(f"{headers}\nSubject: Turnited")).kind == kind


@pytest.mark.parametrize(
    ("subject", "kind"),
    [
        ("Automatic reply: Turnited Runde 12", "auto"),
        ("Auto reply: Turnited", "auto"),
        ("AutoReply: Turnited", "auto"),
        ("Out of Office: Turnited", "auto"),
        ("Abwesenheitsnotiz: Turnited Runde 12", "auto"),
        ("Automatische Antwort: Turnited Runde 12", "auto"),
        ("Gelesen: Turnited Runde 12", "auto"),
        ("Unzustellbar: Turnited Runde 12", "bounce"),
        ("Undelivered Mail Returned to Sender", "bounce"),
        ("Delivery Status Notification (Failure)", "bounce"),
        ("Mail delivery failed: returning message to sender", "bounce"),
        ("Returned mail: see transcript for details", "bounce"),
        ("Re: Unzustellbar? Meine Mail kam nicht an", "human"),
        ("Re: Abwesenheitsnotiz", "human"),
        ("Aufstellung Rote Teufel", "human"),
    ],
)
def test_subjects(subject: str, kind: str) -> None:
    assert verdict(mail(f"Subject: {subject}")).kind == kind


@pytest.mark.parametrize(
    "sender",
    ["noreply@shop.example", "no-reply@shop.example", "donotreply@shop.example",
     "newsletter-bounces@lists.example", "turnited-request@lists.example",
     "owner-turnited@lists.example"],
)
def test_no_reply_and_list_software_senders_are_auto(sender: str) -> None:
    assert verdict(mail(f"From: {sender}\nSubject: Hallo")).kind == "auto"


def test_mailer_daemon_plain_text_bounce_extracts_recipient_but_not_us() -> None:
    body = (
        "This message was created automatically by mail delivery software.\n\n"
        "A message that you sent could not be delivered to one or more of its\n"
        "recipients. The following address(es) failed:\n\n"
        "  hans.alt@example.de\n"
        "    SMTP error from remote mail server after MAIL FROM:<spielleitung@turnited.example>:\n"
        "    550 5.1.1 <hans.alt@example.de>... User unknown; ask postmaster@example.de\n\n"
        "------ This is a copy of the message, including all the headers. ------\n\n"
        "Return-path: <spielleitung@turnited.example>\n"
        "To: Other <other@example.de>\n"
    )
    result = verdict(
        mail("From: Mail Delivery System <Mailer-Daemon@mx.example.de>\nSubject: Hallo", body)
    )
    assert result.kind == "bounce"
    assert result.bounced_recipients == ("hans.alt@example.de",)


def test_x_failed_recipients_header() -> None:
    result = verdict(
        mail("X-Failed-Recipients: Anne@Example.org, bob@example.org\nSubject: Hallo")
    )
    assert result.kind == "bounce"
    assert result.bounced_recipients == ("anne@example.org", "bob@example.org")


def test_delay_warnings_are_bounces_without_failed_recipients() -> None:
    dsn = (
        "From: MAILER-DAEMON@mx.example.de\nSubject: Delayed Mail (still being retried)\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"'
    )
    body = (
        "--b\nContent-Type: text/plain\n\nStill trying.\n"
        "--b\nContent-Type: message/delivery-status\n\nReporting-MTA: dns; mx.example.de\n\n"
        "Final-Recipient: rfc822; slow@example.org\nAction: delayed\nStatus: 4.4.1\n--b--\n"
    )
    result = verdict(mail(dsn, body))
    assert result.kind == "bounce"
    assert "delay" in result.reason
    assert result.bounced_recipients == ()
    plain = verdict(
        mail(
            "From: postmaster@mx.example.de\n"
            "Subject: Delivery Status Notification (Delay)",
            "Delivery to slow@example.org is delayed.\n",
        )
    )
    assert plain.kind == "bounce"
    assert plain.bounced_recipients == ()


def test_dsn_recipient_that_is_our_own_address_is_not_reported() -> None:
    dsn = 'Subject: x\nContent-Type: multipart/report; report-type=delivery-status; boundary="b"'
    body = (
        "--b\nContent-Type: text/plain\n\nfailed\n"
        "--b\nContent-Type: message/delivery-status\n\n"
        f"Final-Recipient: rfc822; {BOT}\nAction: failed\n\n"
        "Final-Recipient: rfc822; gone@example.org\nAction: failed\n--b--\n"
    )
    assert verdict(mail(dsn, body)).bounced_recipients == ("gone@example.org",)


@pytest.mark.parametrize(
    ("report_type", "part", "reason"),
    [
        ("disposition-notification", "message/disposition-notification", "read receipt"),
        ("feedback-report", "message/feedback-report", "abuse"),
    ],
)
def test_reports_that_are_not_bounces_are_auto(report_type: str, part: str, reason: str) -> None:
    headers = f'Subject: x\nContent-Type: multipart/report; report-type={report_type}; boundary="b"'
    body = f"--b\nContent-Type: text/plain\n\nreport\n--b\nContent-Type: {part}\n\nX: y\n--b--\n"
    result = verdict(mail(headers, body))
    assert result.kind == "auto"
    assert reason in result.reason


def test_forwarded_bounce_is_still_a_person() -> None:
    headers = 'Subject: Fwd: Unzustellbar\nContent-Type: multipart/mixed; boundary="b"'
    body = (
        "--b\nContent-Type: text/plain\n\nWarum kam das zurueck?\n"
        "--b\nContent-Type: message/rfc822\n\n"
        "From: MAILER-DAEMON@mx.example.de\nSubject: Undelivered Mail\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="c"\n\n'
        "--c\nContent-Type: message/delivery-status\n\n"
        "Final-Recipient: rfc822; x@example.org\nAction: failed\n--c--\n--b--\n"
    )
    result = verdict(mail(headers, body))
    assert result.kind == "human"


def test_no_sender_is_unreadable_and_empty_input_too() -> None:
    no_from = read_message(b"To: spielleitung@turnited.example\nSubject: s\n\nStatus\n")
    assert verdict(no_from).kind == "unreadable"
    assert "sender" in verdict(no_from).reason
    empty = verdict(read_message(b""))
    assert empty.kind == "unreadable"
    assert empty.reason == "nothing readable"
