"""Bad tables are refused with every problem and its line, and the league is
unchanged afterwards; ``--dry-run`` changes nothing (RULES.md §14). Driven
through the command line, in-process, on a real state directory."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.cli import main
from bot.storage.db import DATABASE_FILE

HEADER = "team,short,manager,address,language,wp,psz,last_round"
GOOD = [
    "Rote Teufel,Teufel,Hans Meier,hans@example.org,de,95.30,261.5,30",
    "Blaue Jungs,,Hans Meier,hans@example.org,de,\"90,05\",,29",
    "Exeter Rovers,Exeter,John Smith,john@example.com,en,100.00,240,",
]

#: (rows replacing the good ones or added, the problem's line, words of the message)
BAD: dict[str, tuple[list[str], int, str]] = {
    "missing column": (["team,short,manager,address,language,wp,psz", "A,,H,h@x.de,de,90,250"],
                       1, "lacks the column(s) last_round"),
    "unknown column": ([HEADER + ",extra", "A,,H,h@x.de,de,90,250,30,x"], 1,
                       "unknown column(s) extra"),
    "too few values": ([HEADER, *GOOD, "Kiel,,K,k@x.de,de,90"], 5, "6 values, but the header"),
    "wp not a number": ([HEADER, *GOOD, "Kiel,,K,k@x.de,de,9x,,"], 5, "WP 9x is not a number"),
    "wp below 0": ([HEADER, *GOOD, "Kiel,,K,k@x.de,de,-0.5,,"], 5, "WP -0.5 is below 0"),
    "wp three decimals": ([HEADER, *GOOD, "Kiel,,K,k@x.de,de,92.345,,"], 5,
                          "WP 92.345 has more than two decimals"),
    "wp empty": ([HEADER, *GOOD, "Kiel,,K,k@x.de,de,,,"], 5, "the column wp is empty"),
    "duplicate name": ([HEADER, *GOOD, "rote  TEUFEL,,K,k@x.de,de,90,,"], 5,
                       "stands on line 2 already"),
    "confusable name": ([HEADER, *GOOD, "R\u043ete Teufel,,K,k@x.de,de,90,,"], 5,
                        "looks the same as Rote Teufel on line 2"),
    "gm look-alike": ([HEADER, *GOOD, "G.M. 10-10-16-15-39,,K,k@x.de,de,90,,"], 5,
                      "reads like a GM team"),
    "third team": ([HEADER, *GOOD, "Kiel,,Hans Meier,HANS@example.org,de,90,,"], 5,
                   "a third team of hans@example.org (its teams stand on lines 2, 3"),
    "bad address": ([HEADER, *GOOD, "Kiel,,K,k(at)x.de,de,90,,"], 5,
                    "k(at)x.de is not a mail address"),
    "address with a name": ([HEADER, *GOOD, "Kiel,,K,Karl <k@x.de>,de,90,,"], 5,
                            "is not a mail address"),
    "name too long": ([HEADER, *GOOD, "Sportfreunde Oberursel am Taunus 1911,,K,k@x.de,de,90,,"],
                      5, "is longer than 30 characters"),
    "short too long": ([HEADER, *GOOD, "Kiel,Kieler Sportvereinigung,K,k@x.de,de,90,,"], 5,
                       "the short name Kieler Sportvereinigung is longer than 15"),
    "bad language": ([HEADER, *GOOD, "Kiel,,K,k@x.de,fr,90,,"], 5, "language fr"),
    "last round too late": ([HEADER, *GOOD, "Kiel,,K,k@x.de,de,90,,31"], 5,
                            "last_round 31 is not a round before the first one played here (31)"),
    "psz not a number": ([HEADER, *GOOD, "Kiel,,K,k@x.de,de,90,zwei,"], 5,
                         "PSZ zwei is not a number"),
    "manager differs": ([HEADER, *GOOD, "Kiel,,Jon Smith,john@example.com,en,90,,"], 5,
                        "manager Jon Smith, but line 4 names John Smith"),
    "language differs": ([HEADER, *GOOD, "Kiel,,John Smith,john@example.com,de,90,,"], 5,
                         "language de, but line 4 gives en"),
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert run(capsys, "init", str(tmp_path / "g"))[0] == 0
    config = tmp_path / "g" / "config.yaml"
    text = config.read_text(encoding="utf-8").replace("language: de", "language: en")
    config.write_text(text, encoding="utf-8")
    return config


def dump(config: Path) -> list[str]:
    """Every row of the league's database (not the migration times)."""
    conn = sqlite3.connect(config.parent / "state" / DATABASE_FILE)
    try:
        return [line for line in conn.iterdump() if "schema_migrations" not in line]
    finally:
        conn.close()


def write(tmp_path: Path, lines: list[str], name: str = "liga.csv") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", sorted(BAD))
def test_every_kind_of_bad_table_is_refused_with_its_line(
    kind: str, game: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows, line, words = BAD[kind]
    before = dump(game)
    code, out, err = run(capsys, "--config", str(game), "import",
                         str(write(tmp_path, rows)), "--season", "7", "--round", "1",
                         "--deadline", "2099-12-20 20:00")
    assert code == 2 and not out
    assert "liga.csv was not imported; nothing changed" in err
    assert f"line {line}: " in err and words in err, err
    assert dump(game) == before


def test_all_problems_of_a_table_at_once(
    game: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [HEADER, "A,,H,bad,xx,9x,1.234,40", "GM,,H,h@x.de,de,-3,,",
            "Rote Teufel,,H,h@x.de,de,90,,", "R\u043ete Teufel,,H2,h@x.de,de,90,,"]
    code, _out, err = run(capsys, "--config", str(game), "import", str(write(tmp_path, rows)),
                          "--season", "7", "--round", "1", "--deadline", "2099-12-20 20:00")
    assert code == 2
    assert "9 problems" in err
    assert [line.split(":")[0].strip() for line in err.splitlines()[1:] if line] == [
        "line 2"] * 5 + ["line 3"] * 2 + ["line 5"] * 2


def test_german_game_master_reads_the_problems_in_german(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "init", str(tmp_path / "g"))[0] == 0
    config = tmp_path / "g" / "config.yaml"
    code, _out, err = run(capsys, "--config", str(config), "import",
                          str(write(tmp_path, [HEADER, *GOOD, "Kiel,,K,k@x.de,de,9x,,"])),
                          "--season", "7", "--round", "1", "--deadline", "2099-12-20 20:00")
    assert code == 2
    assert "liga.csv wurde nicht eingelesen; nichts wurde geändert. 1 Problem:" in err
    assert "Zeile 5: WP 9x ist keine Zahl" in err


def test_dry_run_changes_nothing_then_the_import_does(
    game: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = write(tmp_path, [HEADER, *GOOD])
    before = dump(game)
    args = ("--config", str(game), "import", str(table), "--season", "7", "--round", "1",
            "--deadline", "2099-12-20 20:00")
    code, out, _err = run(capsys, *args, "--dry-run")
    assert code == 0
    assert "Dry run: nothing was changed. liga.csv would import:" in out
    assert "3 teams of 2 managers, read as UTF-8, columns separated by commas." in out
    assert "round 31 (season 7, round 1)" in out
    assert "90.05" in out and "(30)" in out  # the unknown last round: the one before
    assert dump(game) == before
    assert not (game.parent / "state" / "archive").exists()
    code, out, _err = run(capsys, *args)
    assert code == 0 and "2 welcome mails queued" in out
    after = dump(game)
    assert after != before
    # a second import is refused: the league is not empty any more
    code, _out, err = run(capsys, *args)
    assert code == 2 and "the league is not empty" in err
    assert dump(game) == after
    code, _out, err = run(capsys, *args, "--dry-run")
    assert code == 2 and "the league is not empty" in err


def test_round_outside_the_season_is_refused(
    game: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = run(capsys, "--config", str(game), "import",
                          str(write(tmp_path, [HEADER, *GOOD])), "--season", "7",
                          "--round", "6", "--deadline", "2099-12-20 20:00")
    assert code == 2 and "the round 1 to 5" in err
