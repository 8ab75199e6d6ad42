"""Issue 14, end to end through the real inbound pipeline: players see how
their mail was read (typos, comments, sign-offs), errors quote the exact
part and suggest the player's own numbers, the greeting uses the From name,
refusals say why and what to do, and a withdrawn new registration frees
its name (RULES.md §7, §9, §11).

Each case is a mail as players write it with the reading it must get.
"""

from __future__ import annotations

import email
from email import policy

import pytest

from tests.service.harness import Game

BRIEF = (
    "Neues Team: FC Wanderer Altona / Wanderer\n"
    "Aufstelung: 10-10-15-15-20 (diesmal offensiv)\n"
    "\n"
    "Viele Grüße\n"
    "Lena\n"
)


@pytest.fixture
def game(tmp_path) -> Game:
    return Game(tmp_path)


def replies(game: Game) -> list[tuple[str, str]]:
    """(recipient, plain text) of every mail sent since the last call."""
    seen = getattr(game, "seen", 0)
    every = game.flush()
    game.seen = len(every)  # type: ignore[attr-defined]
    out = []
    for sent in every[seen:]:
        msg = email.message_from_bytes(sent.raw, policy=policy.default)
        body = msg.get_body(("plain",))
        out.append((msg["To"].addresses[0].addr_spec, body.get_content() if body else ""))
    return out


def folded(text: str) -> str:
    return " ".join(text.split())


def teams(game: Game) -> list[tuple]:
    with game.db.read() as conn:
        return [tuple(r) for r in conn.execute(
            "SELECT t.name, t.short_name, m.lineup FROM teams t"
            " LEFT JOIN moves m ON m.team_id = t.id ORDER BY t.id, m.id")]


def password_of(text: str) -> str:
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("Passwort:"))
    return line.split(":", 1)[1].strip()


# -- the brief's example mail ---------------------------------------------------------


def test_the_brief_example_is_stored_and_every_reading_is_named(game: Game) -> None:
    game.send(game.mail("Lena Berg <lena@player.example>", BRIEF, subject="Anmeldung"))
    assert teams(game) == [("FC Wanderer Altona", "Wanderer", "10-10-15-15-20")]
    [(to, text)] = replies(game)
    assert to == "lena@player.example"
    flat = folded(text)
    assert password_of(text)  # the password is sent
    assert "„Aufstelung“ als „Aufstellung“ gelesen" in flat
    assert "Kommentar übergangen: (diesmal offensiv)" in flat
    assert "Hallo Lena Berg," in flat and "Managerin" not in flat
    assert "nicht verstanden" not in flat  # the sign-off is no "not understood" line
    assert "Viele Grüße" not in flat
    assert "FEHLER" not in flat


def test_the_from_name_greets_until_a_manager_name_is_known(game: Game) -> None:
    game.send(game.mail("Lena <lena@player.example>", BRIEF))
    [(_, first)] = replies(game)
    assert "Hallo Lena," in first
    password = password_of(first)
    game.send(game.mail("Lena <lena@player.example>",
                        f"Passwort: {password}\nManager: Lena Berg\n"))
    [(_, second)] = replies(game)
    assert "Hallo Lena Berg," in second
    game.send(game.mail("L. B. <lena@player.example>", f"Passwort: {password}\nStatus\n"))
    [(_, third)] = replies(game)
    assert "Hallo Lena Berg," in third  # the Manager: name wins over a later From name


def test_a_rejected_first_mail_still_greets_the_from_name(game: Game) -> None:
    game.send(game.mail("Lena <lena@player.example>",
                        "Neues Team: Wanderer\nAufstellung: 10-10-15-15\n"))
    [(_, text)] = replies(game)
    assert "Hallo Lena," in text and teams(game) == []


def test_a_bare_address_gets_the_neutral_greeting(game: Game) -> None:
    game.send(game.mail("lena@player.example", BRIEF))
    [(_, text)] = replies(game)
    assert "Hallo Managerin, hallo Manager," in text


def test_english_notes_and_greeting(game: Game) -> None:
    body = ("New team: Red Rovers / Rovers\n"
            "Linup: 10-10-15-15-20 // as last time\n"
            "\nBest regards\nSam\n")
    game.send(game.mail("Sam Taylor <sam@player.example>", body, subject="Hello"))
    assert teams(game) == [("Red Rovers", "Rovers", "10-10-15-15-20")]
    [(_, text)] = replies(game)
    flat = folded(text)
    assert 'read "Linup" as "Lineup"' in flat
    assert "Comment skipped: // as last time" in flat
    assert "Hello Sam Taylor," in flat
    assert "not understand" not in flat and "Best regards" not in flat


def test_an_own_team_name_is_never_read_as_a_typo(game: Game) -> None:
    """A team called "Statur" (one edit from "Status"): its lineup line stays its lineup."""
    game.send(game.mail("a@player.example", "Neues Team: Statur\n10-10-15-15-20"))
    [(_, text)] = replies(game)
    password = password_of(text)
    game.send(game.mail("a@player.example", f"Passwort: {password}\nStatur: 10-10-16-15-20"))
    [(_, again)] = replies(game)
    assert "als „Status“ gelesen" not in again
    assert teams(game)[-1] == ("Statur", "Statur", "10-10-16-15-20")


# -- errors: the exact part and the player's own numbers ------------------------------------


def test_an_error_quotes_the_part_and_suggests_the_players_numbers(game: Game) -> None:
    game.send(game.mail("a@player.example", "Neues Team: Alpha\nAufstellung: 10.10.15.15.20x"))
    [(_, text)] = replies(game)
    flat = folded(text)
    assert "Zeile 2: „Aufstellung: 10.10.15.15.20x“" in flat
    assert "'10.10.15.15.20x' ist nicht lesbar" in flat
    assert teams(game) == []


def test_a_suggestion_is_offered_in_the_right_form(game: Game) -> None:
    from tests.support.grammar import parse_moves

    body = "Neues Team: Alpha\nAufstellung: 10-10-15-15-20-"
    [error] = parse_moves("", body).errors
    game.send(game.mail("a@player.example", body))
    [(_, text)] = replies(game)
    if error.suggestion:
        assert f"Meintest du {error.suggestion}?" in folded(text)
    else:
        assert "Richtig wäre z. B.: 10-10-15-15-20" in folded(text)


# -- refusals say why and what to do --------------------------------------------------------


def test_the_third_team_refusal_names_the_reason_and_the_fix(game: Game) -> None:
    game.send(game.mail("a@player.example", "Neues Team: Alpha\nNeues Team: Beta\n"))
    [(_, text)] = replies(game)
    password = password_of(text)
    game.send(game.mail("a@player.example", f"Passwort: {password}\nNeues Team: Gamma\n"))
    [(_, refusal)] = replies(game)
    flat = folded(refusal)
    assert "höchstens 2 Teams je Manager" in flat
    assert "„Alpha“ und „Beta“ sind beide erst in dieser Spielrunde angemeldet" in flat
    assert "„Zurückziehen: Beta“" in flat and "die Anmeldung von „Beta“ wird dann gelöscht" in flat
    # ... and the fix works as told, in one mail
    game.send(game.mail("a@player.example",
                        f"Passwort: {password}\nZurückziehen: Beta\nNeues Team: Gamma\n"))
    [(_, done)] = replies(game)
    assert "FEHLER" not in done
    assert [t[0] for t in teams(game)] == ["Alpha", "Gamma"]


def test_a_confusable_name_is_refused_with_its_own_wording(game: Game) -> None:
    game.send(game.mail("a@player.example", "Neues Team: Rote Teufel\n"))
    game.send(game.mail("b@player.example", "Neues Team: R\u043ete Teufel\n"))  # Cyrillic о
    _, (_, text) = replies(game)
    assert "sieht genauso aus wie das Team „Rote Teufel“" in folded(text)
    assert [t[0] for t in teams(game)] == ["Rote Teufel"]


def test_a_gm_look_alike_is_refused_with_its_own_wording(game: Game) -> None:
    game.send(game.mail("a@player.example", "Neues Team: G.M. 10-10-16-15-39 / Elf\n"))
    [(_, text)] = replies(game)
    assert "liest sich wie ein Team der Spielleitung" in folded(text)
    assert teams(game) == []


# -- a registration that never played frees its name ---------------------------------------


def test_a_withdrawn_new_registration_frees_its_name(game: Game) -> None:
    game.send(game.mail("a@player.example", "Neues Team: Wanderer\n10-10-15-15-20"))
    [(_, text)] = replies(game)
    password = password_of(text)
    game.send(game.mail("a@player.example", f"Passwort: {password}\nZurückziehen: Wanderer"))
    [(_, withdrawn)] = replies(game)
    assert "der Name wieder frei" in folded(withdrawn)
    assert teams(game) == []
    game.send(game.mail("b@player.example", "Neues Team: Wanderer\n10-10-15-15-20"))
    [(_, taken_over)] = replies(game)
    assert "FEHLER" not in taken_over
    assert teams(game) == [("Wanderer", "Wanderer", "10-10-15-15-20")]


def test_a_rejected_mail_never_lists_a_team_it_did_not_store(game: Game) -> None:
    """The issue's case: a team registered in a rejected mail was rolled back,
    so the error must not say "Deine Teams: FC Wanderer Altona". (Since each
    team stands alone, RULES.md §11, the registration is rolled back only when
    its own lines have an error: here its broken lineup.)"""
    body = ("Neues Team: FC Wanderer Altona / Wanderer\n10-10-15-15\n"
            "Team: Wandrer Altona\n10-10-15-15-20\n")
    game.send(game.mail("lena@player.example", body))
    [(_, text)] = replies(game)
    flat = folded(text)
    assert "Ein Team „Wandrer Altona“ gibt es nicht." in flat
    assert "Deine Teams" not in flat and teams(game) == []
    assert "„Neues Team: Wandrer Altona / Kurzname“" in flat


def test_a_registration_that_stands_is_listed_beside_an_unknown_name(game: Game) -> None:
    """Each team stands alone: the registration is stored although the next
    lines name a team that does not exist, and the error names it."""
    body = "Neues Team: FC Wanderer Altona / Wanderer\nTeam: Wandrer Altona\n10-10-15-15-20\n"
    game.send(game.mail("lena@player.example", body))
    [(_, text)] = replies(game)
    flat = folded(text)
    assert "Ein Team „Wandrer Altona“ gibt es nicht." in flat
    assert "Deine Teams: FC Wanderer Altona." in flat
    assert teams(game) == [("FC Wanderer Altona", "Wanderer", None)]
    assert "für „Wandrer Altona“ nichts gespeichert" in flat


# -- more mails as players write them, each with its reading ------------------------------

CASES = [
    # (body, stored lineups, phrases the reply must contain, phrases it must not)
    ("Neus Team: Kiez Kicker / Kiez\nAufstellung 10-10-15-15-20",
     [("Kiez Kicker", "Kiez", "10-10-15-15-20")],
     ["„Neus Team“ als „Neues Team“ gelesen"], ["nicht verstanden"]),
    ("Neues Team: Kiez Kicker / Kiez\nAufstellung: 10-10-15-15-20 # wie immer\n\nMfG\nOle",
     [("Kiez Kicker", "Kiez", "10-10-15-15-20")],
     ["Kommentar übergangen: # wie immer"], ["nicht verstanden", "MfG"]),
    ("Neues Team: Kiez Kicker / Kiez\nAufstellung: 10-10-15-15-20\n\nGruß\nOle\nHamburg",
     [("Kiez Kicker", "Kiez", "10-10-15-15-20")], [], ["nicht verstanden", "Hamburg"]),
    ("New team: Dock Rovers / Rovers\nLineup: 10-10-15-15-20\n\nCheers,\nOle",
     [("Dock Rovers", "Rovers", "10-10-15-15-20")], [], ["not understand", "Cheers"]),
    ("Neues Team: Kiez Kicker / Kiez\nAufstellung: 10-10-15-15 (diesmal offensiv)",
     [], ["Zeile 2:", "4 Zahlen statt fünf", "nichts gespeichert"], []),
]


@pytest.mark.parametrize(("body", "stored", "present", "absent"), CASES)
def test_mails_as_players_write_them(game: Game, body, stored, present, absent) -> None:
    game.send(game.mail("Ole <ole@player.example>", body))
    assert teams(game) == stored
    [(_, text)] = replies(game)
    flat = folded(text)
    assert "Hallo Ole," in flat or "Hello Ole," in flat
    for phrase in present:
        assert phrase in flat, (phrase, flat)
    for phrase in absent:
        assert phrase not in flat, (phrase, flat)
