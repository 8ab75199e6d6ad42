"""RULES.md §9 (mail rules) and §11 (the grammar), through the ingest pipeline
on real files (Maildir in, SQLite, outbox out; ``tests/service/harness.py``)
and through ``parse_moves``, the grammar's public entry point."""

from __future__ import annotations

import email
import re
from datetime import timedelta
from email import policy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.config import Config
from bot.league.settings import LeagueSettings
from bot.mail.transport import IncomingMail
from bot.rules.lineup import Lineup
from bot.rules.requests import (
    GivePassword,
    RegisterTeam,
    SelectTeam,
    SetLineup,
    SetShortName,
)
from bot.service.commands.ask_help import AskHelp
from bot.service.commands.manager_name import SetManagerName
from bot.service.commands.status import AskStatus
from bot.service.commands.withdraw import Withdraw
from tests.service.harness import BOT, Game
from tests.support.grammar import parse_moves
from tests.support.mails import player_mail

LINEUP = Lineup(10, 10, 15, 15, 20)


@pytest.fixture
def game(tmp_path) -> Game:
    return Game(tmp_path)


def replies(game: Game) -> list[tuple[str, str]]:
    """(recipient, text with whitespace folded) of every mail sent since the last call."""
    out = []
    sent_before = getattr(game, "replies_seen", 0)
    every = game.flush()
    game.replies_seen = len(every)  # type: ignore[attr-defined]
    for sent in every[sent_before:]:
        msg = email.message_from_bytes(sent.raw, policy=policy.default)
        body = msg.get_body(("plain",))
        out.append((msg["To"].addresses[0].addr_spec,
                    " ".join((body.get_content() if body else "").split())))
    return out


def password_in(text: str) -> str:
    match = re.search(r"(?:Passwort|Password): (\w{3}-\w{3}-\w{3})\b", text)
    assert match, text
    return match.group(1)


def moves_rows(game: Game) -> list[tuple]:
    with game.db.read() as conn:
        return [tuple(r) for r in conn.execute(
            "SELECT t.name, m.lineup FROM moves m JOIN teams t ON t.id = m.team_id ORDER BY m.id")]


def registered(game: Game, address: str, body: str) -> str:
    """Register a manager with ``body`` and return the password he got."""
    game.send(game.mail(address, body))
    [(to, text)] = replies(game)
    assert to == address
    game.clock.advance(minutes=3)
    return password_in(text)


def only(moves) -> object:
    [request] = moves.requests
    return request


# --------------------------------------------------------------------------- §11 grammar


@pytest.mark.parametrize(
    ("line", "kind", "value"),
    [
        ("Team: Rote Teufel", SelectTeam, "Rote Teufel"),
        ("Mannschaft: Rote Teufel", SelectTeam, "Rote Teufel"),
        ("team rote teufel", SelectTeam, "rote teufel"),
        ("Aufstellung: 10-10-15-15-20", SetLineup, None),
        ("AUFSTELLUNG 10-10-15-15-20", SetLineup, None),
        ("Lineup: 10-10-15-15-20", SetLineup, None),
        ("lineup 10-10-15-15-20", SetLineup, None),
        ("Rote Teufel: 10-10-15-15-20", SetLineup, "Rote Teufel"),
        ("Rote Teufel 10-10-15-15-20", SetLineup, "Rote Teufel"),
        ("Neues Team: FC Wanderer Altona / Wanderer", RegisterTeam, "FC Wanderer Altona"),
        ("neues team FC Wanderer Altona / Wanderer", RegisterTeam, "FC Wanderer Altona"),
        ("New team: FC Wanderer Altona / Wanderer", RegisterTeam, "FC Wanderer Altona"),
        ("Kurzname: Wanderer", SetShortName, "Wanderer"),
        ("Kürzel: Wanderer", SetShortName, "Wanderer"),
        ("Short name: Wanderer", SetShortName, "Wanderer"),
        ("kurzname Wanderer", SetShortName, "Wanderer"),
        ("Passwort: k7f-x2q", GivePassword, "k7f-x2q"),
        ("Kennwort: k7f-x2q", GivePassword, "k7f-x2q"),
        ("Password: k7f-x2q", GivePassword, "k7f-x2q"),
        ("PASSWORT k7f-x2q", GivePassword, "k7f-x2q"),
        ("Manager: Hans Meier", SetManagerName, "Hans Meier"),
        ("manager Hans Meier", SetManagerName, "Hans Meier"),
        ("Zurückziehen: Rote Teufel", Withdraw, "Rote Teufel"),
        ("zurückziehen Rote Teufel", Withdraw, "Rote Teufel"),
        ("Withdraw: Rote Teufel", Withdraw, "Rote Teufel"),
        ("Status", AskStatus, None),
        ("status:", AskStatus, None),
        ("Hilfe", AskHelp, None),
        ("HILFE:", AskHelp, None),
        ("Help", AskHelp, None),
    ],
)
def test_every_keyword_of_the_grammar_table(line: str, kind: type, value: str | None) -> None:
    moves = parse_moves("", line)
    assert moves.errors == () and moves.ignored == ()
    request = only(moves)
    assert type(request) is kind and request.line == line
    field = {SelectTeam: "team", RegisterTeam: "name", SetShortName: "short_name",
             GivePassword: "password", SetManagerName: "name", Withdraw: "team",
             SetLineup: "team"}.get(kind)
    if field:
        assert getattr(request, field) == value
    if kind is SetLineup:
        assert request.lineup == LINEUP
    if kind is RegisterTeam:
        assert request.short_name == "Wanderer"


@pytest.mark.parametrize(
    "form",
    [
        "10-10-15-15-20", "10/10/15/15/20", "10 10 15 15 20", "10,10,15,15,20",
        "T10 A10 V15 M15 S20", "S20 M15 V15 A10 T10", "t10 a10 v15 m15 s20",
        "T=10, A=10, V=15, M=15, S=20", "T: 10, A: 10, V: 15, M: 15, S: 20",
        "Torwart 10 Ausputzer 10 Verteidigung 15 Mittelfeld 15 Sturm 20",
        "Sturm 20 Mittelfeld 15 Verteidigung 15 Ausputzer 10 Torwart 10",
        "G10 SW10 D15 M15 F20", "G=10, SW=10, D=15, M=15, F=20",
        "goalkeeper 10 sweeper 10 defence 15 midfield 15 attack 20",
        "goalkeeper 10 sweeper 10 defence 15 midfield 15 forward 20",
    ],
)
def test_every_lineup_form(form: str) -> None:
    for line, team in ((form, None), (f"Aufstellung: {form}", None), (f"Lineup {form}", None),
                       (f"Rote Teufel: {form}", "Rote Teufel")):
        request = only(parse_moves("", line))
        assert isinstance(request, SetLineup), line
        assert (request.team, request.lineup) == (team, LINEUP), line


@pytest.mark.parametrize(
    "form",
    ["10-10-15-15-20", "10/10/15/15/20", "T10 A10 V15 M15 S20", "T=10, A=10, V=15, M=15, S=20",
     "Torwart 10 Ausputzer 10 Verteidigung 15 Mittelfeld 15 Sturm 20", "G10 SW10 D15 M15 F20"],
)
def test_team_and_lineup_in_one_line_without_colon(form: str) -> None:
    for line in (f"Rote Teufel {form}", f"Aufstellung Rote Teufel {form}",
                 f"Team: Rote Teufel {form}"):
        request = only(parse_moves("", line))
        assert isinstance(request, SetLineup), line
        assert (request.team, request.lineup) == ("Rote Teufel", LINEUP), line


def test_unknown_lines_are_ignored_and_listed(game: Game) -> None:
    """Only lines that look like an attempted command are listed; a greeting
    and a line that goes with the commands are not (RULES.md §11)."""
    body = ("Hallo Spielleitung,\nNeues Team: Eulen\nAufstellung: 10-10-15-15-20\n"
            "Taktik: offensiv\nWir sehen uns!\n")
    game.send(game.mail("eule@player.example", body))
    [(_, text)] = replies(game)
    assert "übergangen: | Taktik: offensiv Eine Frage an die Spielleitung" in text  # one line
    assert "Hallo Spielleitung" not in text and "Wir sehen uns" not in text
    assert moves_rows(game) == [("Eulen", "10-10-15-15-20")]


@pytest.mark.parametrize(
    "line",
    [
        "10-10-15-15", "10/10/15/15/20/25", "Aufstellung: 10-10-15-15",
        "Aufstellung: 10-8.5-15-15-20", "Aufstellung: zehn", "Rote Teufel: 10-10-15-15",
        "Rote Teufel 10-10-15-15-8,5", "T10 A10 V15 M15", "Rote Teufel: -5-10-15-15-20",
        # a lineup with something glued to it or after it is not a valid lineup either
        "Rote Teufel: 10-10-15-15-20x", "10-10-15-15-20 bitte", "Aufstellung 10-10-15-15-20x",
        "Rote Teufel: 10-10-15-15-2O", "T10 A10 V15 M15 S20 X5",
        "Rote Teufel: T10 A10 V15 M15 S20 X5",
    ],
)
def test_lineup_like_lines_that_are_invalid_are_errors(line: str) -> None:
    moves = parse_moves("", f"Hallo\n{line}")
    assert moves.requests == ()
    [error] = moves.errors
    assert (error.line, error.line_number, error.example) == (line, 2, "10-10-15-15-20")
    assert error.reason
    assert moves.ignored == ()  # the greeting "Hallo" is not listed (RULES.md §11)


@pytest.mark.parametrize(
    "line",
    ["Tel. 0171-123-45-67", "Am 12/05/26 um 20:00", "2026-05-12", "+49 171 123 45 67",
     "Ergebnis: 3:1", "Spielrunde 3 / 5", "Version 1.2.3-4"],
)
def test_ordinary_lines_with_numbers_stay_ignored(line: str) -> None:
    moves = parse_moves("", line)
    assert moves.requests == () and moves.errors == ()
    # listed as not understood, unless it only goes with the commands (RULES.md §11)
    assert moves.ignored == (() if line == "Spielrunde 3 / 5" else (line,))


def test_subject_is_read_without_reply_prefixes(game: Game) -> None:
    password = registered(game, "hans@player.example", "Neues Team: Rote Teufel\n10-10-15-15-20")
    for subject, lineup in (("AW: WG: Rote Teufel: 0-10-30-20-20", "0-10-30-20-20"),
                            ("Re: Fwd: Aufstellung: 5-5-20-20-30", "5-5-20-20-30"),
                            ("RE: AW: Rote Teufel 9-9-20-20-20", "9-9-20-20-20")):
        game.send(game.mail("hans@player.example", f"Passwort: {password}", subject=subject))
        assert moves_rows(game)[-1] == ("Rote Teufel", lineup)
    assert len(replies(game)) == 3
    moves = parse_moves("Re: Re: Hilfe", "")
    assert [type(r) for r in moves.requests] == [AskHelp] and moves.ignored == ()


# --------------------------------------------------------------------------- §9 mail rules


def test_quotes_signature_and_reply_headers_are_ignored(game: Game) -> None:
    password = registered(game, "hans@player.example", "Neues Team: Rote Teufel\n10-10-15-15-20")
    bodies = [
        f"Passwort: {password}\nRote Teufel: 1-1-20-20-20\n\n"
        "Am 01.12.2026 um 12:00 schrieb Turnited <bot@turnited.example>:\n"
        "> Rote Teufel: 2-2-20-20-20\n",
        f"Passwort: {password}\nRote Teufel: 3-3-20-20-20\n\n"
        "On Tue, Dec 1, 2026 at 12:00 PM Turnited <bot@turnited.example> wrote:\n"
        "Rote Teufel: 4-4-20-20-20\n",
        f"Passwort: {password}\nRote Teufel: 5-5-20-20-20\n"
        "-----Original Message-----\nFrom: bot@turnited.example\nRote Teufel: 6-6-20-20-20\n",
        f"Passwort: {password}\nRote Teufel: 7-7-20-20-20\n-- \nHans Meier\n"
        "Rote Teufel: 8-8-20-20-20\n",
    ]
    for body in bodies:
        game.send(game.mail("hans@player.example", body, subject="Re: Aufstellung"))
        game.clock.advance(minutes=1)
    assert [lineup for _, lineup in moves_rows(game)] == [
        "10-10-15-15-20", "1-1-20-20-20", "3-3-20-20-20", "5-5-20-20-20", "7-7-20-20-20"]
    assert len(replies(game)) == 4


def test_html_only_mail_is_read(game: Game) -> None:
    game.send(player_mail(
        "html@player.example",
        "<html><body><p>Neues Team: Html Elf</p>"
        "<div>Aufstellung: 10-10-15-15-20</div></body></html>",
        to=BOT, when=game.clock.now, subject="Anmeldung", subtype="html",
    ))
    assert moves_rows(game) == [("Html Elf", "10-10-15-15-20")]
    [(to, text)] = replies(game)
    assert to == "html@player.example" and "Html Elf" in text


def test_one_reply_per_human_mail_and_errors_quote_line_and_example(game: Game) -> None:
    game.send(game.mail("a@player.example", "Neues Team: Alpha\n10-10-15-15-20"))
    game.send(game.mail("b@player.example", "Neues Team: Beta\nAufstellung: 10-10-15-15"))
    game.send(game.mail("c@player.example", "Was ist das hier?"))
    # the question also goes to the game master (RULES.md §11)
    sent = [(to, text) for to, text in replies(game) if to != "gm@turnited.example"]
    assert sorted(to for to, _ in sent) == ["a@player.example", "b@player.example",
                                           "c@player.example"]
    error = dict(sent)["b@player.example"]
    assert ("Zeile 2: „Aufstellung: 10-10-15-15“ – 4 Zahlen statt fünf. "
            "Richtig wäre z. B.: 10-10-15-15-20") in error
    assert "nichts gespeichert" in error
    assert "So spielst du mit" in dict(sent)["c@player.example"]  # help for a mail without commands


def test_an_error_in_the_subject_names_the_subject(game: Game) -> None:
    game.send(game.mail("a@player.example", "Neues Team: Alpha", subject="AW: Alpha: 10-10-15-15"))
    game.send(game.mail("b@player.example", "New team: Beta", subject="Re: Beta: 10-10-15-15"))
    german, english = (text for _, text in replies(game))
    assert "Betreff: „Alpha: 10-10-15-15“ – 4 Zahlen statt fünf." in german
    assert 'Subject: "Beta: 10-10-15-15" - 4 numbers instead of five.' in english
    assert "Zeile 0" not in german and "Line 0" not in english


@pytest.mark.parametrize(
    ("line", "german"),
    [
        ("Aufstellung: 10-8.5-15-15-20", "8.5 ist keine ganze Zahl"),
        ("Aufstellung: 10--1-15-15-20", "-1 ist negativ"),
        ("Aufstellung: T10 A-1 V15 M15 S20", "-1 ist negativ"),
        ("10-10-15-15", "4 Zahlen statt fünf"),
        ("Aufstellung: 10-10/15-15-20", "gemischte Trennzeichen ('-' and '/')"),
        ("Aufstellung: 10#10#15#15#20", "'# # # #' zwischen den Zahlen ist nicht lesbar"),
        ("T10 A10 V15 M15 X5", "unbekannte Reihe 'X'"),
        ("T10 T10 V15 M15 S20", "Reihe T doppelt angegeben"),
        ("T10 A10 V15 M15", "es fehlt: S"),
        ("Aufstellung: T10 A10 V15 M15 S20 ?", "'?' ist nicht lesbar"),
        ("Rote Teufel: 10-10-15-15-20x", "'x' neben der Aufstellung 10-10-15-15-20 ist nicht"),
        ("Team:", "nach dem Stichwort fehlt der Teamname"),
        ("Neues Team:", "nach dem Stichwort fehlt der Name des neuen Teams"),
        ("Kurzname:", "nach dem Stichwort fehlt der Kurzname"),
        ("Passwort:", "nach dem Stichwort fehlt das Passwort"),
        ("Manager:", "nach dem Stichwort fehlt der Managername"),
        ("Zurückziehen:", "nach dem Stichwort fehlt der Teamname"),
    ],
)
def test_line_errors_are_explained_in_german_and_english(line: str, german: str) -> None:
    from bot.render.reasons import german_reason, reason

    [error] = parse_moves("", line).errors
    assert german in german_reason(error.reason)
    assert reason(error.reason, "en") == error.reason


def test_reasons_of_the_rules_core_have_a_german_wording() -> None:
    from bot.render.reasons import german_reason
    from bot.rules.errors import InvalidLineupError

    for make in (lambda: Lineup.parse(""), lambda: Lineup.parse(7),
                 lambda: Lineup(-1, 0, 0, 0, 0), lambda: Lineup.from_values([1, 2]),
                 lambda: Lineup(1.5, 0, 0, 0, 0)):
        with pytest.raises(InvalidLineupError) as info:
            make()
        assert german_reason(info.value.reason) is not None, info.value.reason


@settings(max_examples=300)
@given(st.text(alphabet="0123456789 -/,.;:=TAVMSGDFXtx?", min_size=1, max_size=30))
def test_every_line_error_has_a_german_wording(text: str) -> None:
    from bot.render.reasons import german_reason

    for line in (text, f"Aufstellung: {text}", f"Rote Teufel: {text}"):
        for error in parse_moves("", line).errors:
            assert german_reason(error.reason) is not None, error.reason


def test_a_lineup_error_changes_nothing(game: Game) -> None:
    password = registered(game, "hans@player.example",
                          "Neues Team: Rote Teufel\nNeues Team: Blaue Adler\n"
                          "Rote Teufel: 10-10-15-15-20\nBlaue Adler: 10-10-15-15-20")
    before = moves_rows(game)
    game.send(game.mail("hans@player.example",
                        f"Passwort: {password}\nManager: Hans Neu\nBlaue Adler: 0-10-30-20-20\n"
                        "Rote Teufel: 10-10-15-15-2O\n"))
    assert moves_rows(game) == before
    with game.db.read() as conn:
        assert conn.execute("SELECT display_name FROM managers").fetchone()[0] != "Hans Neu"
    [(_, text)] = replies(game)
    assert "FEHLER" in text and "nichts gespeichert" in text


def test_no_reply_to_robots_or_to_ourselves(game: Game) -> None:
    game.send(game.mail("MAILER-DAEMON@mx.example", "<x@y.example>: user unknown",
                        subject="Undelivered Mail Returned to Sender"))
    game.send(game.mail("hans@player.example", "Bin im Urlaub.", subject="Abwesend",
                        Auto_Submitted="auto-replied"))
    for precedence in ("bulk", "junk", "list"):
        game.send(game.mail(f"{precedence}@player.example", "Neues Team: Robo\n10-10-15-15-20",
                            Precedence=precedence))
    game.send(game.mail(BOT.upper(), "Neues Team: Echo\n10-10-15-15-20"))
    assert replies(game) == []
    assert moves_rows(game) == []
    with game.db.read() as conn:
        kinds = [r[0] for r in conn.execute("SELECT kind FROM inbound ORDER BY id")]
    assert kinds == ["bounce", "auto", "auto", "auto", "auto", "self"]
    # "Auto-Submitted: no" is what a person's client may send: answered
    game.send(game.mail("mensch@player.example", "Hilfe", Auto_Submitted="no"))
    assert [to for to, _ in replies(game)] == ["mensch@player.example"]


def test_password_on_by_default_and_required_later(game: Game, tmp_path) -> None:
    assert LeagueSettings().passwords is True
    assert Config.from_mapping({}, tmp_path).auth.passwords is True
    password = registered(game, "hans@player.example", "Neues Team: Rote Teufel\n10-10-15-15-20")
    game.send(game.mail("hans@player.example", "Rote Teufel: 0-10-30-20-20"))
    game.send(game.mail("hans@player.example", "Passwort: falsch-123\nRote Teufel: 0-10-30-20-20"))
    missing, wrong = (text for _, text in replies(game))
    assert "kein Passwort" in missing and "Es wurde nichts geändert" in missing
    assert "Das Passwort ist falsch" in wrong
    assert moves_rows(game) == [("Rote Teufel", "10-10-15-15-20")]
    game.send(game.mail("hans@player.example",
                        f"Passwort: {password.upper()}\nRote Teufel: 0-10-30-20-20"))
    assert moves_rows(game)[-1] == ("Rote Teufel", "0-10-30-20-20")


def test_confirmation_lists_each_correction_with_rule_old_and_new(game: Game) -> None:
    game.send(game.mail("hans@player.example", "Neues Team: Rote Teufel\n12-3-10-40-50",
                        subject="Aufstellung"))
    game.send(game.mail("jane@player.example", "New team: Red Devils\nLineup: 12-3-10-40-50",
                        subject="lineup"))
    german, english = (text for _, text in replies(game))
    assert "es spielt: 9-3-10-28-28 (Kosten 90 von 90 WP)" in german
    # each rule once, by what made it bite, with every row's old and new value
    german, english = " ".join(german.split()), " ".join(english.split())
    assert ("„Rote Teufel“ spielt 9-3-10-28-28, nicht 12-3-10-40-50 wie gesendet: "
            "Höchststärke 10: Torwart und Ausputzer haben höchstens die Stärke 10: T 12 -> 10. "
            "3:1-Regel: keine Feldreihe darf mehr als das Dreifache der kleinsten haben; die "
            "kleinste ist V mit 10, also höchstens 30: M 40 -> 30, S 50 -> 30. Der Überschuss "
            "verfällt. Budget: die Aufstellung kostet 96 WP, einsetzbar sind 90 WP, also wird "
            "jede Reihe im Verhältnis gekürzt: T 10 -> 9, M 30 -> 28, S 30 -> 28.") in german
    assert ('"Red Devils" plays 9-3-10-28-28, not 12-3-10-40-50 as sent: Cap of 10: '
            "goalkeeper and sweeper have a strength of at most 10: T 12 -> 10. 3:1 rule: no "
            "field row may be more than three times the smallest; the smallest is V with 10, "
            "so at most 30: M 40 -> 30, S 50 -> 30. The excess is lost. Budget: the lineup "
            "costs 96 WP, 90 WP may be spent, so every row is shortened in proportion: "
            "T 10 -> 9, M 30 -> 28, S 30 -> 28.") in english
    assert german.count("3:1-Regel") == 1 and english.count("3:1 rule") == 1  # once


def test_mail_that_arrived_before_the_deadline_is_on_time(game: Game) -> None:
    """§7: what counts is when a mail arrived, not when the bot got round to it."""
    password = registered(game, "hans@player.example", "Neues Team: Rote Teufel\n10-10-15-15-20")
    with game.db.read() as conn:
        deadline = game.league.open_round(conn).deadline
    game.clock.now = deadline + timedelta(minutes=3)  # the bot polls three minutes late
    on_time = game.mail("hans@player.example", f"Passwort: {password}\nRote Teufel: 1-1-20-20-20")
    result = game.ingestor.ingest(IncomingMail(
        "imap://test/INBOX", 1, 1, on_time, "1:1", arrived=deadline - timedelta(minutes=1)))
    assert result.move is not None and not result.move.late and result.move.round == 1
    late = game.mail("hans@player.example", f"Passwort: {password}\nRote Teufel: 2-2-20-20-20")
    result = game.ingestor.ingest(IncomingMail(
        "imap://test/INBOX", 1, 2, late, "1:2", arrived=deadline + timedelta(minutes=1)))
    assert result.move is not None and result.move.late and result.move.round == 2
    unknown = game.mail("hans@player.example", f"Passwort: {password}\nRote Teufel: 3-3-20-20-20")
    result = game.ingestor.ingest(IncomingMail("maildir:x", None, None, unknown, "k3"))
    assert result.move is not None and result.move.late  # no arrival time: when it is read
    with game.db.read() as conn:
        rows = conn.execute("SELECT round, lineup FROM moves ORDER BY id").fetchall()
    assert [tuple(r) for r in rows] == [(1, "10-10-15-15-20"), (1, "1-1-20-20-20"),
                                        (2, "2-2-20-20-20"), (2, "3-3-20-20-20")]
