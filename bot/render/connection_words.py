"""The words of ``turnited check --connect``, in German or English: one
line per step of the connection check (``bot.mail.probe``: a code and its
values), saying what worked, or what failed and which key of
``config.yaml`` to change.

The wordings are messages of the catalog (marked ``N_``, extracted with the
templates' messages); ``line`` translates them at use. A code without a
wording (none should exist; the tests feed every code through) is shown
with its values rather than hidden.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.errors import N_
from bot.render.formatting import check_language
from bot.render.i18n import translations

#: What each step's outcome says. Placeholders: ``key`` (``mail.imap`` or
#: ``mail.smtp``), ``endpoint``, ``host``, ``port`` and the step's own values.
WORDS: dict[str, str] = {
    # -- connecting
    "connected": N_("connected to %(endpoint)s"),
    "dns": N_("the host name %(host)s is unknown (%(detail)s): check %(key)s.host"),
    "refused": N_("%(endpoint)s refuses the connection, nothing listens on port %(port)s: "
                  "check %(key)s.port (%(ports)s)"),
    "timeout": N_("%(endpoint)s did not answer within %(seconds)s s: check %(key)s.host "
                  "and %(key)s.port, and whether a firewall blocks the port"),
    "timeout_plain": N_("%(endpoint)s did not answer within %(seconds)s s: check %(key)s.host "
                        "and %(key)s.port (a firewall?); if the port expects TLS from the "
                        "first byte (usually %(tls_port)s), set %(key)s.security: ssl"),
    "lost": N_("%(endpoint)s closed the connection (%(detail)s): check %(key)s.port "
               "(%(ports)s) and %(key)s.security"),
    "connection_failed": N_("cannot connect to %(endpoint)s (%(detail)s): check %(key)s.host "
                            "and %(key)s.port"),
    "not_imap": N_("%(endpoint)s is no IMAP server (it answered %(greeting)s): check "
                   "%(key)s.port (%(ports)s)"),
    "not_smtp": N_("%(endpoint)s is no SMTP server (it answered %(greeting)s): check "
                   "%(key)s.port (%(ports)s)"),
    "smtp_refuses_client": N_("%(endpoint)s refuses to serve this machine (%(reply)s): check "
                              "%(key)s.host and whether this machine may send through it"),
    "server_error": N_("%(endpoint)s answered with an error (%(detail)s)"),
    "unexpected": N_("checking %(endpoint)s failed unexpectedly (%(detail)s)"),
    # -- TLS
    "tls_ok": N_("TLS from the start (%(version)s), the certificate is valid for %(host)s"),
    "starttls_ok": N_("STARTTLS (%(version)s), the certificate is valid for %(host)s"),
    "plain": N_("no TLS (%(key)s.security: none): the password and the mails travel "
                "unencrypted; use it only on a network you trust"),
    "no_starttls": N_("%(endpoint)s does not offer STARTTLS: set %(key)s.security: ssl and "
                      "%(key)s.port: %(tls_port)s"),
    "tls_handshake": N_("TLS with %(endpoint)s failed (%(detail)s): this port does not speak "
                        "TLS from the start; set %(key)s.security: starttls, or the port "
                        "that does (%(key)s.port, usually %(tls_port)s)"),
    "cert_host": N_("the TLS certificate of %(endpoint)s is not for the name %(host)s "
                    "(%(detail)s): set %(key)s.host to the name on the certificate"),
    "cert_untrusted": N_("the TLS certificate of %(endpoint)s has an issuer nobody here "
                         "trusts (%(detail)s): set %(key)s.ca_file to the PEM file of its CA"),
    "cert_expired": N_("the TLS certificate of %(endpoint)s has expired or is not valid yet "
                       "(%(detail)s): the server needs a current certificate"),
    "cert_other": N_("the TLS certificate of %(endpoint)s is not trusted (%(detail)s): check "
                     "%(key)s.host and %(key)s.ca_file"),
    "ca_file_bad": N_("%(key)s.ca_file %(path)s cannot be read as PEM certificates: give the "
                      "PEM file of the CA"),
    # -- logging in
    "logged_in": N_("logged in as %(user)s (%(method)s)"),
    "no_login": N_("no login (%(key)s.username is not set): the server must take mail from "
                   "this machine without one"),
    "password_unset": N_("the environment variable %(env)s (%(key)s.password_env) is not set "
                         "or empty where the bot runs: set it, e.g. in the service's "
                         "environment file"),
    "login_refused": N_("the login as %(user)s was refused (%(reply)s): check %(key)s.username "
                        "and the password in %(source)s (Gmail wants an app password; "
                        "Microsoft 365 and Outlook.com want %(key)s.auth: oauth2)"),
    "no_auth": N_("%(endpoint)s offers no login on this connection: set %(key)s.security to "
                  "starttls or ssl, or remove %(key)s.username if it needs none"),
    "no_auth_method": N_("%(endpoint)s offers no password login (it offers %(offered)s): set "
                         "%(key)s.auth: oauth2 if one of these is XOAUTH2 or OAUTHBEARER"),
    "no_oauth": N_("%(endpoint)s offers no OAuth2 login (XOAUTH2, OAUTHBEARER; it offers "
                   "%(offered)s): set %(key)s.auth: password"),
    "token_refused": N_("%(endpoint)s refused the access token for %(user)s (%(method)s: "
                        "%(reply)s): the token printed by %(key)s.token_command has expired, "
                        "is for another account or lacks the mail scope"),
    "token_not_run": N_("%(key)s.token_command %(command)s cannot be run (%(detail)s): give "
                        "the full path of an installed program"),
    "token_failed": N_("%(key)s.token_command %(command)s failed (%(detail)s): run it by hand "
                       "to see why; after an expired login, log in again with the tool"),
    "token_timeout": N_("%(key)s.token_command %(command)s printed no token within %(detail)s "
                        "s: run it by hand; does it wait for input?"),
    "token_empty": N_("%(key)s.token_command %(command)s printed nothing: it must print the "
                      "access token on standard output"),
    "token_malformed": N_("%(key)s.token_command %(command)s printed more than a token (more "
                          "lines, spaces or control characters): it must print only the "
                          "access token"),
    # -- IMAP folders and IDLE
    "folder_ok": N_("folder %(folder)s (%(key)s.folder) exists, messages in it: %(count)s"),
    "folder_missing": N_("folder %(folder)s does not exist; the mailbox has: %(existing)s: "
                         "set %(key)s.folder to one of them"),
    "folder_exists": N_("folder %(folder)s (%(key)s.%(setting)s) exists"),
    "folder_created": N_("folder %(folder)s (%(key)s.%(setting)s) did not exist and was "
                         "created, as the bot would have done"),
    "folder_create_failed": N_("folder %(folder)s (%(key)s.%(setting)s) does not exist and "
                               "cannot be created (%(detail)s): create it with a mail "
                               "program, or set %(key)s.%(setting)s to an existing folder"),
    "folder_none": N_("%(key)s.%(setting)s is null: processed mails stay in the folder, "
                      "flagged as seen"),
    "idle_ok": N_("IDLE is offered: new mail is seen within seconds"),
    "idle_missing": N_("the server offers no IDLE: the bot looks for new mail every "
                       "%(seconds)s s (%(key)s.poll_seconds)"),
    "idle_off": N_("IDLE is switched off (%(key)s.idle: false): the bot looks for new mail "
                   "every %(seconds)s s"),
    # -- SMTP sender
    "sender_ok": N_("the sender %(address)s is accepted (MAIL FROM, then RSET: nothing was "
                    "sent)"),
    "sender_refused": N_("the server refuses the sender %(address)s (%(reply)s): set "
                         "mail.address to the mailbox's own address, or to an alias the "
                         "provider allows for it"),
}

#: The usual ports of each server, shown where a port is wrong.
PORTS = {
    "imap": N_("993 with security ssl, 143 with starttls"),
    "smtp": N_("465 with security ssl, 587 with starttls"),
}
#: The port of each server that speaks TLS from the first byte.
TLS_PORTS = {"imap": 993, "smtp": 465}

MARKS = {"ok": N_("ok"), "note": N_("note"), "problem": N_("PROBLEM")}

SERVERS = {"imap": "IMAP", "smtp": "SMTP"}

ALL_WELL = N_("All well: the bot can read and send mail with these settings.")
NOT_WELL = N_("Not everything works: change config.yaml as the lines marked PROBLEM say, "
              "then run turnited check --connect again.")
MAILDIR = N_("mail.transport is maildir: there is no mail server to check (set "
             "mail.transport: imap and the mail.imap and mail.smtp sections).")


def line(server: str, code: str, values: Mapping[str, object], language: str) -> str:
    """One step's words in ``language``."""
    gettext = translations(check_language(language)).gettext
    filled: dict[str, object] = {"ports": gettext(PORTS.get(server, "")),
                                 "tls_port": TLS_PORTS.get(server, ""), **values}
    if code not in WORDS:
        return f"{code}: " + ", ".join(f"{k}={v}" for k, v in sorted(values.items()))
    try:
        return gettext(WORDS[code]) % filled
    except (KeyError, ValueError):  # a value missing: still say what happened
        return f"{code}: " + ", ".join(f"{k}={v}" for k, v in sorted(values.items()))


def mark(status: str, language: str) -> str:
    """``ok`` / ``note`` / ``PROBLEM`` in ``language``."""
    return translations(check_language(language)).gettext(MARKS[status])


def server_name(server: str) -> str:
    return SERVERS.get(server, server.upper())


def summary(ok: bool, language: str, *, maildir: bool = False) -> str:
    """The last line: all well, or what to do."""
    text = MAILDIR if maildir else ALL_WELL if ok else NOT_WELL
    return translations(check_language(language)).gettext(text)
