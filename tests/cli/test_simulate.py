"""``turnited simulate TEAMS.yaml``: the preview command, end to end."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from bot.cli import main
from bot.rules.lineup import Lineup
from bot.rules.report import build_report
from bot.rules.tournament import Entrant

TEAMS = """\
- name: Rote Teufel
  lineup: 10-10-15-15-20
- name: Wanderer
  lineup: T10 A8 V20 M20 S22
  wp: 92.4
  psz: 251.37
- name: Kicker
  lineup: [5, 5, 20, 25, 40]
  wp: "100"
- name: Zu Teuer
  lineup: 10-10-20-25-25
"""


@pytest.fixture
def teams_file(tmp_path):
    path = tmp_path / "teams.yaml"
    path.write_text(TEAMS, encoding="utf-8")
    return path


def run(capsys, *argv):
    code = main(["simulate", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_is_the_full_report_with_corrected_lineups(capsys, teams_file):
    code, out, err = run(capsys, teams_file, "--seed", 7, "--simulations", 500, "--json")
    assert code == 0
    report = json.loads(out)
    expected_entrants = [
        Entrant("Rote Teufel", Lineup(10, 10, 15, 15, 20)),
        Entrant("Wanderer", Lineup(9, 8, 19, 19, 20), Fraction(25137, 100)),
        Entrant("Kicker", Lineup(5, 5, 19, 23, 38)),
        Entrant("Zu Teuer", Lineup(8, 8, 16, 21, 21)),
    ]
    assert report == json.loads(json.dumps(build_report(expected_entrants, 7, simulations=500)))
    players = {t["name"]: t["lineup"] for t in report["teams"] if not t["gm"]}
    assert players["Zu Teuer"] == "8-8-16-21-21"
    # every correction is reported on stderr, stdout stays pure JSON
    assert "Zu Teuer: Aufstellung 10-10-20-25-25 korrigiert zu 8-8-16-21-21" in err
    assert "Wanderer: Aufstellung 10-8-20-20-22 korrigiert zu 9-8-19-19-20 (Budget 92 WP)" in err
    assert "Rote Teufel" not in err


def test_text_output_german_and_english(capsys, teams_file):
    code, out, _ = run(capsys, teams_file, "--seed", 7, "--simulations", 300)
    assert code == 0
    report = build_report(
        [Entrant("Rote Teufel", Lineup(10, 10, 15, 15, 20)),
         Entrant("Wanderer", Lineup(9, 8, 19, 19, 20), Fraction(25137, 100)),
         Entrant("Kicker", Lineup(5, 5, 19, 23, 38)),
         Entrant("Zu Teuer", Lineup(8, 8, 16, 21, 21))], 7, simulations=300)
    for heading in ("Runde 1", "Runde 2", "Gruppe A", "Halbfinale", "Finale", "Platzierungen",
                    "Turnierfußball", "Halbfinal-Wahrscheinlichkeit (300 Simulationen"):
        assert heading in out
    for i, name in enumerate(report["placings"], start=1):
        assert f"  {i}. {name}" in out
    final = report["knockout"][3]
    assert f"{final['home']} - {final['away']}" in out
    psz = report["psz"]["Wanderer"]
    comma = {k: str(v).replace(".", ",") for k, v in psz.items()}  # German decimal comma
    assert comma["before"] in out and comma["after"] in out
    assert f"{psz['before']}" not in out
    code, out, _ = run(capsys, teams_file, "--seed", 7, "--simulations", 0, "--lang", "en")
    assert code == 0
    for heading in ("Stage 1", "Group A", "Semi-final", "Final", "Placings",
                    "Semi-final probability: not simulated"):
        assert heading in out


def test_points_option(capsys, teams_file):
    code, out, _ = run(capsys, teams_file, "--seed", 1, "--simulations", 0, "--points", "2-1-0",
                       "--json")
    assert code == 0
    assert json.loads(out)["points"] == {"win": 2, "draw": 1, "loss": 0}


def test_no_teams_means_no_tournament(capsys, tmp_path):
    path = tmp_path / "none.yaml"
    path.write_text("[]\n", encoding="utf-8")
    code, out, _ = run(capsys, path, "--seed", 1)
    assert code == 0 and "kein Turnier" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("- name: A\n  lineup: [1, 2\n", "invalid YAML at line"),
        ("name: A\n", "expected a YAML list of teams"),
        ("- name: A\n  lineup: 10-10-15-15\n", "team 1 ('A'): invalid lineup '10-10-15-15'"),
        ("- name: A\n  lineup: 10-10-15-15-20.5\n", "20.5 is not a whole number"),
        ("- name: A\n", "lineup missing"),
        ("- lineup: 10-10-15-15-20\n", "needs a name"),
        ("- name: A\n  lineup: 10-10-15-15-20\n- name: ' a '\n  lineup: 10-10-15-15-20\n",
         "'a' is used twice"),
        ("- name: GM 1\n  lineup: 10-10-15-15-20\n", "marks GM teams"),
        ("- name: A\n  lineup: 10-10-15-15-20\n  wp: lots\n", "wp 'lots' must be a number"),
        ("- name: A\n  lineup: 10-10-15-15-20\n  psz: -3\n", "psz -3 must be a finite number"),
        ("- name: A\n  lineup: 10-10-15-15-20\n  colour: red\n", "unknown key(s) colour"),
        ("- just a string\n", "expected a mapping"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, tmp_path, content, message):
    path = tmp_path / "teams.yaml"
    path.write_text(content, encoding="utf-8")
    code, out, err = run(capsys, path, "--seed", 1, "--simulations", 0, "--lang", "en")
    assert code == 2
    assert out == ""
    assert err.startswith("turnited simulate: error: ")
    assert message in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seed", "-1"], "--seed -1"),
        (["--seed", "1", "--simulations", "-3"], "--simulations -3"),
        (["--seed", "1", "--points", "3-1"], "three whole numbers"),
        (["--seed", "1", "--points", "1-3-0"], "at least as many"),
    ],
)
def test_bad_options(capsys, teams_file, argv, message):
    code, _, err = run(capsys, teams_file, *argv, "--lang", "en")
    assert code == 2 and message in err


def test_missing_file(capsys, tmp_path):
    code, _, err = run(capsys, tmp_path / "nope.yaml", "--seed", 1, "--lang", "en")
    assert code == 2 and "cannot read" in err
    code, _, err = run(capsys, tmp_path / "nope.yaml", "--seed", 1)
    assert code == 2 and "ist nicht lesbar" in err


@pytest.mark.parametrize(
    ("content", "argv", "message"),
    [
        ("- name: A\n  lineup: 10-10-15-15\n", [],
         "Team 1 ('A'): ungültige Aufstellung '10-10-15-15': 4 Zahlen statt fünf"),
        ("- name: A\n  lineup: 10-10-15-15-20\n  wp: lots\n", [],
         "wp 'lots' muss eine Zahl sein, z. B. 92,4"),
        ("- lineup: 10-10-15-15-20\n", [], "jedes Team braucht einen Namen"),
        ("name: A\n", [], "erwartet wird eine YAML-Liste von Teams"),
        ("[]\n", ["--simulations", "-3"], "--simulations -3: muss 0 oder größer sein"),
        ("[]\n", ["--points", "3-1"], "erwartet drei ganze Zahlen S-U-N"),
    ],
)
def test_errors_speak_the_output_language(capsys, tmp_path, content, argv, message):
    path = tmp_path / "teams.yaml"
    path.write_text(content, encoding="utf-8")
    code, out, err = run(capsys, path, "--seed", 1, *argv)
    assert (code, out) == (2, "")
    assert err.startswith("turnited simulate: Fehler: ") and err.count("\n") == 1
    assert message in err


def test_without_a_seed_one_is_drawn_printed_and_repeatable(capsys, teams_file):
    code, out, err = run(capsys, teams_file, "--simulations", 0, "--json")
    assert code == 0
    line = next(ln for ln in err.splitlines() if "gezogen" in ln)
    seed = int(line.split()[1])
    assert f"--seed {seed}" in line
    drawn = json.loads(out)
    assert drawn["seed"] == seed
    code, again, _ = run(capsys, teams_file, "--simulations", 0, "--json", "--seed", seed)
    assert json.loads(again) == drawn
    code, text, err = run(capsys, teams_file, "--simulations", 0, "--lang", "en")
    assert code == 0 and "Drew seed" in err
    seed = int(err.split("Drew seed ")[1].split()[0])
    assert f"(seed {seed})" in text


def test_progress_bar_on_a_terminal_only(monkeypatch):
    import io
    import sys

    from bot.cli import simulate

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert simulate._progress(simulate.PROGRESS_FROM - 1)[0] is None
    update, close = simulate._progress(40_000)
    assert update is not None
    update(10_000, 40_000)
    update(40_000, 40_000)
    close()
    assert "/40.0k" in terminal.getvalue()  # drawn (tqdm throttles redraws), then cleared
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # not a terminal: no bar
    assert simulate._progress(40_000)[0] is None
