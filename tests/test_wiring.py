"""The composition root's mapping (bot.wiring): a configuration becomes each
layer's settings, every value derived once, every default written once."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from bot.config import Config, MailLimits
from bot.schedule import DeadlinePlan
from bot.service.outgoing import Sender
from bot.service.settings import GameSettings, IngestSettings
from bot.storage.db import open_database
from bot.wiring import (
    game_settings,
    ingest_settings,
    league_settings,
    sender_of,
    service_context,
)

FULL = {
    "game": {"name": "Liga Nord", "language": "en", "season_rounds": 4, "initial_wp": "91.5"},
    "psz": {"initial": 300, "bound": False},
    "analysis": {"simulations": 700},
    "auth": {"passwords": False},
    "schedule": {"timezone": "Europe/Vienna"},
    "gm": {"address": "gm@liga.example", "name": "Greta"},
    "newsletter": {"language": "de", "extra_recipients": ["fan@liga.example"]},
    "archive": {"url": "https://liga.example/archiv/"},
    "mail": {"address": "bot@liga.example", "from": "Die Spielleitung <sl@liga.example>",
             "limits": {"max_text_bytes": 2048, "max_command_lines": 7,
                        "max_mails_per_hour": 5, "max_mail_bytes": 128 * 1024,
                        "handling_seconds": 3.5, "max_attempts": 2},
             "trust": {"authserv_id": "mx.liga.example"}},
}


def config(tmp_path: Path, data: dict[str, object] | None = None) -> Config:
    return Config.from_mapping(FULL if data is None else data, tmp_path)


def test_the_sender_is_mail_from_else_the_games_name_and_address(tmp_path: Path) -> None:
    assert sender_of(config(tmp_path)) == Sender("sl@liga.example", "Die Spielleitung")
    plain = config(tmp_path, {"game": {"name": "Liga Süd"}, "mail": {"address": "b@x.example"}})
    assert sender_of(plain) == Sender("b@x.example", "Liga Süd")


def test_game_settings_of_a_full_configuration(tmp_path: Path) -> None:
    assert game_settings(config(tmp_path)) == GameSettings(
        game_name="Liga Nord", game_address="bot@liga.example", language="en",
        newsletter_language="de", timezone="Europe/Vienna",
        sender=Sender("sl@liga.example", "Die Spielleitung"), gm_address="gm@liga.example",
        gm_name="Greta", archive_dir=tmp_path / "state" / "archive",
        deadline_plan=DeadlinePlan(config(tmp_path).schedule), reminder_hours=(48, 6),
        extra_recipients=("fan@liga.example",))


def test_ingest_settings_carry_the_limits_and_the_bots_addresses(tmp_path: Path) -> None:
    settings = ingest_settings(config(tmp_path))
    assert (settings.max_text_bytes, settings.max_command_lines, settings.max_mails_per_hour,
            settings.max_mail_bytes, settings.handling_seconds, settings.max_attempts) == (
        2048, 7, 5, 128 * 1024, 3.5, 2)
    assert settings.authserv_id == "mx.liga.example"
    assert settings.spool_dir == tmp_path / "state" / "spool"
    assert settings.all_own_addresses == {"bot@liga.example", "sl@liga.example"}
    assert (settings.from_name, settings.game_name, settings.language, settings.timezone) == (
        "Die Spielleitung", "Liga Nord", "en", "Europe/Vienna")


def test_an_empty_configuration_gives_the_configurations_defaults(tmp_path: Path) -> None:
    settings = ingest_settings(config(tmp_path, {}))
    limits = MailLimits()
    assert {f.name: getattr(settings, f.name) for f in dataclasses.fields(MailLimits)} == {
        f.name: getattr(limits, f.name) for f in dataclasses.fields(MailLimits)}
    assert settings.authserv_id is None


def test_league_settings_from_the_game_psz_analysis_and_auth_sections(tmp_path: Path) -> None:
    league = league_settings(config(tmp_path))
    assert (league.season_rounds, league.initial_wp, league.initial_psz, league.psz_bound,
            league.simulations, league.passwords) == (
        4, Decimal("91.5"), Decimal(300), False, 700, False)


def test_the_use_cases_settings_write_no_default_the_configuration_has(tmp_path: Path) -> None:
    """Each default once: what the configuration gives has its default in
    bot.config only; the service layer's types take it from the wiring."""
    mapped = {f.name for f in dataclasses.fields(IngestSettings)} - {"max_transaction_seconds"}
    defaulted = {f.name for f in dataclasses.fields(IngestSettings)
                 if f.default is not dataclasses.MISSING
                 or f.default_factory is not dataclasses.MISSING}
    assert defaulted == {"max_transaction_seconds"}
    assert {f.name for f in dataclasses.fields(MailLimits)} <= mapped
    game = {f.name for f in dataclasses.fields(GameSettings)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    assert game == {f.name for f in dataclasses.fields(GameSettings)} - {"extra_recipients"}


def test_a_service_context_without_the_transports(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    db = open_database(cfg.state_dir)
    try:
        moment = datetime(2026, 12, 1, tzinfo=UTC)
        ctx = service_context(cfg, db, clock=lambda: moment)
        assert ctx.db is db and ctx.clock() == moment
        assert ctx.settings == game_settings(cfg)
        assert ctx.league.settings == league_settings(cfg)
        assert ctx.environments.archive_url == "https://liga.example/archiv"
    finally:
        db.close()
