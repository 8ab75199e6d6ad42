"""The page checkers of the rendering tests.

``check_page`` loads a page in headless Chromium at phone and desktop width
and asserts a readable layout (see ``tests/render/test_browser``). The other
two, for the archive, come from the npm registry, installed by the project's
``package.json``/``package-lock.json`` (``npm ci`` in ``scripts/test``):

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


#: The layout of a loaded page, as ``check_page`` asserts it.
LAYOUT = """
(() => {
  const vw = document.documentElement.clientWidth;
  const main = document.querySelector('main.content');
  const out = [];
  let minFont = 1000;
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (!el.closest('.scroll') && r.width > 0 && (r.right > vw + 1 || r.left < -1)) {
      out.push(`${el.tagName}.${el.className} ${Math.round(r.left)}..${Math.round(r.right)}`);
    }
    const text = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (text && r.width > 0) minFont = Math.min(minFont, parseFloat(getComputedStyle(el).fontSize));
  }
  const scrollers = [...document.querySelectorAll('.scroll')]
    .filter(s => s.scrollWidth > s.clientWidth + 1).length;
  return {
    viewport: vw,
    main: main ? main.getBoundingClientRect().width : 0,
    scrollWidth: document.documentElement.scrollWidth,
    outside: out.slice(0, 10),
    minFont,
    scrollers,
    title: document.title,
    text: document.body.innerText.length,
  };
})()
"""

SIZES = {"phone": (390, 844, True), "desktop": (1280, 900, False)}


def check_page(browser: Chromium, path: Path, name: str, *, min_main: int = 300) -> dict:
    """Load ``path`` at each of ``SIZES`` (a screenshot each, beside the page),
    assert no outside request or error and a readable layout; the layouts by size."""
    url = path.resolve().as_uri()
    session = browser.open_page()
    results = {}
    for size, (width, height, mobile) in SIZES.items():
        browser.load(session, url, width, height, mobile=mobile)
        layout = browser.evaluate(session, LAYOUT)
        shot = browser.screenshot(session, path.with_name(f"{name}-{size}.png"))
        print(f"screenshot: {shot}")
        problems = browser.problems(url)
        assert not problems, f"{name} at {size} width: {problems}"
        assert layout["viewport"] == width
        assert layout["main"] >= min(min_main, width - 40), f"{name} {size}: {layout}"
        assert layout["scrollWidth"] <= width + 1, f"{name} {size}: page wider than screen {layout}"
        assert not layout["outside"], f"{name} {size}: elements outside the screen {layout}"
        assert layout["minFont"] >= 11, f"{name} {size}: text too small {layout}"
        results[size] = layout
    browser.call("Target.closeTarget", {"targetId": browser.call(
        "Target.getTargetInfo", session=session)["targetInfo"]["targetId"]})
    return results
