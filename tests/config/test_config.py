"""The configuration: defaults, strict validation, secrets, conversions."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.config import Config, ConfigError, ConfigFileMissing, load_config
from bot.schedule import parse_local_datetime
from bot.wiring import league_settings

IMAP_BASE = {
    "mail": {
        "transport": "imap",
        "address": "bot@example.org",
        "imap": {"host": "imap.example.org", "password_env": "T_IMAP"},
        "smtp": {"host": "smtp.example.org"},
    },
    "gm": {"address": "gm@example.org"},
}


def build(data: dict, *, environ: dict | None = None, base: Path = Path("/srv/game")) -> Config:
    return Config.from_mapping(data, base, environ=environ or {})


def error_of(data: dict, **kwargs) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        build(data, **kwargs)
    return info.value


def merge(base: dict, extra: dict) -> dict:
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


# -- defaults -----------------------------------------------------------------


def test_empty_config_runs_the_embedded_maildir_transport_with_documented_defaults():
    config = build({})
    assert config.mail.transport == "maildir"
    assert config.game.name == "Turnited"
    assert config.game.language == "de"
    assert dataclasses.astuple(config.game.points) == (3, 1, 0)
    assert config.game.season_rounds == 5
    assert config.game.initial_wp == Decimal(90)
    assert config.psz.initial == Decimal(250)
    assert config.psz.bound is True
    assert config.analysis.simulations == 100_000
    assert config.schedule.timezone == "Europe/Berlin"
    assert config.schedule.cron == "0 20 * * SUN"
    assert config.reminders.hours_before == (48, 6)
    assert config.auth.passwords is True
    assert config.newsletter.language == "de"
    assert config.newsletter.extra_recipients == ()
    assert config.mail.limits.max_text_bytes == 512 * 1024
    assert config.mail.limits.max_command_lines == 60
    assert config.mail.limits.max_mails_per_hour == 20
    assert config.mail.imap.folder == "INBOX"
    assert config.state_dir == Path("/srv/game/state")
    assert config.maildir_root == Path("/srv/game/state/maildir")
    assert config.secrets() == ()


def test_none_and_empty_file_are_the_same_as_no_keys(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("# nothing but a comment\n", encoding="utf-8")
    config = load_config(path)
    assert config == dataclasses.replace(build({}, base=tmp_path), source=path.absolute())


def test_state_dir_is_relative_to_the_config_files_folder_not_the_cwd(tmp_path, monkeypatch):
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "config.yaml").write_text("state_dir: data/state\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    config = load_config(Path("game/config.yaml"))
    assert config.state_dir == folder / "data" / "state"


def test_from_header_defaults_to_game_name_and_address():
    config = build({"game": {"name": "Liga Nord"}, "mail": {"address": "liga@example.org"}})
    assert config.mail.from_header == "Liga Nord <liga@example.org>"
    config = build({"mail": {"from": "Die Spielleitung <sl@example.org>"}})
    assert config.mail.from_header == "Die Spielleitung <sl@example.org>"


def test_from_header_keeps_a_name_with_umlauts_readable():
    """Not RFC 2047-encoded in the configuration: the sender's name is the
    name (the composer encodes the header it writes)."""
    config = build({"game": {"name": "Liga Süd"}, "mail": {"address": "liga@example.org"}})
    assert config.mail.from_header == "Liga Süd <liga@example.org>"
    config = build({"mail": {"from": '"Müller, Spielleitung" <sl@example.org>'}})
    assert config.mail.from_header == '"Müller, Spielleitung" <sl@example.org>'


def test_newsletter_language_follows_game_language_unless_given():
    assert build({"game": {"language": "en"}}).newsletter.language == "en"
    assert build({"game": {"language": "en"}, "newsletter": {"language": "de"}}) \
        .newsletter.language == "de"


def test_points_as_mapping_or_list():
    assert dataclasses.astuple(build({"game": {"points": {"win": 2, "draw": 1, "loss": 0}}})
                               .game.points) \
        == (2, 1, 0)
    assert dataclasses.astuple(build({"game": {"points": [2, 1, 0]}}).game.points) == (2, 1, 0)


def test_imap_ports_default_by_security():
    assert build({"mail": {"imap": {"security": "starttls"}}}).mail.imap.port == 143
    assert build({"mail": {"smtp": {"security": "ssl"}}}).mail.smtp.port == 465
    assert build({"mail": {"smtp": {"security": "none"}}}).mail.smtp.port == 25


def test_reminder_hours_are_sorted_descending():
    assert build({"reminders": {"hours_before": [6, 48, 24]}}).reminders.hours_before \
        == (48, 24, 6)
    assert build({"reminders": {"hours_before": []}}).reminders.hours_before == ()


# -- every validation error names key, value and what is allowed -------------

INVALID = [
    ({"game": {"language": "fr"}}, "game.language", "'fr'", "'de', 'en'"),
    ({"game": {"name": ""}}, "game.name", "''", "non-empty text"),
    ({"game": {"season_rounds": 0}}, "game.season_rounds", "0", "from 1 to 100"),
    ({"game": {"season_rounds": "5"}}, "game.season_rounds", "'5'", "whole number"),
    ({"game": {"season_rounds": True}}, "game.season_rounds", "True", "whole number"),
    ({"game": {"initial_wp": "lots"}}, "game.initial_wp", "'lots'", "decimal number"),
    ({"game": {"initial_wp": -3}}, "game.initial_wp", "-3", "decimal number > 0"),
    ({"game": {"points": {"win": 1, "draw": 2, "loss": 0}}}, "game.points", "'draw': 2",
     "win >= draw >= loss"),
    ({"game": {"points": {"win": 3, "draw": 1, "los": 0}}}, "game.points.los", "0",
     "the keys draw, loss, win"),
    ({"psz": {"initial": 0}}, "psz.initial", "0", "decimal number > 0"),
    ({"psz": {"bound": "yes please"}}, "psz.bound", "'yes please'", "true or false"),
    ({"analysis": {"simulations": -1}}, "analysis.simulations", "-1", "from 0 to"),
    ({"schedule": {"timezone": "Europe/Berln"}}, "schedule.timezone", "'Europe/Berln'",
     "IANA time zone"),
    ({"schedule": {"deadlines": {"cron": "0 25 * * SUN"}}}, "schedule.deadlines.cron",
     "'0 25 * * SUN'", "crontab line"),
    ({"schedule": {"deadlines": {"cron": "0 20 * *"}}}, "schedule.deadlines.cron",
     "'0 20 * *'", "crontab line"),
    ({"schedule": {"deadlines": {"cron": "0 20 31 2 *"}}}, "schedule.deadlines.cron",
     "'0 20 31 2 *'", "crontab line"),
    ({"schedule": {"deadlines": "every sunday"}}, "schedule.deadlines", "'every sunday'",
     "cron"),
    ({"schedule": {"deadlines": ["2026-12-06"]}}, "schedule.deadlines[0]", "'2026-12-06'",
     "local date and time"),
    ({"schedule": {"deadlines": ["2026-12-06 20:00", "6.12.26 20 Uhr"]}},
     "schedule.deadlines[1]", "'6.12.26 20 Uhr'", "local date and time"),
    ({"schedule": {"deadlines": ["2026-03-29 02:30"]}}, "schedule.deadlines[0]",
     "'2026-03-29 02:30'", "local date and time"),
    ({"schedule": {"deadlines": []}}, "schedule.deadlines", "[]", "list of local date-times"),
    ({"reminders": {"hours_before": [48, 48]}}, "reminders.hours_before", "[48, 48]",
     "distinct"),
    ({"reminders": {"hours_before": [0]}}, "reminders.hours_before[0]", "0", "whole number"),
    ({"reminders": {"hours_before": 6}}, "reminders.hours_before", "6", "a list of"),
    ({"gm": {"address": "not an address"}}, "gm.address", "'not an address'", "mail address"),
    ({"mail": {"transport": "pigeon"}}, "mail.transport", "'pigeon'", "'imap', 'maildir'"),
    ({"mail": {"from": "Turnited"}}, "mail.from", "'Turnited'", "display name and address"),
    ({"mail": {"imap": {"port": 70000}}}, "mail.imap.port", "70000", "from 1 to 65535"),
    ({"mail": {"imap": {"security": "tls"}}}, "mail.imap.security", "'tls'",
     "'ssl', 'starttls', 'none'"),
    ({"mail": {"imap": {"processed_folder": "INBOX"}}}, "mail.imap.processed_folder",
     "'INBOX'", "other than mail.imap.folder"),
    ({"mail": {"imap": {"poll_seconds": 1}}}, "mail.imap.poll_seconds", "1", "from 5"),
    ({"mail": {"imap": {"password_env": "not a name"}}}, "mail.imap.password_env",
     "'not a name'", "environment variable"),
    ({"mail": {"smtp": {"rate_per_minute": 0}}}, "mail.smtp.rate_per_minute", "0",
     "whole number"),
    ({"mail": {"maildir": {"poll_seconds": 0}}}, "mail.maildir.poll_seconds", "0", "> 0"),
    ({"mail": {"limits": {"max_text_bytes": 10}}}, "mail.limits.max_text_bytes", "10",
     "from 1024"),
    ({"newsletter": {"extra_recipients": ["ok@example.org", "nope"]}},
     "newsletter.extra_recipients[1]", "'nope'", "mail address"),
    ({"auth": {"passwords": 1}}, "auth.passwords", "1", "true or false"),
    ({"state_dir": 7}, "state_dir", "7", "text"),
    ({"game": "Turnited"}, "game", "'Turnited'", "mapping"),
]


@pytest.mark.parametrize(("data", "key", "shown", "allowed"), INVALID,
                         ids=[case[1] for case in INVALID])
def test_invalid_value_names_key_value_and_what_is_allowed(data, key, shown, allowed):
    error = error_of(data)
    assert error.key == key
    assert not error.others, str(error)
    message = str(error)
    assert message.startswith("configuration: ")
    assert f"{key} = " in message
    assert shown in message
    assert allowed in message
    assert "allowed: " in message
    assert isinstance(error, ValueError)


def test_nonexistent_and_repeated_local_times_explain_the_clock_change():
    gap = error_of({"schedule": {"deadlines": ["2026-03-29 02:30"]}})
    assert "does not exist in Europe/Berlin" in str(gap)
    twice = error_of({"schedule": {"deadlines": ["2026-10-25 02:30"]}})
    assert "happens twice" in str(twice)
    assert "'2026-10-25 02:30+02:00' or '2026-10-25 02:30+01:00'" in str(twice)
    # With the offset, the repeated time is accepted and means that instant.
    config = build({"schedule": {"deadlines": ["2026-10-25 02:30+01:00"]}})
    assert config.schedule.deadlines == (datetime(2026, 10, 25, 1, 30, tzinfo=UTC),)


def test_time_zone_typo_gets_a_suggestion():
    error = error_of({"schedule": {"timezone": "Europe/Berln"}})
    assert "did you mean 'Europe/Berlin'?" in str(error)


def test_all_problems_of_a_file_are_reported_together():
    error = error_of({"game": {"language": "fr", "season_rounds": 0}, "psz": {"initial": "x"}})
    keys = [error.key] + [e.key for e in error.others]
    assert sorted(keys) == ["game.language", "game.season_rounds", "psz.initial"]
    message = str(error)
    assert "(and 2 more problem(s))" in message
    for key in keys:
        assert key in message


def test_imap_transport_requires_its_servers_and_addresses():
    error = error_of({"mail": {"transport": "imap"}})
    keys = {error.key} | {e.key for e in error.others}
    assert keys == {"mail.address", "mail.imap.host", "mail.imap.password_env",
                    "mail.smtp.host", "gm.address"}
    assert "is missing" in str(error)
    assert "required when mail.transport is 'imap'" in str(error)


# -- unknown keys ------------------------------------------------------------


@pytest.mark.parametrize(("data", "key", "suggestion"), [
    ({"gmae": {}}, "gmae", "'game'"),
    ({"game": {"nmae": "x"}}, "game.nmae", "'game.name'"),
    ({"mail": {"imap": {"hots": "x"}}}, "mail.imap.hots", "'mail.imap.host'"),
    ({"schedule": {"timezon": "UTC"}}, "schedule.timezon", "'schedule.timezone'"),
    ({"reminders": {"hours": [1]}}, "reminders.hours", "'reminders.hours_before'"),
])
def test_unknown_key_is_an_error_with_a_suggestion(data, key, suggestion):
    error = error_of(data)
    assert error.key == key
    assert f"unknown key; did you mean {suggestion}?" in str(error)
    assert "the keys " in str(error)


def test_unknown_key_without_a_near_match_lists_the_allowed_keys():
    error = error_of({"xyzzy": 1})
    assert "did you mean" not in str(error)
    assert "analysis, archive, auth, game, gm, mail, newsletter, psz, reminders, retention, "\
        "schedule, state_dir" \
        in str(error)


def test_duplicate_yaml_key_is_an_error_with_its_line(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("game:\n  name: A\n  name: B\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert "duplicate key on line 3" in str(info.value)
    assert str(path) in str(info.value)


def test_yaml_syntax_error_names_line_and_file(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("game:\n  name: [unclosed\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert "YAML syntax error at line" in str(info.value)
    assert str(path) in str(info.value)


def test_missing_file_says_how_to_create_one(tmp_path):
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path / "nope.yaml")
    assert isinstance(info.value, ConfigFileMissing)
    assert f"this configuration file does not exist: {tmp_path / 'nope.yaml'}" in str(info.value)
    assert "turnited init" in str(info.value)


# -- secrets -------------------------------------------------------------------

SECRET = "s3cr3t-Pa55word!"


def test_password_env_is_checked_at_load_and_read_at_login():
    environ = {"T_IMAP": SECRET}
    config = build(IMAP_BASE, environ=environ)
    assert config.mail.imap.password is None  # the settings keep only the name
    assert config.mail.imap.password_env == "T_IMAP"
    assert config.mail.imap.login_password() == SECRET
    assert config.secrets() == (SECRET,)
    environ["T_IMAP"] = SECRET + "-rotated"  # read again at each login
    assert config.imap_settings().login_password() == SECRET + "-rotated"


def test_commands_that_never_connect_need_no_password_variables():
    config = Config.from_mapping(IMAP_BASE, Path("/srv/game"), environ={},
                                 check_secrets=False)
    assert config.mail.imap.password_env == "T_IMAP"
    assert config.secrets() == ()
    with pytest.raises(ValueError, match="'T_IMAP' is not set") as info:
        config.imap_settings().login_password()
    assert info.value.setting == "imap.password_env"


def test_missing_environment_variable_is_named():
    error = error_of(IMAP_BASE, environ={})
    assert error.key == "mail.imap.password_env"
    assert "environment variable 'T_IMAP' is not set" in str(error)
    error = error_of(IMAP_BASE, environ={"T_IMAP": ""})
    assert "environment variable 'T_IMAP' is empty" in str(error)


def test_smtp_needs_a_password_only_with_a_username():
    env = {"T_IMAP": "x", "T_SMTP": SECRET}
    no_auth = build(IMAP_BASE, environ=env)
    assert no_auth.mail.smtp.username is None and no_auth.mail.smtp.password is None
    error = error_of(merge(IMAP_BASE, {"mail": {"smtp": {"username": "bot"}}}), environ=env)
    assert error.key == "mail.smtp.password_env"
    with_auth = build(
        merge(IMAP_BASE, {"mail": {"smtp": {"username": "bot", "password_env": "T_SMTP"}}}),
        environ=env,
    )
    assert with_auth.mail.smtp.password is None
    assert with_auth.mail.smtp.login_password() == SECRET


def test_maildir_transport_does_not_need_the_variables():
    config = build({"mail": {"imap": {"password_env": "UNSET_VAR"}}}, environ={})
    assert config.mail.imap.password is None
    assert config.mail.imap.password_env == "UNSET_VAR"


def test_password_and_password_env_together_are_refused():
    data = merge(IMAP_BASE, {"mail": {"imap": {"password": SECRET}}})
    error = error_of(data, environ={"T_IMAP": "x"})
    assert error.key == "mail.imap.password_env"
    assert "not both" in str(error)
    assert SECRET not in str(error)


def test_secrets_never_appear_in_repr_or_str():
    config = build(merge(IMAP_BASE, {"mail": {"smtp": {"username": "u", "password": SECRET}}}),
                   environ={"T_IMAP": SECRET + "-imap"})
    for text in (repr(config), str(config), repr(config.mail), repr(config.mail.imap),
                 str(config.mail.smtp)):
        assert SECRET not in text
    assert "password='***'" in repr(config.mail.smtp)
    assert "password_env='T_IMAP'" in repr(config.mail.imap)
    assert SECRET not in repr(config.imap_settings())
    assert SECRET not in repr(config.smtp_settings())


def test_secret_values_are_redacted_in_errors(tmp_path):
    # a secret of the wrong type
    error = error_of({"mail": {"smtp": {"password": 123456789}}})
    assert "123456789" not in str(error)
    assert "mail.smtp.password = '***'" in str(error)
    # a misspelt password key
    error = error_of({"mail": {"imap": {"pasword": SECRET}}})
    assert SECRET not in str(error)
    assert "did you mean 'mail.imap.password'?" in str(error)
    # a duplicate password key in the file
    path = tmp_path / "c.yaml"
    path.write_text(f"mail:\n  imap:\n    password: a\n    password: {SECRET}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert SECRET not in str(info.value)


# -- deadlines -------------------------------------------------------------------


def test_explicit_deadlines_are_local_times_sorted_in_utc():
    config = build({"schedule": {"deadlines": ["2026-12-13 20:00", "2026-07-05T20:00"]}})
    assert config.schedule.cron is None
    assert config.schedule.deadlines == (
        datetime(2026, 7, 5, 18, 0, tzinfo=UTC),  # summer time, UTC+2
        datetime(2026, 12, 13, 19, 0, tzinfo=UTC),  # winter time, UTC+1
    )


def test_yaml_timestamps_are_accepted_as_local_times(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("schedule:\n  timezone: America/New_York\n"
                    "  deadlines:\n    - 2026-12-06 20:00:00\n", encoding="utf-8")
    config = load_config(path)
    assert config.schedule.deadlines == (datetime(2026, 12, 7, 1, 0, tzinfo=UTC),)


def test_repeated_explicit_deadline_is_an_error():
    error = error_of({"schedule": {"deadlines": ["2026-12-06 20:00", "2026-12-06 20:00"]}})
    assert "appears twice" in str(error)


@pytest.mark.parametrize(("weekday", "expected"), [
    ("0", "sun"), ("7", "sun"), ("SUN", "sun"), ("sun", "sun"), ("1-5", "mon,tue,wed,thu,fri"),
    ("0,6", "sun,sat"), ("*/2", "sun,tue,thu,sat"), ("mon-fri", "mon-fri"), ("*", "*"),
])
def test_cron_weekday_numbers_follow_crontab_not_apscheduler(weekday, expected):
    config = build({"schedule": {"deadlines": {"cron": f"0 20 * * {weekday}"}}})
    trigger = config.schedule.cron_trigger()
    day_field = next(f for f in trigger.fields if f.name == "day_of_week")
    assert str(day_field) == expected


def test_parse_local_datetime_cases():
    berlin = build({}).schedule.zone
    assert parse_local_datetime("2026-12-06 20:00", berlin) == datetime(2026, 12, 6, 19,
                                                                        tzinfo=UTC)
    assert parse_local_datetime("2026-12-06 20:00Z", berlin) == datetime(2026, 12, 6, 20,
                                                                         tzinfo=UTC)
    for bad in ("tomorrow", "2026-13-01 20:00", "2026-12-06 25:00", ""):
        with pytest.raises(ValueError, match="date and time"):
            parse_local_datetime(bad, berlin)


@given(hour=st.integers(0, 23), minute=st.integers(0, 59), day=st.integers(1, 28),
       month=st.integers(1, 12))
def test_local_datetime_round_trips_outside_the_clock_changes(hour, minute, day, month):
    berlin = build({}).schedule.zone
    text = f"2027-{month:02d}-{day:02d} {hour:02d}:{minute:02d}"
    try:
        moment = parse_local_datetime(text, berlin)
    except ValueError as exc:  # only the two clock-change hours may fail
        assert "clocks" in str(exc)
        assert (month, hour) in {(3, 2), (10, 2)}
        return
    assert moment.tzinfo == UTC
    assert moment.astimezone(berlin).strftime("%Y-%m-%d %H:%M") == text


# -- conversions -------------------------------------------------------------------


def test_conversions_to_the_other_layers_settings():
    data = merge(IMAP_BASE, {
        "game": {"season_rounds": 4, "initial_wp": "90.5", "points": [2, 1, 0]},
        "psz": {"initial": 300, "bound": False},
        "analysis": {"simulations": 500},
        "auth": {"passwords": False},
        "mail": {"imap": {"security": "starttls", "processed_folder": None, "idle": False,
                          "poll_seconds": 30},
                 "smtp": {"port": 2525, "security": "none", "username": "bot",
                          "password_env": "T_SMTP"}},
    })
    config = build(data, environ={"T_IMAP": "imap-pw", "T_SMTP": "smtp-pw"})
    imap = config.imap_settings()
    assert (imap.host, imap.port, imap.security, imap.username, imap.login_password()) == (
        "imap.example.org", 143, "starttls", "bot@example.org", "imap-pw")
    assert (imap.processed_folder, imap.idle, imap.poll_seconds) == (None, False, 30)
    smtp = config.smtp_settings()
    assert (smtp.host, smtp.port, smtp.security, smtp.username, smtp.login_password()) == (
        "smtp.example.org", 2525, "none", "bot", "smtp-pw")
    league = league_settings(config)
    assert league.initial_wp == Decimal("90.5")
    assert league.initial_psz == Decimal(300)
    assert league.season_rounds == 4
    assert league.points == (2, 1, 0)
    assert league.passwords is False
    assert league.simulations == 500
    assert league.psz_bound is False


# -- the game master by mail (RULES.md §13) -------------------------------------------


GM_SECRET = "lang-genug-123"


def test_the_gm_password_comes_from_the_environment_only():
    config = build({"gm": {"address": "gm@example.org", "password_env": "T_GM"}},
                   environ={"T_GM": GM_SECRET})
    assert config.gm.password_env == "T_GM" and config.gm.password() == GM_SECRET
    assert GM_SECRET not in repr(config) and GM_SECRET in config.secrets()
    assert build({}).gm.password() is None  # no password_env: no game master by mail
    error = error_of({"gm": {"password": GM_SECRET}})
    assert error.key == "gm.password" and GM_SECRET not in str(error)
    assert "password_env" in str(error)


@pytest.mark.parametrize(("environ", "why"), [
    ({}, "'T_GM' is not set"),
    ({"T_GM": ""}, "'T_GM' is empty"),
    ({"T_GM": "kurz"}, "'T_GM' holds only 4 characters"),
])
def test_an_unusable_gm_password_is_refused_at_load(environ, why):
    error = error_of({"gm": {"password_env": "T_GM"}}, environ=environ)
    assert error.key == "gm.password_env" and why in str(error)
    # A command that reads no mail loads it; the game master by mail is then off.
    config = Config.from_mapping({"gm": {"password_env": "T_GM"}}, Path("/x"),
                                 environ=environ, check_secrets=False)
    assert config.gm.password() is None
