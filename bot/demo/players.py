"""The simulated managers of the demo: who they are and what they write.

Each ``DemoManager`` decides, from a seeded ``random.Random``, what to mail
in a round: lineups for their teams (sometimes over budget, to show the
corrections), a new team now and then (which replaces the weaker one),
occasional mistakes (an invalid lineup, a forgotten password) that they fix
after reading the error reply, late mails, and rounds they skip. They learn
their password the way a person does: from the bot's first reply.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, formataddr, make_msgid

FIRST_DE = ("Hans", "Grete", "Jürgen", "Uschi", "Klaus", "Birgit", "Detlef", "Sabine",
            "Günther", "Heike", "Rüdiger", "Anke", "Wolfgang", "Petra", "Bernd", "Jutta",
            "Horst", "Monika", "Dieter", "Karin", "Uwe", "Doris", "Frank", "Elke", "Jörg",
            "Silke", "Ralf", "Gabi")
LAST_DE = ("Meier", "Schulz", "Köhler", "Büttner", "Wagner", "Hoffmann", "Schäfer", "Krüger",
           "Neumann", "Schmitz", "Lehmann", "Weiß", "Brandt", "Vogel", "Fuchs", "Jäger")
FIRST_EN = ("Alice", "Brian", "Carol", "Dave", "Emma", "Frank", "Gwen", "Harry", "Isla",
            "Jack", "Kate", "Liam")
LAST_EN = ("Smith", "Jones", "Taylor", "Brown", "Evans", "Walsh", "Clarke", "Hughes")
CLUB_DE = ("Rote Teufel", "Blau-Weiß", "Fortuna", "Eintracht", "Borussia", "Viktoria",
           "Preußen", "Germania", "Alemannia", "Concordia", "Union", "Sportfreunde",
           "Kickers", "Arminia", "Rot-Weiß", "Tasmania", "Westfalia", "Hertha")
TOWN_DE = ("Altona", "Süderelbe", "Köpenick", "Ölkofen", "Bad Tölz", "Wanne", "Düsseldorf-Süd",
           "Eppendorf", "Giesing", "Barmbek", "Kiel-Gaarden", "Mülheim", "Zwickau", "Lübeck")
CLUB_EN = ("Rovers", "Wanderers", "Athletic", "United", "City", "Albion", "Rangers", "Town")
TOWN_EN = ("Bristol", "Dover", "Leeds", "Hull", "Derby", "Exeter", "Bath", "York")


@dataclass
class DemoTeam:
    name: str
    short: str


@dataclass
class DemoManager:
    """One simulated manager and what they know."""

    name: str
    address: str
    language: str
    rng: random.Random
    teams: list[DemoTeam] = field(default_factory=list)
    password: str | None = None
    wants_second_team: bool = False
    skip_rate: float = 0.1
    error_rate: float = 0.08
    late_rate: float = 0.04
    used_names: set[str] = field(default_factory=set)

    # -- what the manager writes ---------------------------------------------

    def random_lineup(self, budget: int = 90) -> str:
        """A plausible lineup; a quarter of them overspend (the bot shortens them)."""
        r = self.rng
        t, a = r.choice((0, 3, 5, 8, 10)), r.choice((0, 4, 6, 9, 10))
        spend = budget + (r.randint(3, 25) if r.random() < 0.25 else r.randint(-2, 0))
        rest = max(spend - 2 * t - 2 * a, 9)
        weights = [r.uniform(1, 3) for _ in range(3)]
        total = sum(weights)
        v, m = (int(rest * w / total) for w in weights[:2])
        s = rest - v - m
        if self.language == "en" and r.random() < 0.3:
            return f"G{t} SW{a} D{v} M{m} F{s}"
        if r.random() < 0.2:
            return f"T{t} A{a} V{v} M{m} S{s}"
        return r.choice(("{}-{}-{}-{}-{}", "{}/{}/{}/{}/{}", "{} {} {} {} {}")).format(
            t, a, v, m, s
        )

    def new_team(self) -> DemoTeam:
        r = self.rng
        while True:
            if self.language == "de":
                name = f"{r.choice(CLUB_DE)} {r.choice(TOWN_DE)}"
            else:
                name = f"{r.choice(TOWN_EN)} {r.choice(CLUB_EN)}"
            if name.lower() not in self.used_names:
                self.used_names.add(name.lower())
                short = name.split()[0][:15]
                return DemoTeam(name, short)

    def moves(self, first_round: bool, new_team: DemoTeam | None) -> list[str]:
        """The command lines of this round's mail."""
        de = self.language == "de"
        lines = []
        if self.password:
            lines.append(("Passwort: " if de else "Password: ") + self.password)
        if first_round:
            lines.append(f"Manager: {self.name}")
        if new_team is not None:
            keyword = "Neues Team" if de else "New team"
            lines.append(f"{keyword}: {new_team.name} / {new_team.short}")
            lines.append(("Aufstellung: " if de else "Lineup: ") + self.random_lineup())
        for team in self.teams:
            if team is new_team:
                continue
            lines.append(f"{team.name}: {self.random_lineup()}")
        return lines

    def mail(self, to: str, lines: list[str], when: datetime, *, reply_to: str | None = None,
             subject: str | None = None) -> bytes:
        """The mail as a person's client would send it, with greeting and signature."""
        de = self.language == "de"
        msg = EmailMessage()
        msg["From"] = formataddr((self.name, self.address))
        msg["To"] = to
        msg["Subject"] = subject or ("Meine Aufstellung" if de else "My lineup")
        msg["Date"] = format_datetime(when)
        msg["Message-ID"] = make_msgid(domain=self.address.split("@")[1])
        if reply_to:
            msg["In-Reply-To"] = reply_to
        greeting = ("Hallo Spielleitung," if de else "Hi there,")
        closing = (f"Viele Grüße\n{self.name.split()[0]}" if de
                   else f"Cheers,\n{self.name.split()[0]}")
        body = "\n".join([greeting, "", *lines, "", closing, "-- ", self.name, ""])
        msg.set_content(body)
        return bytes(msg)

    def learn(self, reply_text: str) -> str | None:
        """Read the bot's reply: remember a password if it contains one; return
        the name of a team the bot announced for deletion, if any."""
        match = re.search(r"^\s*(?:Passwort|Password): (\S+)\s*$", reply_text, re.M)
        if match:
            self.password = match.group(1)
        flat = " ".join(reply_text.split())
        doomed = re.search(r'(?:schwächeres Team „(.+?)“|weaker team "(.+?)")', flat)
        if doomed:
            return doomed.group(1) or doomed.group(2)
        return None


def make_managers(count: int, rng: random.Random, domain: str = "players.example") -> list[
    DemoManager
]:
    """``count`` managers, about a third of them English-speaking; they share
    one set of used team names (names are unique across the league)."""
    managers = []
    taken: set[str] = set()
    team_names: set[str] = set()
    for i in range(count):
        english = i % 3 == 2
        while True:
            if english:
                name = f"{rng.choice(FIRST_EN)} {rng.choice(LAST_EN)}"
            else:
                name = f"{rng.choice(FIRST_DE)} {rng.choice(LAST_DE)}"
            if name not in taken:
                taken.add(name)
                break
        local = (name.lower().replace(" ", ".").replace("ä", "ae").replace("ö", "oe")
                 .replace("ü", "ue").replace("ß", "ss"))
        managers.append(DemoManager(
            name=name,
            address=f"{local}@{domain}",
            language="en" if english else "de",
            rng=random.Random(rng.getrandbits(64)),
            wants_second_team=i % 4 == 1,
            used_names=team_names,
        ))
    return managers
