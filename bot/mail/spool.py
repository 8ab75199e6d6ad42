"""The spool: every inbound mail archived byte for byte before anything parses it.

Files are content-addressed (``spool/YYYY-MM/<sha256>.eml``), written to a
temporary name and renamed, so a crash never leaves a half mail under the
final name and writing the same mail twice is harmless. ``spool_many``
archives a whole poll batch and makes it durable with ONE flush of the
spool's file system (``syncfs``; ``sync`` where the platform lacks it), so
the batch costs one disk flush instead of two per mail. Nothing may refer
to a spooled file (the ledger) before that call returned. A file left over
from a crash before the flush is checked against its name's hash and
rewritten when it is not whole.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path


@dataclass(frozen=True, slots=True)
class SpooledMail:
    sha256: str
    path: Path
    relative_path: str


def spool(spool_dir: Path, raw: bytes, now: datetime) -> SpooledMail:
    """Archive ``raw`` under ``spool_dir`` (durably) and return where it lies."""
    return spool_many(spool_dir, [raw], now)[0]


def spool_many(spool_dir: Path, raws: Sequence[bytes], now: datetime) -> list[SpooledMail]:
    """Archive every mail of ``raws`` under ``spool_dir``, then flush them to
    disk at once; returns where each lies (in order)."""
    folder = spool_dir / now.strftime("%Y-%m")
    folder.mkdir(parents=True, exist_ok=True)
    out: list[SpooledMail] = []
    for raw in raws:
        digest = hashlib.sha256(raw).hexdigest()
        path = folder / f"{digest}.eml"
        if not _whole(path, digest):
            tmp = folder / f".{digest}.{os.getpid()}.tmp"
            with open(tmp, "wb") as fh:
                fh.write(raw)
            os.replace(tmp, path)
        out.append(SpooledMail(digest, path, str(path.relative_to(spool_dir))))
    if out:  # also when every file was there: one left by a crash may not be on disk yet
        sync_filesystem(folder)
    return out


def _whole(path: Path, digest: str) -> bool:
    """True when ``path`` exists with exactly the bytes its name promises."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return False
    return hashlib.sha256(data).hexdigest() == digest


def _syncfs() -> object | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        return libc.syncfs
    except (OSError, AttributeError):
        return None


_SYNCFS = _syncfs()


def sync_filesystem(folder: Path) -> None:
    """Write every file and directory entry of ``folder``'s file system to disk
    (one ``syncfs``); raises ``OSError`` when the disk refuses."""
    if _SYNCFS is None:  # not Linux: sync everything
        os.sync()
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        if _SYNCFS(fd) != 0:  # type: ignore[operator]
            err = ctypes.get_errno()
            raise OSError(err, f"syncfs of the spool {str(folder)!r} failed: {os.strerror(err)}")
    finally:
        os.close(fd)
