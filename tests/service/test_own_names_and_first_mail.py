"""Own team names within two edits, and a first mail that is a registration
(RULES.md §11, issue 20), through the real mail path, German and English."""

from __future__ import annotations

from tests.service.harness import Game


def folded(text: str) -> str:
    return " ".join(text.split())


def manager_count(game: Game) -> int:
    with game.db.read() as conn:
        return conn.execute("SELECT COUNT(*) FROM managers").fetchone()[0]


# -- own team names read as meant --------------------------------------------------


def test_a_misspelt_own_team_is_read_as_it_with_a_note(game: Game) -> None:
    password = game.register("ole@player.example", "Hertha Köpenick")
    text = folded(game.reply("ole@player.example",
                             f"Passwort: {password}\nHerta Köpenick: 0-10-30-20-20\n"))
    assert game.lineups() == {"Hertha Köpenick": "0-10-30-20-20"}
    assert "„Herta Köpenick“ als „Hertha Köpenick“ gelesen." in text
    assert "FEHLER" not in text


def test_english_team_line_with_two_typos(game: Game) -> None:
    password = game.register("sam@player.example", "Exeter Wanderers", "Bath Rovers")
    body = f"Password: {password}\nTeam: Exter Wandrers\nLineup: 10-10-16-15-20\n"
    text = folded(game.reply("sam@player.example", body, subject="lineup"))
    assert game.lineups() == {"Exeter Wanderers": "10-10-16-15-20",
                              "Bath Rovers": "10-10-15-15-20"}
    assert 'read "Exter Wandrers" as "Exeter Wanderers"' in text
    assert "ERRORS" not in text


def test_a_misspelt_short_name_and_a_withdrawal(game: Game) -> None:
    password = game.register("ole@player.example", "Kiez Kicker / Kicker")
    text = folded(game.reply("ole@player.example",
                             f"Passwort: {password}\nKickr: 0-10-30-20-20\n"))
    assert game.lineups() == {"Kiez Kicker": "0-10-30-20-20"}
    assert "„Kickr“ als „Kiez Kicker“ gelesen." in text
    text = folded(game.reply("ole@player.example",
                             f"Passwort: {password}\nZurückziehen: Kiez Kiker\n"))
    assert game.lineups() == {}  # a registration of this round that never played is undone
    assert "„Kiez Kiker“ als „Kiez Kicker“ gelesen." in text


def test_a_name_close_to_two_own_teams_is_not_guessed(game: Game) -> None:
    password = game.register("ole@player.example", "Hafen Elf", "Hafen Elb")
    text = folded(game.reply("ole@player.example",
                             f"Passwort: {password}\nHafen Elx: 0-10-30-20-20\n"))
    assert game.lineups() == {"Hafen Elf": "10-10-15-15-20", "Hafen Elb": "10-10-15-15-20"}
    assert "Ein Team „Hafen Elx“ gibt es nicht." in text


def test_three_edits_are_too_many(game: Game) -> None:
    password = game.register("ole@player.example", "Hertha Köpenick")
    text = folded(game.reply("ole@player.example",
                             f"Passwort: {password}\nHerta Kopenik: 0-10-30-20-20\n"))
    assert game.lineups() == {"Hertha Köpenick": "10-10-15-15-20"}
    assert "Ein Team „Herta Kopenik“ gibt es nicht." in text


def test_another_managers_team_close_to_an_own_one_is_read_as_the_own(game: Game) -> None:
    game.register("anna@player.example", "Herta Köpenick")
    password = game.register("ole@player.example", "Hertha Köpenick")
    text = folded(game.reply("ole@player.example",
                             f"Passwort: {password}\nHerta Köpenick: 0-10-30-20-20\n"))
    assert game.lineups() == {"Herta Köpenick": "10-10-15-15-20",
                              "Hertha Köpenick": "0-10-30-20-20"}
    assert "„Herta Köpenick“ als „Hertha Köpenick“ gelesen." in text


def test_a_name_registered_in_the_same_mail_is_never_corrected(game: Game) -> None:
    password = game.register("ole@player.example", "Hertha Köpenick")
    body = f"Passwort: {password}\nNeues Team: Herta Köpenick\nHerta Köpenick: 0-10-30-20-20\n"
    text = folded(game.reply("ole@player.example", body))
    assert game.lineups() == {"Hertha Köpenick": "10-10-15-15-20",
                              "Herta Köpenick": "0-10-30-20-20"}
    assert "gelesen" not in text


# -- a first mail is a registration ---------------------------------------------------


def test_a_strangers_my_team_and_lineup_registers_in_english(game: Game) -> None:
    body = "Hi,\nMy team: London Lions\nLineup 10-10-15-15-20\nThanks"
    text = folded(game.reply("Lena <lena@player.example>", body, subject="Joining"))
    assert game.lineups() == {"London Lions": "10-10-15-15-20"}
    assert ('"London Lions" was no team yet, so I registered it as a new team for you, '
            'just as the line "New team: London Lions" would have.') in text
    assert "Password:" in text and "ERRORS" not in text


def test_a_strangers_name_and_lineup_registers_in_german(game: Game) -> None:
    text = folded(game.reply("ole@player.example", "Altona 93: 10-10-15-15-20\n"))
    assert game.lineups() == {"Altona 93": "10-10-15-15-20"}
    assert "„Altona 93“ war noch kein Team, darum habe ich es als neues Team" in text
    assert "Passwort:" in text


def test_a_strangers_team_line_with_a_short_name(game: Game) -> None:
    game.reply("ole@player.example",
               "Mein Team: Concordia Moorburg / Moorburg\nAufstellung - 10-8-25-20-20\n")
    with game.db.read() as conn:
        assert [tuple(r) for r in conn.execute("SELECT name, short_name FROM teams")] == [
            ("Concordia Moorburg", "Moorburg")]
    assert game.lineups() == {"Concordia Moorburg": "10-8-25-20-20"}


def test_two_teams_by_name_in_a_first_mail(game: Game) -> None:
    game.reply("ole@player.example",
               "Blaue Engel: 10-10-15-15-20\nGrüne Jungs: 0-10-30-20-20\n")
    assert game.lineups() == {"Blaue Engel": "10-10-15-15-20", "Grüne Jungs": "0-10-30-20-20"}


def test_a_team_line_without_a_lineup_registers_nothing(game: Game) -> None:
    text = folded(game.reply("ole@player.example", "Mein Team: Concordia Moorburg\n"))
    assert game.lineups() == {} and manager_count(game) == 0
    assert "Ein Team „Concordia Moorburg“ gibt es nicht." in text
    assert "„Neues Team: Concordia Moorburg / Kurzname“" in text


def test_a_strangers_line_for_someone_elses_team_registers_nothing(game: Game) -> None:
    game.register("anna@player.example", "Rote Teufel")
    game.reply("ole@player.example", "Rote Teufel: 0-10-30-20-20\n")
    assert game.lineups() == {"Rote Teufel": "10-10-15-15-20"} and manager_count(game) == 1


def test_a_look_alike_name_is_refused_as_new_team_would_be(game: Game) -> None:
    game.register("anna@player.example", "Rote Teufel")
    text = folded(game.reply("ole@player.example", "R\u043ete Teufel: 0-10-30-20-20\n"))
    assert manager_count(game) == 1
    assert "sieht genauso aus wie das Team „Rote Teufel“" in text


def test_a_mail_with_new_team_registers_only_that(game: Game) -> None:
    """A typo of the name registered in the same mail is that team (it is his
    once registered); a name far from it is unknown, not a second team."""
    text = folded(game.reply("ole@player.example",
                             "Neues Team: Blaue Engel\nBlaue Engle: 10-10-15-15-20\n"
                             "Grüne Jungs: 0-10-30-20-20\n"))
    assert game.lineups() == {"Blaue Engel": "10-10-15-15-20"}
    assert "„Blaue Engle“ als „Blaue Engel“ gelesen." in text
    assert "Ein Team „Grüne Jungs“ gibt es nicht." in text
