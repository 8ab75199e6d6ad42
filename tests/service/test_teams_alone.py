"""Each team stands alone (RULES.md §11, issue 20), through the real mail path:
an error in one team's lines changes nothing for that team, the other teams'
lineups and the mail's other commands are carried out, and the reply says
which were stored. Only a wrong or missing password (or a line too long to
read, or a broken lineup that names no team of a manager with two) changes
nothing at all."""

from __future__ import annotations

from tests.service.harness import Game


def folded(text: str) -> str:
    return " ".join(text.split())


def two_teams(game: Game, sender: str = "sam@player.example") -> str:
    return game.register(sender, "Bath Rovers", "Exeter Wanderers")


def test_the_issues_mail_stores_the_valid_lineup(game: Game) -> None:
    password = two_teams(game)
    body = (f"Password: {password}\nBath Rovers: 0-10-20-20-30\n"
            "Exeter Wanderers: 10-10-15-15\n\nCheers\nSam\n")
    text = folded(game.reply("sam@player.example", body, subject="lineups"))
    assert game.lineups() == {"Bath Rovers": "0-10-20-20-30",
                              "Exeter Wanderers": "10-10-15-15-20"}  # as before the mail
    assert '"Exeter Wanderers: 10-10-15-15" - 4 numbers instead of five' in text
    assert ('Because of the errors above, nothing was stored for "Exeter Wanderers"; '
            'everything else from this mail was stored.') in text
    assert "nothing from this mail was stored" not in text


def test_a_broken_lineup_after_team_belongs_to_that_team(game: Game) -> None:
    password = game.register("ole@player.example", "Kiez Kicker", "Hafen Elf")
    body = (f"Passwort: {password}\nTeam: Kiez Kicker\nAufstellung: 10-10-15-15-20-5\n"
            "Hafen Elf: 0-10-30-20-20\n")
    text = folded(game.reply("ole@player.example", body))
    assert game.lineups() == {"Kiez Kicker": "10-10-15-15-20", "Hafen Elf": "0-10-30-20-20"}
    assert "Wegen der Fehler oben wurde für „Kiez Kicker“ nichts gespeichert" in text
    assert "alles andere aus dieser Mail ist gespeichert" in text


def test_a_second_lineup_of_a_broken_team_is_not_stored_either(game: Game) -> None:
    password = game.register("ole@player.example", "Kiez Kicker", "Hafen Elf")
    body = (f"Passwort: {password}\nKiez Kicker: 9-9-15-15-20\nHafen Elf: 0-10-30-20-20\n"
            "Kiez Kicker: 10-10-15-15\n")
    game.reply("ole@player.example", body)
    assert game.lineups() == {"Kiez Kicker": "10-10-15-15-20", "Hafen Elf": "0-10-30-20-20"}


def test_a_broken_unnamed_line_of_the_only_team_keeps_the_other_commands(game: Game) -> None:
    password = game.register("ole@player.example", "Kiez Kicker")
    body = f"Passwort: {password}\nManager: Ole Hansen\nAufstellung: 10-10-15-15\n"
    text = folded(game.reply("ole@player.example", body))
    assert game.lineups() == {"Kiez Kicker": "10-10-15-15-20"}
    assert "Hallo Ole Hansen," in text  # the Manager: line was carried out
    assert "für „Kiez Kicker“ nichts gespeichert" in text


def test_a_broken_unnamed_line_of_a_manager_with_two_teams_stores_nothing(game: Game) -> None:
    """Decision (bot.league.grouping): it could be meant for either team."""
    password = two_teams(game)
    body = f"Password: {password}\nBath Rovers: 0-10-20-20-30\nLineup: 10-10-15-15\n"
    text = folded(game.reply("sam@player.example", body, subject="lineups"))
    assert game.lineups() == {"Bath Rovers": "10-10-15-15-20",
                              "Exeter Wanderers": "10-10-15-15-20"}
    assert "Because of the errors above, nothing from this mail was stored." in text


def test_an_unknown_team_of_a_known_manager_shows_his_teams_and_the_new_team_line(
        game: Game) -> None:
    password = two_teams(game)
    body = f"Password: {password}\nBath Rovers: 0-10-20-20-30\nTorquay United: 10-10-16-15-20\n"
    text = folded(game.reply("sam@player.example", body, subject="lineups"))
    assert game.lineups() == {"Bath Rovers": "0-10-20-20-30",
                              "Exeter Wanderers": "10-10-15-15-20"}
    assert 'There is no team "Torquay United". Your teams: Bath Rovers, Exeter Wanderers.' in text
    assert '"New team: Torquay United / Short name"' in text
    assert "your weaker team is deleted for good at the evaluation" in text
    assert 'nothing was stored for "Torquay United"' in text


def test_an_unknown_team_in_german_with_one_team(game: Game) -> None:
    password = game.register("ole@player.example", "Kiez Kicker")
    body = f"Passwort: {password}\nKiez Kicker: 0-10-30-20-20\nHafen Elf: 10-10-16-15-20\n"
    text = folded(game.reply("ole@player.example", body))
    assert game.lineups() == {"Kiez Kicker": "0-10-30-20-20"}
    assert "Ein Team „Hafen Elf“ gibt es nicht. Deine Teams: Kiez Kicker." in text
    assert "„Neues Team: Hafen Elf / Kurzname“" in text
    assert "schwächeres Team" not in text  # a second team deletes nothing


def test_a_wrong_password_still_changes_nothing_at_all(game: Game) -> None:
    two_teams(game)
    body = "Password: not-the-one\nBath Rovers: 0-10-20-20-30\nExeter Wanderers: 10-10-15-15\n"
    text = folded(game.reply("sam@player.example", body, subject="lineups"))
    assert game.lineups() == {"Bath Rovers": "10-10-15-15-20",
                              "Exeter Wanderers": "10-10-15-15-20"}
    assert "nothing from this mail was stored" in text


def test_a_line_too_long_to_read_stores_nothing(game: Game) -> None:
    password = game.register("ole@player.example", "Kiez Kicker")
    body = f"Passwort: {password}\nKiez Kicker: 0-10-30-20-20\n" + "10-" * 400 + "\n"
    text = folded(game.reply("ole@player.example", body))
    assert game.lineups() == {"Kiez Kicker": "10-10-15-15-20"}
    assert "nichts gespeichert" in text


def test_a_command_that_cannot_be_read_fails_alone(game: Game) -> None:
    password = game.register("ole@player.example", "Kiez Kicker")
    body = f"Passwort: {password}\nZurückziehen:\nKiez Kicker: 0-10-30-20-20\n"
    text = folded(game.reply("ole@player.example", body))
    assert game.lineups() == {"Kiez Kicker": "0-10-30-20-20"}
    assert "Zeile 2" in text
    assert "wurden diese Zeilen nicht ausgeführt; alles andere aus dieser Mail ist gespeichert" \
        in text


def test_a_refused_registration_is_told_once_and_the_other_team_stored(game: Game) -> None:
    password = game.register("ole@player.example", "Kiez Kicker", "Hafen Elf")
    with game.db.transaction() as conn:  # both played before: a third team may be registered
        conn.execute("UPDATE teams SET registered_round = 0")
    body = (f"Passwort: {password}\nNeues Team: G.M. 10-10-16-15-39\n"
            "G.M. 10-10-16-15-39: 10-10-16-15-20\nKiez Kicker: 0-10-30-20-20\n")
    text = folded(game.reply("ole@player.example", body))
    assert game.lineups() == {"Kiez Kicker": "0-10-30-20-20", "Hafen Elf": "10-10-15-15-20"}
    assert "liest sich wie ein Team der Spielleitung" in text
    assert "gibt es nicht" not in text


def test_a_refused_registration_leaves_the_lineups_stored(game: Game) -> None:
    game.register("anna@player.example", "Rote Teufel")
    password = game.register("ole@player.example", "Kiez Kicker")
    body = (f"Passwort: {password}\nNeues Team: Rote Teufel\nRote Teufel: 10-10-16-15-20\n"
            "Kiez Kicker: 0-10-30-20-20\n")
    text = folded(game.reply("ole@player.example", body))
    assert game.lineups() == {"Rote Teufel": "10-10-15-15-20", "Kiez Kicker": "0-10-30-20-20"}
    assert "für „Rote Teufel“ nichts gespeichert" in text


def test_a_strangers_mail_whose_every_team_fails_creates_nobody(game: Game) -> None:
    text = folded(game.reply("neu@player.example",
                             "Neues Team: Kiez Kicker\nAufstellung: 10-10-15-15\n"))
    assert game.lineups() == {}
    assert "Passwort:" not in text.split("So spielst du mit")[0]
    assert "Wegen der Fehler oben wurde aus dieser Mail nichts gespeichert." in text


def test_a_stranger_is_not_registered_for_a_status_when_his_team_fails(game: Game) -> None:
    text = folded(game.reply("neu@player.example",
                             "Status\nNeues Team: Kiez Kicker\nAufstellung: 10-10-15-15\n"))
    with game.db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM managers").fetchone()[0] == 0
    assert "Wegen der Fehler oben wurde aus dieser Mail nichts gespeichert." in text
