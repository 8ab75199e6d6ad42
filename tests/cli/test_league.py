"""``turnited status`` and ``turnited replay`` on a real state directory."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main, setup
from bot.config import ConfigFileMissing
from bot.storage import results
from tests.league.conftest import Player, evaluate, lineup, make_league, register


def populated(tmp_path):
    league = make_league(tmp_path)
    Player(league, "anna@example.org").send(register("Rote Teufel"), lineup("10-10-15-15-20"))
    Player(league, "bob@example.org").send(register("Blaue Jungs"), lineup("0-10-30-20-20"))
    evaluate(league, seed=77)
    Player(league, "cleo@example.org").send(register("Grüne Gämsen"), lineup("9-9-14-14-14"))
    return league, str(tmp_path / "state")


def test_status_shows_counts_and_teams_but_never_lineups(tmp_path, capsys):
    _, state = populated(tmp_path)
    assert main(["status", "--state", state]) == 0
    out = capsys.readouterr().out
    assert "Spielrunde 2 (Saison 1, Runde 2); 1 Runde ausgewertet" in out  # German by default
    assert "Manager: 3 mit Team" in out and "Teams: 3" in out
    assert "Teams mit Aufstellung für Spielrunde 2: 1" in out and "Grüne Gämsen" in out
    assert "9-9-14-14-14" not in out and "10-10-15-15-20" not in out


def test_replay_reports_identical_and_different_rounds(tmp_path, capsys):
    league, state = populated(tmp_path)
    assert main(["replay", "1", "--state", state]) == 0
    assert capsys.readouterr().out.strip() == "Spielrunde 1: gleich (Startwert 77)"
    assert main(["replay", "1", "--state", state, "--lang", "en"]) == 0
    assert capsys.readouterr().out.strip() == "round 1: identical (seed 77)"
    with league.db.transaction() as conn:
        report = json.loads(results.stored_report(conn, 1, public=False))
        report["wp_gain"]["Rote Teufel"] = "9.9"
        conn.execute("UPDATE round_results SET report = ?", (json.dumps(report),))
    assert main(["replay", "1", "--state", state]) == 1
    out = capsys.readouterr().out
    assert "Spielrunde 1: ANDERS" in out and '"9.9"' in out


def test_errors_are_one_line_with_status_2(tmp_path, capsys):
    assert main(["status", "--state", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "kein Spielstand unter" in err
    _, state = populated(tmp_path)
    assert main(["replay", "5", "--state", state]) == 2
    assert "Spielrunde 5" in capsys.readouterr().err
    assert main(["replay", "--state", state]) == 2
    assert "--all" in capsys.readouterr().err


def test_state_dir_comes_from_option_config_or_default(tmp_path, monkeypatch):
    config = tmp_path / "config.yaml"
    config.write_text("state_dir: elsewhere\n", encoding="utf-8")
    ns = argparse.Namespace
    assert setup.load(ns(state="x", config=str(config))).state_dir == Path("x").absolute()
    assert setup.load(ns(state=None, config=str(config))).state_dir == tmp_path / "elsewhere"
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path / "empty")  # no ./config.yaml here: the defaults
    assert setup.load(ns(state=None, config=None)).state_dir == Path("state").absolute()
    # a --config that does not exist is named, not taken for the defaults
    with pytest.raises(ConfigFileMissing, match=r"does not exist: .*none\.yaml"):
        setup.load(ns(state=None, config=str(tmp_path / "none.yaml")))
    monkeypatch.chdir(tmp_path)  # none named: ./config.yaml if there is one
    assert setup.load(ns(state=None, config=None)).state_dir == tmp_path / "elsewhere"


def test_python_m_bot_status(tmp_path):
    _, state = populated(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "bot", "status", "--state", state],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Teams: 3" in proc.stdout and "Spielrunde 2" in proc.stdout


def test_status_of_a_fresh_game_shows_the_planned_first_deadline(tmp_path, capsys):
    assert main(["init", str(tmp_path / "game")]) == 0
    config = str(tmp_path / "game" / "config.yaml")
    capsys.readouterr()
    assert main(["--config", config, "status"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert ("Noch ist keine Runde offen: Spielrunde 1 beginnt, wenn der Bot startet "
            "(turnited run).") in out
    # the example configuration plans the Sundays at 20:00 Europe/Berlin
    planned = out.splitlines()[-1]
    assert planned.startswith("Geplanter erster Einsendeschluss: So., ")
    assert " 20:00 " in planned and "(Europe/Berlin)" in planned
    assert "ensure_first_round" not in out and "League." not in out


def test_status_of_a_fresh_state_without_its_configuration(tmp_path, capsys):
    assert main(["init", str(tmp_path / "game")]) == 0
    capsys.readouterr()
    assert main(["status", "--state", str(tmp_path / "game" / "state")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Noch ist keine Runde offen")
    assert "Erster Einsendeschluss: der erste aus schedule.deadlines nach dem Start" in out
    assert "ensure_first_round" not in out


def test_no_open_round_error_names_no_python_function():
    from bot.league.errors import NoOpenRound

    message = str(NoOpenRound())
    assert "(" not in message.replace("(turnited run)", "")
    assert "ensure_first_round" not in message and "League" not in message
    assert "turnited run" in message
