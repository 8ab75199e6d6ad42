"""Migration 7: a manager stored under the ASCII (``xn--``) spelling of an
internationalised domain gets the Unicode spelling that mail is looked up by;
a manager whose other spelling has a manager of its own, and every plain
address, stays as it was."""

from __future__ import annotations

from bot.league.addresses import normalize_address
from bot.storage import Database, open_database
from bot.storage.addresses import canonical_address
from bot.storage.migrations import MIGRATIONS, apply_migrations

T0 = "2026-01-01T00:00:00+00:00"
ADDRESSES = next(m for m in MIGRATIONS if m.version == 7)
BEFORE = [m for m in MIGRATIONS if m.version < ADDRESSES.version]


def _old_state(tmp_path, addresses: list[str]) -> None:
    old = Database(tmp_path / "turnited.sqlite3")
    apply_migrations(old, tuple(BEFORE))
    with old.transaction() as conn:
        for address in addresses:
            conn.execute("INSERT INTO managers (address, created_at) VALUES (?, ?)",
                         (address, T0))
    old.close()


def _addresses(db) -> list[str]:
    with db.read() as conn:
        return [r[0] for r in conn.execute("SELECT address FROM managers ORDER BY id")]


def test_ascii_spellings_become_the_unicode_key_and_the_rest_stays(tmp_path) -> None:
    _old_state(tmp_path, ["hans@xn--bcher-kva.example", "anna@player.example",
                          "u\u0308nal@xn--mller-kva.example", "odd@xn--zz"])
    db = open_database(tmp_path)
    assert db.schema_version() == MIGRATIONS[-1].version
    assert _addresses(db) == ["hans@bücher.example", "anna@player.example",
                              "\u00fcnal@müller.example", "odd@xn--zz"]
    # the mail of either spelling finds the manager now
    assert normalize_address("Hans <HANS@xn--bcher-kva.example>") == "hans@bücher.example"
    assert normalize_address("hans@bücher.example") == "hans@bücher.example"


def test_two_managers_of_one_mailbox_are_both_kept(tmp_path) -> None:
    _old_state(tmp_path, ["hans@bücher.example", "hans@xn--bcher-kva.example"])
    db = open_database(tmp_path)
    assert _addresses(db) == ["hans@bücher.example", "hans@xn--bcher-kva.example"]


def test_the_key_is_one_per_mailbox() -> None:
    spellings = ["hans@bücher.example", "hans@xn--bcher-kva.example",
                 "hans@bu\u0308cher.example"]
    assert {canonical_address(a) for a in spellings} == {"hans@bücher.example"}
    assert canonical_address("plain@example.org") == "plain@example.org"
