"""The spool's batch: every mail byte for byte under its hash, one flush,
and a file a crash left half written is written again."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.mail import spool as spool_module
from bot.mail.spool import read_spooled, spool, spool_many

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_a_batch_is_spooled_byte_for_byte_with_one_flush(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flushes: list[Path] = []
    real = spool_module.sync_filesystem
    monkeypatch.setattr(spool_module, "sync_filesystem",
                        lambda folder: (flushes.append(folder), real(folder)))
    raws = [f"mail {n}\r\n".encode() * (n + 1) for n in range(5)] + [b"mail 0\r\n"]
    out = spool_many(tmp_path, raws, NOW)
    assert len(flushes) == 1
    assert [read_spooled(tmp_path, m.relative_path) for m in out] == raws
    assert [m.sha256 for m in out] == [hashlib.sha256(r).hexdigest() for r in raws]
    assert out[0].path == out[-1].path  # the same bytes, one file
    assert all(m.relative_path == f"2026-12/{m.sha256}.eml.gz" for m in out)
    assert sorted(p.name for p in (tmp_path / "2026-12").iterdir()) == sorted(
        {f"{m.sha256}.eml.gz" for m in out})  # no temporary file left
    assert spool_many(tmp_path, [], NOW) == [] and len(flushes) == 1


def test_a_half_written_file_from_a_crash_is_written_again(tmp_path: Path) -> None:
    raw = b"From: a@b.example\r\n\r\nTeam: 10-10-15-15-20\r\n"
    first = spool(tmp_path, raw, NOW)
    first.path.write_bytes(first.path.read_bytes()[:7])  # what a power cut may leave
    again = spool(tmp_path, raw, NOW)
    assert again.path == first.path and read_spooled(tmp_path, again.relative_path) == raw
