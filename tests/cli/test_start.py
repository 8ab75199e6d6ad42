"""A CLI that starts fast (issue 19): a command imports what it needs when it
runs. ``--help`` loads no command's machinery; a calculator loads the rules
and its words, not the configuration, SQLite, Jinja, numpy or Babel (the
compiled catalog comes from the cache). The figures are printed by
``bench/bench_cli_start.py``; these tests keep the imports from creeping back.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("numpy", "jinja2", "yaml", "sqlite3", "babel", "apscheduler", "icalendar",
         "imapclient", "bot.config", "bot.league.service", "bot.render.environment",
         "bot.rules.tournament", "bot.storage.db")


def loaded_after(code: str, cwd: Path, cache: Path) -> set[str]:
    """The heavy modules loaded by ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=True,
                          env={"PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(cache),
                               "HOME": str(cache)})
    modules = set(json.loads(done.stdout.splitlines()[-1]))
    return {m for m in HEAVY if m in modules}


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    folder = tmp_path / "cache"
    folder.mkdir()
    return folder


def test_help_loads_no_command_machinery(tmp_path: Path, cache: Path):
    assert loaded_after("from bot.cli import build_parser\nbuild_parser()", tmp_path,
                        cache) == set()


def test_a_calculator_loads_the_rules_and_its_words_only(tmp_path: Path, cache: Path):
    run = ("from bot.cli import main\nimport contextlib, io\n"
           "with contextlib.redirect_stdout(io.StringIO()):\n"
           "    main(['lineup', '12-3-10-40-50', '--wp', '95.3'])")
    # the first call compiles the German catalog with Babel and keeps it in the cache
    assert loaded_after(run, tmp_path, cache) == {"babel"}
    assert [p.suffix for p in (cache / "turnited").iterdir()] == [".mo"]
    assert loaded_after(run, tmp_path, cache) == set()  # every later call reads the cache


def test_status_loads_no_renderer_and_no_mail_pipeline(tmp_path: Path, cache: Path):
    """What ``status`` still loads is the configuration's and the league's
    (their modules import the mail settings, the tournament and the
    scheduler); never the inbound pipeline, numpy or a progress bar."""
    code = ("import contextlib, io, sys\nfrom bot.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    assert main(['init', 'g']) == 0\n"
            "    assert main(['--config', 'g/config.yaml', 'status']) == 0\n"
            "late = [m for m in ('numpy', 'bot.service.inbound', 'bot.render.newsletter',"
            " 'tqdm', 'bot.mail.grammar', 'bot.mail.imap_source.IMAPClient') if m in sys.modules]"
            "\nassert not late, late")
    assert "bot.config" in loaded_after(code, tmp_path, cache)
