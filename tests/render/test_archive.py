"""The public archive folder (bot.render.archive)."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

from bot.render import LineupLeakError, render_newsletter
from bot.render.archive import archived_rounds, round_stem, write_archive, write_index
from bot.render.model import RoundInfo
from tests.render.rounds import Round


def newsletter(rnd: Round, number: int, language: str = "de", game_name: str = "Turnited"):
    return render_newsletter(
        rnd.public, round_info=RoundInfo(1 + (number - 1) // 5, 1 + (number - 1) % 5, number),
        wp_table=rnd.wp_table, psz_table=rnd.psz_table, next_deadline=None, timezone="UTC",
        language=language, game_name=game_name,
    )


def test_round_stem() -> None:
    assert round_stem(7) == "round-007"
    assert round_stem(1234) == "round-1234"
    for bad in (0, -1, True, "3"):
        with pytest.raises(ValueError, match="round number"):
            round_stem(bad)  # type: ignore[arg-type]


def test_archive_files_and_index(round16: Round, tmp_path: Path) -> None:
    for number in (1, 12, 2):
        paths = write_archive(
            tmp_path, number, newsletter(round16, number), round16.public, game_name="Turnited"
        )
    assert paths.html == tmp_path / "round-002.html"
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [
        "index.html",
        "round-001.html", "round-001.json", "round-001.txt",
        "round-002.html", "round-002.json", "round-002.txt",
        "round-012.html", "round-012.json", "round-012.txt",
    ]
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'href="(round-\d+\.html)"', index)
    assert links == ["round-012.html", "round-002.html", "round-001.html"]  # newest first
    assert "Turnited: Ergebnisse der Spielrunde 12 (Saison 3, Runde 2)</a>" in index
    assert 'href="round-012.txt"' in index and 'href="round-012.json"' in index
    assert "3 Spielrunden" in index
    for path in tmp_path.iterdir():
        # private like the rest of the state; `turnited publish` makes a web root readable
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_archived_files_are_what_was_rendered(round16: Round, tmp_path: Path) -> None:
    mail = newsletter(round16, 12)
    write_archive(tmp_path, 12, mail, round16.public, game_name="Turnited")
    assert (tmp_path / "round-012.html").read_text(encoding="utf-8") == mail.html
    assert (tmp_path / "round-012.txt").read_text(encoding="utf-8") == mail.text
    stored = json.loads((tmp_path / "round-012.json").read_text(encoding="utf-8"))
    assert stored == round16.public
    players = [t for t in stored["teams"] if not t["gm"]]
    assert players and all("lineup" not in t for t in players)


def test_rewriting_a_round_replaces_it(round16: Round, tmp_path: Path) -> None:
    write_archive(tmp_path, 5, newsletter(round16, 5, "de"), round16.public, game_name="T")
    write_archive(tmp_path, 5, newsletter(round16, 5, "en"), round16.public, game_name="T")
    assert "results of round 5" in (tmp_path / "round-005.html").read_text(encoding="utf-8")
    assert len(archived_rounds(tmp_path)) == 1
    assert "1 round<" in (tmp_path / "index.html").read_text(encoding="utf-8")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_full_report_refused_and_nothing_written(round16: Round, tmp_path: Path) -> None:
    with pytest.raises(LineupLeakError):
        write_archive(tmp_path, 3, newsletter(round16, 3), round16.report, game_name="T")
    assert list(tmp_path.iterdir()) == []


def test_failed_write_leaves_no_temporary_file(round16: Round, tmp_path: Path) -> None:
    (tmp_path / "round-004.html").mkdir()  # os.replace onto a directory fails
    with pytest.raises(OSError):
        write_archive(tmp_path, 4, newsletter(round16, 4), round16.public, game_name="T")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_titles_are_escaped_in_the_index(round16: Round, tmp_path: Path) -> None:
    nasty = '<script>alert(1)</script> & "Co"'
    write_archive(tmp_path, 9, newsletter(round16, 9, game_name=nasty), round16.public,
                  game_name=nasty)
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "<script" not in index
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#34;Co&#34;" in index
    for bad in ("src=", "<img", "<link", "url(", "http://", "https://"):
        assert bad not in index


def test_empty_archive_index(tmp_path: Path) -> None:
    write_index(tmp_path, game_name="Turnited", language="en")
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "No round evaluated yet." in index and "0 rounds" in index
