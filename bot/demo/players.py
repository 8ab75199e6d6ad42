"""The simulated managers of the demo: who they are and what they write.

Each ``DemoManager`` decides, from a seeded ``random.Random``, what to mail
in a round: lineups for their teams (sometimes over budget, to show the
corrections), a new team now and then (which replaces the weaker one),
occasional mistakes (an invalid lineup, a forgotten password) that they fix
after reading the error reply, late mails, and rounds they skip. They learn
their password the way a person does: from the bot's first reply.

They play like people, too: each team has a tactic (a back line T-A and a
V:M:S split) and spends its whole budget. After each newsletter a manager
reads what a player can read there (``read_newsletter``): their teams' WP
(so they know next round's budget), how far each team got, and the
"Turnierfußball" table, in which the GM teams' lineups are public. A team
that went out early changes its tactic, usually to the best-ranked GM
tactic of the table, sometimes to a variation of its own; a team that did
well keeps it.
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


#: Back lines (T, A) a manager starts from: keeper and sweeper matter (RULES.md §3).
BACK_LINES = ((10, 10), (10, 8), (8, 10), (8, 8), (10, 5), (5, 10), (6, 6), (0, 10), (10, 0))
_GM_ROW = re.compile(r"^\s*(\d+)\.\s+GM (\d+)-(\d+)-(\d+)-(\d+)-(\d+)\b", re.M)
_TEAM_HEAD = re.compile(r"^(?:Dein Team|Your team): (.+)$", re.M)
_LAST_WP = re.compile(r"^\s+(?:WP|Alterung zum Saisonende|Season-end ageing): .*-> (\d+)[,.]\d\d",
                      re.M)
_EARLY_OUT = re.compile(r"^\s+(?:Ausgeschieden in Gruppenphase|Out in group stage) 1$", re.M)


@dataclass(frozen=True, slots=True)
class Tactic:
    """A back line and the split of the rest over V, M and S (weights)."""

    t: int
    a: int
    split: tuple[int, int, int]

    def lineup(self, budget: int) -> tuple[int, int, int, int, int]:
        """The lineup spending ``budget``: the rest after the back line split
        by largest remainder (as the GM teams do), never breaking the 3:1 rule."""
        t, a = self.t, self.a
        while 2 * (t + a) > budget - 9:
            t, a = max(t - 1, 0), max(a - 1, 0)
        rest = budget - 2 * t - 2 * a
        total = sum(self.split)
        raw = [rest * k / total for k in self.split]
        rows = [int(x) for x in raw]
        for i in sorted(range(3), key=lambda i: -(raw[i] - rows[i]))[: rest - sum(rows)]:
            rows[i] += 1
        while max(rows) > 3 * min(rows):  # only for extreme splits of tiny rests
            rows[rows.index(max(rows))] -= 1
            rows[rows.index(min(rows))] += 1
        return (t, a, *rows)  # type: ignore[return-value]


def random_tactic(rng: random.Random) -> Tactic:
    t, a = rng.choice(BACK_LINES)
    while True:
        split = (rng.randint(2, 6), rng.randint(2, 6), rng.randint(2, 6))
        if max(split) <= 3 * min(split):
            return Tactic(t, a, split)


def tweak(tactic: Tactic, rng: random.Random) -> Tactic:
    """A variation of ``tactic``: one row a little stronger, another weaker."""
    split = list(tactic.split)
    up, down = rng.sample(range(3), 2)
    if split[down] > 2:
        split[up] += 1
        split[down] -= 1
    t, a = tactic.t, tactic.a
    if rng.random() < 0.3:
        t, a = rng.choice(BACK_LINES)
    return Tactic(t, a, tuple(split))  # type: ignore[arg-type]


def gm_tactic(t: int, a: int, v: int, m: int, s: int) -> Tactic:
    """The tactic of a published GM lineup (its rows as the split)."""
    return Tactic(t, a, (max(v, 1), max(m, 1), max(s, 1)))


@dataclass
class DemoTeam:
    name: str
    short: str
    tactic: Tactic | None = None
    budget: int = 90


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

    def random_lineup(self, budget: int = 90, team: DemoTeam | None = None) -> str:
        """The team's lineup for its budget; one in eight overspends a little
        (a person miscounts: the bot shortens it and says so)."""
        r = self.rng
        tactic = team.tactic if team is not None and team.tactic else random_tactic(r)
        if team is not None:
            team.tactic = tactic
            budget = team.budget
        spend = budget + (r.randint(3, 15) if r.random() < 0.125 else 0)
        t, a, v, m, s = tactic.lineup(spend)
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
                short = self.short_for(name)
                return DemoTeam(name, short, random_tactic(r))

    def short_for(self, name: str) -> str:
        """A short name nobody uses yet (RULES.md §7: a person picks one that
        tells their team apart, e.g. the town rather than ``Borussia``)."""
        words = name.split()
        for candidate in (words[0], words[-1], f"{words[0][:7]} {words[-1][:7]}", name):
            short = candidate[:15].strip()
            if f"short:{short.lower()}" not in self.used_names:
                self.used_names.add(f"short:{short.lower()}")
                return short
        return name[:15]

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
            lines.append(("Aufstellung: " if de else "Lineup: ")
                         + self.random_lineup(team=new_team))
        for team in self.teams:
            if team is new_team:
                continue
            lines.append(f"{team.name}: {self.random_lineup(team=team)}")
        return lines

    def read_newsletter(self, text: str) -> None:
        """Learn from a results newsletter as a player would: each own team's
        WP (its next budget), whether it went out in the first group stage,
        and which published GM tactics ranked best in the expectation table."""
        r = self.rng
        section = text.split("Turnierfußball", 1)[-1]
        ranked = [gm_tactic(*map(int, m.groups()[1:])) for m in _GM_ROW.finditer(section)]
        heads = list(_TEAM_HEAD.finditer(text))
        by_name = {team.name: team for team in self.teams}
        for i, head in enumerate(heads):
            team = by_name.get(head.group(1).strip())
            end = heads[i + 1].start() if i + 1 < len(heads) else text.find("\n\n\n", head.end())
            block = text[head.end(): end if end > 0 else None]
            if team is None:
                continue
            wps = _LAST_WP.findall(block)
            if wps:
                team.budget = int(wps[-1])
            if _EARLY_OUT.search(block) and r.random() < 0.8:
                if ranked and r.random() < 0.7:
                    team.tactic = ranked[0] if r.random() < 0.6 else r.choice(ranked[:3])
                else:
                    team.tactic = tweak(team.tactic or random_tactic(r), r)

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
