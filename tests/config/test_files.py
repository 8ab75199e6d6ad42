"""Which configuration file a command reads, and a mistyped ``--config``
(issue 22: it was reported as "no league database" in the default state)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main
from bot.config import ConfigError, ConfigFileMissing, config_file, load_config
from bot.config.files import DEFAULT_CONFIG_NAME


def test_a_named_file_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigFileMissing) as info:
        config_file(tmp_path / "confg.yaml")
    assert info.value.path == tmp_path / "confg.yaml"
    assert isinstance(info.value, ConfigError) and isinstance(info.value, ValueError)
    assert str(info.value).startswith(
        f"this configuration file does not exist: {tmp_path / 'confg.yaml'} (")
    there = tmp_path / "config.yaml"
    there.write_text("game: {}\n", encoding="utf-8")
    assert config_file(there) == there
    assert config_file(str(there)) == there


def test_without_a_name_config_yaml_is_read_if_there_is_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert config_file(None) is None
    Path(DEFAULT_CONFIG_NAME).write_text("game: {}\n", encoding="utf-8")
    assert config_file(None) == Path(DEFAULT_CONFIG_NAME)


@pytest.mark.parametrize(("language", "line"), [
    ("de", "Fehler: diese Konfigurationsdatei gibt es nicht: {path} (mit `turnited init "
           "VERZEICHNIS` eine anlegen oder mit --config PFAD die richtige Datei nennen)"),
    ("en", "error: this configuration file does not exist: {path} (create one with "
           "`turnited init DIR`, or name the right file with --config PATH)"),
])
def test_the_console_says_it_in_the_game_masters_language(tmp_path: Path, language: str,
                                                          line: str) -> None:
    from bot.render.words import Words

    missing = ConfigFileMissing(tmp_path / "confg.yaml")
    w = Words(language)
    said = w._("turnited %(command)s: error: %(message)s", command="status",
               message=w.error(missing))
    assert said == "turnited status: " + line.format(path=tmp_path / "confg.yaml")


def test_load_config_of_a_missing_file_is_the_same_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigFileMissing, match=r"confg\.yaml"):
        load_config(tmp_path / "confg.yaml")


@pytest.mark.parametrize("command", [["status"], ["missing"], ["managers"], ["check"],
                                     ["deadline", "show"], ["rollback"],
                                     ["manager", "ban", "x@example.org"]])
def test_a_mistyped_config_is_named_not_taken_for_a_missing_league(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    typo = tmp_path / "mygame" / "confg.yaml"
    status = main(["--config", str(typo), *command])
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.count("\n") == 1
    assert f"diese Konfigurationsdatei gibt es nicht: {typo}" in err  # German: no game.language
    assert "league database" not in err and "Datenbank" not in err


def test_finding_the_file_loads_neither_yaml_nor_the_layers() -> None:
    """``bot.config`` loads its names when used: the console commands ask
    ``config_file`` before anything else, and a missing file costs nothing."""
    code = ("import sys; from bot.config import config_file, ConfigFileMissing; "
            "heavy = sorted(m for m in ('yaml', 'bot.config.load', 'bot.mail', 'bot.league') "
            "if m in sys.modules); print(heavy)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]"
