"""parse_moves: RULES.md §11 line by line, errors, ignored lines, language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.mail.grammar import EXAMPLE_LINEUP, strip_subject_prefixes
from bot.mail.reading import read_message
from bot.render.i18n import translations
from bot.rules.errors import InvalidLineupError
from bot.rules.lineup import LABELS, Lineup
from bot.rules.requests import (
    TYPO,
    GivePassword,
    LineError,
    ParsedMoves,
    RegisterTeam,
    Request,
    SelectTeam,
    SetLineup,
    SetShortName,
)
from bot.service.commands.ask_help import AskHelp
from bot.service.commands.manager_name import SetManagerName
from bot.service.commands.status import AskStatus
from bot.service.commands.withdraw import Withdraw
from tests.support.grammar import parse_moves

EML = Path(__file__).parent / "eml"
L = Lineup.parse


def one(line: str) -> Request:
    moves = parse_moves("", line)
    assert moves.errors == (), moves.errors
    assert len(moves.requests) == 1, moves
    return moves.requests[0]


def error(line: str) -> LineError:
    moves = parse_moves("", line)
    assert moves.requests == (), moves.requests
    (err,) = moves.errors
    return err


STD = "10-10-15-15-20"


def lu(line: str, team: str | None = None, lineup: str = STD) -> SetLineup:
    return SetLineup(line, team, L(lineup))


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Team: Rote Teufel", SelectTeam("Team: Rote Teufel", "Rote Teufel")),
        ("team rote teufel", SelectTeam("team rote teufel", "rote teufel")),
        ("Mannschaft: Blaue Jungs", SelectTeam("Mannschaft: Blaue Jungs", "Blaue Jungs")),
        ("TEAM:   Rote    Teufel  ", SelectTeam("TEAM: Rote Teufel", "Rote Teufel")),
        ("Aufstellung: 10-10-15-15-20", lu("Aufstellung: 10-10-15-15-20")),
        ("aufstellung 10/10/15/15/20", lu("aufstellung 10/10/15/15/20")),
        ("Lineup: T10 A10 V15 M15 S20", lu("Lineup: T10 A10 V15 M15 S20")),
        ("Line-up: 0,0,30,30,30", lu("Line-up: 0,0,30,30,30", None, "0-0-30-30-30")),
        ("10-10-15-15-20", lu("10-10-15-15-20")),
        ("10 10 15 15 20", lu("10 10 15 15 20")),
        ("T=10, A=10, V=15, M=15, S=20", lu("T=10, A=10, V=15, M=15, S=20")),
        (
            "Torwart 10 Ausputzer 10 Verteidigung 15 Mittelfeld 15 Sturm 20",
            lu("Torwart 10 Ausputzer 10 Verteidigung 15 Mittelfeld 15 Sturm 20"),
        ),
        ("S20 M15 V15 A10 T10", lu("S20 M15 V15 A10 T10")),
        ("Rote Teufel: 10-10-15-15-20", lu("Rote Teufel: 10-10-15-15-20", "Rote Teufel")),
        (
            "Fortuna Düsseldorf-Süd: 12-3-10-40-50",
            lu(
                "Fortuna Düsseldorf-Süd: 12-3-10-40-50",
                "Fortuna Düsseldorf-Süd",
                "12-3-10-40-50",
            ),
        ),
        ("Schalke 04: 10/10/15/15/20", lu("Schalke 04: 10/10/15/15/20", "Schalke 04")),
        ("1. FC Köln: 10-10-15-15-20", lu("1. FC Köln: 10-10-15-15-20", "1. FC Köln")),
        (
            "Rote Teufel: T:10 A:10 V:15 M:15 S:20",
            lu("Rote Teufel: T:10 A:10 V:15 M:15 S:20", "Rote Teufel"),
        ),
        ("Hannover 96 10-10-15-15-20", lu("Hannover 96 10-10-15-15-20", "Hannover 96")),
        (
            "Aufstellung für Rote Teufel: 10-10-15-15-20",
            lu("Aufstellung für Rote Teufel: 10-10-15-15-20", "Rote Teufel"),
        ),
        (
            "Lineup for Blue Boys: 10-10-15-15-20",
            lu("Lineup for Blue Boys: 10-10-15-15-20", "Blue Boys"),
        ),
        (
            "Aufstellung: Rote Teufel: 10-10-15-15-20",
            lu("Aufstellung: Rote Teufel: 10-10-15-15-20", "Rote Teufel"),
        ),
        ("Hier meine Aufstellung: 10-10-15-15-20", lu("Hier meine Aufstellung: 10-10-15-15-20")),
        (
            "Team: Rote Teufel: 10-10-15-15-20",
            lu("Team: Rote Teufel: 10-10-15-15-20", "Rote Teufel"),
        ),
        ("Team Rot: 10-10-15-15-20", lu("Team Rot: 10-10-15-15-20", "Team Rot")),
        (
            "Neues Team: FC Wanderer Altona / Wanderer",
            RegisterTeam(
                "Neues Team: FC Wanderer Altona / Wanderer", "FC Wanderer Altona", "Wanderer"
            ),
        ),
        ("New team: Blue Boys", RegisterTeam("New team: Blue Boys", "Blue Boys", None)),
        ("Neue Mannschaft: Kickers", RegisterTeam("Neue Mannschaft: Kickers", "Kickers", None)),
        ("Kurzname: Wanderer", SetShortName("Kurzname: Wanderer", "Wanderer")),
        ("Kürzel: Süd", SetShortName("Kürzel: Süd", "Süd")),
        ("Short name: Boys", SetShortName("Short name: Boys", "Boys")),
        ("Passwort: k7f-x2q", GivePassword("Passwort: k7f-x2q", "k7f-x2q")),
        ("Kennwort k7f-x2q", GivePassword("Kennwort k7f-x2q", "k7f-x2q")),
        ('Password: "abc-123"', GivePassword('Password: "abc-123"', "abc-123")),
        ("Manager: Hans Meier", SetManagerName("Manager: Hans Meier", "Hans Meier")),
        ("Zurückziehen: Rote Teufel", Withdraw("Zurückziehen: Rote Teufel", "Rote Teufel")),
        ("Zurueckziehen: Rote Teufel", Withdraw("Zurueckziehen: Rote Teufel", "Rote Teufel")),
        ("Withdraw: Blue Boys", Withdraw("Withdraw: Blue Boys", "Blue Boys")),
        ("Status", AskStatus("Status")),
        ("status?", AskStatus("status?")),
        ("Hilfe", AskHelp("Hilfe")),
        ("HELP!", AskHelp("HELP!")),
        ("- 10-10-15-15-20", lu("10-10-15-15-20")),
        ("10-10-15-15-20.", lu("10-10-15-15-20.")),
    ],
)
def test_commands(line: str, expected: Request) -> None:
    assert one(line) == expected


def test_decomposed_umlauts_and_nbsp_are_normalised() -> None:
    line = "Zuru\u0308ckziehen:\u00a0Fortuna Du\u0308sseldorf-Su\u0308d"
    assert one(line) == Withdraw(
        "Zurückziehen: Fortuna Düsseldorf-Süd", "Fortuna Düsseldorf-Süd"
    )


def test_register_with_lineup_in_one_line() -> None:
    moves = parse_moves("", "Neues Team: Kickers Öhringen / Kickers: 5-5-20-20-30")
    line = "Neues Team: Kickers Öhringen / Kickers: 5-5-20-20-30"
    assert moves.requests == (
        RegisterTeam(line, "Kickers Öhringen", "Kickers"),
        SetLineup(line, "Kickers Öhringen", L("5-5-20-20-30")),
    )


@pytest.mark.parametrize(
    ("line", "lineup_part"),
    [
        ("Aufstellung: 10-10-15-15", "10-10-15-15"),
        ("Rote Teufel: 8.5-10-15-15-20", "8.5-10-15-15-20"),
        ("10-10-15-15-20-5", "10-10-15-15-20-5"),
        ("10-10-15", "10-10-15"),
        ("Lineup: -5 10 15 15 20", "-5 10 15 15 20"),
        ("Aufstellung: siehe unten", "siehe unten"),
        ("T10 A10 V15 M15", "T10 A10 V15 M15"),
        ("Rote Teufel 10-10-15-15", "10-10-15-15"),
        ("Aufstellung für Rote Teufel: 10-10-15-15-2x", "10-10-15-15-2x"),
    ],
)
def test_lineup_errors_quote_the_reason_of_the_rules_core(line: str, lineup_part: str) -> None:
    with pytest.raises(InvalidLineupError) as raised:
        Lineup.parse(lineup_part)
    err = error(line)
    assert (err.line, err.line_number, err.reason, err.example) == (
        line, 1, raised.value.reason, EXAMPLE_LINEUP
    )
    assert err.part == lineup_part  # the exact part that could not be read


@pytest.mark.parametrize(
    ("line", "example", "german"),
    [
        ("Team:", "Team: Red Devils", "Team: Rote Teufel"),
        ("Neues Team:", "New team: FC Wanderers Altona / Wanderers",
         "Neues Team: FC Wanderer Altona / Wanderer"),
        ("Neues Team: / Kurz", "New team: FC Wanderers Altona / Wanderers",
         "Neues Team: FC Wanderer Altona / Wanderer"),
        ("Passwort:", "Password: k7f-x2q", "Passwort: k7f-x2q"),
        ("Withdraw:", "Withdraw: Red Devils", "Zurückziehen: Rote Teufel"),
        ("Manager: ", "Manager: John Smith", "Manager: Hans Meier"),
        ("Kurzname:", "Short name: Wanderers", "Kurzname: Wanderer"),
    ],
)
def test_keyword_with_colon_but_no_value_is_an_error(line: str, example: str,
                                                     german: str) -> None:
    """The example is a message of the catalog: a reply shows it in the mail's language."""
    err = error(line)
    assert err.example == example
    assert translations("de").gettext(err.example) == german
    assert "no " in err.reason


@pytest.mark.parametrize(
    ("line", "listed"),
    [
        ("Hallo", False),  # a greeting (RULES.md §11): not listed
        ("Wir spielen um 20:00", True),
        ("12.05.2026", True),
        ("2026-05-12", True),
        ("Tel. 0171-123-45-67", True),
        ("+49 171 123 45 67", True),
        ("Telefon: 0171 123 45 67", True),
        ("Ergebnis: 3:1", True),
        ("Neue Mannschaft", False),  # goes with the commands (bot.mail.prose): not listed
        ("Aufstellung für nächste Woche", False),
        ("Aufstellung:", False),
        ("Team,", False),
        ("Teamgeist ist alles", True),
        ("550 5.1.1 User unknown", True),
        ("Version 1.2.3 ist da", True),
    ],
)
def test_ordinary_text_is_ignored(line: str, listed: bool) -> None:
    """No command; listed as not understood only when it looks like an
    attempted one (RULES.md §11), and no message to a person either."""
    moves = parse_moves("", line)
    assert moves.requests == () and moves.errors == ()
    assert moves.ignored == ((line,) if listed else ())
    assert moves.prose == ()
    assert moves.empty


def test_line_numbers_count_lines_of_the_text_blank_ones_included() -> None:
    moves = parse_moves("", "Hallo\n\nAufstellung: 1-2-3\n\n\n10-10-15-15-20-1\nTaktik: Sturm")
    assert [e.line_number for e in moves.errors] == [3, 6]
    assert moves.ignored == ("Taktik: Sturm",)  # the greeting "Hallo" is not listed


def test_subject_is_line_zero_prefixes_removed_never_ignored() -> None:
    moves = parse_moves("AW: Re: WG: Rote Teufel: 10-10-15-15-20", "Hallo\nTaktik: Sturm")
    assert moves.requests == (
        SetLineup("Rote Teufel: 10-10-15-15-20", "Rote Teufel", L("10-10-15-15-20")),
    )
    assert moves.ignored == ("Taktik: Sturm",)
    assert parse_moves("Re: Turnited Runde 12", "").ignored == ()
    err = parse_moves("Fwd: Aufstellung: 1-2-3-4", "").errors[0]
    assert err.line_number == 0


@pytest.mark.parametrize(
    ("subject", "stripped"),
    [
        ("Re: Aufstellung", "Aufstellung"),
        ("AW: WG: Fwd: Fw: Antw: x", "x"),
        ("RE[2]: x", "x"),
        ("Re:Re: x", "x"),
        ("Rekord", "Rekord"),
        ("Awesome", "Awesome"),
    ],
)
def test_strip_subject_prefixes(subject: str, stripped: str) -> None:
    assert strip_subject_prefixes(subject) == stripped


@pytest.mark.parametrize(
    ("subject", "text", "language"),
    [
        ("", "Lineup: 10-10-15-15-20", "en"),
        ("", "Aufstellung: 10-10-15-15-20", "de"),
        ("", "Password: x\nAufstellung: 10-10-15-15-20", "de"),
        ("", "New team: Blue Boys\nShort name: Boys\nWithdraw: Reds\nHelp", "en"),
        ("", "Team: Reds\n10-10-15-15-20", "de"),
        ("", "Hello,\nTeam: Reds\n10-10-15-15-20\nThanks and regards", "en"),
        ("", "Hallo,\nTeam: Reds\n10-10-15-15-20\nDanke und Gruß", "de"),
        ("AW: Runde 12", "Team: Reds\nthe best", "de"),
        ("", "goalkeeper 10 sweeper 10 defence 15 midfield 15 attack 20", "en"),
        ("", "Torwart 10 Ausputzer 10 Verteidigung 15 Mittelfeld 15 Sturm 20", "de"),
        ("", "", "de"),
    ],
)
def test_language(subject: str, text: str, language: str) -> None:
    assert parse_moves(subject, text).language == language


# -- whole mails ------------------------------------------------------------------------


def moves_of(name: str) -> ParsedMoves:
    mail = read_message((EML / name).read_bytes())
    return parse_moves(mail.subject, mail.fresh_text)


def test_thunderbird_reply_reads_the_new_lineup_not_the_quoted_one() -> None:
    moves = moves_of("thunderbird-de-flowed.eml")
    assert moves.requests == (
        SetLineup("Rote Teufel: 10-10-15-15-20", "Rote Teufel", L("10-10-15-15-20")),
        GivePassword("Passwort: k7f-x2q", "k7f-x2q"),
    )
    assert moves.errors == ()
    assert moves.language == "de"
    assert "Viele Grüße" not in moves.ignored  # a sign-off (RULES.md §9), not "not understood"
    assert [(n.kind, n.text) for n in moves.notes] == [("signature", "Viele Grüße / Hans")]


def test_outlook_reply_select_team_then_lineup() -> None:
    moves = moves_of("outlook-de-qp-cp1252.eml")
    assert moves.requests == (
        SelectTeam("Team: Fortuna Düsseldorf-Süd", "Fortuna Düsseldorf-Süd"),
        SetLineup("Aufstellung: T10 A8 V16 M16 S22", None, L("10-8-16-16-22")),
        GivePassword("Kennwort: süd-7x", "süd-7x"),
    )
    assert moves.language == "de"


def test_gmail_english_registration() -> None:
    moves = moves_of("gmail-en-alternative.eml")
    assert moves.requests == (
        RegisterTeam("New team: FC Wanderer Altona / Wanderer", "FC Wanderer Altona", "Wanderer"),
        SetLineup(
            "FC Wanderer Altona: T10 A10 V15 M15 S20", "FC Wanderer Altona", L("10-10-15-15-20")
        ),
    )
    assert moves.language == "en"


@pytest.mark.parametrize(
    ("name", "expected", "language"),
    [
        (
            "html-only-de-gmail-quote.eml",
            (
                SetLineup("Rote Teufel: 0-10-20-20-30", "Rote Teufel", L("0-10-20-20-30")),
                AskHelp("Hilfe"),
            ),
            "de",
        ),
        ("iphone-de-qp.eml", (Withdraw("Zurückziehen: Rote Teufel", "Rote Teufel"),), "de"),
        (
            "outlook-web-en-html-only.eml",
            (
                Withdraw("Withdraw: Blue Boys", "Blue Boys"),
                GivePassword("Password: 9zz-top", "9zz-top"),
            ),
            "en",
        ),
        ("gmail-en-forward.eml", (AskHelp("Help"),), "en"),
        (
            "outlook-en-underscore-block.eml",
            (
                SetLineup("Lineup: 10-10-20-25-25", None, L("10-10-20-25-25")),
                GivePassword("Password: abc-123", "abc-123"),
            ),
            "en",
        ),
        (
            "android-de-latin1-8bit.eml",
            (
                SelectTeam("Mannschaft: Fortuna Düsseldorf-Süd", "Fortuna Düsseldorf-Süd"),
                SetLineup("Aufstellung: 10/10/15/15/20", None, L("10-10-15-15-20")),
                AskStatus("Status"),
            ),
            "de",
        ),
        (
            "apple-mail-de-base64.eml",
            (
                RegisterTeam(
                    "Neues Team: Kickers Öhringen / Kickers", "Kickers Öhringen", "Kickers"
                ),
                lu("Kickers Öhringen: 5-5-20-20-30", "Kickers Öhringen", "5-5-20-20-30"),
                SetManagerName("Manager: Björn Öztürk", "Björn Öztürk"),
            ),
            "de",
        ),
        (
            "unknown-charset-cp1252.eml",
            (
                RegisterTeam(
                    "Neues Team: Süßwasser Kickers / Süßwasser", "Süßwasser Kickers", "Süßwasser"
                ),
                lu("Süßwasser Kickers: 10-10-15-15-20", "Süßwasser Kickers"),
            ),
            "de",
        ),
        (
            "mislabelled-utf8-declared-latin1.eml",
            (
                SetLineup(
                    "Fortuna Düsseldorf-Süd: 10-10-15-15-20",
                    "Fortuna Düsseldorf-Süd",
                    L("10-10-15-15-20"),
                ),
            ),
            "de",
        ),
    ],
)
def test_client_mails(name: str, expected: tuple[Request, ...], language: str) -> None:
    moves = moves_of(name)
    assert moves.requests == expected
    assert moves.errors == ()
    assert moves.language == language


def test_mail_with_lineup_errors() -> None:
    moves = moves_of("errors-de.eml")
    assert moves.requests == ()
    assert [(e.line_number, e.line, e.reason) for e in moves.errors] == [
        (3, "Aufstellung: 10-10-15-15", "4 numbers instead of five"),
        (4, "Rote Teufel: 8.5-10-15-15-20", "8.5 is not a whole number"),
        (5, "10-10-15-15-20-5", "6 numbers instead of five"),
    ]
    assert moves.ignored == (  # the greeting "Hallo," is not listed (RULES.md §11)
        "Wir spielen um 20:00, Treffpunkt am 12.05.2026.",
    )
    assert [(n.kind, n.text) for n in moves.notes] == [("signature", "Gruß Hans")]


# -- properties -----------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300), st.text(max_size=80))
def test_parse_moves_never_raises(text: str, subject: str) -> None:
    moves = parse_moves(subject, text)
    assert moves.language in {"de", "en"}
    lines = text.splitlines()
    for err in moves.errors:
        assert 0 <= err.line_number <= len(lines)


_LINEUP_LINES = st.text(alphabet="0123456789-/ ,:.TAVMStavms=\n", max_size=120)


@settings(max_examples=300, deadline=None)
@given(_LINEUP_LINES)
def test_parse_moves_never_raises_on_lineup_like_text(text: str) -> None:
    moves = parse_moves("", text)
    typos = {n.value for n in moves.notes if n.kind == TYPO}
    for request in moves.requests:
        # Only a lineup, or (RULES.md §11) a word within one edit of "Team"
        # (e.g. "TAM:0") read as that keyword, and then named as a typo.
        assert isinstance(request, SetLineup) or (
            isinstance(request, SelectTeam) and typos), (request, moves.notes)


lineups = st.builds(
    Lineup, *(st.integers(min_value=0, max_value=999) for _ in range(5))
)
_SEPARATORS = ("-", "/", " ", ",", ", ", " - ", ";")
_SYNONYMS = {
    "T": ("T", "t", "Torwart", "G", "goalkeeper", "TW"),
    "A": ("A", "a", "Ausputzer", "SW", "sweeper", "Libero"),
    "V": ("V", "v", "Verteidigung", "D", "defence", "Abwehr"),
    "M": ("M", "m", "Mittelfeld", "MF", "midfield"),
    "S": ("S", "s", "Sturm", "F", "attack", "forward"),
}


@given(lineups, st.sampled_from(_SEPARATORS))
def test_lineup_round_trip_bare(lineup: Lineup, separator: str) -> None:
    line = separator.join(str(v) for v in lineup.values)
    assert one(line) == SetLineup(line.strip(), None, lineup)
    assert one(str(lineup)).lineup == lineup


@given(lineups, st.permutations("TAVMS"), st.data())
def test_lineup_round_trip_labelled_any_order(lineup: Lineup, order: list[str], data) -> None:
    parts = []
    for row in order:
        label = data.draw(st.sampled_from(_SYNONYMS[row]))
        joiner = data.draw(st.sampled_from(("", " ", "=", ": ", " = ")))
        parts.append(f"{label}{joiner}{lineup.row(row)}")
    line = data.draw(st.sampled_from((" ", ", ", "; "))).join(parts)
    request = one(line)
    assert isinstance(request, SetLineup)
    assert request.lineup == lineup and request.team is None


@given(st.builds(Lineup, *(st.integers(min_value=0, max_value=10**6) for _ in range(5))))
def test_lineup_round_trip_after_keyword_any_size(lineup: Lineup) -> None:
    assert one(f"Aufstellung: {lineup}") == SetLineup(f"Aufstellung: {lineup}", None, lineup)
    assert one(f"Lineup {lineup}").lineup == lineup


_WORDS = st.from_regex(r"[A-Za-zÄÖÜäöüß][A-Za-zÄÖÜäöüß0-9.&-]{0,9}", fullmatch=True)
_NAMES = st.lists(_WORDS, min_size=1, max_size=4).map(" ".join).filter(
    lambda name: parse_moves("", name + ": x").requests == ()  # not a keyword line
    # not made of row labels only ("A: 0-0-0-0-0" reads as a broken labelled lineup)
    and not all(w.lower() in LABELS for w in re.findall(r"[^\W\d_]+", name))
    # no word ending in "-": a "-" before a space is a separator (RULES.md §11)
    and not re.search(r"-(?:\s|$)", name)
)


@settings(max_examples=200, deadline=None)
@given(_NAMES, lineups)
def test_lineup_round_trip_with_team_name(name: str, lineup: Lineup) -> None:
    line = f"{name}: {lineup}"
    assert one(line) == SetLineup(line, name, lineup)
    slash = f"{name}: {'/'.join(str(v) for v in lineup.values)}"
    assert one(slash).team == name


@settings(max_examples=100, deadline=None)
@given(_NAMES.filter(lambda n: not any(c.isdigit() for c in n)), lineups)
def test_lineup_round_trip_team_name_without_colon(name: str, lineup: Lineup) -> None:
    line = f"{name} {lineup}"
    assert one(line) == SetLineup(line, name, lineup)
