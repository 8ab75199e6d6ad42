"""One seeded generator drives everything: same inputs + seed -> the same
tournament, in the documented order of random numbers, on any process."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from bot.rules.gm_teams import draw_gm_lineup
from bot.rules.lineup import Lineup
from bot.rules.match import play
from bot.rules.report import build_report
from bot.rules.tournament import SCHEDULE, Entrant, play_tournament

from .fields import random_field

LINEUPS = {
    "Rote Teufel": "10-10-15-15-20",
    "Wanderer": "0-0-25-30-35",
    "Kicker": "5-5-20-25-30",
    "Blitz": "0-10-20-20-30",
    "Mauer": "10-10-20-15-15",
    "Sturm": "0-0-20-25-45",
}
ENTRANTS = [Entrant(name, Lineup.parse(text)) for name, text in LINEUPS.items()]


def test_golden_tournament():
    """A fixed small tournament: any change to the order of random numbers,
    the engine or the tables changes these values (update only on purpose)."""
    result = play_tournament(ENTRANTS, random.Random(2024))
    assert result.placings == ("Sturm", "GM 0-0-30-40-20", "GM 0-10-16-39-15", "Kicker")
    assert [k.goals for k in result.knockout] == [(8, 7), (3, 0), (5, 3), (15, 8)]
    assert not any(k.by_lot for k in result.knockout)
    assert {n: str(g) for n, g in result.wp_gain.items()} == {
        "Rote Teufel": "0.3", "Wanderer": "1.3", "Kicker": "1.4", "Blitz": "0.4",
        "Mauer": "0.5", "Sturm": "2.6",
    }
    assert result.psz["Sturm"].after == Fraction(1990, 7)
    assert result.psz["Wanderer"].after == Fraction(760, 3)


def test_same_seed_same_result_other_seed_other_result():
    entrants = random_field(20, seed=4)
    first = play_tournament(entrants, random.Random(99))
    again = play_tournament(entrants, random.Random(99))
    assert first == again
    others = [play_tournament(entrants, random.Random(s)) for s in (100, 101, 102)]
    assert all(o.stages != first.stages for o in others)


def test_random_numbers_are_used_in_the_documented_order():
    """GM lineups, then the first draw, then the games of the first stage group
    by group in schedule order (dice by dice)."""
    seed = 31
    result = play_tournament(ENTRANTS, random.Random(seed))
    rng = random.Random(seed)
    gm = [draw_gm_lineup(rng) for _ in range(16 - len(ENTRANTS))]
    assert [t.lineup for t in result.gm_teams] == gm
    names = [t.name for t in result.teams]
    rng.shuffle(names)
    assert result.first_groups == [names[i : i + 4] for i in range(0, 16, 4)]
    lineups = result.lineups
    for group in result.stages[0].groups:
        for game, (h, a) in zip(group.games, SCHEDULE, strict=True):
            assert (game.home, game.away) == (group.teams[h], group.teams[a])
            assert game.goals == play(lineups[game.home], lineups[game.away], rng)


def test_report_is_identical_across_processes():
    """No dependence on hash randomisation or process state."""
    code = (
        "import json, sys\n"
        "from bot.rules.report import build_report\n"
        "from tests.rules.fields import random_field\n"
        "json.dump(build_report(random_field(12, 5), 8, simulations=3000), sys.stdout)\n"
    )
    root = Path(__file__).resolve().parents[2]
    outputs = []
    for hashseed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hashseed)
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True,
            check=True,
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0]) == json.loads(
        json.dumps(build_report(random_field(12, 5), 8, simulations=3000))
    )


def test_wp_gains_stay_exact():
    result = play_tournament(random_field(30, seed=8), random.Random(8))
    for team, gain in result.wp_gain.items():
        assert isinstance(gain, Decimal)
        record = result.record[team]
        assert gain == Decimal(2 * record.won + record.drawn) / 10
