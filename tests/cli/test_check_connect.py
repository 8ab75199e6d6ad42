"""``turnited check --connect`` through the real command line, against a
real Dovecot and a real aiosmtpd server on loopback: a working setup, and
each kind of mistake a game master makes (wrong port, TLS mismatch, bad
password, missing folder, refused sender, an unset password variable, a
failing token command), one line per step naming the key of config.yaml to
change, in German and English; exit status 1 on a problem; no secret
printed; a server that does not answer fails within about 10 seconds."""

from __future__ import annotations

import json
import socket
import ssl
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from aiosmtpd.controller import Controller

from bot.cli import main
from bot.mail.probe import Status
from bot.render import connection_words
from bot.service.connection_check import check_connections
from tests.servers import BOT_ADDRESS, DovecotServer, SmtpServer, free_port
from tests.support.dovecot import running_dovecot
from tests.support.oauth import TokenIssuer, token_script
from tests.support.pki import Pki, make_pki

pytestmark = pytest.mark.servers

IMAP_SECRET = "bot-secret"  # the Dovecot fixture's password of BOT_ADDRESS
SMTP_SECRET = "smtp-Geheimnis-42"


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    server = SmtpServer(users={BOT_ADDRESS: SMTP_SECRET})
    server.start()
    try:
        yield server
    finally:
        server.stop()


def write_config(tmp_path: Path, imap: dict, smtp: dict, **mail: object) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({
        "gm": {"address": "gm@example.org"},
        "mail": {"transport": "imap", "address": BOT_ADDRESS, "imap": imap, "smtp": smtp,
                 **mail},
    }), encoding="utf-8")
    return path


def imap_of(dovecot: DovecotServer) -> dict:
    return {"host": dovecot.host, "port": dovecot.imap_port, "security": "none",
            "password_env": "TEST_IMAP_PASSWORD"}


def working(dovecot: DovecotServer, smtp: SmtpServer) -> tuple[dict, dict]:
    out = {"host": smtp.host, "port": smtp.port, "security": "none", "username": BOT_ADDRESS,
           "password_env": "TEST_SMTP_PASSWORD"}
    return imap_of(dovecot), out


@pytest.fixture(autouse=True)
def passwords(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_IMAP_PASSWORD", IMAP_SECRET)
    monkeypatch.setenv("TEST_SMTP_PASSWORD", SMTP_SECRET)


def run(config: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    code = main(["--config", str(config), "check", "--connect", *args])
    out, err = capsys.readouterr()
    assert err == ""  # a problem is a line of the report, never an error or a traceback
    lines = out.splitlines()
    for line in lines:  # every outcome has its words (no "code: key=value" fallback)
        assert not any(line.split(None, 2)[-1].startswith(code + ":")
                       for code in connection_words.WORDS)
    assert IMAP_SECRET not in out and SMTP_SECRET not in out
    return code, lines


def problems(lines: list[str], mark: str = "PROBLEM") -> list[str]:
    return [line for line in lines if line.startswith(mark)]


# ---------------------------------------------------------------- works


def test_a_working_setup_in_german_and_english(tmp_path, dovecot, smtp, capsys):
    config = write_config(tmp_path, *working(dovecot, smtp))
    code, lines = run(config, capsys)
    assert code == 0
    assert lines[0] == f"ok      IMAP verbunden mit {dovecot.host}:{dovecot.imap_port}"
    assert any("angemeldet als bot@example.org (LOGIN)" in line for line in lines)
    assert any("Ordner Processed (mail.imap.processed_folder) fehlte und wurde angelegt"
               in line for line in lines)
    assert any("der Absender bot@example.org wird angenommen" in line for line in lines)
    assert problems(lines, "FEHLER") == []
    assert lines[-1].startswith("Alles in Ordnung")
    assert smtp.messages() == []  # MAIL FROM and RSET: nothing was sent
    assert "Processed" in dovecot.folders()

    code, lines = run(config, capsys, "--lang", "en")
    assert code == 0
    assert [line.split()[0] for line in lines[:-1]] == [
        "ok", "note", "ok", "ok", "ok", "ok", "ok",  # IMAP: connect, tls, login, 3 folders, idle
        "ok", "note", "ok", "ok"]                   # SMTP: connect, tls, login, sender
    assert "IMAP folder Processed (mail.imap.processed_folder) exists" in "\n".join(lines)
    assert "no TLS (mail.smtp.security: none)" in lines[8]
    assert lines[-1].startswith("All well")


def test_json_for_scripts(tmp_path, dovecot, smtp, capsys):
    config = write_config(tmp_path, *working(dovecot, smtp))
    assert main(["--config", str(config), "check", "--connect", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True and report["transport"] == "imap"
    assert [s["step"] for s in report["steps"]][:3] == ["connect", "tls", "login"]
    assert report["steps"][0]["values"]["key"] == "mail.imap"
    assert len(report["lines"]) == len(report["steps"])


def test_tls_from_the_start_with_a_private_ca(tmp_path, dovecot, capsys, tls_smtp):
    port, pki = tls_smtp
    config = write_config(tmp_path, imap_of(dovecot), {
        "host": "localhost", "port": port, "security": "ssl", "ca_file": str(pki.ca)})
    code, lines = run(config, capsys, "--lang", "en")
    assert code == 0
    tls = next(line for line in lines if line.startswith("ok      SMTP TLS from the start"))
    assert "the certificate is valid for localhost" in tls and "TLSv1." in tls
    assert "no login (mail.smtp.username is not set)" in "\n".join(lines)


def test_oauth2_on_both_servers(tmp_path, capsys):
    issuer = TokenIssuer()
    smtp = SmtpServer(oauth=issuer.lookup)
    try:
        with running_dovecot(oauth2_introspection_url=issuer.url, name="oauthcheck") as dovecot:
            smtp.start()
            command, holder = token_script(tmp_path, issuer.issue(BOT_ADDRESS))
            imap = {"host": dovecot.host, "port": dovecot.imap_port, "security": "none",
                    "auth": "oauth2", "token_command": str(command.command)}
            out = {"host": smtp.host, "port": smtp.port, "security": "none",
                   "username": BOT_ADDRESS, "auth": "oauth2", "token_command": str(command.command)}
            config = write_config(tmp_path, imap, out)
            code, lines = run(config, capsys, "--lang", "en")
            assert code == 0
            assert sum("logged in as bot@example.org (OAUTHBEARER)" in line for line in lines) == 2
            token = holder.read_text().strip()
            issuer.revoke(token)  # expired: both servers refuse it, in one line each
            code, lines = run(config, capsys, "--lang", "en")
            assert code == 1 and token not in "\n".join(lines)
            refused = problems(lines)
            assert len(refused) == 2 and all("refused the access token for bot@example.org "
                                             "(OAUTHBEARER: " in line for line in refused)
            assert "mail.smtp.token_command has expired" in refused[1]
    finally:
        smtp.stop()
        issuer.close()


# ---------------------------------------------------------------- mistakes


def test_wrong_ports(tmp_path, dovecot, smtp, capsys):
    imap, out = working(dovecot, smtp)
    imap["port"], out["port"] = smtp.port, dovecot.imap_port  # swapped
    code, lines = run(write_config(tmp_path, imap, out), capsys, "--lang", "en")
    assert code == 1
    assert problems(lines) == [
        f"PROBLEM IMAP {smtp.host}:{smtp.port} is no IMAP server (it answered unexpected "
        f"response: 220 localhost Python SMTP 1.4.6): check mail.imap.port (993 with security "
        "ssl, 143 with starttls)",
        next(line for line in lines if line.startswith("PROBLEM SMTP")),
    ]
    assert "is no SMTP server (it answered [CAPABILITY" in problems(lines)[1]
    assert "check mail.smtp.port (465 with security ssl, 587 with starttls)" in problems(lines)[1]
    closed = free_port()
    imap["port"], out["port"] = closed, closed
    code, lines = run(write_config(tmp_path, imap, out), capsys)
    assert code == 1 and len(problems(lines, "FEHLER")) == 2
    assert f"an Port {closed} lauscht nichts: mail.imap.port prüfen" in lines[0]


def test_tls_mismatches(tmp_path, dovecot, smtp, capsys, tls_smtp):
    imap, out = working(dovecot, smtp)
    code, lines = run(write_config(tmp_path, {**imap, "security": "ssl"},
                                   {**out, "security": "ssl"}), capsys, "--lang", "en")
    assert code == 1 and len(problems(lines)) == 2
    assert all("this port does not speak TLS from the start; set mail." in line
               and ".security: starttls" in line for line in problems(lines))
    code, lines = run(write_config(tmp_path, {**imap, "security": "starttls"},
                                   {**out, "security": "starttls"}), capsys, "--lang", "en")
    assert code == 1
    assert problems(lines) == [
        f"PROBLEM IMAP {dovecot.host}:{dovecot.imap_port} does not offer STARTTLS: set "
        "mail.imap.security: ssl and mail.imap.port: 993",
        f"PROBLEM SMTP {smtp.host}:{smtp.port} does not offer STARTTLS: set "
        "mail.smtp.security: ssl and mail.smtp.port: 465",
    ]
    port, _pki = tls_smtp  # plain SMTP against a port that speaks TLS from the first byte
    code, lines = run(write_config(tmp_path, imap, {"host": "localhost", "port": port,
                                                    "security": "none"}),
                      capsys, "--lang", "en", "--timeout", "1")
    assert code == 1
    (line,) = problems(lines)
    assert "did not answer within 1 s" in line
    assert "if the port expects TLS from the first byte (usually 465), set " \
           "mail.smtp.security: ssl" in line


def test_a_bad_password_names_where_it_comes_from(tmp_path, dovecot, smtp, capsys,
                                                  monkeypatch):
    monkeypatch.setenv("TEST_IMAP_PASSWORD", "wrong-imap")
    monkeypatch.setenv("TEST_SMTP_PASSWORD", "wrong-smtp")
    code, lines = run(write_config(tmp_path, *working(dovecot, smtp)), capsys, "--lang", "en")
    assert code == 1 and "wrong-" not in "\n".join(lines)
    imap_line, smtp_line = problems(lines)
    assert "the login as bot@example.org was refused ([AUTHENTICATIONFAILED] Authentication " \
           "failed.): check mail.imap.username and the password in $TEST_IMAP_PASSWORD" \
           in imap_line
    assert "(535 5.7.8 Authentication credentials invalid): check mail.smtp.username and the " \
           "password in $TEST_SMTP_PASSWORD" in smtp_line
    monkeypatch.setenv("TEST_IMAP_PASSWORD", IMAP_SECRET)
    monkeypatch.delenv("TEST_SMTP_PASSWORD")
    code, lines = run(write_config(tmp_path, *working(dovecot, smtp)), capsys)
    assert problems(lines, "FEHLER") == [
        "FEHLER  SMTP die Umgebungsvariable TEST_SMTP_PASSWORD (mail.smtp.password_env) ist "
        "dort, wo der Bot läuft, nicht gesetzt oder leer: setzen, z. B. in der Umgebungsdatei "
        "des Dienstes"]


def test_a_missing_folder_lists_the_existing_ones(tmp_path, dovecot, smtp, capsys):
    imap, out = working(dovecot, smtp)
    dovecot.append(b"Subject: x\r\n\r\nx\r\n", folder="Archiv")
    code, lines = run(write_config(tmp_path, {**imap, "folder": "Turnited"}, out), capsys,
                      "--lang", "en")
    assert code == 1
    (line,) = problems(lines)
    assert line.startswith("PROBLEM IMAP folder Turnited does not exist; the mailbox has: ")
    assert "Archiv" in line and "INBOX" in line and line.endswith(
        ": set mail.imap.folder to one of them")
    assert "Turnited" not in dovecot.folders()  # the folder it reads is never created


def test_a_refused_sender(tmp_path, dovecot, smtp, capsys):
    smtp.refused_senders.add(BOT_ADDRESS)
    code, lines = run(write_config(tmp_path, *working(dovecot, smtp)), capsys, "--lang", "en")
    assert code == 1
    assert problems(lines) == [
        "PROBLEM SMTP the server refuses the sender bot@example.org (553 5.7.1 Sender address "
        "rejected: not owned by the authenticated user): set mail.address to the mailbox's own "
        "address, or to an alias the provider allows for it"]


def test_oauth2_mistakes_a_server_without_it_and_a_failing_command(tmp_path, dovecot,
                                                                     capsys):
    issuer = TokenIssuer()
    smtp = SmtpServer(oauth=issuer.lookup)
    smtp.start()
    try:
        command = "echo 'invalid_grant' >&2; exit 2"
        imap = {"host": dovecot.host, "port": dovecot.imap_port, "security": "none",
                "auth": "oauth2", "token_command": "/bin/true"}
        out = {"host": smtp.host, "port": smtp.port, "security": "none",
               "username": BOT_ADDRESS, "auth": "oauth2", "token_command": command}
        code, lines = run(write_config(tmp_path, imap, out), capsys, "--lang", "en")
    finally:
        smtp.stop()
        issuer.close()
    assert code == 1
    assert problems(lines) == [
        f"PROBLEM IMAP {dovecot.host}:{dovecot.imap_port} offers no OAuth2 login (XOAUTH2, "
        "OAUTHBEARER; it offers PLAIN, LOGIN): set mail.imap.auth: password",
        f"PROBLEM SMTP mail.smtp.token_command {command} failed (exit status 2: invalid_grant): "
        "run it by hand to see why; after an expired login, log in again with the tool"]


def test_a_server_that_does_not_answer_fails_within_about_10_seconds(tmp_path, capsys):
    with socket.socket() as silent:  # accepts connections (the kernel does), never speaks
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        config = write_config(
            tmp_path, {"host": "127.0.0.1", "port": port, "security": "ssl", "password": "x"},
            {"host": "127.0.0.1", "port": port, "security": "starttls"})
        started = time.monotonic()
        code, lines = run(config, capsys, "--lang", "en")
        took = time.monotonic() - started
    assert code == 1 and 9 < took < 15  # both servers at once, the default 10 s each
    assert problems(lines) == [
        f"PROBLEM IMAP 127.0.0.1:{port} did not answer within 10 s: check mail.imap.host and "
        "mail.imap.port, and whether a firewall blocks the port",
        f"PROBLEM SMTP 127.0.0.1:{port} did not answer within 10 s: check mail.smtp.host and "
        "mail.smtp.port (a firewall?); if the port expects TLS from the first byte (usually "
        "465), set mail.smtp.security: ssl",
    ]


def test_the_maildir_transport_has_nothing_to_check(tmp_path, capsys):
    path = tmp_path / "config.yaml"
    path.write_text("mail:\n  transport: maildir\n", encoding="utf-8")
    code, lines = run(path, capsys, "--lang", "en")
    assert code == 0 and lines == [connection_words.summary(True, "en", maildir=True)]


def test_the_service_reports_steps_not_words(dovecot, smtp):
    from bot.mail.imap_settings import ImapSettings
    from bot.mail.smtp_settings import SmtpSettings

    report = check_connections(
        "imap", ImapSettings(dovecot.host, dovecot.imap_port, "none", BOT_ADDRESS,
                             password=IMAP_SECRET, processed_folder=None),
        SmtpSettings(smtp.host, smtp.port, "none"), mail_from=BOT_ADDRESS, timeout=5)
    assert report.ok
    assert [(s.server, s.step, s.code) for s in report.steps] == [
        ("imap", "connect", "connected"), ("imap", "tls", "plain"),
        ("imap", "login", "logged_in"), ("imap", "folder", "folder_ok"),
        ("imap", "folder", "folder_none"), ("imap", "folder", "folder_created"),
        ("imap", "idle", "idle_ok"),
        ("smtp", "connect", "connected"), ("smtp", "tls", "plain"),
        ("smtp", "login", "no_login"), ("smtp", "sender", "sender_ok")]
    assert report.steps[1].status is Status.NOTE
    assert all(IMAP_SECRET not in str(s.values) for s in report.steps)


# ---------------------------------------------------------------- a TLS server


@pytest.fixture(scope="module")
def module_pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


class _Quiet:
    async def handle_DATA(self, server, session, envelope):
        return "250 OK"


@pytest.fixture
def tls_smtp(module_pki: Pki) -> Iterator[tuple[int, Pki]]:
    """SMTP over TLS from the first byte, with a certificate of the private CA."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(module_pki.cert, module_pki.key)
    controller = Controller(_Quiet(), hostname="127.0.0.1", port=free_port(),
                            ssl_context=context, ready_timeout=10)
    controller.start()
    try:
        yield controller.port, module_pki
    finally:
        controller.stop()
