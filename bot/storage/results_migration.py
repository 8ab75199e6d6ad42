"""Migration 11: each round's stored result compressed, the public report kept
once (issue 22: a round of 64 teams stored ~240 KB of JSON, ~25 KB now).

``round_results`` is rebuilt with the storage encoding of
``bot.storage.results``: inputs and report zlib-compressed, and
``public_report`` NULL where it is exactly the report without the player
lineups (a public report of any other shape is kept, compressed). Every text
reads back byte for byte as it was stored, so ``replay --all`` compares with
the same texts as before. One row at a time: memory stays bounded however
many rounds the league has played. The pages the old texts held become free
pages, which the database reuses for the rounds to come.
"""

from __future__ import annotations

import sqlite3

from bot.storage.results import decode, encode, public_encoding

TABLE_V11 = """
CREATE TABLE round_results_v11 (
    round         INTEGER PRIMARY KEY REFERENCES rounds (number),
    inputs        BLOB NOT NULL,                    -- zlib of the JSON (a TEXT: the JSON)
    report        BLOB NOT NULL,                    -- zlib of the JSON (bot.rules.report)
    public_report BLOB,                             -- NULL: the report without player lineups
    created_at    TEXT NOT NULL,
    winner        TEXT,                             -- the summary columns of migration 9
    teams         INTEGER,
    players       INTEGER
)
"""


def compact_round_results_v11(conn: sqlite3.Connection) -> None:
    conn.execute(TABLE_V11)
    rounds = [int(r[0]) for r in conn.execute("SELECT round FROM round_results ORDER BY round")]
    for number in rounds:
        inputs, report, public, created, winner, teams, players = conn.execute(
            "SELECT inputs, report, public_report, created_at, winner, teams, players"
            " FROM round_results WHERE round = ?", (number,)).fetchone()
        report_text = decode(report)
        conn.execute(
            "INSERT INTO round_results_v11 (round, inputs, report, public_report, created_at,"
            " winner, teams, players) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (number, encode(decode(inputs)), encode(report_text),
             public_encoding(report_text, decode(public)), created, winner, teams, players),
        )
    conn.execute("DROP TABLE round_results")
    conn.execute("ALTER TABLE round_results_v11 RENAME TO round_results")
