"""Three seasons with 40 managers on a real database, checking every invariant.

Managers register one or two teams, send random lineups (many needing
corrections), skip rounds, withdraw, mail late, register third teams (which
dooms their weaker team), sometimes cancel such a registration, and
sometimes send a wrong password or a broken line (which must change
nothing). After every evaluation the whole database is checked against the
rules core; at the end every round is replayed.
"""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

import pytest

from bot.cli import main
from bot.league.outcome import Code
from bot.rules.psz import Result, period_update
from bot.rules.requests import LineError
from bot.rules.rounding import to_cents
from bot.rules.wp import age, gain
from bot.service.commands.withdraw import Withdraw

from .conftest import FAST, Player, after_deadline, lineup, make_league, register

MANAGERS = 40
SEASONS = 3
GM_PSZ = Fraction(250)


def random_lineup(rng: random.Random) -> str:
    return "-".join(str(v) for v in (
        rng.randint(0, 12), rng.randint(0, 12), rng.randint(1, 40), rng.randint(1, 40),
        rng.randint(1, 40)))


class Sim:
    def __init__(self, tmp_path):
        self.league = make_league(tmp_path, FAST, durable=False)
        self.rng = random.Random(2024)
        self.players = [Player(self.league, f"manager{i}@example.org", f"Manager {i}")
                        for i in range(MANAGERS)]
        self.counter = 0
        self.events: dict[str, int] = defaultdict(int)

    def new_name(self, i: int) -> str:
        self.counter += 1
        return f"Club {i} Nr {self.counter}"

    def teams(self, player) -> list[str]:
        with self.league.db.read() as conn:
            rows = conn.execute(
                "SELECT t.name FROM teams t JOIN managers m ON m.id = t.manager_id"
                " WHERE m.address = ? AND t.deleted_round IS NULL AND t.doomed_round IS NULL"
                " ORDER BY t.id", (player.address,))
            return [r[0] for r in rows]

    def moves_count(self) -> int:
        with self.league.db.read() as conn:
            return conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0]

    def play_round(self, first: bool) -> None:
        rng, on_time = self.rng, after_deadline(self.league, minutes=-60)
        late = after_deadline(self.league, minutes=0) - timedelta(seconds=-30)
        for i, player in enumerate(self.players):
            if first:
                requests = [register(self.new_name(i)), lineup(random_lineup(rng))]
                if rng.random() < 0.4:
                    requests += [register(self.new_name(i)), lineup(random_lineup(rng))]
                assert player.send(*requests, now=on_time).accepted
                continue
            roll = rng.random()
            when = late if rng.random() < 0.05 else on_time
            own = self.teams(player)
            if roll < 0.04:  # a wrong password changes nothing
                before = self.moves_count()
                out = player.send(lineup(random_lineup(rng), own[0]) if own else register("x"),
                                  now=when, password="zzz-zzz-zzz")
                assert not out.accepted and out.errors[0].code == Code.PASSWORD_WRONG
                assert self.moves_count() == before
                self.events["wrong_password"] += 1
            elif roll < 0.07 and own:  # a broken line changes nothing
                before = self.moves_count()
                bad = LineError("Aufstellung: 10-10-x", 2, "not a lineup", "10-10-15-15-20")
                out = player.send(lineup(random_lineup(rng), own[0]), now=when, errors=(bad,))
                assert not out.accepted and self.moves_count() == before
                self.events["line_error"] += 1
            elif roll < 0.13:  # a new team (a third one dooms the weaker)
                name = self.new_name(i)
                out = player.send(register(name), lineup(random_lineup(rng)), now=when)
                if out.accepted:
                    self.events["registered"] += 1
                    if Code.TEAM_WILL_BE_DELETED in out.codes():
                        self.events["doomed"] += 1
                        if rng.random() < 0.3:
                            undo = player.send(Withdraw(f"Zurückziehen: {name}", name), now=when)
                            assert Code.REGISTRATION_WITHDRAWN in undo.codes()
                            self.events["registration_withdrawn"] += 1
                else:
                    assert [e.code for e in out.errors] == [Code.TOO_MANY_TEAMS]
            elif roll < 0.25:  # skip this round
                self.events["skipped"] += 1
            else:
                for name in own:
                    if rng.random() < 0.05:
                        player.send(Withdraw(f"Zurückziehen: {name}", name), now=when)
                        self.events["withdrawn"] += 1
                    else:
                        out = player.send(lineup(random_lineup(rng), name), now=when)
                        assert out.accepted
                        self.events["late" if out.late else "lineup"] += 1

    # -- invariants --------------------------------------------------------------

    def check(self, result) -> None:
        conn_ctx = self.league.db.read()
        with conn_ctx as conn:
            teams = {r["id"]: r for r in conn.execute("SELECT * FROM teams")}
            # at most two teams per manager that are not announced for deletion
            per_manager = defaultdict(int)
            for t in teams.values():
                if t["deleted_round"] is None and t["doomed_round"] is None:
                    per_manager[t["manager_id"]] += 1
            assert max(per_manager.values()) <= 2
            entries = conn.execute("SELECT * FROM round_entries WHERE round = ?",
                                   (result.round,)).fetchall()
            played = defaultdict(int)
            for e in entries:
                played[teams[e["team_id"]]["manager_id"]] += 1
            assert not played or max(played.values()) <= 2
            # the entrants are exactly the teams with a lineup that were not doomed
            expected = {
                r["team_id"] for r in conn.execute(
                    "SELECT m.team_id FROM moves m JOIN teams t ON t.id = m.team_id"
                    " WHERE m.round = :r AND m.id = (SELECT MAX(id) FROM moves"
                    "  WHERE round = :r AND team_id = m.team_id) AND m.withdrawn = 0"
                    " AND (t.deleted_round IS NULL OR t.deleted_round > :r)",
                    {"r": result.round})
            }
            assert {e["team_id"] for e in entries} == expected
            # WP: never below 90; 90 + gains with ageing, step by step
            for team_id, t in teams.items():
                wp = Decimal("90")
                history = conn.execute(
                    "SELECT * FROM wp_history WHERE team_id = ?"
                    " ORDER BY round, kind = 'ageing'", (team_id,)).fetchall()
                for h in history:
                    assert Decimal(h["wp_before"]) == wp
                    if h["kind"] == "gain":
                        e = conn.execute("SELECT * FROM round_entries WHERE round = ? AND"
                                         " team_id = ?", (h["round"], team_id)).fetchone()
                        assert Decimal(e["wp_gain"]) == gain(e["won"], e["drawn"])
                        wp += Decimal(e["wp_gain"])
                    else:
                        wp = age(wp)
                    assert Decimal(h["wp_after"]) == wp
                assert Decimal(t["wp"]) == wp >= 90
            # ageing after the season's last round hit every existing team
            if result.aged:
                aged = {r[0] for r in conn.execute(
                    "SELECT team_id FROM wp_history WHERE kind = 'ageing' AND round = ?",
                    (result.round,))}
                existing = {i for i, t in teams.items() if t["deleted_round"] is None
                            and t["registered_round"] <= result.round}
                assert aged == existing
            # PSZ: the rules core's period update over the round's games
            start = {teams[e["team_id"]]["name"]: Fraction(Decimal(e["psz_before"]))
                     for e in entries}
            report = result.report.to_json()  # the layout the league stores
            for e in entries:
                name = teams[e["team_id"]]["name"]
                games = []
                for stage in report["stages"]:
                    for group in stage["groups"]:
                        for g in group["games"]:
                            games += self._game(name, g, start)
                for g in report["knockout"]:
                    games += self._game(name, g, start)
                update = period_update(start[name], games, bound=True)
                assert Decimal(e["psz_after"]) == to_cents(update.after)
            # the WP table: listed = played in the last three rounds, by WP
            listed = {r[0] for r in conn.execute(
                "SELECT DISTINCT t.name FROM round_entries e JOIN teams t ON t.id = e.team_id"
                " WHERE e.round > ? AND (t.deleted_round IS NULL OR t.deleted_round > ?)",
                (result.round - 3, result.round))}
            assert {r.team for r in result.wp_table} == listed
            wps = [r.wp for r in result.wp_table]
            assert wps == sorted(wps, reverse=True)

    @staticmethod
    def _game(name, game, start):
        if name not in (game["home"], game["away"]):
            return []
        own, other = game["goals"] if name == game["home"] else reversed(game["goals"])
        opponent = game["away"] if name == game["home"] else game["home"]
        result = Result.WIN if own > other else Result.DRAW if own == other else Result.LOSS
        return [(start.get(opponent, GM_PSZ), result)]


@pytest.mark.slow
def test_three_seasons_with_forty_managers(tmp_path, capsys):
    sim = Sim(tmp_path)
    rounds = SEASONS * FAST.season_rounds
    results = []
    for number in range(1, rounds + 1):
        sim.play_round(first=number == 1)
        result = sim.league.evaluate_due(after_deadline(sim.league), seed=number * 7919)
        assert result is not None and result.round == number
        sim.check(result)
        results.append(result)
        sim.events["deleted"] += len(result.deleted)
    assert [r.aged for r in results] == [r.round_in_season == 5 for r in results]
    assert results[-1].season == SEASONS and results[-1].next_round == rounds + 1
    assert max(len(r.report.teams) for r in results) >= 64  # the field grew to 16 groups
    for event in ("wrong_password", "line_error", "registered", "doomed", "deleted",
                  "registration_withdrawn", "skipped", "withdrawn", "late"):
        assert sim.events[event] > 0, f"the simulation never exercised {event!r}"
    for number in range(1, rounds + 1):
        assert sim.league.replay(number).identical
    state = str(tmp_path / "state")
    assert main(["replay", "--all", "--state", state, "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert out.count("identical") == rounds
    assert main(["status", "--state", state, "--lang", "en"]) == 0
    status = capsys.readouterr().out
    assert f"(season {SEASONS + 1}, round 1)" in status and "Managers: " in status
