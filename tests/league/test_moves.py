"""``League.submit``: managers, passwords, registration, lineups, withdrawals, late mail."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest

from bot.league.addresses import normalize_address
from bot.league.errors import BadAddress, NoOpenRound
from bot.league.moves import weakest
from bot.league.outcome import Code
from bot.league.service import League
from bot.rules.requests import LineError, SelectTeam, SetShortName
from bot.service.commands.ask_help import AskHelp
from bot.service.commands.manager_name import SetManagerName
from bot.service.commands.status import AskStatus
from bot.service.commands.withdraw import Withdraw
from bot.storage import open_database
from bot.storage.teams import TeamRow

from .conftest import FAST, FIRST_DEADLINE, START, Player, lineup, moves, register, submit


def count(league, sql, *args):
    with league.db.read() as conn:
        return conn.execute(sql, args).fetchone()[0]


def teams_of(result):
    return {t.name: t for t in result.teams}


# -- managers and passwords ----------------------------------------------------


def test_first_mail_creates_manager_team_and_password(league):
    anna = Player(league, "Anna <Anna@Example.org>", "Anna A.")
    result = anna.send(register("Rote Teufel", "Teufel"), lineup("10-10-15-15-20"))
    assert result.accepted and not result.late
    assert result.manager.is_new and result.manager.address == "anna@example.org"
    assert result.manager.display_name == "Anna A."
    password = result.manager.new_password
    assert password and len(password) == 11 and password.count("-") == 2
    assert {Code.MANAGER_CREATED, Code.TEAM_REGISTERED, Code.LINEUP_SET} <= set(result.codes())
    team = teams_of(result)["Rote Teufel"]
    assert team.short_name == "Teufel" and team.wp == Decimal("90") and team.budget == 90
    assert str(team.lineup) == "10-10-15-15-20" and team.registered_this_round
    assert result.round == 1 and result.deadline == FIRST_DEADLINE
    with league.db.read() as conn:
        stored = conn.execute("SELECT password_hash FROM managers").fetchone()[0]
    assert password not in stored and stored.startswith("scrypt$")


def test_later_mail_needs_the_password(league):
    anna = Player(league, "anna@example.org")
    anna.send(register("Rote Teufel"))
    missing = anna.send(lineup("10-10-15-15-20"), password="")
    assert not missing.accepted and missing.codes() == [Code.NOTHING_CHANGED, Code.PASSWORD_MISSING]
    assert missing.teams == []  # nothing is revealed to a sender without the password
    wrong = anna.send(lineup("10-10-15-15-20"), password="aaa-bbb-ccc")
    assert [e.code for e in wrong.errors] == [Code.PASSWORD_WRONG]
    assert count(league, "SELECT COUNT(*) FROM moves") == 0
    typed = anna.send(lineup("10-10-15-15-20"), password=anna.password.upper().replace("-", " "))
    assert typed.accepted and Code.LINEUP_SET in typed.codes()


def test_help_needs_no_password_and_creates_no_manager(league):
    stranger = Player(league, "x@example.org")
    result = stranger.send(AskHelp("Hilfe"))
    assert result.accepted and result.codes() == [Code.HELP] and result.manager is None
    status = stranger.send(AskStatus("Status"))
    assert Code.NOT_REGISTERED in status.codes()
    assert count(league, "SELECT COUNT(*) FROM managers") == 0


def test_without_passwords_no_password_is_issued(tmp_path):
    from dataclasses import replace

    from .conftest import make_league

    league = make_league(tmp_path, replace(FAST, passwords=False))
    bob = Player(league, "bob@example.org")
    first = bob.send(register("Blaue Jungs"))
    assert first.accepted and first.manager.new_password is None
    assert bob.send(lineup("10-10-15-15-20")).accepted


def test_manager_name_and_empty_mail(league):
    anna = Player(league, "anna@example.org")
    anna.send(register("Rote Teufel"), SetManagerName("Manager: Anna  Meier", "Anna  Meier"))
    with league.db.read() as conn:
        assert conn.execute("SELECT display_name FROM managers").fetchone()[0] == "Anna Meier"
    assert anna.send().codes() == [Code.NOTHING_TO_DO]


def test_sender_address_is_validated():
    assert normalize_address('"Meier, Hans" <Hans@EXAMPLE.de>') == "hans@example.de"
    for bad in ("", "no-at-sign", "@example.org", "a b@c"):
        with pytest.raises(BadAddress):
            normalize_address(bad)


def test_submit_without_an_open_round_is_refused(tmp_path):
    league = League(open_database(tmp_path), FAST)
    with pytest.raises(NoOpenRound), league.db.transaction() as conn:
        submit(league, conn, sender="a@b.c", sender_name=None, moves=moves(AskHelp("Hilfe")),
                      now=START)


# -- names -------------------------------------------------------------------------


def test_long_names_are_shortened_and_short_names_derived(league):
    anna = Player(league, "anna@example.org")
    result = anna.send(register("Sportfreunde Oberhausen Nord Süd Ost"))
    team = result.teams[0]
    assert len(team.name) <= 30 and len(team.short_name) <= 15
    assert team.name == "Sportfreunde Oberhausen Nord"
    codes = result.codes()
    assert Code.NAME_SHORTENED in codes and Code.SHORT_NAME_DERIVED in codes
    derived = next(n for n in result.notices if n.code == Code.SHORT_NAME_DERIVED)
    assert derived.params["short_name"] == team.short_name


def test_short_name_line_belongs_to_the_registration(league):
    anna = Player(league, "anna@example.org")
    result = anna.send(register("FC Wanderer Altona"), SetShortName("Kurzname: Wanderer",
                                                                     "Wanderer"))
    assert result.teams[0].short_name == "Wanderer"
    assert Code.SHORT_NAME_DERIVED not in result.codes()
    orphan = anna.send(SetShortName("Kurzname: X", "X"))
    assert not orphan.accepted and orphan.errors[0].code == Code.SHORT_NAME_WITHOUT_TEAM


def test_too_long_short_name_is_shortened(league):
    result = Player(league, "a@x.org").send(register("Kickers", "Kickers vom Stadtpark Süd"))
    assert result.teams[0].short_name == "Kickers"  # never ends in a small word like "vom"
    assert Code.SHORT_NAME_SHORTENED in result.codes()


@pytest.mark.parametrize("variant", ["rote teufel", "ROTE   TEUFEL", " Rote Teufel "])
def test_names_are_unique_ignoring_case_and_spaces(league, variant):
    Player(league, "anna@example.org").send(register("Rote Teufel"))
    other = Player(league, "bob@example.org").send(register(variant))
    assert not other.accepted and [e.code for e in other.errors] == [Code.NAME_TAKEN]
    assert other.manager is None  # the rejected first mail created nobody
    assert count(league, "SELECT COUNT(*) FROM managers") == 1


def test_gm_names_are_reserved(league):
    for name in ("GM 10-0-16-15-39", "gm Stars"):
        result = Player(league, "a@x.org").send(register(name))
        assert [e.code for e in result.errors] == [Code.NAME_RESERVED]
    assert Player(league, "a@x.org").send(register("GMX United")).accepted


def test_names_of_deleted_teams_stay_taken(league):
    anna = Player(league, "anna@example.org")
    anna.send(register("Alpha"), register("Beta"))
    anna.send(register("Gamma"))  # dooms Alpha or Beta
    with league.db.transaction() as conn:
        conn.execute("UPDATE teams SET deleted_round = 1 WHERE doomed_round IS NOT NULL")
    result = Player(league, "bob@example.org").send(register("alpha"), register("beta"))
    assert Code.NAME_TAKEN in result.codes()


# -- lineups -----------------------------------------------------------------------


def test_lineup_corrections_are_reported_with_the_current_budget(league):
    anna = Player(league, "anna@example.org")
    result = anna.send(register("Rote Teufel"), lineup("10-10-20-25-25"))
    corrected = result.teams[0].corrected
    assert str(corrected.lineup) == "8-8-16-21-21" and corrected.budget == 90
    notice = next(n for n in result.notices if n.code == Code.LINEUP_CORRECTED)
    assert notice.params["played"] == "8-8-16-21-21"
    assert {c["rule"] for c in notice.params["corrections"]} == {"budget"}


def test_replacing_and_repeating_a_lineup(league):
    anna = Player(league, "anna@example.org")
    anna.send(register("Rote Teufel"), lineup("10-10-15-15-20"))
    again = anna.send(lineup("10-10-15-15-20"))
    assert Code.LINEUP_UNCHANGED in again.codes() and not again.teams[0].changed
    replaced = anna.send(lineup("0-10-30-20-20", "Rote Teufel"))
    notice = next(n for n in replaced.notices if n.code == Code.LINEUP_REPLACED)
    assert notice.params["previous"] == "10-10-15-15-20"
    team = replaced.teams[0]
    assert str(team.lineup) == "0-10-30-20-20" and str(team.previous) == "10-10-15-15-20"
    assert team.changed
    with league.db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0] == 2


def test_two_teams_need_a_team_name(league):
    anna = Player(league, "anna@example.org")
    anna.send(register("Alpha"), lineup("10-10-15-15-20"), register("Beta"),
              lineup("0-10-30-20-20"))
    state = teams_of(anna.send(AskStatus("Status")))
    assert str(state["Alpha"].lineup) == "10-10-15-15-20"
    assert str(state["Beta"].lineup) == "0-10-30-20-20"
    which = anna.send(lineup("5-5-20-20-20"))
    assert [e.code for e in which.errors] == [Code.WHICH_TEAM]
    assert which.errors[0].params["own_teams"] == ["Alpha", "Beta"]
    chosen = anna.send(SelectTeam("Team: beta", "beta"), lineup("5-5-20-20-20"))
    assert str(teams_of(chosen)["Beta"].lineup) == "5-5-20-20-20"
    by_short = anna.send(lineup("6-6-20-20-20", "ALPHA"))
    assert str(teams_of(by_short)["Alpha"].lineup) == "6-6-20-20-20"


def test_lineup_without_any_team_is_an_error(league):
    result = Player(league, "a@x.org").send(lineup("10-10-15-15-20"))
    assert [e.code for e in result.errors] == [Code.NO_TEAM] and result.manager is None


def test_foreign_and_unknown_teams(league):
    Player(league, "anna@example.org").send(register("Rote Teufel"))
    bob = Player(league, "bob@example.org")
    bob.send(register("Blaue Jungs"))
    foreign = bob.send(lineup("10-10-15-15-20", "Rote Teufel"))
    assert [e.code for e in foreign.errors] == [Code.TEAM_NOT_YOURS]
    unknown = bob.send(lineup("10-10-15-15-20", "Grüne Jungs"))
    assert [e.code for e in unknown.errors] == [Code.UNKNOWN_TEAM]
    assert unknown.errors[0].params["own_teams"] == ["Blaue Jungs"]


def test_an_error_anywhere_changes_nothing(league):
    anna = Player(league, "anna@example.org")
    anna.send(register("Alpha"), lineup("10-10-15-15-20"))
    bad_line = LineError("Aufstellung: 10-10-15-15", 3, "4 numbers instead of five",
                         "10-10-15-15-20")
    result = anna.send(lineup("0-10-30-20-20"), SetManagerName("Manager: X", "X"),
                       register("Beta"), errors=(bad_line,))
    assert not result.accepted
    assert result.codes() == [Code.NOTHING_CHANGED, Code.LINE_ERROR]
    assert result.errors[0].params["line_number"] == 3
    assert [t.name for t in result.teams] == ["Alpha"]
    assert str(result.teams[0].lineup) == "10-10-15-15-20" and not result.teams[0].changed
    assert result.manager.display_name is None and result.manager.new_password is None
    assert count(league, "SELECT COUNT(*) FROM teams") == 1
    assert count(league, "SELECT COUNT(*) FROM moves") == 1


# -- withdrawals -------------------------------------------------------------------


def test_withdraw_and_come_back(league):
    anna = Player(league, "anna@example.org")
    anna.send(register("Alpha"), lineup("10-10-15-15-20"))
    with league.db.transaction() as conn:  # Alpha is an old team now
        conn.execute("UPDATE teams SET registered_round = 0")
    out = anna.send(Withdraw("Zurückziehen: Alpha", "Alpha"))
    notice = next(n for n in out.notices if n.code == Code.WITHDRAWN)
    assert notice.params["had_lineup"] is True
    assert out.teams[0].withdrawn and out.teams[0].lineup is None
    with league.db.read() as conn:
        assert league.status(conn, START).teams_with_lineup == ()
    back = anna.send(lineup("10-10-15-15-20"))
    assert Code.LINEUP_SET in back.codes() and not back.teams[0].withdrawn


def test_withdrawing_a_new_registration_cancels_it(league):
    anna = Player(league, "anna@example.org")
    anna.send(register("Alpha"))
    out = anna.send(Withdraw("Zurückziehen: Alpha", "Alpha"))
    assert Code.REGISTRATION_WITHDRAWN in out.codes() and out.teams == []
    assert count(league, "SELECT COUNT(*) FROM teams WHERE deleted_round IS NULL") == 0
    assert count(league, "SELECT COUNT(*) FROM moves") == 0
    assert count(league, "SELECT COUNT(*) FROM teams") == 0  # it never existed (RULES.md §7)
    bob = Player(league, "bob@example.org")
    again = bob.send(register("alpha"))  # so its name is free again, for anyone
    assert again.accepted and Code.TEAM_REGISTERED in again.codes()
    assert anna.send(register("Beta")).accepted  # and the manager can register another


def test_a_team_that_played_keeps_its_name_forever(league):
    anna = Player(league, "anna@example.org")
    anna.send(register("Alpha"))
    with league.db.transaction() as conn:  # Alpha played a tournament, then was deleted
        conn.execute("UPDATE teams SET registered_round = 0, last_played_round = 0,"
                     " deleted_round = 1")
    bob = Player(league, "bob@example.org")
    again = bob.send(register("alpha"))
    assert not again.accepted and Code.NAME_TAKEN in again.codes()
    look_alike = bob.send(register("Аlpha"))  # Cyrillic А
    assert not look_alike.accepted and Code.NAME_CONFUSABLE in look_alike.codes()
    [error] = [e for e in look_alike.errors if e.code == Code.NAME_CONFUSABLE]
    assert error.params["other"] == "Alpha"


def test_a_gm_look_alike_has_its_own_code(league):
    anna = Player(league, "anna@example.org")
    plain = anna.send(register("GM Elf"))
    assert Code.NAME_RESERVED in plain.codes()
    dotted = anna.send(register("G.M. 10-10-16-15-39"))
    assert not dotted.accepted and Code.NAME_GM_LOOK_ALIKE in dotted.codes()


# -- the two-team limit ------------------------------------------------------------


def _old_teams(league, **wp_and_last):
    """Make the existing teams old (registered before round 1) with given WP / last round."""
    with league.db.transaction() as conn:
        for name, (wp, last) in wp_and_last.items():
            conn.execute(
                "UPDATE teams SET registered_round = 0, wp = ?, last_played_round = ?"
                " WHERE name = ?", (wp, last, name))


def test_third_team_dooms_the_weaker(league):
    anna = Player(league, "anna@example.org")
    anna.send(register("Alpha"), register("Beta"))
    _old_teams(league, Alpha=("95.3", 0), Beta=("91.2", 0))
    out = anna.send(register("Gamma"), lineup("10-10-15-15-20"))
    assert out.accepted
    doom = next(n for n in out.notices if n.code == Code.TEAM_WILL_BE_DELETED)
    assert doom.params["team"] == "Beta" and doom.params["because"] == "Gamma"
    assert doom.params["round"] == 1
    state = teams_of(out)
    assert state["Beta"].doomed and not state["Alpha"].doomed
    assert str(state["Gamma"].lineup) == "10-10-15-15-20"  # the lineup went to the new team


def test_equal_wp_dooms_the_team_that_played_longer_ago(league):
    anna = Player(league, "anna@example.org")
    anna.send(register("Alpha"), register("Beta"))
    _old_teams(league, Alpha=("92", -5), Beta=("92", -1))
    out = anna.send(register("Gamma"))
    assert teams_of(out)["Alpha"].doomed and not teams_of(out)["Beta"].doomed


def test_complete_tie_is_decided_by_lot():
    import random

    def team(i):
        return TeamRow(i, f"T{i}", f"T{i}", 1, Decimal("92"), Decimal("250"), 0, None, None,
                       None, 3)

    picked = {weakest([team(1), team(2)], 1, random.Random(seed))[0].id for seed in range(40)}
    assert picked == {1, 2}


def test_withdrawing_the_new_team_cancels_the_deletion(league):
    anna = Player(league, "anna@example.org")
    anna.send(register("Alpha"), register("Beta"))
    _old_teams(league, Alpha=("95", 0), Beta=("91", 0))
    anna.send(register("Gamma"))
    out = anna.send(Withdraw("Zurückziehen: Gamma", "Gamma"))
    assert {Code.REGISTRATION_WITHDRAWN, Code.DELETION_CANCELLED} <= set(out.codes())
    assert not any(t.doomed for t in out.teams)
    assert [t.name for t in out.teams] == ["Alpha", "Beta"]


def test_two_new_teams_cannot_make_room_for_a_third(league):
    anna = Player(league, "anna@example.org")
    out = anna.send(register("Alpha"), register("Beta"), register("Gamma"))
    assert [e.code for e in out.errors] == [Code.TOO_MANY_TEAMS]
    # Each team stands alone (RULES.md §11): Gamma's refusal leaves Alpha and Beta stored.
    assert [t.name for t in out.teams] == ["Alpha", "Beta"]
    assert count(league, "SELECT COUNT(*) FROM teams") == 2
    assert out.accepted and Code.PARTLY_STORED in out.codes()


def test_lineup_for_a_doomed_team_repeats_the_warning(league):
    anna = Player(league, "anna@example.org")
    anna.send(register("Alpha"), register("Beta"))
    _old_teams(league, Alpha=("95", 0), Beta=("91", 0))
    anna.send(register("Gamma"))
    out = anna.send(lineup("10-10-15-15-20", "Beta"))
    assert out.accepted and Code.TEAM_WILL_BE_DELETED in out.codes()


# -- late mail ---------------------------------------------------------------------


def test_mail_after_the_deadline_counts_for_the_next_round(league):
    anna = Player(league, "anna@example.org")
    anna.send(register("Alpha"), lineup("10-10-15-15-20"))
    late = anna.send(lineup("0-10-30-20-20"), AskStatus("Status"),
                     now=FIRST_DEADLINE + timedelta(minutes=1))
    assert late.late and late.round == 2 and late.deadline is None
    note = next(n for n in late.notices if n.code == Code.LATE)
    # without the use cases' context no deadline is planned for round 2 yet
    assert note.params == {"missed": 1, "deadline": FIRST_DEADLINE, "round": 2,
                           "next_deadline": None}
    status = next(n for n in late.notices if n.code == Code.STATUS)
    assert (status.params["season"], status.params["round_in_season"]) == (1, 2)
    with league.db.read() as conn:
        rounds = dict(conn.execute("SELECT round, lineup FROM moves").fetchall())
    assert rounds == {1: "10-10-15-15-20", 2: "0-10-30-20-20"}


def test_mail_exactly_at_the_deadline_is_on_time(league):
    anna = Player(league, "anna@example.org")
    result = anna.send(register("Alpha"), now=FIRST_DEADLINE)
    assert not result.late and result.round == 1
