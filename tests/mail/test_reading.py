"""read_message on hand-written mails of the common clients, and the pieces it
is built from: charset decoding, format=flowed, HTML to text, quote stripping."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.mail.body import codec_name, decode_bytes, unflow
from bot.mail.htmltext import html_to_text
from bot.mail.quotes import strip_quotes
from bot.mail.reading import InboundMail, read_message

EML = Path(__file__).parent / "eml"
CORPUS = Path(__file__).parent.parent / "corpus"


def load(name: str) -> InboundMail:
    return read_message((EML / name).read_bytes())


# -- whole mails ------------------------------------------------------------------


def test_thunderbird_flowed_reply_with_umlaut_sender_and_bottom_quote() -> None:
    mail = load("thunderbird-de-flowed.eml")
    assert mail.sender == "hans.mueller@meier-online.de"  # lower-cased addr-spec
    assert mail.sender_name == "Hans Müller"
    assert mail.subject == "Re: Turnited Runde 12 – Bestätigung"
    assert mail.date == datetime(2026, 4, 4, 8, 15, 42, tzinfo=UTC)
    assert mail.message_id == "<5f0c2a1e-8d3b-4a7e-9b1c-2e7f4d6a8c90@meier-online.de>"
    assert mail.in_reply_to == "<turnited-r11-0042@turnited.example>"
    assert mail.references == ("<turnited-r11-0042@turnited.example>",)
    assert mail.to == ("spielleitung@turnited.example",)
    assert mail.body_source == "plain"
    # format=flowed: the soft-broken sentence is one line again
    assert (
        "die Aufstellung für die nächste Runde ist etwas defensiver als letztes Mal"
        in mail.text
    )
    # the full text keeps the quote; the fresh text has neither quote nor signature
    assert "> Rote Teufel: 0-0-30-30-30" in mail.text
    assert "0-0-30-30-30" not in mail.fresh_text
    assert "Kapitän" not in mail.fresh_text
    assert "schrieb" not in mail.fresh_text
    assert mail.fresh_text.startswith("Hallo Spielleitung,")
    assert mail.fresh_text.endswith("Viele Grüße\nHans")
    assert mail.defects == ()
    assert mail.size == len((EML / "thunderbird-de-flowed.eml").read_bytes())


def test_outlook_qp_windows1252_stops_at_original_message() -> None:
    mail = load("outlook-de-qp-cp1252.eml")
    assert mail.sender == "j.weiss@example.de"
    assert mail.sender_name == "Jürgen Weiß"
    assert mail.subject == "AW: Turnited Runde 11 - Bestätigung"
    assert mail.content_type == "multipart/alternative"
    assert mail.body_source == "plain"  # the plain alternative wins
    assert mail.fresh_text == (
        "Hallo,\n\nTeam: Fortuna Düsseldorf-Süd\nAufstellung: T10 A8 V16 M16 S22\n"
        "Kennwort: süd-7x\n\nMit freundlichen Grüßen\nJürgen Weiß"
    )
    assert "Fortuna Düsseldorf-Süd: 10-0-30-30-30" in mail.text


def test_outlook_underscore_from_sent_block_with_crlf() -> None:
    mail = load("outlook-en-underscore-block.eml")
    assert mail.sender_name == "Taylor, Sam"
    assert mail.fresh_text == "Hi,\n\nLineup: 10-10-20-25-25\nPassword: abc-123\n\nThanks,\nSam"
    assert "0-0-10-40-40" in mail.text
    assert "\r" not in mail.text


def test_gmail_alternative_wrapped_on_wrote_header() -> None:
    mail = load("gmail-en-alternative.eml")
    assert mail.fresh_text == (
        "New team: FC Wanderer Altona / Wanderer\n"
        "FC Wanderer Altona: T10 A10 V15 M15 S20\n\nCheers,\nOlli"
    )
    assert "0-10-20-30-30" in mail.text


def test_html_only_reply_drops_gmail_quote_but_text_keeps_it_quoted() -> None:
    mail = load("html-only-de-gmail-quote.eml")
    assert mail.body_source == "html"
    assert mail.fresh_text == "Hallo,\n\nRote Teufel: 0-10-20-20-30\nHilfe\n\nGrüße\nAnna"
    assert "> Rote Teufel: 10-10-15-15-20" in mail.text  # rendered as a quote
    assert "schrieb Turnited Spielleitung" in mail.text


def test_apple_mail_base64_quoted_attribution() -> None:
    mail = load("apple-mail-de-base64.eml")
    assert mail.sender_name == "Björn Öztürk"
    assert "alt-999" not in mail.fresh_text
    assert mail.fresh_text.splitlines()[2:5] == [
        "Neues Team: Kickers Öhringen / Kickers",
        "Kickers Öhringen: 5-5-20-20-30",
        "Manager: Björn Öztürk",
    ]


def test_iphone_footer_ends_fresh_text() -> None:
    mail = load("iphone-de-qp.eml")
    assert mail.fresh_text == "Zurückziehen: Rote Teufel"


def test_android_latin1_8bit_and_mobile_footer() -> None:
    mail = load("android-de-latin1-8bit.eml")
    assert mail.fresh_text == (
        "Hallo!\nMannschaft: Fortuna Düsseldorf-Süd\nAufstellung: 10/10/15/15/20\nStatus"
    )


def test_outlook_web_html_only_stops_at_reply_divider() -> None:
    mail = load("outlook-web-en-html-only.eml")
    assert mail.body_source == "html"
    assert mail.fresh_text == "Withdraw: Blue Boys\nPassword: 9zz-top"
    assert "Blue Boys: 0-0-10-40-40" in mail.text


def test_forward_is_not_fresh() -> None:
    mail = load("gmail-en-forward.eml")
    assert mail.fresh_text == "Help"


def test_mislabelled_and_unknown_charsets_are_repaired_and_noted() -> None:
    mislabelled = load("mislabelled-utf8-declared-latin1.eml")
    assert mislabelled.fresh_text == "Fortuna Düsseldorf-Süd: 10-10-15-15-20"
    assert mislabelled.sender_name == "Sven Köhler"  # raw UTF-8 in the header
    assert any("UTF-8" in d for d in mislabelled.defects)
    unknown = load("unknown-charset-cp1252.eml")
    assert unknown.sender_name == "Petra Groß"  # raw windows-1252 in the header
    assert "Süßwasser Kickers: 10-10-15-15-20" in unknown.fresh_text
    assert "Danke – Petra" in unknown.fresh_text
    assert any("x-mac-unknown-1" in d for d in unknown.defects)


def test_dsn_blocks_are_parsed() -> None:
    mail = load("bounce-postfix-to-bot.eml")
    assert mail.content_type == "multipart/report"
    assert mail.report_type == "delivery-status"
    assert "message/delivery-status" in mail.part_types
    assert "message/rfc822" in mail.part_types
    (recipient,) = mail.delivery_status
    assert recipient.final_recipient == "hans.alt@example.de"
    assert recipient.original_recipient == "hans.alt@example.de"
    assert recipient.action == "failed"
    assert recipient.status == "5.1.1"
    # the returned original is not part of the text
    assert "Rote Teufel" not in mail.text


def test_headers_are_kept_raw_by_lower_case_name() -> None:
    mail = load("bounce-postfix-to-bot.eml")
    assert mail.header("Auto-Submitted") == "auto-replied"
    assert mail.header_values("return-path") == ("<>",)
    assert mail.header("x-not-there") is None
    assert mail.reply_address == "mailer-daemon@mail.turnited.example"


def test_reply_to_wins_as_reply_address() -> None:
    raw = (
        b"From: Hans <hans@example.de>\nReply-To: Hans Privat <HANS@privat.example>\n"
        b"To: bot@turnited.example, Zweit <zweit@example.de>\nCc: c@example.de\n"
        b"Subject: x\n\nStatus\n"
    )
    mail = read_message(raw)
    assert mail.reply_to == "hans@privat.example"
    assert mail.reply_address == "hans@privat.example"
    assert mail.to == ("bot@turnited.example", "zweit@example.de")
    assert mail.cc == ("c@example.de",)


# -- never raises, best effort ----------------------------------------------------------


@pytest.mark.parametrize(
    "raw", [b"", b"\n\n\n", b"\x00\r\n\x00", b"From: \n\n", b"X-Only: header\n"]
)
def test_degenerate_input_is_unreadable_not_an_exception(raw: bytes) -> None:
    mail = read_message(raw)
    assert mail.unreadable
    assert mail.sender is None
    assert mail.size == len(raw)


def test_non_bytes_input_is_reported() -> None:
    mail = read_message(None)  # type: ignore[arg-type]
    assert mail.unreadable
    assert mail.defects and "not bytes" in mail.defects[0]
    assert read_message(bytearray(b"From: a@b.example\n\nHallo")).sender == "a@b.example"


def test_missing_from_falls_back_to_sender_header() -> None:
    mail = read_message(b"Sender: Hans <hans@example.de>\nSubject: s\n\nStatus\n")
    assert mail.sender == "hans@example.de"
    assert any("Sender" in d for d in mail.defects)


def test_impossible_date_is_none_with_defect_and_naive_date_is_utc() -> None:
    bad = read_message(b"From: a@b.example\nDate: Tue, 06 Jun 2017 27:39:33 +0600\n\nx")
    assert bad.date is None
    assert any("Date" in d for d in bad.defects)
    zoneless = read_message(b"From: a@b.example\nDate: Tue, 06 Jun 2017 12:00:00 -0000\n\nx")
    assert zoneless.date == datetime(2017, 6, 6, 12, 0, tzinfo=UTC)


def test_boundary_that_never_matches_is_read_as_plain_text() -> None:
    raw = (
        b"From: a@b.example\nMIME-Version: 1.0\n"
        b'Content-Type: multipart/alternative; boundary="nomatch"\n\n'
        b"--other\nContent-Type: text/plain\n\nAufstellung: 10-10-15-15-20\n--other--\n"
    )
    mail = read_message(raw)
    assert "Aufstellung: 10-10-15-15-20" in mail.fresh_text
    assert any("without readable parts" in d for d in mail.defects)


def test_attachments_and_forwarded_messages_are_not_text() -> None:
    raw = (
        b"From: a@b.example\nMIME-Version: 1.0\n"
        b'Content-Type: multipart/mixed; boundary="b"\n\n'
        b"--b\nContent-Type: text/plain; charset=utf-8\n\nStatus\n"
        b"--b\nContent-Type: text/plain; name=old.txt\nContent-Disposition: attachment\n\n"
        b"Rote Teufel: 0-0-30-30-30\n"
        b"--b\nContent-Type: message/rfc822\n\nFrom: x@y.example\nSubject: old\n\n"
        b"Aufstellung: 1-1-1-1-1\n--b--\n"
    )
    mail = read_message(raw)
    assert mail.text == "Status"
    assert mail.part_types == ("multipart/mixed", "text/plain", "text/plain", "message/rfc822")


# -- charsets ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "declared", "expected"),
    [
        ("Grüße".encode(), "utf-8", "Grüße"),
        ("Grüße".encode("latin-1"), "iso-8859-1", "Grüße"),
        ("„Süd“".encode("cp1252"), "iso-8859-1", "„Süd“"),  # latin-1 label, cp1252 bytes
        ("Grüße".encode(), "iso-8859-1", "Grüße"),  # mislabelled UTF-8
        ("Grüße".encode("cp1252"), "bad-charset", "Grüße"),
        ("Grüße".encode("cp1252"), "utf-8", "Grüße"),  # wrong UTF-8 label
        ("Grüße".encode("cp1252"), None, "Grüße"),
        ("Привет".encode("koi8-r"), "koi8-r", "Привет"),
        ("Grüße".encode("utf-7"), "utf-7", "Grüße"),
        (b"\x81\x8d", "us-ascii", "\x81\x8d"),  # undefined in cp1252: latin-1 never fails
    ],
)
def test_decode_bytes(data: bytes, declared: str | None, expected: str) -> None:
    text, _ = decode_bytes(data, declared)
    assert text == expected


def test_codec_names() -> None:
    assert codec_name("ISO-8859-1") == "iso8859-1"
    assert codec_name("windows-1252") == "cp1252"
    assert codec_name("base64") is None  # a bytes codec, not a charset
    assert codec_name("bad-charset") is None
    assert codec_name("unknown-8bit") is None
    assert codec_name(None) is None


def test_unflow_joins_soft_breaks_per_quote_depth() -> None:
    flowed = "Die Aufstellung \nfür heute\n> alt \n> zitiert\n-- \nSig"
    assert unflow(flowed) == "Die Aufstellung für heute\n> alt zitiert\n-- \nSig"
    assert unflow("ab \ncd", delsp=True) == "abcd"
    assert unflow(" >nicht zitiert") == ">nicht zitiert"  # space-stuffed


# -- HTML --------------------------------------------------------------------------------


def test_html_to_text_blocks_breaks_entities_and_skipped_elements() -> None:
    html = (
        "<html><head><title>T</title><style>p{}</style></head><body>"
        "<p>Team:&nbsp;Rote&nbsp;Teufel</p><div>10-10-15-15-20<br>Gru&szlig;</div>"
        "<script>alert(1)</script><ul><li>eins</li><li>zwei</li></ul>"
        "<table><tr><td>a</td><td>b</td></tr></table></body></html>"
    )
    assert html_to_text(html) == (
        "Team: Rote Teufel\n10-10-15-15-20\nGruß\n- eins\n- zwei\na b"
    )


def test_html_quotes_are_prefixed_or_dropped() -> None:
    html = (
        "<div>neu</div><blockquote type='cite'><div>alt 1</div>"
        "<blockquote>alt 2</blockquote></blockquote><div>danach</div>"
    )
    assert html_to_text(html) == "neu\n> alt 1\n> > alt 2\ndanach"
    assert html_to_text(html, drop_quotes=True) == "neu\ndanach"


def test_html_stop_markers_drop_the_rest() -> None:
    html = '<p>neu</p><div id="divRplyFwdMsg"><b>From:</b> x</div><p>alt</p>'
    assert html_to_text(html, drop_quotes=True) == "neu"
    hotmail = '<p>neu</p><hr id="stopSpelling"><p>alt</p>'
    assert html_to_text(hotmail, drop_quotes=True) == "neu"
    assert html_to_text(hotmail) == "neu\nalt"


def test_unclosed_html_does_not_fail() -> None:
    assert html_to_text("<div><p>a<blockquote>b", drop_quotes=True) == "a"
    assert html_to_text("<p>a</b></i></div>x") == "a\nx"


# -- quote stripping ----------------------------------------------------------------


@pytest.mark.parametrize(
    "header",
    [
        "Am 28.03.2026 um 18:00 schrieb Turnited Spielleitung <bot@turnited.example>:",
        "Am Sa., 28. März 2026 um 18:00 Uhr schrieb Turnited <bot@turnited.example>:",
        "On Sat, Mar 28, 2026 at 6:00 PM Turnited <bot@turnited.example> wrote:",
        "On 28/03/2026 18:00, Turnited wrote:",
        "Turnited <bot@turnited.example> schrieb am 28.03.2026 um 18:00:",
        "Le 28 mars 2026 à 18:00, Turnited <bot@turnited.example> a écrit :",
    ],
)
def test_attribution_followed_by_quote_is_dropped_and_reading_goes_on(header: str) -> None:
    text = f"Status\n\n{header}\n> Rote Teufel: 0-0-30-30-30\n\nHilfe"
    assert strip_quotes(text) == "Status\n\n\nHilfe"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Am 28.03.2026 um 18:00 schrieb Turnited Spielleitung <", "bot@turnited.example>:"),
        ("On Sat, Mar 28, 2026 at 6:00 PM Turnited <bot@turnited.example>", "wrote:"),
        (
            '28.03.2026 18:00 пользователь "bot@turnited.example" <',
            "bot@turnited.example> написал:",
        ),
    ],
)
def test_wrapped_attribution(first: str, second: str) -> None:
    text = f"10-10-15-15-20\n{first}\n{second}\n\n> 0-0-30-30-30"
    assert strip_quotes(text) == "10-10-15-15-20"


def test_attribution_followed_by_unquoted_original_ends_fresh_text() -> None:
    text = "Status\nAm 28.03.2026 um 18:00 schrieb Turnited <bot@turnited.example>:\n0-0-30-30-30"
    assert strip_quotes(text) == "Status"


@pytest.mark.parametrize(
    "separator",
    [
        "-----Ursprüngliche Nachricht-----",
        "-----Original Message-----",
        "----- Original Message -----",
        "---------- Forwarded message ---------",
        "-------- Weitergeleitete Nachricht --------",
        "-------- Original-Nachricht --------",
        "Begin forwarded message:",
        "Anfang der weitergeleiteten Nachricht:",
        "-- ",
        "--",
        "Von meinem iPhone gesendet",
        "Sent from my iPhone",
        "Gesendet von meinem Android-Telefon",
    ],
)
def test_separators_end_fresh_text(separator: str) -> None:
    assert strip_quotes(f"Status\n{separator}\nRote Teufel: 0-0-30-30-30") == "Status"


@pytest.mark.parametrize(
    "block",
    [
        "Von: Turnited\nGesendet: Samstag, 28. März 2026 18:00\nAn: Hans\nBetreff: Runde 11",
        "From: Turnited\nSent: Saturday\nTo: Hans\nSubject: Round 11",
        "________________________________\nFrom: Turnited\nSent: Saturday\nTo: Hans",
        "________________________________\n\nVon: Turnited\nDatum: Samstag\nAn: Hans",
    ],
)
def test_outlook_header_blocks_end_fresh_text(block: str) -> None:
    assert strip_quotes(f"Status\n\n{block}\n\nRote Teufel: 0-0-30-30-30") == "Status"


def test_lines_like_headers_alone_are_kept() -> None:
    text = "Von: mir\nStatus\nAm Samstag schrieb ich dir:\nHilfe\n______________"
    assert strip_quotes(text) == text


def test_fresh_line_above_an_attribution_is_not_swallowed() -> None:
    text = "Rote Teufel: 10-10-15-15-20\nAm 28.03.2026 um 18:00 schrieb X <x@y.example>:\n> alt"
    assert strip_quotes(text) == "Rote Teufel: 10-10-15-15-20"


def test_interleaved_answers_keep_every_fresh_line() -> None:
    text = "> Welche Aufstellung?\n10-10-15-15-20\n> Und das Passwort?\nPasswort: geheim"
    assert strip_quotes(text) == "10-10-15-15-20\nPasswort: geheim"


# -- properties -----------------------------------------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=3000))
def test_read_message_never_raises_on_arbitrary_bytes(raw: bytes) -> None:
    mail = read_message(raw)
    assert mail.size == len(raw)
    assert isinstance(mail.text, str) and isinstance(mail.fresh_text, str)
    mail.text.encode("utf-8")  # no lone surrogates escape
    mail.subject.encode("utf-8")


_CORPUS_FILES = sorted(p for p in CORPUS.glob("*.eml") if p.stat().st_size < 40_000)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(_CORPUS_FILES),
    st.lists(
        st.tuples(
            st.floats(min_value=0, max_value=1),
            st.sampled_from(["flip", "cut", "dup", "insert"]),
            st.binary(min_size=1, max_size=12),
        ),
        min_size=1,
        max_size=6,
    ),
)
def test_read_message_never_raises_on_mutated_corpus_mails(
    path: Path, mutations: list[tuple[float, str, bytes]]
) -> None:
    raw = bytearray(path.read_bytes())
    for where, how, data in mutations:
        at = int(where * max(len(raw) - 1, 0))
        if how == "flip" and raw:
            raw[at] ^= data[0] | 1
        elif how == "cut":
            del raw[at : at + len(data) * 8]
        elif how == "dup":
            raw[at:at] = raw[at : at + 64]
        else:
            raw[at:at] = random.Random(data).choice(
                [b"\n--", b"=?utf-8?B?", b"\r", b"\n\n", b"Content-Type: multipart/mixed", data]
            )
    mail = read_message(bytes(raw))
    assert mail.size == len(raw)
    mail.fresh_text.encode("utf-8")


@given(st.text(max_size=400))
def test_strip_quotes_never_raises_and_never_keeps_quote_lines(text: str) -> None:
    fresh = strip_quotes(text)
    assert all(not line.lstrip().startswith(">") for line in fresh.splitlines())
    assert len(fresh) <= len(text)


@given(st.text(max_size=400))
def test_html_to_text_never_raises(html: str) -> None:
    assert isinstance(html_to_text(html, drop_quotes=True), str)


def test_outlook_html_alternative_gives_the_same_fresh_text() -> None:
    """Outlook's HTML part has no quote markup: the converted "Von:/Gesendet:" block
    must still end the fresh text."""
    import email
    import email.policy

    message = email.message_from_bytes(
        (EML / "outlook-de-qp-cp1252.eml").read_bytes(), policy=email.policy.default
    )
    (html_part,) = [p for p in message.walk() if p.get_content_type() == "text/html"]
    fresh = strip_quotes(html_to_text(html_part.get_content(), drop_quotes=True))
    assert fresh == (
        "Hallo,\nTeam: Fortuna Düsseldorf-Süd\nAufstellung: T10 A8 V16 M16 S22\n"
        "Kennwort: süd-7x\nMit freundlichen Grüßen\nJürgen Weiß"
    )


def test_fallback_reader_when_the_email_package_itself_fails(monkeypatch) -> None:
    """If ``email`` ever raises, headers come from a plain scan and the body is text."""
    import bot.mail.reading as reading

    class Broken:
        def __init__(self, **_: object) -> None:
            pass

        def parsebytes(self, data: bytes) -> None:
            raise RuntimeError("parser exploded")

    monkeypatch.setattr(reading, "BytesParser", Broken)
    raw = (
        "From: Jürgen <J@Example.de>\r\nSubject: =?utf-8?q?Aufstellung_S=C3=BCd?=\r\n"
        " (gefaltet)\r\nMessage-ID: <x1@example.de>\r\n\r\nSüd: 10-10-15-15-20\r\n"
        "> alt\r\n"
    ).encode()
    mail = read_message(raw)
    assert mail.defects[0] == "parser failed: RuntimeError: parser exploded"
    assert mail.sender == "j@example.de"
    assert mail.sender_name == "Jürgen"
    assert mail.subject == "Aufstellung Süd (gefaltet)"
    assert mail.message_id == "<x1@example.de>"
    assert mail.fresh_text == "Süd: 10-10-15-15-20"
    assert not mail.unreadable
