"""The spool: every inbound mail archived byte for byte before anything parses it.

Files are content-addressed (``spool/YYYY-MM/<sha256>.eml``), written to a
temporary name, fsynced and renamed, so a crash never leaves a half mail and
writing the same mail twice is harmless.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path


@dataclass(frozen=True, slots=True)
class SpooledMail:
    sha256: str
    path: Path
    relative_path: str


def spool(spool_dir: Path, raw: bytes, now: datetime) -> SpooledMail:
    """Archive ``raw`` under ``spool_dir`` and return where it lies."""
    digest = hashlib.sha256(raw).hexdigest()
    folder = spool_dir / now.strftime("%Y-%m")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{digest}.eml"
    if not path.exists():
        tmp = folder / f".{digest}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    return SpooledMail(digest, path, str(path.relative_to(spool_dir)))
