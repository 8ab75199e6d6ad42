"""Private state: the bot's files are readable by their owner only.

The state directory holds the league database (with password hashes), the
spool of every incoming mail (with passwords in clear) and the outbox's
queued mail. ``PRIVATE_UMASK`` (0o077) is set by the command line at start,
so every file the worker and the commands create is 0600 and every directory
0700 (``private_umask()`` does the same for a block, e.g. the demo run in a
test process); ``make_private`` tightens what an older version (or a copy)
left wider.

**One rule, no exception: everything under the state directory is private**,
the newsletter archive ``STATE/archive`` included (its pages are written
0600 although they are public words: they lie in a 0700 directory anyway,
and ``turnited check`` reports any path open to others). A game master
publishes the archive with ``turnited publish DIR``, which copies it to a
web root with public permissions (0644 files, 0755 directories, ``--mode``
to choose; ``bot.service.webroot``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "PRIVATE_UMASK",
    "make_private",
    "private_umask",
    "set_private_umask",
    "too_open",
]

PRIVATE_UMASK = 0o077
FILE_MODE = 0o600
DIR_MODE = 0o700


def set_private_umask() -> int:
    """Make every file created from now on private; returns the previous umask."""
    return os.umask(PRIVATE_UMASK)


@contextmanager
def private_umask() -> Iterator[None]:
    """Create files private inside the block; the umask before is restored after."""
    before = os.umask(PRIVATE_UMASK)
    try:
        yield
    finally:
        os.umask(before)


def make_private(*paths: Path) -> list[Path]:
    """Take group and other permissions off each existing path (a directory
    becomes 0700, a file 0600); missing paths are skipped. Returns the paths changed."""
    changed: list[Path] = []
    for path in paths:
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            continue
        if stat.S_IMODE(mode) & 0o077:
            os.chmod(path, DIR_MODE if stat.S_ISDIR(mode) else FILE_MODE)
            changed.append(Path(path))
    return changed


def too_open(path: Path) -> int | None:
    """The permission bits of ``path`` if group or others may use it, else None
    (also None for a missing path)."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return None
    return mode if mode & 0o077 else None
