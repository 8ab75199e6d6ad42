"""ImapMailbox against a real Dovecot: fetch, mark, IDLE, crashes, misconfiguration."""

from __future__ import annotations

import logging
import threading
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.mail.imap_source import ImapMailbox, ImapSettings, uid_set
from bot.mail.transport import IncomingMail, MailSource, TransportConfigError, TransportError
from tests.servers import BOT_ADDRESS, DovecotServer, free_port

pytestmark = pytest.mark.servers

NO_MOVE = "IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE SORT LITERAL+ UIDPLUS"
NO_MOVE_NO_UIDPLUS = "IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE SORT LITERAL+"
NO_IDLE = "IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE SORT LITERAL+ UIDPLUS MOVE"


def mail(n: int, sender: str = "anna@example.org") -> bytes:
    return (
        f"From: {sender}\r\nTo: {BOT_ADDRESS}\r\nSubject: Aufstellung {n}\r\n"
        f"Message-ID: <m{n}@example.org>\r\n\r\nTeam {n}: 10-10-15-15-20\r\n"
    ).encode()


def settings(server: DovecotServer, **overrides: object) -> ImapSettings:
    return server.imap_settings(**{"timeout": 5, **overrides})


def capability_server(capabilities: str) -> DovecotServer:
    server = DovecotServer(
        extra_config=f"protocol imap {{\n  imap_capability = {capabilities}\n}}\n"
    )
    server.start()
    return server


class Sleeps:
    """An injected sleep that records delays and may act on the n-th call."""

    def __init__(self, on_call=None) -> None:
        self.delays: list[float] = []
        self.on_call = on_call

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        if self.on_call is not None:
            self.on_call(len(self.delays))


# ---------------------------------------------------------------- fetching


def test_fetch_returns_every_mail_with_uid_and_leaves_it_unseen(dovecot):
    raws = [mail(n) for n in range(3)]
    uids = dovecot.append_many(raws)
    with ImapMailbox(settings(dovecot)) as box:
        assert isinstance(box, MailSource)
        got = box.fetch_new()
        assert [m.raw for m in got] == raws
        assert [m.uid for m in got] == uids
        assert len({m.uidvalidity for m in got}) == 1 and got[0].uidvalidity > 0
        assert len({m.key for m in got}) == 3
        assert all(str(m.uid) in m.key and str(m.uidvalidity) in m.key for m in got)
        # Fetching never changes the mailbox: no \Seen, still there, same again.
        assert all(b"\\Seen" not in flags for flags in dovecot.flags().values())
        assert box.fetch_new() == got


def test_fetch_sees_mail_that_arrives_on_an_open_connection(dovecot):
    dovecot.append(mail(1))
    with ImapMailbox(settings(dovecot)) as box:
        assert len(box.fetch_new()) == 1
        dovecot.append(mail(2))
        assert [m.raw for m in box.fetch_new()] == [mail(1), mail(2)]
        assert [m.raw for m in box.fetch_new(limit=1)] == [mail(1)]


def test_empty_inbox_gives_empty_list(dovecot):
    with ImapMailbox(settings(dovecot)) as box:
        assert box.fetch_new() == []


# ---------------------------------------------------------------- marking


def test_mark_processed_moves_to_a_created_folder_and_deletes_nothing(dovecot):
    raws = [mail(n) for n in range(3)]
    dovecot.append_many(raws)
    assert "Processed" not in dovecot.folders()
    with ImapMailbox(settings(dovecot)) as box:
        first, *rest = box.fetch_new()
        box.mark_processed(first)
        assert "Processed" in dovecot.folders()
        assert dovecot.list_folder("Processed") == [raws[0]]
        assert dovecot.list_folder("INBOX") == raws[1:]
        assert [m.raw for m in box.fetch_new()] == raws[1:]
        box.mark_processed_many(rest)
        assert box.fetch_new() == []
        # Marking again (a retry after a lost reply) is harmless.
        box.mark_processed(first)
    assert dovecot.list_folder("INBOX") == []
    assert dovecot.list_folder("Processed") == raws


def test_existing_processed_folder_is_reused(dovecot):
    dovecot.append(b"Subject: old\r\n\r\nalready processed\r\n", folder="Archiv")
    dovecot.append(mail(1))
    with ImapMailbox(settings(dovecot, processed_folder="Archiv")) as box:
        box.mark_processed_many(box.fetch_new())
    assert dovecot.list_folder("Archiv") == [b"Subject: old\r\n\r\nalready processed\r\n", mail(1)]


@pytest.mark.parametrize("capabilities", [NO_MOVE, NO_MOVE_NO_UIDPLUS])
def test_without_move_copy_then_expunge_only_that_uid(capabilities):
    server = capability_server(capabilities)
    try:
        raws = [mail(n) for n in range(3)]
        server.append_many(raws)
        # Someone else's mail flagged \Deleted must not be expunged by the bot.
        foreign_uid = server.append(b"Subject: foreign\r\n\r\nx\r\n", flags=[b"\\Deleted"])
        with ImapMailbox(settings(server)) as box:
            got = box.fetch_new()
            assert [m.raw for m in got] == raws  # \Deleted mails are hidden
            box.mark_processed(got[1])
            assert [m.raw for m in box.fetch_new()] == [raws[0], raws[2]]
        assert server.list_folder("Processed") == [raws[1]]
        inbox = dict(server.messages("INBOX"))
        assert foreign_uid in inbox
        if "UIDPLUS" in capabilities:
            assert set(inbox) == {got[0].uid, got[2].uid, foreign_uid}
        else:  # left flagged \Deleted, never expunged blindly
            assert got[1].uid in inbox
            assert b"\\Deleted" in server.flags()[got[1].uid]
    finally:
        server.remove()


def test_seen_mode_flags_instead_of_moving(dovecot):
    raws = [mail(n) for n in range(3)]
    dovecot.append_many(raws)
    with ImapMailbox(settings(dovecot, processed_folder=None)) as box:
        got = box.fetch_new()
        box.mark_processed(got[0])
        assert [m.raw for m in box.fetch_new()] == raws[1:]
    assert dovecot.list_folder("INBOX") == raws
    assert "Processed" not in dovecot.folders()
    flags = dovecot.flags()
    assert b"\\Seen" in flags[got[0].uid]
    assert b"\\Seen" not in flags[got[1].uid]


def test_marking_a_foreign_or_stale_mail_is_refused(dovecot):
    dovecot.append(mail(1))
    with ImapMailbox(settings(dovecot)) as box:
        (real,) = box.fetch_new()
        foreign = IncomingMail("maildir:/x", None, None, real.raw, "k")
        with pytest.raises(ValueError, match="does not come from"):
            box.mark_processed(foreign)
        stale = IncomingMail(real.source, real.uidvalidity + 1, real.uid, real.raw, "k")
        with pytest.raises(TransportError, match="UIDVALIDITY") as info:
            box.mark_processed(stale)
        assert not info.value.retryable
    assert dovecot.list_folder("INBOX") == [mail(1)]


# ---------------------------------------------------------------- waiting


def test_idle_wakes_up_soon_after_an_append(dovecot):
    with ImapMailbox(settings(dovecot)) as box:
        assert box.fetch_new() == []
        timer = threading.Timer(0.2, dovecot.append, args=(mail(1),))
        timer.start()
        started = time.monotonic()
        assert box.wait_for_mail(10) is True
        assert time.monotonic() - started < 2.5
        timer.join()
        assert [m.raw for m in box.fetch_new()] == [mail(1)]


def test_wait_times_out_without_new_mail(dovecot):
    dovecot.append(mail(1))
    with ImapMailbox(settings(dovecot)) as box:
        box.fetch_new()  # already handed out: not "new" any more
        started = time.monotonic()
        assert box.wait_for_mail(0.4) is False
        assert 0.35 < time.monotonic() - started < 5
        # mail that is already waiting is reported at once
        dovecot.append(mail(2))
        assert box.wait_for_mail(5) is True


def test_polling_when_the_server_has_no_idle():
    server = capability_server(NO_IDLE)
    try:
        sleeps = Sleeps(on_call=lambda n: server.append(mail(n)) if n == 2 else None)
        with ImapMailbox(settings(server, poll_seconds=7), sleep=sleeps) as box:
            assert box.wait_for_mail(60) is True
        assert sleeps.delays == [7, 7]  # checked after each poll interval
    finally:
        server.remove()


def test_idle_survives_a_server_restart(dovecot):
    with ImapMailbox(settings(dovecot), retries=6, backoff_base=0.3) as box:
        box.fetch_new()

        def crash_and_return() -> None:
            dovecot.kill()
            dovecot.start()
            dovecot.append(mail(1))

        timer = threading.Timer(0.3, crash_and_return)
        timer.start()
        assert box.wait_for_mail(10) is True
        timer.join()
        assert [m.raw for m in box.fetch_new()] == [mail(1)]


# ---------------------------------------------------------------- crashes


def test_server_killed_between_fetch_and_mark_loses_nothing(dovecot):
    raws = [mail(n) for n in range(4)]
    dovecot.append_many(raws)
    box = ImapMailbox(settings(dovecot), sleep=Sleeps())
    got = box.fetch_new()
    box.mark_processed(got[0])
    dovecot.kill()  # the bot committed mail 1, then the server died
    with pytest.raises(TransportError) as info:
        box.mark_processed(got[1])
    assert info.value.retryable
    dovecot.start()
    again = box.fetch_new()
    # the caller dedupes by UIDVALIDITY + UID: same identities as before
    assert [(m.uidvalidity, m.uid, m.raw) for m in again] == [
        (m.uidvalidity, m.uid, m.raw) for m in got[1:]
    ]
    box.mark_processed_many(again)
    box.close()
    assert dovecot.list_folder("INBOX") == []
    assert dovecot.list_folder("Processed") == raws


def test_server_gone_during_fetch_is_reconnected_transparently(dovecot):
    raws = [mail(n) for n in range(5)]
    dovecot.append_many(raws)
    sleeps = Sleeps(on_call=lambda n: dovecot.start() if n == 2 else None)
    with ImapMailbox(settings(dovecot), sleep=sleeps) as box:
        box.fetch_new()
        dovecot.kill()  # the open connection is dead; the server comes back later
        assert [m.raw for m in box.fetch_new()] == raws
    assert sleeps.delays == [0.2, 0.4]


def test_dead_server_gives_a_retryable_error_after_capped_backoff(dovecot):
    dovecot.kill()
    sleeps = Sleeps()
    box = ImapMailbox(settings(dovecot), sleep=sleeps, retries=5, backoff_base=1, backoff_cap=4)
    with pytest.raises(TransportError, match="connection lost or refused") as info:
        box.fetch_new()
    assert info.value.retryable
    assert info.value.endpoint == f"127.0.0.1:{dovecot.imap_port}"
    assert sleeps.delays == [1, 2, 4, 4, 4]


# ---------------------------------------------------------------- configuration


def test_wrong_password_is_a_clear_permanent_error_without_the_password(dovecot, caplog):
    caplog.set_level(logging.DEBUG)
    sleeps = Sleeps()
    box = ImapMailbox(settings(dovecot, password="hunter2-wrong"), sleep=sleeps)
    with pytest.raises(TransportError) as info:
        box.fetch_new()
    message = str(info.value)
    assert "login as 'bot@example.org'" in message and "imap.password" in message
    assert not info.value.retryable and sleeps.delays == []
    assert "hunter2-wrong" not in message
    assert "hunter2-wrong" not in caplog.text
    assert "hunter2-wrong" not in repr(box.settings)


def test_password_env_is_read_only_at_login(dovecot, caplog):
    caplog.set_level(logging.DEBUG)
    dovecot.append(mail(1))
    environ: dict[str, str] = {}
    unset = settings(dovecot, password=None, password_env="T_IMAP_PW", environ=environ)
    sleeps = Sleeps()
    with pytest.raises(TransportConfigError) as info:
        ImapMailbox(unset, sleep=sleeps).fetch_new()
    assert "'T_IMAP_PW' is not set" in str(info.value) and info.value.setting == (
        "imap.password_env")
    assert not info.value.retryable and sleeps.delays == []
    environ["T_IMAP_PW"] = "hunter3-wrong"  # set after the settings were made
    with pytest.raises(TransportError) as wrong:
        ImapMailbox(unset, sleep=Sleeps()).fetch_new()
    assert "imap.password" in str(wrong.value) and "hunter3-wrong" not in str(wrong.value)
    environ["T_IMAP_PW"] = dovecot.password(BOT_ADDRESS)
    with ImapMailbox(unset) as box:
        assert len(box.fetch_new()) == 1
    assert "hunter3-wrong" not in caplog.text
    assert dovecot.password(BOT_ADDRESS) not in caplog.text + repr(unset)


def test_password_never_reaches_the_log(dovecot, caplog):
    caplog.set_level(logging.DEBUG)
    dovecot.append(mail(1))
    with ImapMailbox(settings(dovecot)) as box:
        assert len(box.fetch_new()) == 1
    assert "imapclient" in caplog.text  # the protocol log really was captured
    assert dovecot.password(BOT_ADDRESS) not in caplog.text


def test_tls_against_a_plain_port_is_a_clear_error(dovecot):
    box = ImapMailbox(settings(dovecot, security="ssl"), sleep=Sleeps())
    with pytest.raises(TransportError, match=r"TLS with .* failed.*993") as info:
        box.fetch_new()
    assert not info.value.retryable


def test_starttls_when_the_server_offers_none_is_a_clear_error(dovecot):
    box = ImapMailbox(settings(dovecot, security="starttls"), sleep=Sleeps())
    with pytest.raises(TransportError, match="does not offer STARTTLS") as info:
        box.fetch_new()
    assert not info.value.retryable


def test_missing_folder_is_a_clear_error(dovecot):
    box = ImapMailbox(settings(dovecot, folder="Turnier"), sleep=Sleeps())
    with pytest.raises(TransportError, match="folder 'Turnier'") as info:
        box.fetch_new()
    assert not info.value.retryable


def test_no_greeting_suggests_ssl():
    import socket

    with socket.socket() as silent:  # accepts connections, never says a word
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        box = ImapMailbox(
            ImapSettings("127.0.0.1", port, "none", BOT_ADDRESS, "pw", timeout=0.3),
            sleep=Sleeps(),
            retries=0,
        )
        with pytest.raises(TransportError, match=r"no answer within 0.3 s.*security 'ssl'"):
            box.fetch_new()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("security", "tls", "imap.security='tls'"),
        ("port", 0, "imap.port=0"),
        ("host", "", "imap.host=''"),
        ("processed_folder", "INBOX", "imap.processed_folder='INBOX'"),
        ("poll_seconds", 0, "imap.poll_seconds=0"),
    ],
)
def test_settings_reject_impossible_values(field, value, message):
    values = {"host": "h", "port": 143, "security": "none", "username": "u", "password": "p"}
    values[field] = value
    with pytest.raises(TransportConfigError) as info:
        ImapSettings(**values)
    assert message in str(info.value) and "expected" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_refused_port_names_the_endpoint():
    port = free_port()
    box = ImapMailbox(
        ImapSettings("127.0.0.1", port, "none", BOT_ADDRESS, "pw"), sleep=Sleeps(), retries=1
    )
    with pytest.raises(TransportError, match=f"127.0.0.1:{port}.*refused"):
        box.fetch_new()


# ---------------------------------------------------------------- uid sets


@given(st.sets(st.integers(min_value=1, max_value=200), min_size=1))
def test_uid_set_covers_exactly_the_uids(uids):
    text = uid_set(uids)
    covered: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition(":")
        covered.update(range(int(low), int(high or low) + 1))
    assert covered == uids
    assert text.count(",") + 1 == sum(1 for u in uids if u - 1 not in uids)
