"""Benchmark: the newsletter of a 64-team round mailed to 500 recipients.

Renders the common part of the German and English newsletter once each,
then for every recipient renders their personal block (RULES.md §8: their
one or two teams; subscribers without a team get the common part), splices
it into the common text and HTML, composes the message (never another
player's address), checks it, queues them all into the outbox of a real
SQLite file, and prints the time per recipient, the personal block's share
included. For comparison it also times rendering everything per recipient.

Run: .venv/bin/python -m bench.bench_newsletter [--recipients 500] [--players 52]
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import tempfile
import time
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from bot.mail.compose import compose
from bot.render import PszRow, RoundInfo, WpRow, make_environment, render_newsletter
from bot.render.personal import TeamFacts, personal_block, render_personal, splice
from bot.rules.lineup import Lineup
from bot.rules.report import RoundReport, round_report
from bot.rules.rounding import half_up, to_cents
from bot.rules.tournament import Entrant
from bot.storage import outbox
from bot.storage.db import open_database

BOT = "turnited@example.org"
DEADLINE = datetime(2026, 12, 6, 19, 0, tzinfo=UTC)
ADDRESS = re.compile(rb"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")


def play(players: int, seed: int) -> tuple[RoundReport, list[WpRow], list[PszRow], float]:
    rng = random.Random(seed)
    entrants = [
        Entrant(
            f"Team {i:02d} Übersee-Süd",
            Lineup(rng.randint(1, 9), rng.randint(1, 9), rng.randint(12, 36),
                   rng.randint(12, 36), rng.randint(12, 36)),
        )
        for i in range(players)
    ]
    start = time.perf_counter()
    report = round_report(entrants, seed, simulations=2000)
    seconds = time.perf_counter() - start
    gains = sorted(report.wp_gain.items(), key=lambda e: -e[1])
    wp = [WpRow(1 + [g for _, g in gains].index(g), t, t, f"Manager {t[5:7]}", 90 + g, g)
          for t, g in gains]
    after = sorted(((t, u.after) for t, u in report.psz.items()), key=lambda e: -e[1])
    shown = [half_up(Fraction(a)) for _, a in after]
    psz = [PszRow(1 + shown.index(n), t, t, f"Manager {t[5:7]}", to_cents(a), n)
           for (t, a), n in zip(after, shown, strict=True)]
    return report.public(), wp, psz, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--recipients", type=int, default=500)
    parser.add_argument("--players", type=int, default=52, help="player teams (64 teams in all)")
    parser.add_argument("--english", type=float, default=0.2, help="share of English readers")
    args = parser.parse_args()

    public, wp, psz, report_s = play(args.players, seed=64)
    teams = len(public.teams)
    info = RoundInfo(3, 2, 12)

    rendered = {}
    render_s = {}
    for language in ("de", "en"):
        env = make_environment(language)
        start = time.perf_counter()
        rendered[language] = render_newsletter(
            public, round_info=info, wp_table=wp, psz_table=psz, next_deadline=DEADLINE,
            timezone="Europe/Berlin", language=language, game_name="Turnited",
            game_address=BOT, env=env,
        )
        render_s[language] = time.perf_counter() - start

    english = int(args.recipients * args.english)
    players = [t.name for t in public.players]
    by_name = {r.team: r for r in wp}
    psz_of = {r.team: r.psz for r in psz}

    def facts(name: str) -> TeamFacts:
        row = by_name.get(name)
        if row is None:  # a team that sat this round out
            return TeamFacts(name, Decimal("91.20"), Decimal("91.20"), Decimal("91.20"),
                             Decimal("248.5"), Decimal("248.5"))
        return TeamFacts(name, row.wp - row.gain, row.wp, row.wp, Decimal(250), psz_of[name])

    # every player team has a manager (one in four with a second team); of
    # the other recipients, three in four manage a team that did not play
    # this round, the rest are subscribers without a team
    owned: list[list[str]] = []
    queue = list(players)
    while queue:
        owned.append([queue.pop(0)] + ([queue.pop(0)] if queue and len(owned) % 4 == 1 else []))
    recipients = [
        (f"manager{i:03d}@players.example.com", "en" if i < english else "de",
         owned[i] if i < len(owned) else [f"Bankdrücker {i:03d}"] if i % 4 else [])
        for i in range(args.recipients)
    ]
    per_message = []
    sizes = []
    ids = set()
    composed = []
    start_all = time.perf_counter()
    envs = {language: make_environment(language) for language in ("de", "en")}
    personal_s = []
    for address, language, own in recipients:
        start = time.perf_counter()
        part = (render_personal(personal_block(public, [facts(t) for t in own], wp),
                                language=language, env=envs[language]) if own else None)
        mail = splice(rendered[language], part)
        personal_s.append(time.perf_counter() - start)
        message = compose(
            kind="newsletter", sender=BOT, sender_name="Turnited Spielleitung", to=address,
            subject=mail.subject, text=mail.text, html=mail.html, date=DEADLINE,
            key=f"newsletter/round-{info.number}/{language}", language=language,
            list_unsubscribe=f"mailto:{BOT}?subject=Abmelden",
        )
        per_message.append(time.perf_counter() - start - personal_s[-1])
        # one recipient, and no other player's address anywhere in the bytes
        found = {a.decode().lower() for a in ADDRESS.findall(message.data)}
        allowed = {address, BOT, message.message_id.strip("<>")}
        assert found <= allowed, (address, found - allowed)
        assert message.recipient == address
        ids.add(message.message_id)
        sizes.append(len(message.data))
        composed.append(message)
    check_total = time.perf_counter() - start_all - sum(per_message)
    compose_total = sum(per_message)
    assert len(ids) == len(recipients), "Message-IDs must differ per recipient"

    # queue them as the App does: one transaction into the outbox of a real SQLite file
    with tempfile.TemporaryDirectory(prefix="bench-outbox-") as tmp:
        db = open_database(Path(tmp))
        start = time.perf_counter()
        with db.transaction() as conn:
            for message in composed:
                outbox.enqueue(conn, raw=message.data, message_id=message.message_id,
                               kind="newsletter", recipient=message.recipient, now=DEADLINE,
                               round=info.number)
        queue_total = time.perf_counter() - start
        db.close()

    # the naive way for comparison: render again for every recipient (sampled)
    sample = 5
    start = time.perf_counter()
    for _ in range(sample):
        render_newsletter(
            public, round_info=info, wp_table=wp, psz_table=psz, next_deadline=DEADLINE,
            timezone="Europe/Berlin", language="de", game_name="Turnited", game_address=BOT,
        )
    naive_render = (time.perf_counter() - start) / sample

    render_once = sum(render_s.values())
    personal_total = sum(personal_s)
    per_recipient = (render_once + personal_total + compose_total + queue_total) / len(recipients)
    naive_per_recipient = naive_render + statistics.mean(per_message)
    with_team = [p for p, (_, _, own) in zip(personal_s, recipients, strict=True) if own]
    print(f"round: {teams} teams ({args.players} player teams), "
          f"report with 2000 simulations {report_s:.2f} s (not counted)")
    print(f"render once: de {render_s['de'] * 1000:.0f} ms, en {render_s['en'] * 1000:.0f} ms; "
          f"text {len(rendered['de'].text) / 1024:.0f} KiB, "
          f"HTML {len(rendered['de'].html.encode()) / 1024:.0f} KiB")
    print(f"personal blocks: {len(with_team)} managers with a team, "
          f"{len(recipients) - len(with_team)} subscribers; render + splice median "
          f"{statistics.median(with_team) * 1000:.2f} ms, total {personal_total:.2f} s")
    print(f"compose: {len(recipients)} messages in {compose_total:.2f} s, "
          f"median {statistics.median(per_message) * 1000:.2f} ms, "
          f"max {max(per_message) * 1000:.2f} ms, message {statistics.mean(sizes) / 1024:.0f} KiB "
          f"(checking every message for foreign addresses took {check_total:.2f} s more)")
    print(f"queue: {len(composed)} messages into the SQLite outbox in one transaction: "
          f"{queue_total:.2f} s")
    print(f"per recipient at {len(recipients)} recipients (common part once + personal block "
          f"+ compose + queue): {per_recipient * 1000:.2f} ms "
          f"-> {1 / per_recipient:.0f} recipients/s")
    print(f"per recipient, rendering for each one: {naive_per_recipient * 1000:.2f} ms "
          f"(ratio {naive_per_recipient / per_recipient:.1f}x)")


if __name__ == "__main__":
    main()
