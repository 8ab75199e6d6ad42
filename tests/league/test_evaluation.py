"""Evaluating rounds: WP, PSZ, deletions, seasons, tables, idempotence, crash safety, replay."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

import pytest

from bot.league.errors import LeagueError, UnknownRound
from bot.league.evaluation import STEPS
from bot.rules.rounding import to_cents
from bot.rules.wp import age
from bot.service.commands.withdraw import Withdraw
from bot.storage import results as result_rows

from .conftest import (
    FAST,
    FIRST_DEADLINE,
    START,
    Player,
    after_deadline,
    dump,
    evaluate,
    lineup,
    make_league,
    register,
)


def team_row(league, name):
    with league.db.read() as conn:
        return conn.execute("SELECT * FROM teams WHERE name = ?", (name,)).fetchone()


def field(league, n=5):
    """``n`` managers with one team each, all with a lineup for the open round."""
    players = []
    for i in range(n):
        p = Player(league, f"m{i}@example.org", f"Manager {i}")
        p.send(register(f"Team {i}"), lineup("10-10-15-15-20" if i % 2 else "0-10-30-20-20"))
        players.append(p)
    return players


def test_nothing_is_due_before_the_deadline(league):
    field(league, 2)
    assert league.evaluate_due(FIRST_DEADLINE) is None
    assert league.evaluate_due(FIRST_DEADLINE + timedelta(seconds=1), seed=5).round == 1


def test_evaluation_applies_the_report(league):
    field(league, 5)
    result = evaluate(league, seed=42)
    assert (result.round, result.season, result.round_in_season, result.seed) == (1, 1, 1, 42)
    assert result.next_round == 2
    assert result.next_deadline == FIRST_DEADLINE + FAST.round_length
    report = result.report
    for i in range(5):
        name = f"Team {i}"
        row = team_row(league, name)
        rec = report.record[name]
        assert Decimal(row["wp"]) == Decimal("90") + Decimal("0.2") * rec.won + \
            Decimal("0.1") * rec.drawn
        assert report.wp_gain[name] == Decimal(row["wp"]) - 90
        assert row["psz"] == str(to_cents(report.psz[name].after))
        assert row["last_played_round"] == 1
    with league.db.read() as conn:
        rnd = conn.execute("SELECT * FROM rounds WHERE number = 1").fetchone()
        assert (rnd["state"], rnd["seed"]) == ("evaluated", 42)
        nxt = league.open_round(conn)
        assert (nxt.number, nxt.season, nxt.round_in_season) == (2, 1, 2)
    assert "lineup" not in json.dumps([t for t in result.public.to_json()["teams"]
                                       if not t.get("gm")])
    assert result.public == result.report.public() and result.public.is_public
    assert {r.address for r in result.recipients} == {f"m{i}@example.org" for i in range(5)}


def test_lineups_are_corrected_against_the_budget_at_evaluation(league):
    anna = Player(league, "anna@example.org")
    anna.send(register("Alpha"), lineup("12-3-10-40-50"))
    with league.db.transaction() as conn:
        conn.execute("UPDATE teams SET wp = '95.9'")
    result = evaluate(league)
    # cap, 3:1, then budget floor(95.9) = 95
    assert str(result.report.team("Alpha").lineup) == "10-3-10-30-29"
    with league.db.read() as conn:
        entry = conn.execute("SELECT * FROM round_entries").fetchone()
    assert (entry["lineup"], entry["played"], entry["budget"]) == ("12-3-10-40-50",
                                                                   "10-3-10-30-29", 95)


def test_withdrawn_and_silent_teams_do_not_play(league):
    players = field(league, 3)
    with league.db.transaction() as conn:
        conn.execute("UPDATE teams SET registered_round = 0")
    players[0].send(Withdraw("Zurückziehen: Team 0", "Team 0"))
    result = evaluate(league)
    names = {t.name for t in result.report.players}
    assert names == {"Team 1", "Team 2"}
    assert team_row(league, "Team 0")["wp"] == "90"


def test_empty_round_still_counts(league):
    result = evaluate(league)
    assert result.report.empty is True and result.wp_table == ()
    with league.db.read() as conn:
        assert league.open_round(conn).round_in_season == 2


def test_the_weaker_team_is_deleted_at_evaluation_and_does_not_play(league):
    anna = Player(league, "anna@example.org")
    anna.send(register("Alpha"), lineup("10-10-15-15-20"), register("Beta"),
              lineup("10-10-15-15-20"))
    evaluate(league)
    with league.db.transaction() as conn:  # make the WP differ for sure
        conn.execute("UPDATE teams SET wp = '93.1' WHERE name = 'Alpha'")
        conn.execute("UPDATE teams SET wp = '92.9' WHERE name = 'Beta'")
    out = anna.send(lineup("10-10-15-15-20", "Alpha"), lineup("10-10-15-15-20", "Beta"),
                    register("Gamma"), lineup("10-10-15-15-20"), now=START + timedelta(days=8))
    assert [t.name for t in out.teams if t.doomed] == ["Beta"]
    result = evaluate(league)
    assert result.deleted == ("Beta",)
    played = {t.name for t in result.report.players}
    assert played == {"Alpha", "Gamma"}
    assert team_row(league, "Beta")["deleted_round"] == 2
    with league.db.read() as conn:
        active = conn.execute(
            "SELECT COUNT(*) FROM teams WHERE deleted_round IS NULL").fetchone()[0]
    assert active == 2


def test_late_mail_plays_in_the_next_round(league):
    anna = Player(league, "anna@example.org")
    anna.send(register("Alpha"), lineup("10-10-15-15-20"))
    late = anna.send(register("Beta"), lineup("0-10-30-20-20"),
                     now=FIRST_DEADLINE + timedelta(minutes=5))
    assert late.late and late.round == 2
    first = evaluate(league)
    assert {t.name for t in first.report.players} == {"Alpha"}
    with league.db.read() as conn:
        status = league.status(conn, FIRST_DEADLINE + timedelta(minutes=10))
    assert status.round == 2 and status.teams_with_lineup == ("Beta",)
    second = evaluate(league)
    assert {t.name for t in second.report.players} == {"Beta"}


def test_team_that_skips_rounds_keeps_wp_and_is_listed_three_rounds(league):
    anna, bob = Player(league, "anna@example.org", "Anna"), Player(league, "bob@example.org")
    anna.send(register("Alpha"), lineup("10-10-15-15-20"))
    bob.send(register("Beta"), lineup("10-10-15-15-20"))
    first = evaluate(league)
    alpha_wp = team_row(league, "Alpha")["wp"]
    assert [r.team for r in first.wp_table] == sorted(
        ["Alpha", "Beta"], key=lambda n: -Decimal(team_row(league, n)["wp"]))
    listed = []
    for round_number in range(2, 6):
        now = after_deadline(league, minutes=-60)
        bob.send(lineup("10-10-15-15-20"), now=now)
        result = evaluate(league)
        rows = {r.team: r for r in result.wp_table}
        listed.append("Alpha" in rows)
        if "Alpha" in rows:
            assert rows["Alpha"].gain is None and rows["Alpha"].manager == "Anna"
            assert rows["Alpha"].wp == Decimal(alpha_wp).quantize(Decimal("0.01"))
        assert rows["Beta"].gain is not None
        if round_number < 5:
            assert team_row(league, "Alpha")["wp"] == alpha_wp  # kept, not listed or not
    assert listed == [True, True, False, False]
    # Ageing after round 5 applies to the hidden team too.
    assert Decimal(team_row(league, "Alpha")["wp"]) == age(Decimal(alpha_wp))
    # Playing again lists it again.
    anna.send(lineup("10-10-15-15-20"), now=after_deadline(league, minutes=-60))
    assert "Alpha" in {r.team for r in evaluate(league).wp_table}


def test_five_rounds_make_a_season_and_every_team_ages(league):
    players = field(league, 4)
    history = []
    for _ in range(5):
        for p in players:
            p.send(lineup("10-10-15-15-20"), now=after_deadline(league, minutes=-60))
        before = {f"Team {i}": Decimal(team_row(league, f"Team {i}")["wp"]) for i in range(4)}
        result = evaluate(league)
        history.append((result.season, result.round_in_season, result.aged))
        gains = dict(result.report.wp_gain)
    assert history == [(1, 1, False), (1, 2, False), (1, 3, False), (1, 4, False), (1, 5, True)]
    for name, wp in before.items():
        assert Decimal(team_row(league, name)["wp"]) == age(wp + gains[name])
    with league.db.read() as conn:
        nxt = league.open_round(conn)
        assert (nxt.number, nxt.season, nxt.round_in_season) == (6, 2, 1)
        assert conn.execute("SELECT COUNT(*) FROM wp_history WHERE kind = 'ageing'"
                            ).fetchone()[0] == 4


def test_wp_stays_exact_over_100_rounds(tmp_path):
    league = make_league(tmp_path, replace(FAST, season_rounds=1000), durable=False)
    players = field(league, 6)
    tenths = {f"Team {i}": 0 for i in range(6)}
    for round_number in range(100):
        if round_number:
            for p in players:
                p.send(lineup("10-10-15-15-20"), now=after_deadline(league, minutes=-60))
        result = evaluate(league, seed=round_number)
        for name, rec in result.report.record.items():
            if name in tenths:
                tenths[name] += 2 * rec.won + rec.drawn
    for name, total in tenths.items():
        stored = team_row(league, name)["wp"]
        assert Decimal(stored) == Decimal(90) + Decimal(total) / 10
        assert Fraction(Decimal(stored)) == 90 + Fraction(total, 10)
        assert len(stored.partition(".")[2]) <= 1  # no binary-float residue like .30000000004


def test_evaluating_twice_is_impossible(league):
    field(league, 4)
    now = after_deadline(league)
    assert league.evaluate_due(now, seed=3) is not None
    before = dump(league)
    assert league.evaluate_due(now, seed=3) is None  # round 2 is not due yet
    assert dump(league) == before


def test_concurrent_evaluations_evaluate_once(league):
    field(league, 4)
    now = after_deadline(league)
    results, barrier = [], threading.Barrier(3)

    def run(seed):
        barrier.wait()
        results.append(league.evaluate_due(now, seed=seed))

    threads = [threading.Thread(target=run, args=(s,)) for s in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(r is not None for r in results) == 1
    with league.db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM round_results").fetchone()[0] == 1
        assert conn.execute("SELECT COUNT(*) FROM rounds").fetchone()[0] == 2


class Crash(Exception):
    pass


@pytest.mark.parametrize("point", STEPS)
def test_a_crash_at_any_step_leaves_the_old_state(tmp_path, point):
    league = make_league(tmp_path)
    anna = Player(league, "anna@example.org")
    anna.send(register("Alpha"), lineup("10-10-15-15-20"), register("Beta"),
              lineup("0-10-30-20-20"))
    field(league, 3)
    for _ in range(4):  # reach the season's last round: ageing is on the path
        evaluate(league)
        for name in ("Alpha", "Beta"):
            anna.send(lineup("10-10-15-15-20", name), now=after_deadline(league, minutes=-60))
    with league.db.transaction() as conn:
        conn.execute("UPDATE teams SET wp = '91.5' WHERE name = 'Beta'")
        conn.execute("UPDATE teams SET wp = '95' WHERE name = 'Alpha'")
    anna.send(register("Gamma"), lineup("10-10-15-15-20"), now=after_deadline(league, -60))
    before = dump(league)

    def explode(name):
        if name == point:
            raise Crash(name)

    league.step = explode
    now = after_deadline(league)
    with pytest.raises(Crash):
        league.evaluate_due(now, seed=9)
    assert dump(league) == before
    league.step = None
    result = league.evaluate_due(now, seed=9)
    assert result is not None and result.aged and result.deleted == ("Beta",)
    assert league.evaluate_due(now, seed=9) is None


def test_a_killed_process_leaves_the_old_state(tmp_path):
    import subprocess
    import sys
    import textwrap

    league = make_league(tmp_path)
    field(league, 4)
    before = dump(league)
    now = after_deadline(league)
    script = textwrap.dedent(f"""
        import os, sys
        sys.path[:0] = {sys.path!r}
        from datetime import datetime
        from bot.league.service import League
        from bot.storage import open_database
        league = League(open_database({str(tmp_path / 'state')!r}))
        league.step = lambda name: os._exit(3) if name == "results_stored" else None
        league.evaluate_due(datetime.fromisoformat({now.isoformat()!r}), seed=1)
        """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
    assert proc.returncode == 3, proc.stderr.decode()
    assert dump(league) == before
    assert league.evaluate_due(now, seed=1) is not None


def test_replay_reproduces_rounds_and_notices_tampering(league):
    field(league, 6)
    evaluate(league, seed=123)
    outcome = league.replay(1)
    assert outcome.identical and outcome.seed == 123 and outcome.diff == ""
    with league.db.transaction() as conn:
        stored = json.loads(result_rows.stored_report(conn, 1, public=False))
        stored["placings"] = list(reversed(stored["placings"]))
        conn.execute("UPDATE round_results SET report = ?", (json.dumps(stored),))
    tampered = league.replay(1)
    assert not tampered.identical and "placings" in tampered.diff
    with pytest.raises(UnknownRound):
        league.replay(2)


def test_next_deadline_defaults_and_validation(league):
    far = FIRST_DEADLINE + timedelta(days=30)
    result = league.evaluate_due(far, seed=1)
    assert result.next_deadline > far  # rolled forward past now
    assert (result.next_deadline - FIRST_DEADLINE) % FAST.round_length == timedelta(0)
    with pytest.raises(LeagueError, match="not after now"):
        league.evaluate_due(result.next_deadline + timedelta(hours=1),
                            next_deadline=result.next_deadline)


def test_status_reminders_and_bounces(league):
    players = field(league, 3)
    evaluate(league)
    players[0].send(lineup("10-10-15-15-20"), now=after_deadline(league, -60))
    players[1].send(Withdraw("Zurückziehen: Team 1", "Team 1"), now=after_deadline(league, -60))
    with league.db.transaction() as conn:
        status = league.status(conn, START + timedelta(days=8))
        assert (status.season, status.round, status.teams, status.managers) == (1, 2, 3, 3)
        assert status.teams_with_lineup == ("Team 0",) and not status.deadline_passed
        reminders = league.managers_without_lineup(conn, 2)
        assert [(r.address, r.teams) for r in reminders] == [("m2@example.org", ("Team 2",))]
        bounce = league.record_bounce(conn, "M2@Example.org", None, "mailbox full")
        row = conn.execute("SELECT * FROM bounces WHERE id = ?", (bounce,)).fetchone()
        assert row["manager_id"] is not None and row["recipient"] == "m2@example.org"


def test_set_deadline_moves_only_the_open_round(league):
    new = FIRST_DEADLINE + timedelta(days=2)
    league.set_deadline(1, new)
    assert league.evaluate_due(FIRST_DEADLINE + timedelta(hours=1)) is None
    evaluate(league)
    with pytest.raises(LeagueError, match="already evaluated"):
        league.set_deadline(1, new)
