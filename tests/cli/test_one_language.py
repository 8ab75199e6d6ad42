"""One language in the console (issues 19, 22): in a game with
``game.language: de`` every command's output and its errors are German.

Each command runs on a copy of the demo's league (``game.language: de``),
first doing its job, then refusing a typical mistake; the text it prints is
searched for English words after the data (names, addresses, paths,
options, quoted input) is taken out. ``--json`` output, ``--help`` and
argparse's own usage errors are not the console's words (they stay English,
as documented in docs/i18n.md).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from bot.cli import build_parser, main

from .conftest import Game

#: Words that are English and never German: one of them in a German line is
#: an English sentence (or a piece of one) that escaped the catalog. ("Newsletter"
#: is German too, the German mails use it; its English plural is not.)
_WORDS = """
    the is are was were be been has have had of and with without to for from by at on
    this that which what who whose will would can cannot could must should only every
    each already nothing none not no yet again more less than also there here into
    round rounds deadline deadlines sent queued lineup lineups seed commitment error
    failed waiting season seasons winner winners title titles newsletters
    reminder reminders bounce bounces backup restore outbox archive database
    permissions disk references evaluated evaluation identical different matches
    played games goals win draw loss expected probability preview placings stage
    group free written wrote copied created banned missing open passed planned due
    next last first new old language unknown managers read replies removed stays left
    lifted password mailed please check run runs running such directory file files
"""
ENGLISH = frozenset(_WORDS.split())
#: Tokens that are data or code, not words: the command's name before an
#: error, options, config keys, paths, file names, addresses, quoted input,
#: hex digests, argument names (ROUND, DIR).
DATA = re.compile("|".join((
    r"turnited [a-z-]+(?: [a-z-]+)?:", r"--[\w-]+", r"\S*[/@]\S*", r"'[^']*'", r'"[^"]*"',
    r"\S+\.(?:html|txt|json|sqlite3|yaml|csv)\b", r"\b\w+[._]\w+(?:[._]\w+)*\b",
    r"\b[0-9a-f]{16,}\b", r"`[^`]*`", r"\b[A-Z]{3,}\b",
)))


#: A command line in a sentence ("mit turnited --config X run"): the program's names.
_NAMES = "|".join(sorted(
    {"run", "init", "send", "poll", "evaluate", "deadline", "set", "show", "status", "demo",
     "replay", "managers", "missing", "remind", "broadcast", "backup", "publish", "check",
     "verify", "rollback", "manager", "ban", "unban", "reset-password", "lineup", "match",
     "psz", "simulate", "DIR", "PATH"}, key=len, reverse=True))
COMMAND = re.compile(rf"\bturnited(?: (?:--?[\w-]+|\S*/\S*|{_NAMES}))+")


def english_words(text: str, names: set[str]) -> list[str]:
    """The English words of ``text`` once the data is taken out."""
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    text = DATA.sub(" ", COMMAND.sub(" ", text))
    return sorted({w for w in re.findall(r"[^\W\d_]+", text) if w.lower() in ENGLISH})


def league_names(game: Game) -> set[str]:
    """Every name the league holds (teams, short names, managers) and the game's."""
    names = {"Turnited Demo"}
    for row in game.query("SELECT name, short_name FROM teams"):
        names |= {row["name"], row["short_name"]}
    for row in game.query("SELECT display_name FROM managers WHERE display_name IS NOT NULL"):
        names.add(row["display_name"])
    return {n for n in names if n}


@pytest.fixture
def german(game: Game) -> Game:
    assert "language: de" in game.config.read_text(encoding="utf-8")
    return game


def say(game: Game, *args: str, status: int | None = 0) -> str:
    """Run a command; return what it printed (stdout and stderr)."""
    code, out, err = game.cli(*args)
    if status is not None:
        assert code == status, (args, out, err)
    return out + err


def assert_german(text: str, names: set[str], what: str) -> None:
    assert text.strip(), f"{what} printed nothing"
    found = english_words(text, names)
    assert not found, f"{what} printed English words {found}:\n{text}"


def test_the_checker_finds_english_and_passes_german():
    names = {"Bristol Town"}
    assert english_words("Round 6: every team has sent a lineup.", names) == [
        "Round", "every", "has", "lineup", "sent"]
    assert english_words("Spielrunde 6 (Einsendeschluss So., 17. Januar 2027, 20:00 MEZ): "
                         "Bristol Town: jack@players.example --missing 'was da' "
                         "schedule.deadlines state_dir; starten mit turnited --config "
                         "g/config.yaml run; (turnited deadline set)", names) == []
    assert english_words("mit turnited run the bot", names) == ["the"]


def test_every_command_speaks_german_in_a_german_game(german: Game, tmp_path: Path):
    game = german
    names = league_names(game)
    news = game.root / "news.txt"
    news.write_text("Betreff: Winterpause\n\nAm 27. Dezember ruht der Ball.\n",
                    encoding="utf-8")
    empty = game.root / "empty.txt"
    empty.write_text("\n", encoding="utf-8")
    csv = game.root / "games.csv"
    csv.write_text("player,psz,opponent_psz,result\nJ,230,320,1\nJ,230,250,0\n",
                   encoding="utf-8")
    bad_csv = game.root / "bad.csv"
    bad_csv.write_text("player,psz,opponent_psz,result\nJ,230,320,2\n", encoding="utf-8")
    teams = game.root / "teams.yaml"
    teams.write_text("- name: Rote Teufel\n  lineup: 10-10-15-15-20\n"
                     "- name: Blaue Jungs\n  lineup: 10-10-20-25-25\n", encoding="utf-8")
    bad_teams = game.root / "bad.yaml"
    bad_teams.write_text("- name: A\n  lineup: 10-10-15\n", encoding="utf-8")
    (commitment,) = [r[0] for r in game.query(
        "SELECT s.seed FROM round_seeds s WHERE s.round = 1")]
    jack = "jack.clarke@players.example"
    nowhere = str(tmp_path / "nowhere")
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "x").write_text("x", encoding="utf-8")

    runs: list[tuple[tuple[str, ...], int]] = [
        # (arguments, exit status): the normal output, then a typical refusal
        (("status",), 0), (("status", "--state", nowhere), 2),
        (("deadline", "show"), 0), (("deadline", "set", "nächsten Sonntag"), 2),
        (("deadline", "set", "01.01.2020 20:00"), 2),
        (("deadline", "set", "17.01.2099 20:00 Uhr"), 0),
        (("managers",), 0), (("managers", "--state", nowhere), 2),
        (("missing",), 0), (("remind", "--missing"), 0), (("remind",), 2),
        (("broadcast", str(news)), 0), (("broadcast", str(empty)), 2),
        (("broadcast", str(game.root / "nope.txt")), 2),
        (("backup", str(tmp_path)), 0), (("backup", str(tmp_path / "no" / "b.sqlite3")), 2),
        (("publish", str(tmp_path / "www")), 0),
        (("publish", str(game.state / "archive" / "www")), 2),
        (("check", "--min-free-mb", "1"), 0), (("check", "--min-free-mb", str(10**9)), 1),
        (("verify", "1", str(commitment)), 0), (("verify", "1", "5"), 1),
        (("verify", "1", "5", "xyz"), 2),
        (("replay", "--all"), 0), (("replay", "99"), 2), (("replay",), 2),
        (("evaluate", "--dry-run"), 0),
        (("poll", "--no-send"), 0), (("send",), 0),
        (("manager", "ban", jack), 0), (("manager", "ban", jack), 0),
        (("manager", "unban", jack), 0), (("manager", "unban", jack), 0),
        (("manager", "ban", "niemand@players.example"), 2),
        (("manager", "ban", "keine Adresse"), 2),
        (("manager", "reset-password", jack), 0),
        (("rollback", "99", "--yes"), 2),
        (("lineup", "12-3-10-40-50", "--wp", "95.3"), 0), (("lineup", "10-10-15"), 2),
        (("lineup", "10-10-15-15-20", "--wp", "viel"), 2),
        (("match", "10-10-11-11-28", "0-0-20-20-50"), 0), (("match", "10-10", "x"), 2),
        (("psz", str(csv)), 0), (("psz", str(bad_csv)), 2),
        (("psz", str(game.root / "none.csv")), 2),
        (("simulate", str(teams), "--seed", "7", "--simulations", "200"), 0),
        (("simulate", str(bad_teams), "--seed", "7"), 2),
        (("run", "--log-file", str(tmp_path / "no" / "dir" / "x.log")), 2),
        (("init", str(game.root)), 2),
        (("evaluate", "--force"), 0), (("rollback", "--yes"), 0), (("rollback", "--yes"), 0),
    ]
    problems = []
    for args, status in runs:
        code, out, err = game.cli(*args)
        text = out + err
        found = english_words(text, names)
        if code != status or not text.strip() or found:
            problems.append(f"{' '.join(args)} (exit {code}, expected {status}): {found}\n"
                            f"{text}")
    assert not problems, "\n".join(problems)
    # a fresh game, a second state, a missing configuration
    assert_german(say(game, "init", str(tmp_path / "new")), names, "init")
    assert main(["--config", str(tmp_path / "none.yaml"), "status"]) == 2
    assert_german(game.capsys.readouterr().err, names, "status --config none.yaml")


def test_the_demo_speaks_german(tmp_path: Path, capsys):
    assert main(["demo", str(tmp_path / "demo"), "--managers", "4", "--seasons", "1",
                 "--simulations", "100"]) == 0
    out = capsys.readouterr().out
    assert "1 Saison" in out and "5 Spielrunden" in out
    names = {line.split(":", 1)[1].strip() for line in out.splitlines()
             if "Sieger" in line or "Meiste Titel" in line} - {"-"}
    for row in out.splitlines():  # the WP table's teams and managers are data
        if row.startswith("  ") and row.strip()[-1:].isdigit():
            names.add(row.strip().rsplit(None, 1)[0])
    assert_german(out, names, "demo")
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "x").write_text("x", encoding="utf-8")
    assert main(["demo", str(occupied)]) == 2
    assert_german(capsys.readouterr().err, set(), "demo into a used directory")


def test_every_command_has_one_lang_option():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    stack = list(dict.fromkeys(sub.choices.values()))
    leaves = []
    while stack:
        p = stack.pop()
        nested = [a for a in p._actions if a.dest in ("deadline_command", "manager_command")]
        if nested:
            stack += list(dict.fromkeys(nested[0].choices.values()))
            continue
        leaves.append(p)
    assert len(leaves) >= 24
    for p in leaves:
        options = {o for a in p._actions for o in a.option_strings}
        assert "--lang" in options and "--language" not in options, p.prog


def test_english_is_one_option_away(german: Game):
    out = say(german, "status", "--lang", "en")
    assert "Round 6 (season 2, round 1); 5 rounds evaluated" in out
    assert "Commitment of the seed of round 6" in out


def test_the_state_copy_is_untouched_by_the_language(german: Game):
    """The words change, the data not: ``--json`` is the same in both languages."""
    german_json = json.loads(say(german, "status", "--json"))
    english_json = json.loads(say(german, "status", "--json", "--lang", "en"))
    assert german_json.pop("now") <= english_json.pop("now")
    assert german_json == english_json
    shutil.rmtree(german.root / "state" / "archive")
    assert "Noch kein Archiv" in say(german, "publish", str(german.root / "www"), status=1)
