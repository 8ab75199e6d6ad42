"""Another revision's code beside this checkout, for the benches that compare.

``export`` unpacks a git revision's ``bot/`` (and ``templates/``) into a
folder; ``run_module`` runs a bench module in a fresh interpreter whose
``bot`` is the one in such a folder (or this checkout's), while ``bench``
and ``tests`` still come from this checkout.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from collections.abc import Sequence
from io import BytesIO
from pathlib import Path

#: This checkout (the folder that holds ``bot/``, ``bench/`` and ``tests/``).
ROOT = Path(__file__).resolve().parent.parent


def export(revision: str, into: Path, paths: Sequence[str] = ("bot", "templates")) -> Path:
    """``paths`` of the git ``revision`` (``git archive``), unpacked into ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, *paths],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def run_module(module: str, args: Sequence[str], code: Path = ROOT, *,
               wrapper: Sequence[str] = ()) -> subprocess.CompletedProcess[str]:
    """``python -m module args`` (behind ``wrapper``, e.g. valgrind) in a fresh
    process working in ``code``: the working folder comes first on the
    import path, so ``bot`` is ``code``'s; this checkout follows it on
    ``PYTHONPATH`` for ``bench`` and ``tests``. It must succeed."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys((str(code), str(ROOT))))}
    return subprocess.run([*wrapper, sys.executable, "-m", module, *args], cwd=code, env=env,
                          check=True, capture_output=True, text=True)
