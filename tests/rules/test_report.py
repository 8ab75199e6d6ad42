"""The round report: complete, plain JSON, public view without player lineups,
PSZ and WP bookkeeping exactly as bot.rules.psz and bot.rules.wp compute them."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from decimal import Decimal
from fractions import Fraction

import pytest

from bot.rules.psz import Result, period_update
from bot.rules.report import (
    ReportFormatError,
    RoundReport,
    build_report,
    public_report,
    round_report,
)
from bot.rules.rounding import to_cents
from bot.rules.tournament import Entrant, Points, play_tournament

from .fields import random_field

KEYS = {
    "format", "seed", "empty", "points", "initial_psz", "psz_bound", "teams", "first_groups",
    "stages", "knockout", "semi_finalists", "placings", "gm_teams", "record", "wp_gain", "psz",
    "knockout_odds", "expectation_table", "simulations", "semi_final_probability",
    "semi_final_stderr", "semi_final_probability_all", "semi_final_stderr_all",
}


@pytest.fixture(scope="module")
def entrants():
    return random_field(11, seed=12)


@pytest.fixture(scope="module")
def report(entrants):
    return build_report(entrants, 12, simulations=4000)


def plain(node, where="report"):
    """Assert the report holds only JSON's own types."""
    if isinstance(node, dict):
        for key, value in node.items():
            assert isinstance(key, str), where
            plain(value, f"{where}[{key!r}]")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            plain(value, f"{where}[{i}]")
    else:
        assert node is None or type(node) in (str, int, float, bool), (where, type(node))


def test_plain_json_with_every_key(report):
    plain(report)
    assert set(report) == KEYS
    assert json.loads(json.dumps(report)) == report
    assert report["format"] == 2 and report["seed"] == 12 and report["empty"] is False
    assert report["points"] == {"win": 3, "draw": 1, "loss": 0}
    assert report["simulations"] == 4000


def test_report_matches_the_tournament(entrants, report):
    result = play_tournament(entrants, random.Random(12))
    assert [t["name"] for t in report["teams"]] == [t.name for t in result.teams]
    assert [t["lineup"] for t in report["teams"]] == [str(t.lineup) for t in result.teams]
    assert report["first_groups"] == result.first_groups
    assert report["placings"] == list(result.placings)
    assert report["semi_finalists"] == list(result.semi_finalists)
    for stage_json, stage in zip(report["stages"], result.stages, strict=True):
        for group_json, group in zip(stage_json["groups"], stage.groups, strict=True):
            assert [g["goals"] for g in group_json["games"]] == [list(g.goals)
                                                                  for g in group.games]
            assert [r["team"] for r in group_json["table"]] == [r.team for r in group.table]
            assert [r["position"] for r in group_json["table"]] == [1, 2, 3, 4]
    assert [k["winner"] for k in report["knockout"]] == [k.winner for k in result.knockout]
    assert report["wp_gain"] == {n: str(g) for n, g in result.wp_gain.items()}
    assert {g["name"] for g in report["gm_teams"]} == {t.name for t in result.gm_teams}


def test_analytics_sections(report):
    assert [o["stage"] for o in report["knockout_odds"]] == [
        "semi_final", "semi_final", "third_place", "final"]
    for o in report["knockout_odds"]:
        total = Fraction(o["win"]) + Fraction(o["draw"]) + Fraction(o["loss"])
        assert total == 1
        assert set(o["percent"]) == {"win", "draw", "loss"}
    table = report["expectation_table"]
    assert len(table) == 16
    assert [r["position"] for r in table] == list(range(1, 17))
    points = [Fraction(r["points"]) for r in table]
    assert points == sorted(points, reverse=True)
    assert all(abs(r["approx"]["points"] - float(Fraction(r["points"]))) < 1e-9 for r in table)


def test_semi_final_probabilities(report):
    semis = report["semi_finalists"]
    assert list(report["semi_final_probability"]) == semis
    assert list(report["semi_final_stderr"]) == semis
    everyone = report["semi_final_probability_all"]
    assert set(everyone) == {t["name"] for t in report["teams"]}
    assert abs(sum(everyone.values()) - 4) < 1e-9
    for team in semis:  # they did reach the semi-finals: possible, so > 0
        assert 0 < report["semi_final_probability"][team] <= 1
        assert report["semi_final_stderr"][team] >= 0


def test_public_report_drops_player_lineups_only(entrants, report):
    public = public_report(report)
    text = json.dumps(public)
    for e in entrants:  # T is odd in these lineups: no GM team can share one
        assert str(e.lineup) not in text
    for team in public["teams"]:
        assert ("lineup" in team) == team["gm"]
    assert public["gm_teams"] == report["gm_teams"]
    assert {k: v for k, v in public.items() if k != "teams"} == {
        k: v for k, v in report.items() if k != "teams"}
    assert "lineup" in report["teams"][0]  # the full report is untouched


def test_psz_and_wp_follow_the_rules_modules():
    """PSZ of a player team over all its games with the start-of-tournament
    PSZ of each opponent, GM teams at the initial PSZ, level knock-out games
    as draws; the stored values are two-decimal strings."""
    entrants = [Entrant(e.name, e.lineup, Fraction(e.psz)) for e in random_field(9, seed=40)]
    initial = Fraction(245)
    report = build_report(entrants, 40, simulations=0, initial_psz=initial, psz_bound=False)
    start = {e.name: e.psz for e in entrants}
    games: dict[str, list[tuple[str, int, int]]] = {e.name: [] for e in entrants}
    played = [g for s in report["stages"] for grp in s["groups"] for g in grp["games"]]
    played += report["knockout"]
    for g in played:
        h, a = g["goals"]
        if g["home"] in games:
            games[g["home"]].append((g["away"], h, a))
        if g["away"] in games:
            games[g["away"]].append((g["home"], a, h))
    checked = 0
    for name, own in games.items():
        results = [
            (start.get(opp, initial), Result.WIN if x > y else Result.DRAW if x == y
             else Result.LOSS)
            for opp, x, y in own
        ]
        update = period_update(start[name], results, bound=False)
        psz = report["psz"][name]
        assert psz["after_exact"] == str(update.after)
        assert psz["after"] == str(to_cents(update.after))
        assert psz["before"] == str(to_cents(start[name]))
        assert psz["games"] == len(own) and psz["points"] == str(update.points)
        wins = sum(r is Result.WIN for _, r in results)
        draws = sum(r is Result.DRAW for _, r in results)
        assert Decimal(report["wp_gain"][name]) == Decimal("0.2") * wins + Decimal("0.1") * draws
        assert report["record"][name] == {"won": wins, "drawn": draws,
                                          "lost": len(results) - wins - draws}
        checked += 1
    assert checked == 9
    assert report["initial_psz"] == "245" and report["psz_bound"] is False
    assert all(t["psz_start"] == "245.00" for t in report["teams"] if t["gm"])


def test_empty_round():
    report = build_report([], 5)
    plain(report)
    assert set(report) == KEYS
    assert report["empty"] is True
    assert report["teams"] == report["stages"] == report["knockout"] == report["placings"] == []
    assert report["simulations"] == 0 and report["semi_final_probability"] == {}
    assert public_report(report) == report


def test_deterministic_and_options(entrants):
    calls = []
    a = build_report(entrants[:5], 3, simulations=3000, points=Points(2, 1, 0),
                     progress=lambda done, total: calls.append((done, total)))
    b = build_report(entrants[:5], 3, simulations=3000, points=Points(2, 1, 0))
    assert a == b
    assert calls[-1] == (3000, 3000)
    assert a["points"] == {"win": 2, "draw": 1, "loss": 0}
    none = build_report(entrants[:5], 3, simulations=0, points=Points(2, 1, 0))
    assert none["simulations"] == 0 and none["semi_final_probability_all"] == {}
    assert {k: v for k, v in none.items() if "semi" not in k and k != "simulations"} == {
        k: v for k, v in a.items() if "semi" not in k and k != "simulations"}


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True])
def test_bad_seed(seed):
    with pytest.raises(ValueError, match="seed"):
        build_report([], seed)


def test_bad_simulations():
    with pytest.raises(ValueError, match="simulations"):
        build_report([], 1, simulations=-5)


def test_rules_stay_free_of_io_libraries():
    """The rules core imports neither tqdm nor yaml (the progress bar is injected)."""
    import subprocess
    import sys

    code = ("import sys, bot.rules.report, bot.rules.montecarlo\n"
            "print(sorted(m for m in ('tqdm', 'yaml', 'bot.cli', 'bot.league') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


# --------------------------------------------------------------------------- the typed report


def test_typed_report_is_the_stored_json(entrants, report):
    """``round_report(...).to_json()`` is ``build_report``; reading the JSON
    back gives an equal typed report whose JSON is byte-identical."""
    typed = round_report(entrants, 12, simulations=4000)
    assert typed.to_json() == report
    again = RoundReport.from_json(json.loads(json.dumps(report)))
    assert again == typed
    assert json.dumps(again.to_json()) == json.dumps(report)
    assert json.dumps(again.public().to_json()) == json.dumps(public_report(report))


def test_typed_report_parts_are_the_tournament_types(entrants):
    typed = round_report(entrants, 12, simulations=0)
    result = play_tournament(entrants, random.Random(12))
    assert typed.stages == result.stages and typed.knockout == result.knockout
    assert typed.placings == result.placings
    assert typed.semi_finalists == result.semi_finalists
    assert typed.first_groups == result.first_groups
    assert dict(typed.psz) == result.psz and dict(typed.record) == result.record
    assert [t.name for t in typed.gm_teams] == [t.name for t in result.gm_teams]
    final = typed.knockout_game("final")[0]
    odds = typed.odds_of(final)
    assert odds is not None and (odds.home, odds.away) == (final.home, final.away)
    assert odds.win + odds.draw + odds.loss == 1


def test_typed_public_view_has_no_player_lineup(entrants):
    typed = round_report(entrants, 12, simulations=0)
    assert not typed.is_public
    public = typed.public()
    assert public.is_public and public.public() == public
    assert all((t.lineup is None) != t.gm for t in public.teams)
    assert public.gm_teams == typed.gm_teams  # GM lineups stay
    assert dataclasses.replace(public, teams=typed.teams) == typed


def test_from_json_reads_format_1():
    report = build_report(random_field(5, seed=3), 3, simulations=0)
    old = json.loads(json.dumps(report))
    old["format"] = 1
    for team in old["teams"]:
        del team["short_name"]
    typed = RoundReport.from_json(old)
    assert [t.short_name for t in typed.teams] == [t.name for t in typed.teams]
    assert typed.to_json() == report  # random_field gives no short names


@pytest.mark.parametrize(
    ("path", "value", "where"),
    [
        (("stages", 0, "groups", 1, "games", 2, "goals"), [1],
         "['stages'][0]['groups'][1]['games'][2]['goals']"),
        (("knockout", 3, "winner"), "nobody", "['knockout'][3]['winner']"),
        (("teams", 0, "lineup"), "ten", "['teams'][0]['lineup']"),
        (("psz", None, "after_exact"), 1.5, "['psz']["),
        (("seed",), "7", "['seed']"),
    ],
)
def test_from_json_names_the_bad_key(path, value, where):
    report = build_report(random_field(5, seed=3), 3, simulations=0)
    node = report
    for key in path[:-1]:
        node = node[next(iter(node))] if key is None else node[key]
    node[path[-1]] = value
    with pytest.raises(ReportFormatError, match=re.escape(f"report{where}")) as err:
        RoundReport.from_json(report)
    assert err.value.where.startswith(where) and err.value.value == value
