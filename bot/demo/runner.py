"""Run the demo: a fresh game directory, simulated managers, a simulated
clock, and the real App (pipeline, league, outbox, newsletters, archive).
What it says goes through the message catalog (``bot.render.words``), in
the demo game's language (German) unless ``--lang`` chooses."""

from __future__ import annotations

import dataclasses
import email
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from email import policy
from pathlib import Path

import yaml

from bot.app import App, build_app
from bot.config import Config
from bot.demo.players import DemoManager, DemoTeam, make_managers
from bot.mail.maildir_transport import deliver, read_sent
from bot.render.words import Words
from bot.storage import outbox
from bot.storage.permissions import private_umask
from bot.wiring import league_settings

BOT = "turnited@demo.example"
GM = "spielleitung@demo.example"
#: The language of the demo game (its ``game.language``).
DEMO_LANGUAGE = "de"
#: Monday 7 December 2026, 09:00 in Berlin: the demo's first day.
START = datetime(2026, 12, 7, 8, 0, tzinfo=UTC)


class SimulatedClock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@dataclass
class DemoSummary:
    directory: Path
    rounds: int = 0
    mails: int = 0
    replies: int = 0
    error_replies: int = 0
    late: int = 0
    newsletters: int = 0
    reminders: int = 0
    deleted: list[str] = field(default_factory=list)
    winners: list[tuple[int, str]] = field(default_factory=list)
    #: The player teams' titles (a GM team's win is no title: the hall of fame's rule).
    titles: Counter[str] = field(default_factory=Counter)
    top_wp: list[tuple[str, str, Decimal]] = field(default_factory=list)
    last_newsletter: Path | None = None
    archive_index: Path | None = None
    seconds: float = 0.0


def demo_config(directory: Path, simulations: int) -> dict:
    return {
        "game": {"name": "Turnited Demo", "language": DEMO_LANGUAGE},
        "analysis": {"simulations": simulations},
        "state_dir": "state",
        "schedule": {"timezone": "Europe/Berlin", "deadlines": {"cron": "0 20 * * SUN"}},
        "reminders": {"hours_before": [48]},
        "gm": {"address": GM, "name": "Demo-Spielleitung"},
        "mail": {"transport": "maildir", "address": BOT,
                 "limits": {"max_mails_per_hour": 50}},
    }


class DemoRun:
    """Plays ``rounds`` rounds; every mail goes through the real pipeline."""

    def __init__(self, directory: Path, *, seed: int, managers: int, simulations: int,
                 log: Callable[[str], None], words: Words) -> None:
        self.directory = directory
        self.words = words
        self.rng = random.Random(seed)
        self.log = log
        directory.mkdir(parents=True, exist_ok=True)
        data = demo_config(directory, simulations)
        (directory / "config.yaml").write_text(
            "# Written by `turnited demo`; see config.example.yaml for every key.\n"
            + yaml.safe_dump(data, allow_unicode=True, sort_keys=False),
            encoding="utf-8",
        )
        self.clock = SimulatedClock(START)
        config = Config.from_mapping(data, directory, source=directory / "config.yaml")
        # Demo passwords are hashed with a lower scrypt cost: hundreds of
        # simulated mails must not spend the demo's minute on key stretching.
        league = dataclasses.replace(league_settings(config), password_cost=2**10)
        self.app: App = build_app(config, clock=self.clock, league_settings=league)
        self.app.ensure_started()
        self.managers = make_managers(managers, self.rng)
        self.by_address = {m.address: m for m in self.managers}
        self.doomed: dict[str, str] = {}
        self.seen: set[str] = set()
        self.summary = DemoSummary(directory)

    # -- mail plumbing ---------------------------------------------------------

    def send(self, manager: DemoManager, lines: list[str], **kw: object) -> None:
        raw = manager.mail(BOT, lines, self.clock.now, **kw)  # type: ignore[arg-type]
        deliver(self.app.config.maildir_root / "inbox", raw)
        self.summary.mails += 1
        self.app.poll_once()
        self.app.drain_outbox()
        self.read_replies()

    def read_replies(self) -> None:
        fresh = []
        for sent in read_sent(self.app.config.maildir_root):
            if sent.key in self.seen:
                continue
            self.seen.add(sent.key)
            fresh.append(email.message_from_bytes(sent.raw, policy=policy.default))
        if not fresh:
            return
        with self.app.db.read() as conn:  # what each mail is, as the outbox stored it
            kinds = outbox.kinds(conn, (str(m["Message-ID"]).strip() for m in fresh))
        for msg in fresh:
            to = msg["To"].addresses[0].addr_spec if msg["To"] else ""
            kind = kinds.get(str(msg["Message-ID"]).strip(), "")
            if kind == "reply":
                self.summary.replies += 1
                body = msg.get_body(("plain",))
                text = body.get_content() if body else ""
                if "FEHLER" in text or "ERRORS" in text:
                    self.summary.error_replies += 1
                manager = self.by_address.get(to)
                if manager is not None:
                    doomed = manager.learn(text)
                    if doomed:
                        self.doomed[manager.address] = doomed
            elif kind == "reminder":
                self.summary.reminders += 1
            elif kind == "newsletter":
                self.summary.newsletters += 1
                manager = self.by_address.get(to)
                body = msg.get_body(("plain",))
                if manager is not None and body is not None:
                    manager.read_newsletter(body.get_content())

    # -- a round -----------------------------------------------------------------

    def play_round(self, number: int) -> None:
        deadline = self.app.open_round_deadline()
        assert deadline is not None
        first = number == 1
        plans: list[tuple[datetime, DemoManager, str]] = []
        late: list[DemoManager] = []
        for manager in self.managers:
            if not first and self.rng.random() < manager.skip_rate:
                continue
            if not first and self.rng.random() < manager.late_rate:
                late.append(manager)
                continue
            when = deadline - timedelta(days=6) + timedelta(minutes=self.rng.randint(0, 8000))
            mistake = ""
            if manager.password and self.rng.random() < manager.error_rate:
                mistake = self.rng.choice(("bad_lineup", "no_password"))
            plans.append((when, manager, mistake))
        reminded = False
        for when, manager, mistake in sorted(plans, key=lambda p: p[0]):
            if not reminded and when >= deadline - timedelta(hours=48):
                self.remind(deadline)
                reminded = True
            self.clock.now = when
            self.move(manager, number, mistake)
        if not reminded:
            self.remind(deadline)
        self.clock.now = deadline + timedelta(seconds=20)
        for manager in late:
            self.move(manager, number, "")
            self.summary.late += 1
        self.clock.now = deadline + timedelta(minutes=1)
        evaluated = self.app.evaluate_due()
        self.app.drain_outbox()
        self.read_replies()
        if evaluated is None:
            raise RuntimeError(f"round {number} was not evaluated at its deadline")
        self.after_evaluation(evaluated)

    def remind(self, deadline: datetime) -> None:
        self.clock.now = max(self.clock.now, deadline - timedelta(hours=48))
        self.app.send_reminders(self.clock.now, 48)
        self.app.drain_outbox()
        self.read_replies()

    def move(self, manager: DemoManager, number: int, mistake: str) -> None:
        new_team: DemoTeam | None = None
        second = manager.wants_second_team and len(manager.teams) == 1 and number >= 2
        if not manager.teams or second:
            new_team = manager.new_team()
        elif len(manager.teams) == 2 and number in (7, 8) and self.rng.random() < 0.25:
            new_team = manager.new_team()  # a third team: the weaker one goes
        if new_team is not None:
            manager.teams.append(new_team)
        lines = manager.moves(number == 1 and len(manager.teams) == 1, new_team)
        if mistake == "bad_lineup":
            bad = list(lines)
            bad[-1] = bad[-1].rsplit(":", 1)[0] + ": 10-10-15-15"
            self.send(manager, bad)
            self.clock.now += timedelta(minutes=self.rng.randint(20, 300))
        elif mistake == "no_password":
            self.send(manager, [line for line in lines if "wort:" not in line])
            self.clock.now += timedelta(minutes=self.rng.randint(20, 300))
        self.send(manager, lines)

    def after_evaluation(self, number: int) -> None:
        for address, team in list(self.doomed.items()):
            manager = self.by_address[address]
            manager.teams = [t for t in manager.teams if t.name != team]
            self.summary.deleted.append(team)
            del self.doomed[address]
        public = self.app.league.stored_report(number, public=True)
        champion = public["placings"][0] if public.get("placings") else "-"
        self.summary.winners.append((number, champion))
        gm_teams = {t["name"] for t in public.get("teams", []) if t.get("gm")}
        if champion != "-" and champion not in gm_teams:  # as the hall of fame counts titles
            self.summary.titles[champion] += 1
        self.summary.rounds = number
        shown = f"{number:2d}"
        self.log("  " + self.words.ngettext(
            "round %(round)s: %(num)s team, winner %(winner)s",
            "round %(round)s: %(num)s teams, winner %(winner)s",
            len(public.get("teams", [])), round=shown, winner=champion))

    def finish(self) -> DemoSummary:
        with self.app.db.read() as conn:
            rows = self.app.league.wp_table(conn, self.summary.rounds)
        self.summary.top_wp = [(r.team, r.manager, r.wp) for r in rows[:5]]
        archive = self.app.config.state_dir / "archive"
        self.summary.last_newsletter = archive / f"round-{self.summary.rounds:03d}.html"
        self.summary.archive_index = archive / "index.html"
        self.app.close()
        return self.summary


def run_demo(directory: Path, *, seed: int = 2026, managers: int = 40, seasons: int = 2,
             simulations: int = 20_000, log: Callable[[str], None] = print,
             words: Words | None = None) -> DemoSummary:
    """Play ``seasons`` seasons in ``directory`` and return what happened."""
    with private_umask():  # the demo's state is private like every game's
        return _run(directory, seed=seed, managers=managers, seasons=seasons,
                    simulations=simulations, log=log,
                    words=words or Words(DEMO_LANGUAGE, "Europe/Berlin"))


def _run(directory: Path, *, seed: int, managers: int, seasons: int, simulations: int,
         log: Callable[[str], None], words: Words) -> DemoSummary:
    started = time.perf_counter()
    w = words
    run = DemoRun(directory, seed=seed, managers=managers, simulations=simulations, log=log,
                  words=w)
    rounds = seasons * run.app.config.game.season_rounds
    log(w._("Turnited demo: %(managers)s, %(seasons)s (%(rounds)s) in %(directory)s",
            managers=w.ngettext("%(num)s manager", "%(num)s managers", managers),
            seasons=w.ngettext("%(num)s season", "%(num)s seasons", seasons),
            rounds=w.ngettext("%(num)s round", "%(num)s rounds", rounds),
            directory=str(directory)))
    for number in range(1, rounds + 1):
        run.play_round(number)
    summary = run.finish()
    summary.seconds = time.perf_counter() - started
    return summary


def format_summary(s: DemoSummary, w: Words | None = None) -> str:
    """What the demo did, in words."""
    w = w or Words(DEMO_LANGUAGE, "Europe/Berlin")
    lines = [
        "",
        w.ngettext("Played %(num)s round in %(seconds)s s.", "Played %(num)s rounds in "
                   "%(seconds)s s.", s.rounds, seconds=w.number(s.seconds, 1)),
        w._("Mails from managers: %(mails)s; replies: %(replies)s (%(errors)s with errors); "
            "late mails: %(late)s", mails=s.mails, replies=s.replies, errors=s.error_replies,
            late=s.late),
        w._("Newsletters: %(newsletters)s; reminders: %(reminders)s; teams deleted for a new "
            "one: %(deleted)s", newsletters=s.newsletters, reminders=s.reminders,
            deleted=len(s.deleted)),
        w._("Winners: %(winners)s", winners=", ".join(f"{n}: {name}" for n, name in s.winners)),
        w._("Most titles: %(teams)s", teams=", ".join(
            f"{name} ({s.titles[name]})" for name in most_titles(s)) or "-"),
        w._("Top of the WP table:"),
        *(f"  {team:<30} {manager:<24} {w.wp(wp):>7}" for team, manager, wp in s.top_wp),
        "",
        w._("Last newsletter (HTML): %(path)s", path=str(s.last_newsletter)),
        w._("Archive index: %(path)s", path=str(s.archive_index)),
        w._("Every mail in and out: %(path)s", path=str(s.directory / "state" / "maildir")),
        w._("Look at the game: turnited --config %(path)s status",
            path=str(s.directory / "config.yaml")),
    ]
    return "\n".join(lines)


def most_titles(s: DemoSummary) -> list[str]:
    """The player teams with the most titles, by name (the hall of fame's first ones)."""
    if not s.titles:
        return []
    most = max(s.titles.values())
    return sorted(name for name, count in s.titles.items() if count == most)
