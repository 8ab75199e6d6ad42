"""The spool: every inbound mail archived byte for byte before anything parses it.

Files are content-addressed (``spool/YYYY-MM/<sha256>.eml.gz``: the SHA-256 of
the mail's exact bytes, gzip-compressed with a fixed header so the same mail
always gives the same file), written to a temporary name and renamed, so a
crash never leaves a half mail under the final name and writing the same mail
twice is harmless. ``spool_many`` archives a whole poll batch and makes it
durable with ONE flush of the spool's file system (``syncfs``; ``sync`` where
the platform lacks it): nothing may refer to a spooled file (the ledger)
before that call returned. A file left over from a crash before the flush is
checked against its name's hash and rewritten when it is not whole.
``read_spooled`` returns the exact bytes again and also reads the uncompressed
``<sha256>.eml`` files older versions wrote; ``remove_spooled`` removes the
mails of an address whose data was erased. The spool directory is private
to the bot's user (0700) and every file is 0600.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gzip
import hashlib
import os
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from bot.errors import TurnitedError

#: The suffix of a spooled mail (gzip); ``.eml`` files of older versions stay readable.
SUFFIX = ".eml.gz"
LEGACY_SUFFIX = ".eml"
#: zlib level 6 (gzip's default): about 4x smaller mail at a few ms per MB.
COMPRESSLEVEL = 6


class SpoolFileMissing(TurnitedError, FileNotFoundError):
    """A ledgered mail's spool file is gone (deleted or never restored from a backup)."""


@dataclass(frozen=True, slots=True)
class SpooledMail:
    sha256: str
    path: Path
    relative_path: str


def _private_dir(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.stat().st_mode & 0o077:
        os.chmod(path, 0o700)


def spool(spool_dir: Path, raw: bytes, now: datetime) -> SpooledMail:
    """Archive ``raw`` (compressed, durably) under ``spool_dir`` and return where it lies."""
    return spool_many(spool_dir, [raw], now)[0]


def spool_many(spool_dir: Path, raws: Sequence[bytes], now: datetime) -> list[SpooledMail]:
    """Archive every mail of ``raws`` under ``spool_dir``, then flush them to
    disk at once; returns where each lies (in order). A mail already spooled,
    compressed or in the old plain form, is not written again."""
    _private_dir(spool_dir)
    folder = spool_dir / now.strftime("%Y-%m")
    _private_dir(folder)
    out: list[SpooledMail] = []
    for raw in raws:
        digest = hashlib.sha256(raw).hexdigest()
        legacy = folder / f"{digest}{LEGACY_SUFFIX}"
        if _whole(legacy, digest, compressed=False):
            out.append(SpooledMail(digest, legacy, str(legacy.relative_to(spool_dir))))
            continue
        path = folder / f"{digest}{SUFFIX}"
        if not _whole(path, digest, compressed=True):
            tmp = folder / f".{digest}.{os.getpid()}.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with open(fd, "wb") as fh:
                fh.write(gzip.compress(raw, compresslevel=COMPRESSLEVEL, mtime=0))
            os.replace(tmp, path)
        out.append(SpooledMail(digest, path, str(path.relative_to(spool_dir))))
    if out:  # also when every file was there: one left by a crash may not be on disk yet
        sync_filesystem(folder)
    return out


def _whole(path: Path, digest: str, *, compressed: bool) -> bool:
    """True when ``path`` exists with exactly the bytes its name promises."""
    try:
        data = path.read_bytes()
        if compressed:
            data = gzip.decompress(data)
    except FileNotFoundError:
        return False
    except (OSError, EOFError, zlib.error):  # a half-written gzip stream from a crash
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


def read_spooled(spool_dir: Path, relative_path: str) -> bytes:
    """The exact bytes of the spooled mail at ``relative_path`` (as the ledger
    stores it); a compressed file and an old plain ``.eml`` are both read.
    A missing file raises ``SpoolFileMissing`` naming it."""
    path = Path(spool_dir) / relative_path
    candidates = [path]
    if path.name.endswith(SUFFIX):  # restored from an old backup, uncompressed
        candidates.append(path.with_name(path.name.removesuffix(".gz")))
    elif path.name.endswith(LEGACY_SUFFIX):  # re-compressed by hand
        candidates.append(path.with_name(path.name + ".gz"))
    for candidate in candidates:
        try:
            data = candidate.read_bytes()
        except FileNotFoundError:
            continue
        return gzip.decompress(data) if candidate.name.endswith(".gz") else data
    raise SpoolFileMissing(
        f"the spooled mail {relative_path!r} is missing from {spool_dir}; restore the "
        "spool from a backup (the ledger keeps its SHA-256 to check it)")


def remove_spooled(spool_dir: Path, relative_paths: Sequence[str]) -> int:
    """Remove the spooled mails at ``relative_paths`` (either form, compressed
    or plain) and flush the removal to disk (``Daten löschen``: the raw mails
    of an erased address); returns how many files were removed. A path that
    leads out of the spool is refused."""
    root = Path(spool_dir).resolve()
    removed = 0
    folders: set[Path] = set()
    for relative_path in relative_paths:
        path = (root / relative_path).resolve()
        if not relative_path or root not in path.parents:
            raise ValueError(f"{relative_path!r} is no file of the spool {str(root)!r}")
        for candidate in (path, path.with_name(path.name.removesuffix(".gz")),
                          path.with_name(path.name + ".gz")):
            if candidate.name.endswith((SUFFIX, LEGACY_SUFFIX)) and candidate.exists():
                candidate.unlink()
                folders.add(candidate.parent)
                removed += 1
    for folder in folders:
        sync_filesystem(folder)
    return removed


def spool_file_exists(spool_dir: Path, relative_path: str) -> bool:
    """Whether ``read_spooled`` would find the file (``turnited check``)."""
    path = Path(spool_dir) / relative_path
    if path.exists():
        return True
    if path.name.endswith(SUFFIX):
        return path.with_name(path.name.removesuffix(".gz")).exists()
    return path.with_name(path.name + ".gz").exists()
