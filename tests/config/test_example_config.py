"""The commented example configuration: shipped, complete, valid, documented."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import yaml

from bot.config import Config, example_config_text, load_config

ROOT = Path(__file__).resolve().parents[2]
TOP_LEVEL = ROOT / "config.example.yaml"

#: Dataclass fields whose YAML key has another name or shape.
RENAMED = {"mail.from_header": "mail.from", "schedule.cron": "schedule.deadlines.cron",
           "schedule.deadlines": "schedule.deadlines"}
#: Fields that are not keys of the file: where it was read from, and the
#: transports' own tuning and secret lookup (``timeout``, ``helo``,
#: ``environ``), which the file does not set.
NOT_KEYS = {"source", "timeout", "helo", "environ"}


def settings_keys(cls: type = Config, prefix: str = "") -> set[str]:
    """Every dotted key the loader knows, derived from the settings classes."""
    keys: set[str] = set()
    for f in dataclasses.fields(cls):
        if f.name in NOT_KEYS:
            continue
        key = f"{prefix}{f.name}"
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else None
        if dataclasses.is_dataclass(default):
            keys |= settings_keys(type(default), key + ".")
        else:
            keys.add(RENAMED.get(key, key))
    return keys


def yaml_keys(data: object, prefix: str = "") -> set[str]:
    keys: set[str] = set()
    if isinstance(data, dict):
        for name, value in data.items():
            key = f"{prefix}{name}"
            if isinstance(value, dict) and value:
                keys |= yaml_keys(value, key + ".")
            else:
                keys.add(key)
    return keys


def test_top_level_example_is_identical_to_the_packaged_copy():
    assert TOP_LEVEL.read_text(encoding="utf-8") == example_config_text()


def test_example_loads_as_is_without_any_environment(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(example_config_text(), encoding="utf-8")
    config = load_config(path, environ={})
    assert config.mail.transport == "maildir"
    assert config.state_dir == tmp_path / "state"


def test_example_values_are_the_defaults():
    data = yaml.safe_load(example_config_text())
    from_example = Config.from_mapping(data, Path("/x"), environ={})
    defaults = Config.from_mapping({}, Path("/x"), environ={})
    # The example shows IMAP/SMTP servers as a template; all else is default.
    assert dataclasses.replace(from_example, mail=defaults.mail) == defaults
    assert from_example.mail.limits == defaults.mail.limits
    assert from_example.mail.maildir == defaults.mail.maildir
    assert from_example.mail.from_header == defaults.mail.from_header


#: Keys the example shows only in comments, as the alternative to a key it
#: sets (a password in the file, the explicit deadline list), with the text
#: that documents them.
ALTERNATIVES = {
    "mail.imap.password": "(or `password: ...`, which is not recommended)",
    "mail.smtp.password": "# Name of the environment variable holding the SMTP password",
    "schedule.deadlines": '#   - "2026-12-06 20:00"',
    "gm.password_env": "#   password_env: TURNITED_GM_PASSWORD",
}


def test_example_has_every_key_and_no_other():
    data = yaml.safe_load(example_config_text())
    assert yaml_keys(data) == settings_keys() - set(ALTERNATIVES)
    for text in ALTERNATIVES.values():
        assert text in example_config_text()


def test_every_key_is_explained_by_a_comment():
    lines = example_config_text().splitlines()
    key_line = re.compile(r"^(\s*)([a-z_]+):")
    undocumented = []
    for i, line in enumerate(lines):
        match = key_line.match(line)
        if not match:
            continue
        above = lines[i - 1].strip() if i else ""
        parent_documented = False
        # Children of a documented mapping (points: win/draw/loss, deadlines: cron)
        # are explained by their parent's comment.
        j = i - 1
        while j >= 0 and key_line.match(lines[j]) and \
                len(key_line.match(lines[j]).group(1)) == len(match.group(1)):
            j -= 1
        if j >= 0 and key_line.match(lines[j]) and \
                len(key_line.match(lines[j]).group(1)) < len(match.group(1)):
            parent_documented = j > 0 and lines[j - 1].strip().startswith("#")
        is_section = line.rstrip().endswith(":")
        if not (above.startswith("#") or parent_documented or is_section):
            undocumented.append(line.strip())
    assert undocumented == []
