"""Headless Chromium driven over the DevTools protocol, standard library only.

Chromium is started with ``--remote-debugging-pipe``: it reads protocol
commands from file descriptor 3 and writes replies and events to 4, each
message JSON terminated by a NUL byte. That is all the browser tests need:
load a page at a given window size, collect every network request, console
error and JavaScript exception, evaluate a script, take a screenshot.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--mute-audio",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)
# bash puts our pipe ends on descriptors 3 and 4, where Chromium expects them
# (dash only redirects descriptors 0-9).
_LAUNCH = 'in=$1; out=$2; shift 2; eval "exec \\"\\$@\\" 3<&$in 4>&$out $in<&- $out>&-"'


class BrowserError(RuntimeError):
    """Chromium is missing, did not start, or did not answer in time."""


def find_chromium() -> str:
    for candidate in CHROMIUM_CANDIDATES:
        path = shutil.which(candidate)
        if path:
            return path
    raise BrowserError(
        "Chromium is not installed (looked for " + ", ".join(CHROMIUM_CANDIDATES) + "); "
        "install the Debian package 'chromium' (scripts/test does it on a fresh machine)"
    )


def _high(fd: int) -> int:
    """``fd`` moved to a descriptor number of 10 or more."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return moved


class Chromium:
    """One headless browser with a fresh profile; use as a context manager."""

    def __init__(self, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self.binary = find_chromium()
        self.profile = tempfile.mkdtemp(prefix="turnited-chromium-")
        self.log = Path(self.profile) / "chromium.log"
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # The child's ends must not be 3 or 4 themselves, or the shell's
        # redirections onto 3 and 4 would clobber them.
        to_browser_r, from_browser_w = (_high(fd) for fd in (to_browser_r, from_browser_w))
        log_file = self.log.open("wb")
        self.process = subprocess.Popen(
            ["bash", "-c", _LAUNCH, "bash", str(to_browser_r), str(from_browser_w),
             self.binary, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            pass_fds=(to_browser_r, from_browser_w),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log_file,
        )
        log_file.close()
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    # -- the pipe

    def _send(self, method: str, params: dict | None = None, session: str | None = None) -> int:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._to_browser, data):]
        return self._next_id

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"Chromium did not answer within {self.timeout} s")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise BrowserError("Chromium closed the DevTools pipe: " + self._stderr())
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def _stderr(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-2000:]
        except OSError:
            return "(no log)"

    def call(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        """Send a command and wait for its result; events meanwhile are kept."""
        wanted = self._send(method, params, session)
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._receive(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise BrowserError(f"{method} failed: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method: str, session: str | None = None) -> dict:
        """Wait for the next event ``method`` (of ``session``)."""
        deadline = time.monotonic() + self.timeout
        for index, event in enumerate(self.events):
            if event.get("method") == method and event.get("sessionId") == session:
                return self.events.pop(index)
        while True:
            message = self._receive(deadline)
            if message.get("method") == method and message.get("sessionId") == session:
                return message
            self.events.append(message)

    # -- pages

    def open_page(self) -> str:
        """A new tab with every domain the tests observe enabled; its session id."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.call(f"{domain}.enable", session=session)
        return session

    def load(self, session: str, url: str, width: int, height: int, *, mobile: bool) -> None:
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
            session=session,
        )
        self.events.clear()
        self.call("Page.navigate", {"url": url}, session=session)
        self.wait_for("Page.loadEventFired", session)

    def evaluate(self, session: str, expression: str) -> Any:
        result = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            session=session,
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, session: str, path: Path, *, full_page: bool = False) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
        data = self.call("Page.captureScreenshot", params, session=session)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def problems(self, allowed_url: str) -> list[str]:
        """Every request for another resource than the page itself, every
        failed load, console error and uncaught exception seen so far."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Network.requestWillBeSent":
                url = params["request"]["url"]
                if url != allowed_url and not url.startswith(("data:", "about:")):
                    found.append(f"request for {url}")
            elif method == "Network.loadingFailed":
                found.append(f"loading failed: {params.get('errorText')}")
            elif method == "Runtime.exceptionThrown":
                found.append(f"JavaScript exception: {params['exceptionDetails']}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                found.append(f"console error: {params.get('args')}")
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(f"log error: {params['entry'].get('text')}")
        return found

    # -- life cycle

    def close(self) -> None:
        try:
            if self.process.poll() is None:
                try:
                    self._send("Browser.close")
                    self.process.wait(timeout=10)
                except (OSError, subprocess.TimeoutExpired):
                    self.process.kill()
                    self.process.wait(timeout=10)
        finally:
            for fd in (self._to_browser, self._from_browser):
                with contextlib.suppress(OSError):
                    os.close(fd)
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
