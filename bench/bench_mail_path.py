"""Benchmark: one player mail through the whole Maildir pipeline, reply included.

Registers 40 managers (setup, not measured) on a real SQLite file with the
test harness (``tests.service.harness.Game``: cheap password hashes, so the
figure is the bot's own work, not scrypt), then ingests 240 mails: lineups
that are corrected (the 3:1 rule, the budget) or leave WP unused, lineups
as sent, and ``Status`` requests. Prints the CPU time per mail
(``time.process_time``: spool, ledger, reading, grammar, league, reply
rendering, outbox) for each kind: the fastest of five batches of 8 mails,
the figure least disturbed by other processes on a shared machine. Run it
on two checkouts side by side (each from its own ``bench/``):

    .venv/bin/python -m bench.bench_mail_path
    (cd /path/to/other/checkout && /path/to/.venv/bin/python -m bench.bench_mail_path)
"""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path

from tests.service.harness import Game

KINDS = {
    "corrected (3:1 rule)": "{team}: 10-10-5-30-31",
    "corrected (budget)": "{team}: 10-10-20-25-25",
    "as sent, WP unused": "{team}: 10-10-15-15-19",
    "status": "Status",
}
PASSWORD = re.compile(r"Passwort: (\w{3}-\w{3}-\w{3})")


def main() -> None:
    game = Game(Path(tempfile.mkdtemp(prefix="turnited-bench-")))
    players = []
    for i in range(40):
        address, team = f"p{i}@player.example", f"Team Nummer {i}"
        game.send(game.mail(address, f"Neues Team: {team}\n{team}: 10-10-15-15-20"))
        sent = game.flush()
        match = PASSWORD.search(sent[-1].raw.decode("utf-8", "replace").replace("=\n", ""))
        assert match, "no password in the registration reply"
        players.append((address, team, match.group(1)))
    print("one mail through the Maildir pipeline, CPU time per mail (best of 5 x 8 mails):")
    for kind, body in KINDS.items():
        times = []
        for batch in range(5):
            mails = [game.mail(address, f"Passwort: {password}\n"
                                        + body.format(team=team))
                     for address, team, password in players[batch * 8:batch * 8 + 8]]
            start = time.process_time()
            for raw in mails:
                game.send(raw)
            times.append((time.process_time() - start) / len(mails))
        game.clock.advance(minutes=5)
        print(f"  {kind:<22} {min(times) * 1e3:6.2f} ms")


if __name__ == "__main__":
    main()
