"""A league taken over, on real files: the table, the App over an embedded
Maildir, the welcome mails as the managers receive them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from email.message import EmailMessage
from pathlib import Path

from bot.app import App, build_app
from bot.config import Config
from bot.league.settings import LeagueSettings
from bot.mail.maildir_transport import deliver
from bot.service.takeover import import_league
from tests.support.app import BOT, GM, START, body_of, sent
from tests.support.clock import FakeClock
from tests.support.mails import player_mail

HEADER = "team,short,manager,address,language,wp,psz,last_round"
#: Cheap password hashes, a few Monte Carlo runs.
SETTINGS = LeagueSettings(password_cost=2, simulations=200)


@dataclass(frozen=True)
class TableTeam:
    name: str
    short: str
    manager: str
    address: str
    language: str
    wp: str
    psz: str
    last_round: str

    @property
    def wp_value(self) -> Decimal:
        return Decimal(self.wp.replace(",", "."))


def league_table(first_round: int) -> list[TableTeam]:
    """36 teams of 26 managers: ten managers with two teams, German and
    English (and four without a language), WP with two decimals, some with a
    decimal comma; last played rounds from long ago to the round before."""
    teams = []
    for i in range(36):
        owner = i if i < 26 else i - 26  # managers 0..9 get a second team
        language = ("de", "en", "")[owner % 3] if owner % 7 else "de"
        wp_cents = 9000 + (i * 377) % 1400  # 90.00 .. 103.99
        wp = f"{wp_cents // 100}.{wp_cents % 100:02d}"
        if i % 4 == 1:
            wp = wp.replace(".", ",")  # the German spreadsheet's decimal comma
        # some absent for more than three rounds, some unknown (empty)
        last = ("" if i % 9 == 4 else
                str(first_round - 1 - (i % 6)))  # 1..6 rounds ago
        teams.append(TableTeam(
            name=f"Takeover Team {i:02d}" if i % 5 else f"Übernahme Elf {i:02d}",
            short="" if i % 3 else f"TT{i:02d}",
            manager=f"Manager {owner:02d}",
            address=f"manager{owner:02d}@player.example",
            language=language,
            wp=wp,
            psz="" if i % 8 == 3 else f"{240 + i}.5" if i % 2 else str(250 + i),
            last_round=last,
        ))
    return teams


def csv_text(teams: list[TableTeam], separator: str = ",") -> str:
    lines = [HEADER.replace(",", separator)]
    for t in teams:
        values = [t.name, t.short, t.manager, t.address, t.language, t.wp, t.psz, t.last_round]
        lines.append(separator.join(f'"{v}"' if separator in v else v for v in values))
    return "\n".join(lines) + "\n"


def make_app(tmp_path: Path, clock: FakeClock, **extra: object) -> App:
    data = {
        "state_dir": "state",
        "game": {"name": "HAI ZET Turnited"},
        "schedule": {"timezone": "Europe/Berlin", "deadlines": {"cron": "0 20 * * SUN"}},
        "gm": {"address": GM, "name": "Greta GM"},
        "mail": {"transport": "maildir", "address": BOT},
        "archive": {"url": "https://turnited.example/archiv"},
        **extra,
    }
    config = Config.from_mapping(data, tmp_path)
    return build_app(config, clock=clock, league_settings=SETTINGS)


def passwords_of(mails: list[EmailMessage]) -> dict[str, str]:
    """Recipient -> the password in his welcome mail."""
    found = {}
    for m in mails:
        match = re.search(r"^\s*(?:Passwort|Password): (\S+)\s*$", body_of(m), re.M)
        if match:
            found[m["To"].addresses[0].addr_spec] = match.group(1)
    return found


def lineup_for(team: TableTeam, index: int) -> str:
    """A lineup within the team's budget (``floor(WP)``), different per team."""
    budget = int(team.wp_value)
    t, a = index % 4, (index + 1) % 4
    rest = budget - 2 * (t + a)
    v = rest // 3 - index % 3
    m = rest // 3
    return f"{t}-{a}-{v}-{m}-{rest - v - m}"


def imported_app(tmp_path: Path, season: int, round_in_season: int,
                 teams: list[TableTeam]) -> tuple[App, FakeClock, dict[str, str]]:
    clock = FakeClock(START)
    app = make_app(tmp_path, clock)
    app.ensure_started()  # the bot ran once before the import: round 1 open, empty
    result = import_league(
        app.services, csv_text(teams).encode("utf-8"), source="liga.csv", season=season,
        round_in_season=round_in_season, deadline=app.plan.next_deadline(clock.now))
    assert result.imported is not None and result.imported.replaced_round == 1
    app.ensure_started()  # the worker starting again keeps the imported open round
    assert app.open_round_deadline() == result.imported.round.deadline
    app.drain_outbox()
    return app, clock, passwords_of(sent(app))


def send_lineups(app: App, clock: FakeClock, teams: list[TableTeam], playing: set[int],
                 passwords: dict[str, str]) -> None:
    by_manager: dict[str, list[str]] = {}
    for i in sorted(playing):
        t = teams[i]
        by_manager.setdefault(t.address, []).append(f"{t.name}: {lineup_for(t, i)}")
    for address, lines in by_manager.items():
        body = f"Hallo Spielleitung,\nPasswort: {passwords[address]}\n" + "\n".join(lines) + "\n"
        deliver(app.config.maildir_root / "inbox",
                player_mail(address, body, to=BOT, when=clock.now))
    report = app.poll_once()
    assert report.processed == len(by_manager)
    app.drain_outbox()


def evaluate(app: App, clock: FakeClock) -> int:
    deadline = app.open_round_deadline()
    assert deadline is not None
    clock.now = deadline + timedelta(minutes=1)
    number = app.evaluate_due()
    assert number is not None
    app.drain_outbox()
    return number
