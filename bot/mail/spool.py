"""The spool: every inbound mail archived byte for byte before anything parses it.

Files are content-addressed (``spool/YYYY-MM/<sha256>.eml.gz``: the SHA-256 of
the mail's exact bytes, gzip-compressed with a fixed header so the same mail
always gives the same file), written to a temporary name, fsynced and renamed,
so a crash never leaves a half mail and writing the same mail twice is harmless.
``read_spooled`` returns the exact bytes again and also reads the uncompressed
``<sha256>.eml`` files older versions wrote. The spool directory is private
to the bot's user (0700) and every file is 0600.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

#: The suffix of a spooled mail (gzip); ``.eml`` files of older versions stay readable.
SUFFIX = ".eml.gz"
LEGACY_SUFFIX = ".eml"
#: zlib level 6 (gzip's default): about 4x smaller mail at a few ms per MB.
COMPRESSLEVEL = 6


class SpoolFileMissing(FileNotFoundError):
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
    """Archive ``raw`` (compressed) under ``spool_dir`` and return where it lies.
    A mail already spooled, compressed or in the old plain form, is not written again."""
    digest = hashlib.sha256(raw).hexdigest()
    _private_dir(spool_dir)
    folder = spool_dir / now.strftime("%Y-%m")
    _private_dir(folder)
    legacy = folder / f"{digest}{LEGACY_SUFFIX}"
    if legacy.exists():
        return SpooledMail(digest, legacy, str(legacy.relative_to(spool_dir)))
    path = folder / f"{digest}{SUFFIX}"
    if not path.exists():
        tmp = folder / f".{digest}.{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "wb") as fh:
            fh.write(gzip.compress(raw, compresslevel=COMPRESSLEVEL, mtime=0))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    return SpooledMail(digest, path, str(path.relative_to(spool_dir)))


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


def spool_file_exists(spool_dir: Path, relative_path: str) -> bool:
    """Whether ``read_spooled`` would find the file (``turnited check``)."""
    path = Path(spool_dir) / relative_path
    if path.exists():
        return True
    if path.name.endswith(SUFFIX):
        return path.with_name(path.name.removesuffix(".gz")).exists()
    return path.with_name(path.name + ".gz").exists()
