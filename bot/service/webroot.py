"""``turnited publish DIR``: the static newsletter archive (``STATE/archive``:
one page per round, the index, the site's pages, the style sheet) copied to
a web root.

The state directory, the archive in it included, is private to the bot's
user (``bot.storage.permissions``); the web root is public: every file
copied gets ``mode`` (default 0644) and every directory it creates or
writes into below the web root that mode with ``x`` where it has ``r``
(0755), so a web server running as another user can read them. The web
root itself gets the directory mode when ``publish`` creates it.

Only new or changed files are written (each through a temporary file and a
rename, so a web server never serves half a page); nothing in the web root
is deleted.
"""

from __future__ import annotations

import filecmp
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from bot.errors import N_, TurnitedError

#: The permissions of a published file (and, with ``x`` added, of a directory).
FILE_MODE = 0o644


class WebRootError(TurnitedError, ValueError):
    def __init__(self, message: str, /, **values: object) -> None:
        self.words = (message, values)
        super().__init__(message % values)


@dataclass(frozen=True, slots=True)
class CopyReport:
    dest: Path
    files: int
    changed: int


def directory_mode(file_mode: int) -> int:
    """A directory's mode for files of ``file_mode``: ``x`` wherever ``r`` is."""
    return file_mode | ((file_mode & 0o444) >> 2)


def copy_archive(archive: Path, dest: Path, *, mode: int = FILE_MODE) -> CopyReport:
    """Copy every file under ``archive`` to ``dest`` (created if missing),
    files with ``mode``, directories with ``directory_mode(mode)``."""
    archive, dest = Path(archive), Path(dest)
    if dest.resolve() == archive.resolve() or archive.resolve() in dest.resolve().parents:
        raise WebRootError(N_("the web root %(dest)s lies inside the archive %(archive)s; give "
                              "a folder outside the state directory"),
                           dest=repr(str(dest)), archive=repr(str(archive)))
    folder_mode = directory_mode(mode)
    if not dest.exists():
        dest.mkdir(parents=True)
        os.chmod(dest, folder_mode)
    files = changed = 0
    for source in sorted(p for p in archive.rglob("*") if p.is_file()):
        target = dest / source.relative_to(archive)
        files += 1
        _folders(dest, target.parent, folder_mode)
        if target.is_file() and filecmp.cmp(source, target, shallow=False):
            if _mode(target) != mode:
                os.chmod(target, mode)
            continue
        partial = target.with_name(f".{target.name}.partial")
        shutil.copyfile(source, partial)
        os.chmod(partial, mode)
        os.replace(partial, target)
        changed += 1
    return CopyReport(dest, files, changed)


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def _folders(root: Path, folder: Path, mode: int) -> None:
    """Create ``folder`` below ``root`` and give every directory on the way ``mode``."""
    folder.mkdir(parents=True, exist_ok=True)
    while folder != root and root in folder.parents:
        if _mode(folder) != mode:
            os.chmod(folder, mode)
        folder = folder.parent
