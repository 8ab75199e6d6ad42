"""The real-world corpus (tests/corpus, origins in SOURCES.md) through the whole
reading half: read_message, classify and parse_moves, without an exception.

Expected kinds, decided per file:

* 001-024 human mail: ``human`` - except 015 (a 1997 mailing-list mail with
  ``Precedence: bulk``) and 023 (spam with ``Precedence: junk``), which are
  ``auto`` because RULES.md §9 forbids answering bulk/junk mail;
* 025-038, 041 bounces and delay notices: ``bounce`` (030 is a pure delay
  warning: no failed recipient); 042 read receipt, 043 abuse report and
  044-049 auto-replies: ``auto``;
* 050-080: forwards, digests and malformed mail from people are ``human``
  (a person gets an answer even when nothing could be read), 052 (a Mailman
  digest from ``ppp-request@``) is ``auto``; 066 and 074 have no From at all
  and are ``unreadable`` (nobody to answer; the pipeline archives them).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.mail.classify import classify
from bot.mail.reading import read_message
from tests.support.grammar import parse_moves

CORPUS = Path(__file__).parent.parent / "corpus"
FILES = sorted(CORPUS.glob("*.eml"))
BOT = ("spielleitung@turnited.example",)

HUMAN, BOUNCE, AUTO, UNREADABLE = "human", "bounce", "auto", "unreadable"

#: number -> (kind, failed recipients of a bounce)
EXPECTED: dict[str, tuple[str, tuple[str, ...]]] = {
    "001": (HUMAN, ()),
    "002": (HUMAN, ()),
    "003": (HUMAN, ()),
    "004": (HUMAN, ()),
    "005": (HUMAN, ()),
    "006": (HUMAN, ()),
    "007": (HUMAN, ()),
    "008": (HUMAN, ()),
    "009": (HUMAN, ()),
    "010": (HUMAN, ()),
    "011": (HUMAN, ()),
    "012": (HUMAN, ()),
    "015": (AUTO, ()),
    "016": (HUMAN, ()),
    "017": (HUMAN, ()),
    "018": (HUMAN, ()),
    "019": (HUMAN, ()),
    "020": (HUMAN, ()),
    "021": (HUMAN, ()),
    "022": (HUMAN, ()),
    "023": (AUTO, ()),
    "024": (HUMAN, ()),
    "025": (BOUNCE, ("asdfasdfasdfasdfasdfasdfewrqertrtyrthsfgdfgadfqeadvxzvz@gmail.com",)),
    "026": (BOUNCE, ("awfawfawfawfawfaw@someserverhere.com",)),
    "027": (BOUNCE, ("info@example.net",)),
    "028": (BOUNCE, ("demo@example.com",)),
    "029": (BOUNCE, ("user@aol.com",)),
    "030": (BOUNCE, ()),
    "031": (BOUNCE, ("kijitora@example.ed.jp",)),
    "032": (BOUNCE, ("kijitora@example.ne.jp",)),
    "033": (BOUNCE, ("kijitora@example.com",)),
    "034": (BOUNCE, ("kijitora@example.jp",)),
    "035": (BOUNCE, ("shironeko@example.jp",)),
    # flufl.bounce: the address written to; not the alias it expanded to at the bouncing host
    "036": (BOUNCE, ("kijitora@example.org",)),
    "037": (BOUNCE, ("userunknown@bouncehammer.jp",)),
    "038": (BOUNCE, ("xxxx@yyyyyy.net",)),
    "041": (BOUNCE, ("jangel1@cougar.noc.ucla.edu",)),
    "042": (AUTO, ()),
    "043": (AUTO, ()),
    "044": (AUTO, ()),
    "045": (AUTO, ()),
    "046": (AUTO, ()),
    "047": (AUTO, ()),
    "048": (AUTO, ()),
    "049": (AUTO, ()),
    "050": (HUMAN, ()),
    "051": (HUMAN, ()),
    "052": (AUTO, ()),
    "053": (HUMAN, ()),
    "054": (HUMAN, ()),
    "056": (HUMAN, ()),
    "057": (HUMAN, ()),
    "058": (HUMAN, ()),
    "059": (HUMAN, ()),
    "060": (HUMAN, ()),
    "061": (HUMAN, ()),
    "062": (HUMAN, ()),
    "063": (HUMAN, ()),
    "064": (HUMAN, ()),
    "065": (HUMAN, ()),
    "066": (UNREADABLE, ()),
    "067": (HUMAN, ()),
    "068": (HUMAN, ()),
    "069": (HUMAN, ()),
    "070": (HUMAN, ()),
    "071": (HUMAN, ()),
    "072": (HUMAN, ()),
    "073": (HUMAN, ()),
    "074": (UNREADABLE, ()),
    "075": (HUMAN, ()),
    "076": (HUMAN, ()),
    "077": (HUMAN, ()),
    "078": (HUMAN, ()),
    "079": (HUMAN, ()),
    "080": (HUMAN, ()),
}


def test_table_covers_the_corpus_exactly_and_copyleft_files_are_absent() -> None:
    numbers = {path.name[:3] for path in FILES}
    assert numbers == set(EXPECTED)
    assert not numbers & {"039", "040", "055"}
    assert (CORPUS / "SOURCES.md").is_file()


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:3])
def test_every_mail_is_read_classified_and_parsed(path: Path) -> None:
    raw = path.read_bytes()
    mail = read_message(raw)
    assert mail.size == len(raw)
    result = classify(mail, BOT)
    kind, recipients = EXPECTED[path.name[:3]]
    assert (result.kind, result.bounced_recipients) == (kind, recipients), result.reason
    moves = parse_moves(mail.subject, mail.fresh_text)
    # none of these mails is a game mail: nothing in them may read as a command
    assert moves.requests == ()
    assert moves.errors == ()


@pytest.mark.parametrize(
    ("number", "fresh"),
    [
        ("001", "Hello"),  # Gmail, "On ... wrote:" + quote
        ("002", "Hello"),  # Outlook From:/Sent:/To:/Subject: block
        ("003", "Hello"),  # Apple Mail
        ("004", "Hello"),  # iPhone, QP soft break inside "wrote:", "Sent from my iPhone"
        ("005", "Hello"),  # Thunderbird, answer below the quote
        ("006", "Hello"),  # Yahoo "----- Original Message -----"
        ("007", "Hello"),  # Android, Russian attribution wrapped over two lines
        ("008", "Hello"),  # Hotmail
        ("009", "Hello"),  # Sparrow, "-- " signature
        ("011", "This is html and text message, thanks"),
        ("016", "Liebe Grüße aus Österreich"),
        ("017", "Die Hasen und die Frösche"),
        ("019", "html åäö xlatin1"),
        ("022", "Search for höhö Test that we assemble HTML bodies correctly when there is a "
         "softbreak involved."),
        ("024", "HTML Body"),
        ("053", "This is the signed contents."),
    ],
)
def test_fresh_text_of_replies(number: str, fresh: str) -> None:
    (path,) = CORPUS.glob(f"{number}-*.eml")
    assert read_message(path.read_bytes()).fresh_text == fresh


def test_decoded_headers_of_nasty_mails() -> None:
    def mail(number: str):
        (path,) = CORPUS.glob(f"{number}-*.eml")
        return read_message(path.read_bytes())

    assert mail("015").sender_name == "Ingo Lütkebohle"  # raw latin-1 byte in From
    assert mail("017").to == ("mueller@example.com",)
    assert mail("019").subject == "latin1 template åäö"
    assert mail("021").text.startswith("メールを簡単に。")  # UTF-8 declared windows-1252
    assert mail("018").fresh_text.startswith("Despite the bad charset we can find the search "
                                             "term Mätterhorn.")
    assert mail("062").sender_name == "Юникод запрещен\ufffd"  # one broken byte only
    assert mail("072").subject == "GA.comô has a lead for you"
    assert mail("058").date is None and mail("058").sender == "123@example.com"
    assert mail("075").sender == "from@example.com"
    assert any("From headers" in d for d in mail("075").defects)
    assert mail("076").to == (  # three To headers, all read, the trailing comma ignored
        "second.to.field@invalid",
        "more@recipients.invalid",
        "third.to.field@invalid",
        "even.more@recipients.invalid",
        "lyukshinra@krw.rzd",
        "biakus@krw.rzd",
    )
    assert mail("080").sender == "test@test.com"
    assert mail("028").delivery_status[0].status == "4.2.2"
    assert mail("037").subject == "Returned mail: see transcript for details"  # CR line ends
