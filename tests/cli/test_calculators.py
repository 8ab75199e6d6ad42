"""The players' calculators ``lineup``, ``match`` and ``psz`` through the real CLI
(bot.cli.main in-process, and once as ``python -m bot``)."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from bot.cli import main
from bot.cli.calculators import decimal_text, fraction_text
from bot.rules.lineup import Lineup
from bot.rules.psz import Result
from tests.rules.psz_tables import (
    J_GAMES,
    J_START,
    RECORDS,
    START,
    STRONG_WEAK_OPPONENTS,
    TABLE1_BATCH,
    TABLE1_OPPONENTS,
    TABLE2_UNBOUNDED,
    TABLE3_BOUNDED,
)
from tests.rules.test_examples import CORRECTION_EXAMPLES, ODDS_EXAMPLES

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> object:
    code, out, err = run(capsys, *argv, "--json")
    assert (code, err) == (0, "")
    return json.loads(out)


def assert_one_line_error(code: int, out: str, err: str, command: str, *needles: str) -> None:
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert err.startswith((f"turnited {command}: error: ", f"turnited {command}: Fehler: "))
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, (needle, err)


# ---------------------------------------------------------------- lineup

@pytest.mark.parametrize(("lineup", "budget", "result"), CORRECTION_EXAMPLES)
def test_lineup_reproduces_the_correction_table(capsys, lineup: str, budget: int, result: str):
    data = run_json(capsys, "lineup", lineup, "--wp", str(budget))
    assert data["lineup"] == result
    assert data["values"] == [int(v) for v in result.split("-")]
    assert data["budget"] == budget
    assert data["cost"] == sum(p * v for p, v in zip((2, 2, 1, 1, 1), data["values"], strict=True))
    assert set(data) == {"lineup", "values", "cost", "budget", "corrections"}
    for c in data["corrections"]:
        assert set(c) == {"rule", "row", "from", "to"}
        assert c["rule"] in {"back_cap", "three_to_one", "budget"}


def test_lineup_json_lists_every_correction(capsys):
    data = run_json(capsys, "lineup", "12-3-10-40-50", "--wp", "95.3")
    assert data == {
        "lineup": "10-3-10-30-29",
        "values": [10, 3, 10, 30, 29],
        "cost": 95,
        "budget": 95,
        "corrections": [
            {"rule": "back_cap", "row": "T", "from": 12, "to": 10},
            {"rule": "three_to_one", "row": "M", "from": 40, "to": 30},
            {"rule": "three_to_one", "row": "S", "from": 50, "to": 30},
            {"rule": "budget", "row": "S", "from": 30, "to": 29},
        ],
    }


def test_lineup_as_several_words_and_default_wp(capsys):
    data = run_json(capsys, "lineup", "T10", "A10", "V20", "M25", "S25")
    assert (data["lineup"], data["budget"]) == ("8-8-16-21-21", 90)
    data = run_json(capsys, "lineup", "Torwart", "10", "Ausputzer", "10", "Verteidigung", "15",
                    "Mittelfeld", "15", "Sturm", "20")
    assert (data["lineup"], data["corrections"]) == ("10-10-15-15-20", [])


def test_lineup_budget_is_the_floor_of_a_decimal_wp(capsys):
    assert run_json(capsys, "lineup", "10-10-20-25-25", "--wp", "91.99")["budget"] == 91
    assert run_json(capsys, "lineup", "10-10-20-25-25", "--wp", "92.0")["budget"] == 92


def test_lineup_text_in_german_and_english(capsys):
    code, out, _ = run(capsys, "lineup", "12-3-10-40-50", "--wp", "95.3")
    assert code == 0
    assert "Aufstellung:   10-3-10-30-29" in out
    assert "Budget: 95 WP" in out and "95,3" in out
    assert "Obergrenze 10 für Torwart/Ausputzer: T 12 -> 10" in out
    assert "3:1-Regel: M 40 -> 30" in out
    assert "Kürzung auf das Budget: S 30 -> 29" in out  # the newsletter's words
    code, out, _ = run(capsys, "lineup", "12-3-10-40-50", "--wp", "95.3", "--lang", "en")
    assert "Lineup:        10-3-10-30-29" in out
    assert "3:1 rule: S 50 -> 30" in out and "shortened to the budget: S 30 -> 29" in out
    code, out, _ = run(capsys, "lineup", "10-10-15-15-20")
    assert "Keine Korrekturen" in out


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (["8.5-10-15-15-20"], ["'8.5-10-15-15-20'", "8.5 is not a whole number"]),
        (["10-10-15-15"], ["4 numbers instead of five"]),
        (["T10", "A10", "V15", "M15", "T20"], ["row T given twice"]),
        (["10-10-15-15-20", "--wp", "viel"], ["invalid WP 'viel'"]),
        (["10-10-15-15-20", "--wp", "-3"], ["invalid WP '-3'"]),
    ],
)
def test_lineup_errors(capsys, argv: list[str], needles: list[str]):
    assert_one_line_error(*run(capsys, "lineup", *argv, "--lang", "en"), "lineup", *needles)


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (["8.5-10-15-15-20"], ["ungültige Aufstellung '8.5-10-15-15-20'",
                               "8.5 ist keine ganze Zahl", "z. B. '10-10-15-15-20'"]),
        (["10-10-15-15"], ["4 Zahlen statt fünf"]),
        (["10-10-15-15-20", "--wp", "viel"], ["WP 'viel' ist keine Zahl", "95,3"]),
    ],
)
def test_lineup_errors_speak_the_output_language(capsys, argv: list[str], needles: list[str]):
    assert_one_line_error(*run(capsys, "lineup", *argv), "lineup", *needles)


# ---------------------------------------------------------------- match

def six(fraction_string: str) -> str:
    value = Fraction(fraction_string)
    return decimal_text(value) if value else "0"


@pytest.mark.parametrize(("x", "y", "chances", "wdl"), ODDS_EXAMPLES)
def test_match_reproduces_the_exact_odds(capsys, x, y, chances, wdl):
    data = run_json(capsys, "match", x, y)
    assert data["chances"] == list(chances)
    assert (six(data["win"]), six(data["draw"]), six(data["loss"])) == wdl
    assert Fraction(data["win"]) + Fraction(data["draw"]) + Fraction(data["loss"]) == 1
    for key in ("win", "draw", "loss"):
        assert data["percent"][key] == pytest.approx(float(Fraction(data[key]) * 100), abs=1e-12)
        assert "/" in data[key]
    assert all("/" in p for p in data["goal_probability"])


def test_match_json_shape_and_symmetry(capsys):
    forward = run_json(capsys, "match", "10-10-15-15-20", "0-10-30-20-20")
    backward = run_json(capsys, "match", "0-10-30-20-20", "10-10-15-15-20")
    assert forward["goal_probability"] == ["1/3", "2/21"]
    assert forward["expected_goals"] == ["0/1", "4/7"]
    assert forward["win"] == backward["loss"] == "0/1"
    assert forward["draw"] == backward["draw"]
    assert backward["chances"] == forward["chances"][::-1]


def test_match_text(capsys):
    code, out, _ = run(capsys, "match", "10-10-11-11-28", "0-0-20-20-50")
    assert code == 0
    assert "Torchancen:          8 : 34" in out
    assert "Sieg:                98,72 %" in out
    assert "Unentschieden:       0,91 %" in out
    assert "Niederlage:          0,37 %" in out
    assert "Erwartete Tore:      8,00 : 3,24" in out
    code, out, _ = run(capsys, "match", "10-10-11-11-28", "0-0-20-20-50", "--lang", "en")
    assert code == 0
    assert "Win:                 98.72 %" in out and "Goal chances:        8 : 34" in out


def test_match_plays_the_lineups_as_corrected_for_the_budget(capsys):
    """RULES.md §2.1: a lineup that breaks the 3:1 rule or the back caps, or
    costs more than the budget, plays corrected; the odds are of what plays."""
    data = run_json(capsys, "match", "10-10-40-10-50", "12-10-15-15-20")
    x, y = "10-10-40-10-50", "12-10-15-15-20"
    from bot.rules.corrections import correct
    from bot.rules.match import odds

    px, py = correct(Lineup.parse(x), 90), correct(Lineup.parse(y), 90)
    assert data["played"] == [str(px.lineup), str(py.lineup)]
    assert data["as_typed"] == [False, False] and data["budget"] == [90, 90]
    assert data["win"] == fraction_text(odds(px.lineup, py.lineup).win)
    rules = [{c["rule"] for c in side} for side in data["corrections"]]
    assert "three_to_one" in rules[0] and "back_cap" in rules[1]
    code, out, _ = run(capsys, "match", x, "10-10-15-15-20")
    assert code == 0
    assert f"X spielt nicht wie eingegeben: {x} wird zu {px.lineup} (Budget 90 WP):" in out
    assert "3:1-Regel: V 40 -> 30" in out
    assert "Y spielt wie eingegeben (Budget 90 WP)." in out


def test_match_wp_once_for_both_or_twice_for_x_and_y(capsys):
    both = run_json(capsys, "match", "10-10-15-15-20", "10-10-15-15-20", "--wp", "80,5")
    assert both["budget"] == [80, 80] and both["as_typed"] == [False, False]
    each = run_json(capsys, "match", "10-10-15-15-20", "10-10-15-15-20",
                    "--wp", "80", "--wp", "100")
    assert each["budget"] == [80, 100] and each["as_typed"] == [False, True]
    code, out, _ = run(capsys, "match", "10-10-15-15-20", "10-10-15-15-20", "--wp", "80",
                       "--wp", "100", "--lang", "en")
    assert code == 0
    assert "X would not play as typed: 10-10-15-15-20 becomes" in out
    assert "Y plays as typed (budget 100 WP)." in out
    assert_one_line_error(*run(capsys, "match", "10-10-15-15-20", "10-10-15-15-20",
                               "--wp", "1", "--wp", "2", "--wp", "3"), "match", "--wp")


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (["10-10-15-15-20", "zehn"], ["ungültige Aufstellung 'zehn'"]),
        (["10-10-15-15-20", "zehn", "--lang", "en"], ["invalid lineup 'zehn'"]),
        (["10-10-15-15-20", "10-10-15-15-20", "--wp", "x"], ["WP 'x' ist keine Zahl"]),
    ],
)
def test_match_refuses_unreadable_input_in_the_output_language(capsys, argv, needles):
    assert_one_line_error(*run(capsys, "match", *argv), "match", *needles)


# ---------------------------------------------------------------- psz

def write_csv(path: Path, rows: list[tuple[str, object, object, str]], sep: str = ",") -> Path:
    lines = [sep.join(("player", "psz", "opponent_psz", "result"))]
    lines += [sep.join(str(c) for c in row) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def table_rows(opponents: tuple[int, int, int]) -> list[tuple[str, object, object, str]]:
    rows = []
    for player, record in RECORDS.items():
        for (wins, losses), opponent in zip(record, opponents, strict=True):
            rows += [(player, START[player], opponent, "1")] * wins
            rows += [(player, START[player], opponent, "0")] * losses
    return rows


@pytest.mark.parametrize(
    ("opponents", "table", "flags"),
    [
        (TABLE1_OPPONENTS, TABLE1_BATCH, []),
        (TABLE1_OPPONENTS, TABLE1_BATCH, ["--no-bound"]),
        (STRONG_WEAK_OPPONENTS, TABLE2_UNBOUNDED, ["--no-bound"]),
        (STRONG_WEAK_OPPONENTS, TABLE3_BOUNDED, []),
    ],
    ids=["table1-bound", "table1-no-bound", "table2-no-bound", "table3-bound"],
)
def test_psz_reproduces_the_tables_of_seed_001(capsys, tmp_path, opponents, table, flags):
    path = write_csv(tmp_path / "games.csv", table_rows(opponents))
    data = run_json(capsys, "psz", str(path), *flags)
    assert [d["player"] for d in data] == list(RECORDS)  # order of first appearance
    for entry in data:
        row = table[entry["player"]]
        assert entry["psz"] == str(row.psz)
        assert entry["psz_rounded"] == row.psz
        assert entry["psz_cents"] == f"{row.psz}.00"
        assert entry["games"] * row.psz == row.total
        assert entry["won"] - entry["lost"] == row.s_minus_n
        assert Fraction(entry["points"]) == (row.psz - START[entry["player"]]) * entry["games"]
        assert entry["psz_before"] == str(START[entry["player"]])


def test_psz_reproduces_j_game_by_game(capsys, tmp_path):
    rows = [(f"J{i}", J_START, g.pszg, "S" if g.won else "N") for i, g in enumerate(J_GAMES, 1)]
    rows += [("J", J_START, g.pszg, "W" if g.won else "L") for g in J_GAMES]
    data = run_json(capsys, "psz", str(write_csv(tmp_path / "j.csv", rows)))
    singles, whole = data[:-1], data[-1]
    assert [int(d["points"]) for d in singles] == [g.points for g in J_GAMES]
    assert [int(d["psz"]) for d in singles] == [g.psz for g in J_GAMES]
    assert (whole["games"], whole["points"], whole["psz"]) == (10, "30", "233")


def test_psz_draws_decimals_and_text(capsys, tmp_path):
    rows = [("X", "250", "300", "D"), ("X", "250", "251", "0.5"), ("X", "250", "249", "U"),
            ("Y", "232.5", "240", "W")]
    path = write_csv(tmp_path / "d.csv", rows)
    x, y = run_json(capsys, "psz", str(path))
    assert (x["drawn"], x["points"], x["points_fraction"]) == (3, "50", "50/1")
    assert x["psz"] == "266.666667" and x["psz_fraction"] == "800/3"
    assert (x["psz_cents"], x["psz_rounded"]) == ("266.67", 267)
    assert (y["psz_before"], y["points"], y["psz"]) == ("232.5", "47.5", "280")
    assert y["psz_rounded"] == 280
    code, out, _ = run(capsys, "psz", str(path))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "PSZ-Bilanz (mit Begrenzung auf Null)"
    assert lines[1].split() == ["Spieler", "Spiele", "S", "U", "N", "PSZ", "alt", "Punkte",
                                "PSZ", "neu", "gerundet"]
    assert lines[2].split() == ["X", "3", "0", "3", "0", "250,00", "50,00", "266,67", "267"]
    assert lines[3].split() == ["Y", "1", "1", "0", "0", "232,50", "47,50", "280,00", "280"]
    code, out, _ = run(capsys, "psz", str(path), "--lang", "en", "--no-bound")
    assert code == 0
    assert out.splitlines()[0] == "PSZ balance (not bounded at zero)"
    assert out.splitlines()[2].split()[-2:] == ["266.67", "267"]


def test_psz_reads_semicolons_with_decimal_commas(capsys, tmp_path):
    path = write_csv(tmp_path / "excel.csv", [("A", "232,5", "240,5", "S")], sep=";")
    (entry,) = run_json(capsys, "psz", str(path))
    assert (entry["psz_before"], entry["psz"]) == ("232.5", "280.5")


@pytest.mark.parametrize(
    ("content", "needles"),
    [
        ("player,psz,opponent_psz,result\nJ,230,320,1\nJ,240,250,0\n",
         [":3:", "player 'J'", "240", "230 on line 2"]),
        ("player,psz,opponent_psz,result\nJ,230,320,2\n", [":2:", "invalid result '2'", "W/D/L"]),
        ("player,psz,opponent_psz,result\nJ,230,viel,1\n", [":2:", "opponent_psz 'viel'"]),
        ("player,psz,opponent_psz,result\nJ,NaN,250,1\n", [":2:", "psz 'NaN' is not a number"]),
        ("player,psz,opponent,result\nJ,230,320,1\n", [":1:", "missing 'opponent_psz'",
                                                       "unknown 'opponent'"]),
        ("player,psz,opponent_psz,result\nJ,230,320\n", [":2:", "3 fields instead of 4"]),
        ("player,psz,opponent_psz,result\n,230,320,1\n", [":2:", "name is empty"]),
        ("player,psz,opponent_psz,result\n\n", ["no games"]),
        ("", ["empty file"]),
    ],
)
def test_psz_errors_name_the_line(capsys, tmp_path, content: str, needles: list[str]):
    path = tmp_path / "bad.csv"
    path.write_text(content, encoding="utf-8")
    assert_one_line_error(*run(capsys, "psz", str(path), "--lang", "en"), "psz", str(path),
                          *needles)


def test_psz_missing_file_and_binary_file(capsys, tmp_path):
    assert_one_line_error(*run(capsys, "psz", str(tmp_path / "none.csv")), "psz", "none.csv",
                          "ist nicht lesbar")
    binary = tmp_path / "bin.csv"
    binary.write_bytes(b"\xff\xfe\x00\x81player")
    assert_one_line_error(*run(capsys, "psz", str(binary)), "psz", "kein UTF-8-Text")


def test_psz_results_every_word(capsys, tmp_path):
    words = ["1", "W", "S", "0.5", "D", "U", "0", "L", "N"]
    rows = [("P", 250, 250, w) for w in words]
    (entry,) = run_json(capsys, "psz", str(write_csv(tmp_path / "w.csv", rows)))
    assert (entry["won"], entry["drawn"], entry["lost"]) == (3, 3, 3)
    assert [Result.parse(w) for w in words].count(Result.DRAW) == 3


# ---------------------------------------------------------------- formats

@pytest.mark.parametrize(
    ("value", "text"),
    [(Fraction(233), "233"), (Fraction(465, 2), "232.5"), (Fraction(1, 3), "0.333333"),
     (Fraction(2, 3), "0.666667"), (Fraction(-1, 3), "-0.333333"), (Fraction(0), "0"),
     (Fraction(1, 8), "0.125"), (Fraction(-5, 2), "-2.5"), (Fraction(1, 2 * 10**6), "0.000001")],
)
def test_decimal_text(value: Fraction, text: str):
    assert decimal_text(value) == text


def test_fraction_text():
    assert [fraction_text(Fraction(x)) for x in ("0", "1", "2/21")] == ["0/1", "1/1", "2/21"]


# ---------------------------------------------------------------- as a program

def test_python_m_bot_bad_input_is_one_line_without_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "lineup", "10-10-15-15-20.5", "--lang", "en"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "turnited lineup: error: invalid lineup '10-10-15-15-20.5': 20.5 is not a whole "
        "number; expected five whole numbers T-A-V-M-S, e.g. '10-10-15-15-20'"
    ]


def test_python_m_bot_runs_a_calculator():
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "match", "10-10-15-15-20", "0-10-30-20-20", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    assert json.loads(proc.stdout)["draw"] == "47045881/85766121"
