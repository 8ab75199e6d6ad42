"""The public archive: one folder a game master can publish as a static web
site as it is.

For each round ``round-NNN.html`` (the newsletter page), ``round-NNN.txt``
(the plain text) and ``round-NNN.json`` (the public report, no player
lineups), plus ``index.html`` listing every round, newest first. Every file
is written atomically (temporary file, fsync, rename), so a crash leaves
the old file or the new one, never half of one; the pages are
self-contained (no external resources).
"""

from __future__ import annotations

import html as html_lib
import json
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from jinja2 import Environment

from bot.render.environment import Environments, environment_for
from bot.render.model import RenderedMail
from bot.render.public import ensure_public, public_round
from bot.render.textwidth import clean
from bot.rules.report import RoundReport

ROUND_FILE = re.compile(r"^round-(\d{3,})\.html$")
_TITLE = re.compile(r"<title>(.*?)</title>", re.DOTALL)


@dataclass(frozen=True, slots=True)
class ArchivePaths:
    html: Path
    text: Path
    json: Path
    index: Path


@dataclass(frozen=True, slots=True)
class ArchivedRound:
    """An entry of the index: the round's number, title and file names."""

    number: int
    title: str
    html: str
    text: str | None
    json: str | None


def round_stem(number: int) -> str:
    """``round-012`` for round 12 (three digits at least, more when needed)."""
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise ValueError(f"round number {number!r}: expected a whole number >= 1")
    return f"round-{number:03d}"


def _json_default(value: object) -> object:
    if isinstance(value, Fraction | Decimal):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"cannot store {type(value).__name__} {value!r} in the archive JSON")


def atomic_write(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write ``data`` to ``path`` atomically: a temporary file in the same
    folder, flushed to disk, then renamed over ``path``. Private by default,
    like everything in the state (``bot.storage.permissions``); ``turnited
    publish`` copies the archive to a web root with public permissions."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def archived_rounds(archive_dir: Path) -> list[ArchivedRound]:
    """The rounds in ``archive_dir``, newest first, titled by their pages."""
    rounds = []
    for entry in Path(archive_dir).iterdir():
        match = ROUND_FILE.match(entry.name)
        if not match:
            continue
        stem = entry.name.removesuffix(".html")
        found = _TITLE.search(entry.read_text(encoding="utf-8", errors="replace")[:4096])
        title = clean(html_lib.unescape(found.group(1))).strip() if found else stem
        rounds.append(
            ArchivedRound(
                int(match.group(1)),
                title,
                entry.name,
                f"{stem}.txt" if (entry.parent / f"{stem}.txt").exists() else None,
                f"{stem}.json" if (entry.parent / f"{stem}.json").exists() else None,
            )
        )
    rounds.sort(key=lambda r: -r.number)
    return rounds


def write_index(
    archive_dir: Path,
    *,
    game_name: str,
    language: str,
    env: Environment | Environments | None = None,
) -> Path:
    """Regenerate ``index.html`` from the round pages in ``archive_dir``."""
    env = environment_for(language, env)
    game_name = clean(game_name).strip()
    subjects = env.get_template("subjects.j2").module
    title = str(subjects.archive(game_name))  # type: ignore[attr-defined]
    page = env.get_template("archive_index.html.j2").render(
        title=title, game_name=game_name, rounds=archived_rounds(archive_dir)
    )
    index = Path(archive_dir) / "index.html"
    atomic_write(index, page.encode("utf-8"))
    return index


def write_archive(
    archive_dir: Path,
    round_number: int,
    rendered: RenderedMail,
    public_report: RoundReport | Mapping,
    *,
    game_name: str = "Turnited",
    env: Environment | Environments | None = None,
) -> ArchivePaths:
    """Store a round's newsletter (in the configured language) and its public
    report (``RoundReport.public()``, or its JSON as stored), then regenerate
    the index. The JSON file has sorted keys, so the typed report and the
    stored JSON of one round give the same bytes. Refuses a report with a
    player lineup (``LineupLeakError``). Writing the same round again
    replaces its files."""
    if isinstance(public_report, RoundReport):
        public_report = public_round(public_report).to_json()
    else:
        ensure_public(public_report)
    if rendered.html is None:
        raise ValueError("the archive needs the HTML newsletter; rendered.html is None")
    folder = Path(archive_dir)
    folder.mkdir(parents=True, exist_ok=True)
    stem = round_stem(round_number)
    paths = ArchivePaths(
        folder / f"{stem}.html", folder / f"{stem}.txt", folder / f"{stem}.json",
        folder / "index.html",
    )
    report_json = json.dumps(
        public_report, ensure_ascii=False, indent=1, sort_keys=True, default=_json_default
    )
    atomic_write(paths.json, (report_json + "\n").encode("utf-8"))
    atomic_write(paths.text, rendered.text.encode("utf-8"))
    atomic_write(paths.html, rendered.html.encode("utf-8"))
    write_index(folder, game_name=game_name, language=rendered.language, env=env)
    return paths
