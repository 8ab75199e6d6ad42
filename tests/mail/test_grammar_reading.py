"""parse_moves reads mail as its writer meant it: typos, comments, sign-offs
(RULES.md §9, §11), precise errors with suggestions, and bounded work on
hostile input (issue 11). Timing figures live in bench/bench_grammar.py;
these tests assert behaviour."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.mail.grammar import (
    MAX_LINE_CHARS,
    MAX_SUBJECT_CHARS,
)
from bot.mail.signoffs import is_signoff
from bot.mail.typos import correct_keyword, edits_allowed
from bot.rules.lineup import Lineup
from bot.rules.requests import (
    COMMENT,
    LONG_TEXT,
    SIGNATURE,
    TOO_LONG,
    TYPO,
    GivePassword,
    RegisterTeam,
    SelectTeam,
    SetLineup,
)
from bot.service.commands.ask_help import AskHelp
from bot.service.commands.status import AskStatus
from bot.service.commands.withdraw import Withdraw
from tests.support.grammar import parse_moves, vocabulary

L = Lineup.parse
STD = L("10-10-15-15-20")
ROOT = Path(__file__).resolve().parents[2]


def notes(moves, kind: str) -> list[tuple[int, str, str | None]]:
    return [(n.line_number, n.text, n.value) for n in moves.notes if n.kind == kind]


# -- the example of the brief ----------------------------------------------------------


def test_registration_with_a_mistyped_lineup_keyword_and_a_comment() -> None:
    moves = parse_moves("", "Neues Team: FC Wanderer Altona / Wanderer\n"
                            "Aufstelung: 10-10-15-15-20 (diesmal offensiv)\n")
    assert moves.requests == (
        RegisterTeam("Neues Team: FC Wanderer Altona / Wanderer", "FC Wanderer Altona",
                     "Wanderer"),
        SetLineup("Aufstelung: 10-10-15-15-20 (diesmal offensiv)", None, STD),
    )
    assert moves.errors == () and moves.ignored == ()
    assert notes(moves, TYPO) == [(2, "Aufstelung", "Aufstellung")]
    assert notes(moves, COMMENT) == [(2, "(diesmal offensiv)", None)]


# -- typos ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "written", "keyword", "kind"),
    [
        ("Aufstelung: 10-10-15-15-20", "Aufstelung", "Aufstellung", SetLineup),  # deletion
        ("Aufsstellung: 10-10-15-15-20", "Aufsstellung", "Aufstellung", SetLineup),  # insertion
        ("Aufstellunf: 10-10-15-15-20", "Aufstellunf", "Aufstellung", SetLineup),  # substitution
        ("Aufstlelung: 10-10-15-15-20", "Aufstlelung", "Aufstellung", SetLineup),  # swap
        ("Afustelung: 10-10-15-15-20", "Afustelung", "Aufstellung", SetLineup),  # two, 11 letters
        ("Aufstelung 10-10-15-15-20", "Aufstelung", "Aufstellung", SetLineup),  # lineup follows
        ("Lnieup: 10-10-15-15-20", "Lnieup", "Lineup", SetLineup),
        ("Tema: Rote Teufel", "Tema", "Team", SelectTeam),
        ("Neus Team: Kickers", "Neus Team", "Neues Team", RegisterTeam),
        ("Passwrot: k7f-x2q", "Passwrot", "Passwort", GivePassword),
        ("Zurückzihen: Rote Teufel", "Zurückzihen", "Zurückziehen", Withdraw),
        ("Staus", "Staus", "Status", AskStatus),
        ("Hilef", "Hilef", "Hilfe", AskHelp),
    ],
)
def test_a_mistyped_keyword_is_read_as_the_keyword_and_noted(
    line: str, written: str, keyword: str, kind: type
) -> None:
    moves = parse_moves("", line)
    assert [type(r) for r in moves.requests] == [kind]
    assert moves.requests[0].line == line  # the reply quotes what the player wrote
    assert moves.errors == () and moves.ignored == ()
    assert notes(moves, TYPO) == [(1, written, keyword)]


@pytest.mark.parametrize(
    "line",
    [
        "Hilft das?",  # a sentence, not "Hilfe"
        "Tram fährt um 8",  # no colon: text
        "Afustelunf: 10-10-15-15-20",  # three edits
        "Taem und so: hallo",  # "team" is four letters: a swap is one edit, but no value shape
        "Stau",  # two edits from "status"
        "Ab: 10-10-15-15-20",  # too short to be corrected
    ],
)
def test_words_that_are_not_typos_of_a_keyword_stay_what_they_were(line: str) -> None:
    before = parse_moves("", line)
    assert notes(before, TYPO) == []


def test_a_typo_is_never_read_when_the_word_is_one_of_the_senders_teams() -> None:
    moves = parse_moves("", "Tean: 10-10-15-15-20", team_names=["Tean"])
    assert moves.requests == (SetLineup("Tean: 10-10-15-15-20", "Tean", STD),)
    assert notes(moves, TYPO) == []
    moves = parse_moves("", "Teams: Rote Teufel", team_names=["TEAMS"])
    assert notes(moves, TYPO) == []
    moves = parse_moves("", "Teams: Rote Teufel")
    assert moves.requests == (SelectTeam("Teams: Rote Teufel", "Rote Teufel"),)
    assert notes(moves, TYPO) == [(1, "Teams", "Team")]


def test_a_team_keyword_typo_before_a_lineup_is_a_team_name() -> None:
    moves = parse_moves("", "Tean: 10-10-15-15-20")
    assert moves.requests == (SetLineup("Tean: 10-10-15-15-20", "Tean", STD),)
    assert moves.notes == ()


def test_ambiguous_words_are_not_corrected() -> None:
    # "Hilp": one edit from "help", two from "hilfe" (five letters: one allowed).
    assert correct_keyword("Hilp", {"help": "help", "hilfe": "help"}).spelling == "help"
    # One edit from two different commands: left alone.
    assert correct_keyword("Tesm: x", {"team": "team", "test": "other"}) is None


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_every_single_edit_of_aufstellung_is_read_as_a_lineup(data: st.DataObject) -> None:
    word = "aufstellung"
    position = data.draw(st.integers(0, len(word) - 2))
    edit = data.draw(st.sampled_from(["delete", "insert", "substitute", "swap"]))
    letter = data.draw(st.sampled_from("abcdefghijklmnopqrstuvwxyzäöü"))
    if edit == "delete":
        typo = word[:position] + word[position + 1:]
    elif edit == "insert":
        typo = word[:position] + letter + word[position:]
    elif edit == "substitute":
        typo = word[:position] + letter + word[position + 1:]
    else:
        typo = word[:position] + word[position + 1] + word[position] + word[position + 2:]
    moves = parse_moves("", f"{typo.capitalize()}: 10-10-15-15-20")
    assert [type(r) for r in moves.requests] == [SetLineup]
    assert moves.requests[0].lineup == STD
    if typo != word:
        assert notes(moves, TYPO) == [(1, typo.capitalize(), "Aufstellung")]


def test_edits_allowed_and_keyword_display() -> None:
    assert edits_allowed("team") == 1 and edits_allowed("kurzname") == 2
    assert edits_allowed("neues team") == 2  # nine letters
    assert vocabulary().display("aufstellung") == "Aufstellung"
    assert vocabulary().display("neues team") == "Neues Team"
    assert vocabulary().display("short name") == "Short name"


# -- comments ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "comments", "expected"),
    [
        ("Aufstellung: 10-10-15-15-20 (diesmal offensiv)", ["(diesmal offensiv)"],
         SetLineup("Aufstellung: 10-10-15-15-20 (diesmal offensiv)", None, STD)),
        ("Rote Teufel: 10-10-15-15-20 # wie immer", ["# wie immer"],
         SetLineup("Rote Teufel: 10-10-15-15-20 # wie immer", "Rote Teufel", STD)),
        ("T10 A10 V15 M15 S20 // offensiv", ["// offensiv"],
         SetLineup("T10 A10 V15 M15 S20 // offensiv", None, STD)),
        ("Lineup: 10-10-15-15-20 (attacking) # really", ["(attacking)", "# really"],
         SetLineup("Lineup: 10-10-15-15-20 (attacking) # really", None, STD)),
        ("Team: Rote Teufel (die Erste)", ["(die Erste)"],
         SelectTeam("Team: Rote Teufel (die Erste)", "Rote Teufel")),
    ],
)
def test_comments_on_command_lines_are_skipped_and_noted(line, comments, expected) -> None:
    moves = parse_moves("", line)
    assert moves.requests == (expected,)
    assert moves.errors == () and moves.ignored == ()
    assert [text for _, text, _ in notes(moves, COMMENT)] == comments


def test_hash_inside_a_value_and_parentheses_in_text_are_no_comments() -> None:
    moves = parse_moves("", "Passwort: k7f#x2q\nIch spiele (hoffentlich) gut (glaube ich)")
    assert moves.requests == (GivePassword("Passwort: k7f#x2q", "k7f#x2q"),)
    assert moves.prose == ("Ich spiele (hoffentlich) gut (glaube ich)",)  # text, not a comment
    assert moves.notes == ()


def test_parentheses_without_a_value_before_them_are_the_value() -> None:
    moves = parse_moves("", "Manager: (Hans)\nPasswort: #abc\nManger: Hans (der Neue)")
    assert [(type(r).__name__, r.line) for r in moves.requests] == [
        ("SetManagerName", "Manager: (Hans)"), ("GivePassword", "Passwort: #abc"),
        ("SetManagerName", "Manger: Hans (der Neue)")]
    assert moves.requests[1].password == "#abc" and moves.requests[2].name == "Hans"
    assert [(n.kind, n.line_number, n.text) for n in moves.notes] == [
        (TYPO, 3, "Manger"), (COMMENT, 3, "(der Neue)")]


def test_a_comment_does_not_hide_an_error_in_the_lineup() -> None:
    moves = parse_moves("", "Aufstellung: 10-10-15-15 (offensiv)")
    assert moves.requests == ()
    [error] = moves.errors
    assert error.reason == "4 numbers instead of five" and error.part == "10-10-15-15"
    assert error.line == "Aufstellung: 10-10-15-15 (offensiv)"


# -- sign-offs --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    ["Viele Grüße", "Viele Grüsse,", "Gruß", "Gruss Hans", "MfG", "LG", "Liebe Grüße!",
     "Mit freundlichen Grüßen", "Beste Grüße aus Hamburg", "Danke", "Vielen Dank!",
     "Cheers", "Cheers, Tom", "Best regards", "Kind regards,", "Best", "Thanks!",
     "Yours sincerely", "All the best", "Ciao", "Servus", "Bis bald"],
)
def test_sign_offs(line: str) -> None:
    assert is_signoff(line)
    moves = parse_moves("", f"Rote Teufel: 10-10-15-15-20\n{line}\nLena")
    assert moves.requests == (SetLineup("Rote Teufel: 10-10-15-15-20", "Rote Teufel", STD),)
    assert moves.ignored == ()
    assert notes(moves, SIGNATURE) == [(2, f"{line} / Lena", None)]


@pytest.mark.parametrize(
    "line", ["Grüße an alle, die mitspielen und gewinnen wollen", "Hallo", "Bestätigung",
             "Danke für die schnelle Auswertung der letzten Runde!!!", "Team: Gruß"],
)
def test_lines_that_are_no_sign_offs(line: str) -> None:
    assert not is_signoff(line)


def test_a_command_after_a_sign_off_is_still_read_and_long_text_ends_the_signature() -> None:
    text = ("Viele Grüße\nLena\nAufstellung: 1-2-3-4-5\nGruß\n"
            "Das hier ist ein langer Satz, der sicher kein Name mehr ist, sondern Text.\n")
    moves = parse_moves("", text)
    assert moves.requests == (SetLineup("Aufstellung: 1-2-3-4-5", None, L("1-2-3-4-5")),)
    assert notes(moves, SIGNATURE) == [(1, "Viele Grüße / Lena", None), (4, "Gruß", None)]
    assert moves.prose == (
        "Das hier ist ein langer Satz, der sicher kein Name mehr ist, sondern Text.",)


# -- precise errors ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "part", "suggestion"),
    [
        ("Aufstellung: 10.10.15.15.20", "10.10.15.15.20", "10-10-15-15-20"),
        ("Aufstellung: 10 - 10 / 15 - 15 - 20", "10 - 10 / 15 - 15 - 20", "10-10-15-15-20"),
        ("Rote Teufel: 10;10-15-15-20", "10;10-15-15-20", "10-10-15-15-20"),
        ("Aufstellung: 10-10-15-15-2x", "10-10-15-15-2x", None),  # 2x: 2 or 20?
        ("Aufstellung: 10-10-15-15", "10-10-15-15", None),
        ("Aufstellung: 8.5-10-15-15-20", "8.5-10-15-15-20", None),
        ("Lineup: -5 10 15 15 20", "-5 10 15 15 20", None),
        ("Aufstellung: T10 A10 V15 M15 X20", "T10 A10 V15 M15 X20", None),
    ],
)
def test_errors_quote_the_part_and_suggest_recognisable_numbers(line, part, suggestion) -> None:
    [error] = parse_moves("", line).errors
    assert (error.part, error.suggestion) == (part, suggestion)
    if suggestion:
        assert str(Lineup.parse(suggestion)) == suggestion


# -- bounded work -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    ["1-" * 30_000, "Aufstellung: " + "1" * 60_000, "Rote Teufel: " + "a:" * 30_000,
     "Aufstelung " + "x" * 60_000, "T10 A10 V15 M15 S20 " * 3_000 + "X"],
)
def test_a_60000_character_command_line_is_a_clear_error_and_the_rest_is_read(line) -> None:
    moves = parse_moves("", f"Hallo\n{line}\nRote Teufel: 10-10-15-15-20\n",
                        team_names=["Rote Teufel"])
    assert moves.requests == (SetLineup("Rote Teufel: 10-10-15-15-20", "Rote Teufel", STD),)
    [error] = moves.errors
    assert error.kind == TOO_LONG and error.line_number == 2
    assert (error.limit, error.length) == (MAX_LINE_CHARS, len(line))
    assert error.line.endswith("…") and len(error.line) <= 61
    assert line.startswith(error.line[:-1])
    assert error.reason == f"the line is too long ({len(line)} characters, at most 1000 are read)"


def test_a_long_line_naming_no_known_team_is_text() -> None:
    moves = parse_moves("", "Rote Teufel: " + "a:" * 30_000)
    assert moves.errors == () and [n.kind for n in moves.notes] == [LONG_TEXT]


def test_a_long_line_of_text_is_skipped_not_an_error() -> None:
    paragraph = "Ich wollte nur sagen, " + "dass das Spiel großartig ist, " * 200
    moves = parse_moves("", f"{paragraph}\nRote Teufel: 10-10-15-15-20")
    assert moves.errors == ()
    assert len(moves.requests) == 1
    assert moves.prose == (paragraph[:60].rstrip() + "…",)  # a message (bot.mail.prose)
    assert [(n.kind, n.line_number, n.value) for n in moves.notes] == [(LONG_TEXT, 1, "1000")]


def test_a_one_megabyte_subject_is_not_read_and_the_body_is() -> None:
    subject = "Re: Aufstellung: " + "1-" * 500_000
    moves = parse_moves(subject, "Rote Teufel: 10-10-15-15-20")
    assert len(moves.requests) == 1
    [error] = moves.errors
    assert error.kind == TOO_LONG and error.line_number == 0
    assert error.limit == MAX_SUBJECT_CHARS and error.length == len(subject)
    assert error.reason.startswith("the subject is too long")
    text_subject = "x" * 1_000_000
    moves = parse_moves(text_subject, "Status")
    assert moves.errors == () and moves.ignored == ()  # a subject is never listed as ignored
    assert [type(r) for r in moves.requests] == [AskStatus]
    spaces = "Re" + " " * 1_000_000 + ": Status"
    assert parse_moves(spaces, "").errors == ()


def test_ten_thousand_lines_are_all_read() -> None:
    lines = [f"Team {i}: {i % 10}-10-15-15-20" for i in range(10_000)]
    moves = parse_moves("", "\n".join(lines))
    assert len(moves.requests) == 10_000 and moves.errors == ()
    assert moves.requests[-1] == SetLineup(lines[-1], "Team 9999", L("9-10-15-15-20"))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["1-", "a:", "x", "für ", "T1", "ab ", "(", "# ", "Gruß "]),
       st.integers(1_000, 5_000))
def test_long_repetitive_lines_never_raise(piece: str, count: int) -> None:
    parse_moves(piece * count, piece * count + "\n" + piece * (count // 3))


# -- layering ---------------------------------------------------------------------------


@pytest.mark.parametrize("module", ["grammar", "typos", "signoffs"])
def test_the_grammar_imports_nothing_from_the_league(module: str) -> None:
    tree = ast.parse((ROOT / "bot" / "mail" / f"{module}.py").read_text(encoding="utf-8"))
    imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [m for m in imported if m.startswith(("bot.league", "bot.storage"))]
