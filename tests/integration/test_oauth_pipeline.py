"""The application over OAuth2 on both sides, against real servers.

A game master's Microsoft-style setup: ``mail.imap.auth`` and
``mail.smtp.auth`` are ``oauth2``, each with a ``token_command`` (a script
printing the token its file holds). Dovecot checks the IMAP login against
the test's token-introspection endpoint, aiosmtpd the SMTP login. When a
token expires the bot says so in one line naming the command, the players'
mail stays in the inbox and the replies stay in the outbox; once the command
prints a fresh token, everything goes through once, nothing doubled.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.app import App, build_app
from bot.config import Config
from bot.league.settings import LeagueSettings
from bot.mail.transport import LoginRefusedError
from bot.worker.scheduler import Worker
from tests.servers import BOT_ADDRESS, DovecotServer, SmtpServer
from tests.support import mails
from tests.support.clock import FakeClock
from tests.support.dovecot import running_dovecot
from tests.support.oauth import TokenIssuer, token_script

pytestmark = pytest.mark.servers

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
LEAGUE = LeagueSettings(password_cost=2**4, simulations=0)


@pytest.fixture
def servers(issuer: TokenIssuer) -> Iterator[tuple[DovecotServer, SmtpServer]]:
    with running_dovecot(oauth2_introspection_url=issuer.url, name="oauthapp") as dovecot:
        smtp = SmtpServer(oauth=issuer.lookup)
        try:
            smtp.start()
            yield dovecot, smtp
        finally:
            smtp.stop()


def oauth_config(tmp_path: Path, dovecot: DovecotServer, smtp: SmtpServer,
                 imap_command: str, smtp_command: str) -> Config:
    return Config.from_mapping(
        {
            "state_dir": "state",
            "game": {"name": "Turnited OAuth"},
            "schedule": {"timezone": "Europe/Berlin", "deadlines": {"cron": "0 20 * * SUN"}},
            "gm": {"address": "gm@example.org", "name": "Greta GM"},
            "mail": {
                "transport": "imap",
                "address": BOT_ADDRESS,
                "imap": {"host": dovecot.host, "port": dovecot.imap_port, "security": "none",
                         "auth": "oauth2", "token_command": imap_command},
                "smtp": {"host": smtp.host, "port": smtp.port, "security": "none",
                         "username": BOT_ADDRESS, "auth": "oauth2",
                         "token_command": smtp_command, "rate_per_minute": 10_000},
            },
        },
        tmp_path,
    )


def lineup_mail(sender: str, team: str) -> bytes:
    return mails.player_mail(sender, f"Neues Team: {team}\nAufstellung: 10-10-15-15-20\n",
                             to=BOT_ADDRESS, when=START, subject="Aufstellung", crlf=True)


def outbox_states(app: App) -> list[tuple[str, str]]:
    with app.db.read() as conn:
        return [(str(r[0]), str(r[1])) for r in conn.execute(
            "SELECT recipient, state FROM outbox WHERE kind = 'reply' ORDER BY id")]


def test_expired_tokens_keep_mail_in_inbox_and_outbox_until_a_fresh_one(
        tmp_path, servers, issuer, caplog):
    caplog.set_level(logging.DEBUG)
    dovecot, smtp = servers
    imap_command, imap_token = token_script(tmp_path, issuer.issue(BOT_ADDRESS), name="imap")
    smtp_command, smtp_token = token_script(tmp_path, issuer.issue(BOT_ADDRESS), name="smtp")
    config = oauth_config(tmp_path, dovecot, smtp, str(imap_command.command),
                          str(smtp_command.command))
    assert config.mail.imap.auth == config.mail.smtp.auth == "oauth2"
    app = build_app(config, clock=FakeClock(START), league_settings=LEAGUE)
    app.ensure_started()
    anna, bernd = lineup_mail("anna@player.example", "Rote Teufel"), \
        lineup_mail("bernd@player.example", "Blue Devils")
    try:
        # Both tokens good: read, answer, send.
        dovecot.append(anna)
        assert app.poll_once().processed == 1
        assert app.drain_outbox().sent == 1
        assert [m.rcpt_tos for m in smtp.messages()] == [("anna@player.example",)]
        assert [m.login for m in smtp.messages()] == [BOT_ADDRESS]

        # The SMTP token expires: the reply is written but stays in the outbox.
        issuer.revoke(smtp_token.read_text().strip())
        dovecot.append(bernd)
        assert app.poll_once().processed == 1
        with pytest.raises(LoginRefusedError) as refused:
            app.drain_outbox()
        assert "mail.smtp.token_command" in str(refused.value)
        assert "\n" not in str(refused.value)
        assert outbox_states(app)[-1] == ("bernd@player.example", "queued")
        assert len(smtp.messages()) == 1

        # The IMAP token expires too (the next login uses it): a new mail stays
        # in the inbox.
        issuer.revoke(imap_token.read_text().strip())
        app.source.close()  # the connection ends, as a provider ends it after an hour
        carla = lineup_mail("carla@player.example", "FC Cortes")
        dovecot.append(carla)
        with pytest.raises(LoginRefusedError, match=r"mail\.imap\.token_command"):
            app.poll_once()
        assert dovecot.list_folder("INBOX") == [carla]

        # The worker says it in one line, without a traceback.
        caplog.clear()
        Worker(app, config).drain()  # its outbox job (not started: no scheduler runs)
        failures = [r for r in caplog.records if r.getMessage() == "outbox_drain_failed"]
        assert len(failures) == 1 and failures[0].exc_info is None
        error = failures[0].turnited_fields["error"]  # type: ignore[attr-defined]
        assert "refused the access token" in error and "\n" not in error

        # Fresh tokens: everything goes through, once.
        imap_token.write_text(issuer.issue(BOT_ADDRESS) + "\n")
        smtp_token.write_text(issuer.issue(BOT_ADDRESS) + "\n")
        assert app.poll_once().processed == 1
        assert app.drain_outbox().sent == 2
        assert sorted(m.rcpt_tos[0] for m in smtp.messages()) == [
            "anna@player.example", "bernd@player.example", "carla@player.example"]
        assert dovecot.list_folder("INBOX") == []
        assert sorted(dovecot.list_folder("Processed")) == sorted([anna, bernd, carla])
        assert [state for _r, state in outbox_states(app)] == ["sent"] * 3
    finally:
        app.close()
    for token in issuer.asked:  # no token ever reached a log line
        assert token not in caplog.text
