"""docs/providers.md: every provider's settings are a valid configuration
(the loader takes them as they are), and the token script compiles."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

from bot.config import Config

DOC = Path(__file__).resolve().parents[2] / "docs" / "providers.md"
TEXT = DOC.read_text(encoding="utf-8")
YAML_BLOCKS = re.findall(r"```yaml\n(.*?)```", TEXT, re.S)


def test_every_provider_has_settings():
    assert len(YAML_BLOCKS) >= 7
    hosts = " ".join(YAML_BLOCKS)
    for host in ("imap.gmail.com", "outlook.office365.com", "imap.gmx.net", "posteo.de",
                 "imap.mailbox.org", "mail.example.org"):
        assert host in hosts


@pytest.mark.parametrize("block", YAML_BLOCKS, ids=lambda b: b.split("host: ")[1].split()[0])
def test_the_settings_load(block):
    data = yaml.safe_load(block)
    config = Config.from_mapping({"gm": {"address": "gm@example.org"}, **data},
                                 Path("/srv/game"), environ={}, check_secrets=False)
    assert config.mail.transport == "imap"
    for server in (config.mail.imap, config.mail.smtp):
        assert server.security in ("ssl", "starttls")  # never plain text at a provider
        assert server.password is None  # a password is named, never written
        assert (server.auth == "oauth2") == (server.token_command is not None)


def test_the_token_script_is_python():
    (script,) = re.findall(r"```python\n(.*?)```", TEXT, re.S)
    tree = ast.parse(script)
    calls = {node.func.attr for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)}
    assert {"acquire_token_silent", "initiate_device_flow", "acquire_token_by_device_flow",
            "get_accounts", "serialize", "deserialize"} <= calls
