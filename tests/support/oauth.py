"""An OAuth2 authorization server as the tests need it: it issues access
tokens, revokes them, and answers token introspection (RFC 7662) over HTTP
on 127.0.0.1, which Dovecot's ``oauth2`` password database asks; the
aiosmtpd server of ``tests.servers`` asks ``lookup`` in-process. And the
game master's side: a ``token_command`` script that prints whatever token
the test put in its file. The ``issuer`` fixture: a running issuer, closed
after the test."""

from __future__ import annotations

import json
import secrets
import stat
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from bot.mail.oauth import TokenCommand

HOST = "127.0.0.1"


class TokenIssuer:
    """Access tokens (token -> user) and an introspection endpoint for them."""

    def __init__(self) -> None:
        self._tokens: dict[str, str] = {}
        self._lock = threading.Lock()
        #: Every token asked about, in order (what the servers checked).
        self.asked: list[str] = []
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # http.server names the method so
                size = int(self.headers.get("Content-Length", 0))
                form = parse_qs(self.rfile.read(size).decode("ascii", "replace"))
                token = form.get("token", [""])[0]
                user = issuer.lookup(token)
                body = json.dumps({"active": True, "email": user} if user else
                                  {"active": False}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self._httpd = ThreadingHTTPServer((HOST, 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self._httpd.server_address[1]}/introspect"

    def issue(self, user: str) -> str:
        token = "ya29." + secrets.token_urlsafe(24)
        with self._lock:
            self._tokens[token] = user
        return token

    def revoke(self, token: str) -> None:
        """The token expires: every server refuses it from now on."""
        with self._lock:
            self._tokens.pop(token, None)

    def lookup(self, token: str) -> str | None:
        with self._lock:
            self.asked.append(token)
            return self._tokens.get(token)

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(5)


def token_script(directory: Path, token: str, *, name: str = "token") -> tuple[TokenCommand, Path]:
    """A token command (a shell script) printing the contents of a file,
    and that file holding ``token``: write another token into the file and
    the next login uses it."""
    holder = directory / f"{name}.txt"
    holder.write_text(token + "\n", encoding="ascii")
    script = directory / f"{name}.sh"
    script.write_text(f"#!/bin/sh\ncat '{holder}'\n", encoding="ascii")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return TokenCommand(str(script)), holder


@pytest.fixture
def issuer() -> Iterator[TokenIssuer]:
    """A running ``TokenIssuer``, closed after the test."""
    running = TokenIssuer()
    yield running
    running.close()
