"""``turnited publish DIR``: the static newsletter archive (``STATE/archive``:
one page per round, the index, the style sheet) copied to a web root.

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


@dataclass(frozen=True, slots=True)
class CopyReport:
    dest: Path
    files: int
    changed: int


def copy_archive(archive: Path, dest: Path) -> CopyReport:
    """Copy every file under ``archive`` to ``dest`` (created if missing)."""
    archive, dest = Path(archive), Path(dest)
    if dest.resolve() == archive.resolve() or archive.resolve() in dest.resolve().parents:
        raise ValueError(f"the web root {str(dest)!r} lies inside the archive {str(archive)!r}; "
                         "give a folder outside the state directory")
    files = changed = 0
    for source in sorted(p for p in archive.rglob("*") if p.is_file()):
        target = dest / source.relative_to(archive)
        files += 1
        if target.is_file() and filecmp.cmp(source, target, shallow=False):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.partial")
        shutil.copyfile(source, partial)
        os.replace(partial, target)
        changed += 1
    return CopyReport(dest, files, changed)
