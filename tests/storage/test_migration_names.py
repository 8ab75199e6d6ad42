"""Migration 5: names stored before issue 11 with format characters are
cleaned; every other name, its key and the league's state stay as they were."""

from __future__ import annotations

from bot.league.names import name_key
from bot.storage import Database, open_database
from bot.storage.migrations import MIGRATIONS, apply_migrations

T0 = "2026-01-01T00:00:00+00:00"
NAMES = next(m for m in MIGRATIONS if m.name == "names without format characters")
BEFORE = [m for m in MIGRATIONS if m.version < NAMES.version]


def _old_state(tmp_path, teams: list[tuple[str, str, str]], manager: str) -> None:
    old = Database(tmp_path / "turnited.sqlite3")
    apply_migrations(old, tuple(BEFORE))
    with old.transaction() as conn:
        conn.execute("INSERT INTO managers (address, display_name, created_at)"
                     " VALUES ('old@player.example', ?, ?)", (manager, T0))
        for name, key, short in teams:
            conn.execute(
                "INSERT INTO teams (name, name_key, short_name, manager_id, wp, psz,"
                " registered_round, created_at) VALUES (?, ?, ?, 1, '90', '250.00', 1, ?)",
                (name, key, short, T0))
    old.close()


def _rows(db) -> list[tuple]:
    with db.read() as conn:
        return [tuple(r) for r in conn.execute(
            "SELECT name, name_key, short_name FROM teams ORDER BY id")]


def test_format_characters_leave_stored_names_and_normal_names_stay(tmp_path) -> None:
    normal = ("Alte  Herren", "alte  herren", "Alte")  # odd as stored: left byte for byte
    hidden = ("Rote\u200b Teufel\u202e", "rote\u200b teufel\u202e", "Teu\u00adfel")
    _old_state(tmp_path, [normal, hidden], "Ol\u200dga")
    db = open_database(tmp_path)
    assert db.schema_version() == MIGRATIONS[-1].version
    assert _rows(db) == [normal, ("Rote Teufel", name_key("Rote Teufel"), "Teufel")]
    with db.read() as conn:
        assert conn.execute("SELECT display_name FROM managers").fetchone()[0] == "Olga"


def test_a_cleaned_name_that_would_clash_keeps_its_stored_form(tmp_path) -> None:
    plain = ("Rote Teufel", "rote teufel", "Teufel")
    hidden = ("Rote Teu\u200bfel", "rote teu\u200bfel", "Teufel2")
    _old_state(tmp_path, [plain, hidden], "Olga")
    db = open_database(tmp_path)
    assert _rows(db) == [plain, hidden]
