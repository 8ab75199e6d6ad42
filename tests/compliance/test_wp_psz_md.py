"""RULES.md §6 (value points) and §10 (PSZ), plus the league's side of §4 and
§5 (empty rounds, points setting, stored seed, GM teams), on a real SQLite file."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.league.service import LeagueSettings
from bot.render.formatting import psz as shown_psz
from bot.rules.corrections import correct
from bot.rules.lineup import Lineup
from bot.rules.psz import Result, game_points, period_update
from bot.rules.rounding import half_up, to_cents
from bot.rules.wp import age, as_wp, budget, gain
from bot.storage import results
from tests.compliance.support import FAST, Manager, evaluate, make_league, open_deadline, team


def entries(league, round_number: int) -> dict[str, dict]:
    with league.db.read() as conn:
        rows = conn.execute(
            "SELECT t.name, e.* FROM round_entries e JOIN teams t ON t.id = e.team_id"
            " WHERE e.round = ?", (round_number,))
        return {r["name"]: dict(r) for r in rows}


# --------------------------------------------------------------------------- §6


def test_teams_without_lineup_do_not_play_and_gain_nothing(tmp_path) -> None:
    league = make_league(tmp_path)
    a = Manager(league, "a@x.example")
    a.write("Neues Team: Spieler A\n10-10-15-15-20")
    Manager(league, "b@x.example").write("Neues Team: Stumm B")  # never a lineup
    c = Manager(league, "c@x.example")
    c.write("Neues Team: Rueckzug C\n10-10-15-15-20")
    evaluate(league, seed=4)
    wp_c = Decimal(team(league, "Rueckzug C")["wp"])
    a.write("Spieler A: 10-10-15-15-20")
    c.write("Rueckzug C: 0-10-30-20-20")
    c.write("Zurückziehen: Rueckzug C")  # withdrawn from round 2
    result = evaluate(league, seed=5)
    players = {t.name for t in result.report.players}
    assert players == {"Spieler A"} == set(entries(league, 2))
    assert set(entries(league, 1)) == {"Spieler A", "Rueckzug C"}
    assert Decimal(team(league, "Stumm B")["wp"]) == 90
    assert team(league, "Stumm B")["last_played_round"] is None
    assert Decimal(team(league, "Rueckzug C")["wp"]) == wp_c
    assert team(league, "Rueckzug C")["last_played_round"] == 1
    gained = result.report.wp_gain["Spieler A"]
    assert Decimal(team(league, "Spieler A")["wp"]) == Decimal(
        entries(league, 2)["Spieler A"]["wp_before"]) + gained


def test_lineup_is_corrected_against_floor_wp_at_evaluation(tmp_path) -> None:
    league = make_league(tmp_path)
    managers = [Manager(league, f"m{i}@x.example") for i in range(4)]
    for i, m in enumerate(managers):
        m.write(f"Neues Team: Klub {i}\n{10 - i}-{i}-25-25-30")
    evaluate(league, seed=11)
    wp = {f"Klub {i}": Decimal(team(league, f"Klub {i}")["wp"]) for i in range(4)}
    assert any(budget(w) > 90 and w != budget(w) for w in wp.values())  # e.g. 91.4 -> 91
    for m, name in zip(managers, wp, strict=True):
        m.write(f"{name}: 10-10-40-40-40")  # cost 160: shortened to floor(WP)
    evaluate(league, seed=12)
    played = entries(league, 2)
    for name, w in wp.items():
        floor = math.floor(w)
        assert played[name]["budget"] == floor
        assert played[name]["played"] == str(correct(Lineup(10, 10, 40, 40, 40), floor).lineup)
        assert Lineup.parse(played[name]["played"]).cost in (floor - 1, floor)


def test_season_end_ageing_of_every_existing_team(tmp_path) -> None:
    league = make_league(tmp_path)
    always = Manager(league, "immer@x.example")
    always.write("Neues Team: Immer\n10-10-15-15-20")
    once = Manager(league, "einmal@x.example")
    once.write("Neues Team: Einmal\n5-5-25-25-25")
    Manager(league, "nie@x.example").write("Neues Team: Nie")
    aged = []
    for number in range(1, 6):
        if number > 1:
            always.write("Immer: 10-10-15-15-20")
        before = Decimal(team(league, "Immer")["wp"])
        result = evaluate(league, seed=number)
        aged.append(result.aged)
        if number == 1:
            einmal = Decimal(team(league, "Einmal")["wp"])
            assert einmal > 90  # it won something
    assert aged == [False, False, False, False, True]
    gain5 = result.report.wp_gain["Immer"]
    assert Decimal(team(league, "Immer")["wp"]) == age(before + gain5)  # gains first, then age
    # not listed any more (it last played in round 1), but it ages all the same
    assert "Einmal" not in {row.team for row in result.wp_table}
    assert Decimal(team(league, "Einmal")["wp"]) == age(einmal) < einmal
    assert Decimal(team(league, "Nie")["wp"]) == Decimal("90.00")
    with league.db.read() as conn:
        rounds = [r[0] for r in conn.execute(
            "SELECT DISTINCT round FROM wp_history WHERE kind = 'ageing'")]
        rnd = league.open_round(conn)
    assert rounds == [5]
    assert (rnd.season, rnd.round_in_season) == (2, 1)


def test_ageing_formula_examples_and_halves_up() -> None:
    assert age(Decimal("100")) == Decimal("92.32")
    assert age(Decimal("95.30")) == Decimal("91.51")
    assert age(Decimal("90.00")) == Decimal("90.00")
    # exact halves go up: sqrt(0.000025) = 0.005 -> .01, sqrt(0.000625) = 0.025 -> .03
    assert age(Decimal("89.000025")) == Decimal("89.01")
    assert age(Decimal("89.000625")) == Decimal("89.03")


@given(st.integers(9000, 40000))
def test_ageing_is_89_plus_the_root_to_the_nearest_cent(cents: int) -> None:
    wp = Decimal(cents) / 100
    aged = age(wp)
    k = int((aged - 89) * 100)
    assert aged == Decimal(8900 + k) / 100
    d = Fraction(wp) - 89  # k/100 is sqrt(d) to the nearest cent, halves up
    assert (Fraction(2 * k - 1, 200)) ** 2 <= d < (Fraction(2 * k + 1, 200)) ** 2


def test_wp_are_exact_decimals() -> None:
    wp = as_wp("90")
    for _ in range(500):
        wp += gain(1, 0) + gain(0, 1)  # 0.2 + 0.1
    assert wp == Decimal("240.0") and isinstance(wp, Decimal)
    assert gain(0, 1) + gain(1, 0) == Decimal("0.3")
    with pytest.raises(TypeError):
        as_wp(90.3)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- §4, §5 in the league


def test_empty_round_counts_towards_the_season(tmp_path) -> None:
    league = make_league(tmp_path)
    Manager(league, "a@x.example").write("Neues Team: Wartet")
    seen = []
    for _ in range(5):
        result = evaluate(league)
        assert result.report.empty and result.report.teams == ()
        seen.append((result.season, result.round_in_season, result.aged))
    assert seen == [(1, 1, False), (1, 2, False), (1, 3, False), (1, 4, False), (1, 5, True)]
    with league.db.read() as conn:
        rnd = league.open_round(conn)
    assert (rnd.number, rnd.season, rnd.round_in_season) == (6, 2, 1)


def test_league_points_setting_reaches_the_tables(tmp_path) -> None:
    league = make_league(tmp_path, replace(FAST, points=(2, 1, 0)))
    Manager(league, "a@x.example").write("Neues Team: Neunziger\n10-10-15-15-20")
    report = evaluate(league).report
    assert report.to_json()["points"] == {"win": 2, "draw": 1, "loss": 0}
    for group in report.stages[0].groups:
        for row in group.table:
            assert row.points == 2 * row.won + row.drawn


def test_seed_is_stored_and_the_round_replays(tmp_path) -> None:
    league = make_league(tmp_path)
    Manager(league, "a@x.example").write("Neues Team: Saat\n10-10-15-15-20")
    evaluate(league, seed=987654321)
    with league.db.read() as conn:
        assert conn.execute("SELECT seed FROM rounds WHERE number = 1").fetchone()[0] == 987654321
        inputs = json.loads(results.stored_inputs_and_report(conn, 1)[0])
    assert inputs["seed"] == 987654321
    replayed = league.replay(1)
    assert replayed.identical and replayed.diff == ""


def test_gm_teams_are_not_stored_between_rounds(tmp_path) -> None:
    league = make_league(tmp_path)
    m = Manager(league, "a@x.example")
    m.write("Neues Team: Allein\n10-10-15-15-20")
    first = evaluate(league, seed=1).report
    m.write("Allein: 10-10-15-15-20")
    second = evaluate(league, seed=2).report
    with league.db.read() as conn:
        assert [r[0] for r in conn.execute("SELECT name FROM teams")] == ["Allein"]
    gm1 = [str(t.lineup) for t in first.gm_teams]
    gm2 = [str(t.lineup) for t in second.gm_teams]
    assert len(gm1) == len(gm2) == 15 and gm1 != gm2  # drawn anew each round
    assert all(Lineup.parse(x).cost == 90 for x in gm1 + gm2)


# --------------------------------------------------------------------------- §10


psz_values = st.fractions(min_value=0, max_value=600, max_denominator=100)


@given(psz_values, psz_values)
def test_psz_points_per_game(own: Fraction, opponent: Fraction) -> None:
    diff = opponent - own
    assert game_points(own, opponent, Result.WIN) == max(40 + diff, 0)
    assert game_points(own, opponent, Result.LOSS) == min(-40 + diff, 0)
    assert game_points(own, opponent, Result.DRAW) == diff  # unclamped
    assert game_points(own, opponent, Result.WIN) >= 0 >= game_points(own, opponent, Result.LOSS)


def test_psz_period_update_and_player_j() -> None:
    # J of seed 001: PSZ 230, ten games worth 30 points together -> 233
    update = period_update(230, [(233, Result.DRAW)] * 10)
    assert (update.games, update.points, update.after) == (10, 30, 233)
    # every game is rated with the start-of-period values, not the running ones
    games = [(250, Result.WIN), (250, Result.WIN), (230, Result.LOSS)]
    update = period_update(250, games)
    assert update.points == 40 + 40 - 60 and update.after == 250 + Fraction(20, 3)
    assert period_update(250, []).after == 250


def test_new_team_psz_250_stored_two_decimals_shown_whole(tmp_path) -> None:
    assert LeagueSettings().initial_psz == 250
    league = make_league(tmp_path)
    names = []
    for i in range(3):
        Manager(league, f"p{i}@x.example").write(f"Neues Team: Rang {i}\n{i}-{i}-20-25-30")
        names.append(f"Rang {i}")
        assert Decimal(team(league, f"Rang {i}")["psz"]) == 250
    result = evaluate(league, seed=3)
    for name in names:
        exact = result.report.psz[name].after
        stored = team(league, name)["psz"]
        assert Decimal(stored) == to_cents(exact)
        assert len(stored.partition(".")[2]) <= 2
    for row in result.psz_table:
        assert row.shown == half_up(Fraction(row.psz))
    assert shown_psz(Decimal("250.50")) == "251" and shown_psz(Decimal("249.49")) == "249"
    assert open_deadline(league) > result.next_deadline - timedelta(seconds=1)
