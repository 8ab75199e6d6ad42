"""Synthetic players for the ingest benchmarks: ~200 managers with German
and English names, their registrations and 1,000 realistic lineup mails
(dashed and labelled notation, two teams in one mail, quoted replies with an
old lineup below, status requests, a third multipart/alternative with HTML).
Deterministic for a given ``random.Random``."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime

from tests.servers import BOT_ADDRESS

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # a Tuesday; the deadline is Sunday 20:00

FIRST = ["Anna", "Bernd", "Carla", "Dieter", "Elif", "Frank", "Greta", "Hakan", "Ines", "Jörg",
         "Katrin", "Lars", "Merve", "Nils", "Olga", "Paul", "Quirin", "Rosa", "Sven", "Tülay"]
LAST = ["Müller", "Schmidt", "Yılmaz", "Weber", "Schäfer", "Koch", "Bauer", "Richter", "Klein",
        "Wolf"]
CLUBS = ["Eintracht", "Borussia", "Fortuna", "Concordia", "Viktoria", "Alemannia", "Germania",
         "Preußen", "Union", "Rot-Weiß"]
TOWNS = ["Altona", "Bochum", "Cottbus", "Dresden", "Erfurt", "Fürth", "Gießen", "Hameln", "Itzehoe",
         "Jena", "Kiel", "Lübeck", "Mainz", "Neuss", "Oldenburg", "Passau", "Rostock", "Siegen",
         "Trier", "Ulm"]


# ---------------------------------------------------------------- the players


@dataclass
class Manager:
    n: int
    name: str
    address: str
    english: bool
    teams: list[str] = field(default_factory=list)
    password: str = ""
    bot_ids: list[str] = field(default_factory=list)  # Message-IDs of the bot's replies

    @property
    def from_header(self) -> str:
        return f"{self.name} <{self.address}>"


def managers(count: int, rng: random.Random) -> list[Manager]:
    out = []
    for n in range(count):
        first, last = FIRST[n % len(FIRST)], LAST[(n // len(FIRST)) % len(LAST)]
        name = f"{first} {last}"
        address = f"{first.lower().replace('ö', 'oe').replace('ü', 'ue')}.{n:03d}@player.example"
        manager = Manager(n, name, address, english=rng.random() < 0.3)
        manager.teams.append(f"{CLUBS[n % len(CLUBS)]} {TOWNS[(n // len(CLUBS)) % len(TOWNS)]}")
        if n % 4 == 0:
            manager.teams.append(f"FC {first} {n:03d}")
        out.append(manager)
    return out


def random_lineup(rng: random.Random) -> list[int]:
    """Five strengths for 85-100 WP (above 90 the budget shortens them)."""
    total = rng.randint(85, 100)
    back = [rng.randint(3, 14), rng.randint(3, 14)]
    rest = total - sum(back)
    v = rng.randint(rest // 4, rest // 2)
    m = rng.randint(0, rest - v)
    return [*back, v, m, rest - v - m]


def dashed(values: list[int]) -> str:
    return "-".join(map(str, values))


def labelled(values: list[int], english: bool) -> str:
    labels = ("GK", "SW", "D", "M", "F") if english else ("T", "A", "V", "M", "S")
    return " ".join(f"{label}{value}" for label, value in zip(labels, values, strict=True))


def compose_player_mail(
    manager: Manager, subject: str, text: str, when: datetime, serial: int, *,
    html: bool = False, reply_to: str | None = None,
) -> bytes:
    msg = EmailMessage()
    msg["From"] = manager.from_header
    msg["To"] = f"Turnited <{BOT_ADDRESS}>"
    msg["Subject"] = subject
    msg["Date"] = format_datetime(when)
    msg["Message-ID"] = f"<bench.{serial}.{manager.n}@player.example>"
    if reply_to is not None:
        msg["In-Reply-To"] = reply_to
        msg["References"] = reply_to
    msg.set_content(text)
    if html:
        paragraphs = "".join(f"<div>{line or '<br>'}</div>" for line in text.splitlines())
        msg.add_alternative(f"<html><body>{paragraphs}</body></html>", subtype="html")
    return msg.as_bytes(policy=policy.SMTP)


def registration(manager: Manager, team: str, rng: random.Random, serial: int) -> bytes:
    lineup = dashed(random_lineup(rng))
    if manager.english:
        text = f"Hello,\n\nNew team: {team}\nLineup: {lineup}\n\nBest, {manager.name}\n"
        subject = "registration"
    else:
        text = f"Hallo,\n\nNeues Team: {team}\nAufstellung: {lineup}\n\nGruß {manager.name}\n"
        subject = "Anmeldung"
    if manager.password:
        key = "Password" if manager.english else "Passwort"
        text = f"{key}: {manager.password}\n" + text
    return compose_player_mail(manager, subject, text, START, serial)


def lineup_mail(manager: Manager, k: int, rng: random.Random, serial: int) -> bytes:
    """The k-th lineup mail of a manager in the measured batch (k = 0, 1, ...)."""
    en = manager.english
    key = "Password" if en else "Passwort"
    hello, bye = ("Hi,", "Cheers") if en else ("Hallo,", "Gruß")
    when = START + timedelta(hours=1 + k, minutes=manager.n % 60)
    style = k % 5
    team = manager.teams[k % len(manager.teams)]
    reply_to = None
    if style == 0:  # plain dashed lineup, team named
        body = f"{hello}\n\n{key}: {manager.password}\n{team}: {dashed(random_lineup(rng))}\n"
        subject = "lineup round 1" if en else "Aufstellung Runde 1"
    elif style == 1:  # labelled notation via the lineup keyword
        word = "Lineup" if en else "Aufstellung"
        body = (f"{hello}\n{key}: {manager.password}\nTeam: {team}\n"
                f"{word}: {labelled(random_lineup(rng), en)}\n")
        subject = "new lineup" if en else "neue Aufstellung"
    elif style == 2:  # a quoted reply: the new lineup on top, the old one quoted
        old = dashed(random_lineup(rng))
        new = dashed(random_lineup(rng))
        said = "Turnited wrote" if en else "schrieb Turnited"
        body = (f"{key}: {manager.password}\n{team}: {new}\n\n{bye}\n{manager.name}\n\n"
                f"Am 01.12.2026 um 10:{manager.n % 60:02d} {said} <{BOT_ADDRESS}>:\n"
                f"> Hallo {manager.name},\n>\n> Aufstellung für „{team}“ gespeichert: {old}\n"
                f"> {team}: {old}\n> Aufstellung: 9-9-9-9-9\n>\n> -- \n> Turnited\n")
        subject = "Re: Aufstellung" if not en else "Re: registration"
        reply_to = manager.bot_ids[-1] if manager.bot_ids else None
    elif style == 3:  # every team in one mail (or a status request with one team)
        lines = [f"{name}: {dashed(random_lineup(rng))}" for name in manager.teams]
        if len(lines) == 1:
            lines.append("Status")
        body = f"{hello}\n{key}: {manager.password}\n" + "\n".join(lines) + f"\n\n{bye}\n"
        subject = "lineups" if en else "Aufstellungen"
    else:  # a chatty mail with the lineup in the middle
        chat = ("Last week was close, let's see.\n" if en
                else "Letzte Woche war knapp, mal sehen.\nDiesmal offensiver!\n")
        body = (f"{hello}\n\n{chat}\n{key}: {manager.password}\n"
                f"{team} {dashed(random_lineup(rng))}\n\n{bye}, {manager.name}\n")
        subject = "Round 1" if en else "Runde 1"
    return compose_player_mail(manager, subject, body, when, serial, html=serial % 3 == 0,
                               reply_to=reply_to)


def measured_mails(players: list[Manager], count: int, rng: random.Random) -> list[bytes]:
    """``count`` mails, interleaved across the managers (k-th mail of everyone, ...)."""
    mails: list[bytes] = []
    k = 0
    while len(mails) < count:
        for manager in players:
            if len(mails) == count:
                break
            mails.append(lineup_mail(manager, k, rng, serial=10_000 + len(mails)))
        k += 1
    return mails
