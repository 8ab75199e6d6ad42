"""The two page checkers of the archive tests, both from the npm registry and
installed by the project's ``package.json``/``package-lock.json``
(``npm ci`` in ``scripts/test``):

* the W3C HTML checker (``vnu-jar``: ``vnu.jar`` on the machine's Java),
  run once over a whole folder, its messages as JSON;
* axe-core, injected into a page loaded in headless Chromium over the
  DevTools protocol (``tests.render.browser``), run for WCAG 2.0/2.1 A
  and AA; the violations come back as plain data.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.render.browser import Chromium

ROOT = Path(__file__).resolve().parents[2]
NODE_MODULES = ROOT / "node_modules"
VNU = NODE_MODULES / "vnu-jar" / "build" / "dist" / "vnu.jar"
AXE = NODE_MODULES / "axe-core" / "axe.min.js"
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


class CheckerMissing(RuntimeError):
    """The npm packages or Java are not installed."""


def _need(path: Path) -> Path:
    if not path.is_file():
        raise CheckerMissing(
            f"{path} is missing: install the page checkers with `npm ci` in {ROOT} "
            "(scripts/test does it on a fresh machine)")
    return path


def html_errors(folder: Path) -> list[str]:
    """Every error and warning of the W3C checker on the HTML files of ``folder``."""
    java = shutil.which("java")
    if java is None:
        raise CheckerMissing("java is not installed (Debian: default-jre-headless; "
                             "scripts/test installs it)")
    run = subprocess.run(
        [java, "-Xss8m", "-jar", str(_need(VNU)), "--format", "json", "--skip-non-html",
         "--also-check-svg", str(folder)],
        capture_output=True, text=True, timeout=300, check=False)
    messages = json.loads(run.stderr or '{"messages": []}')["messages"]
    return [f"{Path(m.get('url', '')).name}:{m.get('lastLine', '?')}: {m['type']}"
            f"{'/' + m['subType'] if m.get('subType') else ''}: {m['message']}"
            for m in messages if m["type"] != "info" or m.get("subType") == "warning"]


def axe_violations(browser: Chromium, page: Path, *, width: int = 320,
                   height: int = 844) -> list[dict[str, Any]]:
    """The axe-core WCAG 2 A/AA violations of ``page`` at ``width`` (a phone)."""
    source = _need(AXE).read_text(encoding="utf-8")
    session = browser.open_page()
    try:
        browser.load(session, page.resolve().as_uri(), width, height, mobile=True)
        browser.evaluate(session, source + "\n;true")
        tags = json.dumps(WCAG)
        result = browser.evaluate(
            session,
            f"axe.run(document, {{runOnly: {{type: 'tag', values: {tags}}},"
            " resultTypes: ['violations']})"
            ".then(r => r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
            " nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5)})))")
    finally:
        target = browser.call("Target.getTargetInfo", session=session)["targetInfo"]["targetId"]
        browser.call("Target.closeTarget", {"targetId": target})
    return list(result)
