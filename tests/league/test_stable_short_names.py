"""Stable short names (RULES.md §7): a later team whose short name reads like
a stored one gets a number once, at registration, keeps it for good and is
told so; the newsletter tables then never renumber teams from round to round."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from bot.league.names import unique_short_name
from bot.league.outcome import Code
from bot.render import render_reply
from bot.render.view import build_newsletter
from bot.storage import results
from tests.league.conftest import Player, evaluate, lineup, make_league, register

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def short_names(league) -> dict[str, str]:
    with league.db.read() as conn:
        return dict(conn.execute("SELECT name, short_name FROM teams").fetchall())


def test_a_free_short_name_stays_as_it_is():
    assert unique_short_name("Concordia", ["Teufel", "Wanderer"], 15) == ("Concordia", None)


@pytest.mark.parametrize("variant", ["Concordia", "concordia", "  CONCORDIA ", "C\u043encordia"])
def test_a_clashing_short_name_gets_the_first_free_number(variant):
    assert unique_short_name(variant, ["Concordia"], 15)[1] == "Concordia"
    short, _ = unique_short_name(variant, ["Concordia", "concordia 2"], 15)
    assert short.endswith(" 3") and len(short) <= 15


def test_the_suffix_still_fits_the_limit():
    short, other = unique_short_name("Wanderer Altona", ["wanderer altona"], 15)
    assert other == "wanderer altona"
    assert short == "Wanderer 2" and len(short) <= 15
    hard, _ = unique_short_name("Donaudampfschif", ["Donaudampfschif"], 15)
    assert hard == "Donaudampfsch 2"


def test_second_concordia_is_stored_with_a_number_and_told_so(tmp_path):
    league = make_league(tmp_path)
    first = Player(league, "anna@example.org").send(
        register("FC Concordia", "Concordia"), lineup("9-9-20-20-20"))
    assert Code.SHORT_NAME_SUFFIXED not in first.codes()
    second = Player(league, "bob@example.org").send(
        register("SC Concordia", "Concordia"), lineup("8-8-21-21-21"))
    assert second.accepted
    suffixed = [n for n in second.notices if n.code == Code.SHORT_NAME_SUFFIXED]
    assert [n.params for n in suffixed] == [{
        "team": "SC Concordia", "given": "Concordia", "short_name": "Concordia 2",
        "other": "FC Concordia"}]
    registered = next(n for n in second.notices if n.code == Code.TEAM_REGISTERED)
    assert registered.params["short_name"] == "Concordia 2"
    third = Player(league, "cleo@example.org").send(
        register("Concordia Nord", "concordia"), lineup("7-7-22-22-22"))
    assert any(n.code == Code.SHORT_NAME_SUFFIXED and n.params["short_name"] == "concordia 3"
               for n in third.notices)
    assert short_names(league) == {"FC Concordia": "Concordia", "SC Concordia": "Concordia 2",
                                   "Concordia Nord": "concordia 3"}
    for language, words in (("de", "für immer"), ("en", "for good")):
        text = render_reply(second.__class__(**{**_fields(second), "language": language}),
                            subject="x", now=NOW, timezone="Europe/Berlin",
                            game_name="Turnited", game_address="bot@turnited.example").text
        flat = " ".join(text.split())
        assert "Concordia 2" in flat and "FC Concordia" in flat and words in flat


def _fields(outcome) -> dict:
    return {f: getattr(outcome, f) for f in outcome.__dataclass_fields__}


def test_a_derived_short_name_that_clashes_gets_a_number(tmp_path):
    league = make_league(tmp_path)
    Player(league, "anna@example.org").send(register("Kickers Übersee", "Kickers"),
                                            lineup("9-9-20-20-20"))
    second = Player(league, "bob@example.org").send(register("KICKERS"), lineup("8-8-21-21-21"))
    assert Code.SHORT_NAME_SUFFIXED in second.codes()
    assert short_names(league)["KICKERS"] == "KICKERS 2"


def test_tables_keep_the_same_short_names_whatever_the_field(tmp_path):
    league = make_league(tmp_path)
    anna, bob, cleo = (Player(league, f"{n}@example.org") for n in ("anna", "bob", "cleo"))
    anna.send(register("FC Concordia", "Concordia"), lineup("9-9-20-20-20"))
    bob.send(register("SC Concordia", "Concordia"), lineup("8-8-21-21-21"))
    cleo.send(register("Rote Teufel", "Teufel"), lineup("7-7-22-22-22"))
    fields = [(anna, bob, cleo), (bob, cleo), (bob,), (anna, bob)]
    team = {anna: "FC Concordia", bob: "SC Concordia", cleo: "Rote Teufel"}
    want = {"FC Concordia": "Concordia", "SC Concordia": "Concordia 2", "Rote Teufel": "Teufel"}
    for number, players in enumerate(fields, start=1):
        if number > 1:
            for player in players:
                with league.db.read() as conn:
                    deadline = league.open_round(conn).deadline
                player.send(lineup("9-9-20-20-20", team[player]),
                            now=deadline - timedelta(hours=1))
        evaluate(league, seed=number)
        public = league.stored_report(number, public=True)
        labels = build_newsletter(public, [], []).labels
        players_in = {t["name"] for t in public["teams"] if not t["gm"]}
        assert players_in == {team[p] for p in players}
        assert {n: labels[n] for n in players_in} == {n: want[n] for n in players_in}
    for number in range(1, len(fields) + 1):
        assert league.replay(number).identical


def test_old_state_with_colliding_short_names_still_numbers_per_round(tmp_path):
    """State from before this rule may hold two equal short names: the
    tables still tell them apart (the per-round fallback) and replay as before."""
    league = make_league(tmp_path)
    Player(league, "anna@example.org").send(register("FC Concordia", "Concordia"),
                                            lineup("9-9-20-20-20"))
    Player(league, "bob@example.org").send(register("SC Concordia", "Concordia"),
                                           lineup("8-8-21-21-21"))
    with league.db.transaction() as conn:  # what an old registration stored
        conn.execute("UPDATE teams SET short_name = 'Concordia'")
    evaluate(league, seed=5)
    public = league.stored_report(1, public=True)
    labels = build_newsletter(public, [], []).labels
    assert {labels["FC Concordia"], labels["SC Concordia"]} == {"Concordia 1", "Concordia 2"}
    assert league.replay(1).identical
    with league.db.read() as conn:
        inputs = json.loads(results.stored_inputs_and_report(conn, 1)[0])
    assert {e["short_name"] for e in inputs["entrants"]} == {"Concordia"}
