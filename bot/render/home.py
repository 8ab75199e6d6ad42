"""The league's home page and its machine-readable companions, in the archive.

``write_home`` writes, beside the round and team pages:

* ``index.html``, the page players bookmark: the next deadline (with its
  seed's commitment and the calendar to subscribe to), the last winners,
  the current WP table (the 3-round rule, RULES.md §8) and PSZ table, where
  a taken-over league's history here begins, every round (with its public
  report as JSON) and every team page, the rules page (``rules.html``);
* ``feed.atom``, an Atom feed (RFC 4287) with one entry per evaluated
  round: its title, its winner, the link to its page;
* ``calendar.ics``, every planned deadline (RFC 5545; ``webcal://``
  subscribable when the archive is on the web, ``archive.url``);
* ``league.json``, the home page's data: tables, next deadline, rounds with
  the names of their pages and JSON reports.

Like the rest of the archive: no script, no external resource, no player
lineup (only the WP/PSZ tables and the public reports' winners).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol
from xml.etree import ElementTree as ET

from jinja2 import Environment

from bot.league.tables import PszRow, WpRow
from bot.render.archive import atomic_write
from bot.render.calendar import deadlines_calendar
from bot.render.model import RoundInfo
from bot.storage.imports import LeagueImport

INDEX = "index.html"
FEED = "feed.atom"
CALENDAR = "calendar.ics"
DATA = "league.json"
RULES = "rules.html"
#: How many of the last rounds' winners the home page names.
LAST_WINNERS = 5
ATOM = "http://www.w3.org/2005/Atom"


class SiteRound(Protocol):
    """A round as the archive site lists it (``bot.render.site.RoundLine``)."""

    @property
    def number(self) -> int: ...
    @property
    def season(self) -> int: ...
    @property
    def round_in_season(self) -> int: ...
    @property
    def date(self) -> object: ...
    @property
    def winner(self) -> str | None: ...
    @property
    def winner_file(self) -> str | None: ...
    @property
    def html(self) -> str: ...


@dataclass(frozen=True, slots=True)
class HomeData:
    """What the home page shows beyond the site's rounds and teams
    (``bot.service.home.home_data`` reads it)."""

    #: The tables after this round (None: no round before the open one).
    table_round: int | None = None
    wp_table: Sequence[WpRow] = ()
    psz_table: Sequence[PszRow] = ()
    open_round: RoundInfo | None = None
    deadline: datetime | None = None
    commitment: str | None = None
    #: The open round's and the next planned deadlines.
    planned: Sequence[tuple[RoundInfo, datetime]] = ()
    imported: LeagueImport | None = None
    now: datetime = field(default_factory=lambda: datetime.now(UTC))
    #: The archive on the web (``archive.url``), None when it is not.
    base_url: str | None = None
    game_address: str | None = None


def _base(home: HomeData) -> str | None:
    return home.base_url.rstrip("/") if home.base_url else None


def webcal_url(home: HomeData) -> str | None:
    """``webcal://host/path/calendar.ics`` for an archive on the web over http(s)."""
    base = _base(home)
    if base is None or not base.startswith(("http://", "https://")):
        return None
    return "webcal://" + base.split("://", 1)[1] + "/" + CALENDAR


def _iso(moment: object) -> str:
    if isinstance(moment, datetime):
        return moment.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    return str(moment)


def entry_id(game: str, address: str | None, number: int) -> str:
    """A stable Atom id of a round's entry: a name-based UUID of game and round."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"turnited:{address or ''}:{game}:round-{number}").urn


def atom_feed(rounds: Sequence[SiteRound], home: HomeData, *, game_name: str,
              words: Any) -> bytes:
    """The Atom feed: one entry per round, newest first."""
    ET.register_namespace("", ATOM)
    base = _base(home)

    def sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        element = ET.SubElement(parent, f"{{{ATOM}}}{tag}", attrs)
        if text is not None:
            element.text = text
        return element

    feed = ET.Element(f"{{{ATOM}}}feed")
    if base:
        feed.set("{http://www.w3.org/XML/1998/namespace}base", base + "/")
    sub(feed, "title", str(words.feed_title(game_name)))
    sub(feed, "id", entry_id(game_name, home.game_address, 0))
    updated = max((r.date for r in rounds if isinstance(r.date, datetime)), default=home.now)
    sub(feed, "updated", _iso(updated))
    author = sub(feed, "author")
    sub(author, "name", str(words.feed_author(game_name)))
    sub(feed, "link", rel="alternate", type="text/html", href=INDEX)
    sub(feed, "link", rel="self", type="application/atom+xml", href=FEED)
    sub(feed, "generator", "Turnited")
    for r in rounds:
        entry = sub(feed, "entry")
        info = RoundInfo(r.season, r.round_in_season, r.number)
        sub(entry, "title", str(words.entry_title(game_name, info)))
        sub(entry, "id", entry_id(game_name, home.game_address, r.number))
        sub(entry, "updated", _iso(r.date))
        sub(entry, "link", rel="alternate", type="text/html", href=r.html)
        sub(entry, "summary", str(words.entry_summary(r.winner, info)))
    return ET.tostring(feed, encoding="utf-8", xml_declaration=True) + b"\n"


def league_json(rounds: Sequence[SiteRound], home: HomeData, *, game_name: str) -> bytes:
    """The home page's data as JSON (numbers as exact decimal strings)."""
    imported = home.imported
    data = {
        "game": game_name,
        "generated": _iso(home.now),
        "open_round": None if home.open_round is None else {
            "number": home.open_round.number, "season": home.open_round.season,
            "round_in_season": home.open_round.round_in_season,
            "deadline": _iso(home.deadline), "commitment": home.commitment},
        "planned_deadlines": [{"round": r.number, "deadline": _iso(d)} for r, d in home.planned],
        "tables_after_round": home.table_round,
        "wp_table": [{"place": r.place, "team": r.team, "short_name": r.short_name,
                      "manager": r.manager, "wp": f"{r.wp:.2f}",
                      "gain": None if r.gain is None else f"{r.gain:.2f}"}
                     for r in home.wp_table],
        "psz_table": [{"place": r.place, "team": r.team, "short_name": r.short_name,
                       "manager": r.manager, "psz": f"{r.psz:.2f}", "shown": r.shown}
                      for r in home.psz_table],
        "rounds": [{"number": r.number, "season": r.season, "round_in_season": r.round_in_season,
                    "date": _iso(r.date), "winner": r.winner, "page": r.html,
                    "report": r.html.removesuffix(".html") + ".json"} for r in rounds],
        "imported": None if imported is None else {
            "season": imported.season, "round_in_season": imported.round_in_season,
            "first_round": imported.first_round, "teams": imported.teams,
            "imported_at": _iso(imported.imported_at)},
        "feed": FEED, "calendar": CALENDAR, "rules": RULES,
    }
    return (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def write_home(
    folder: Path, home: HomeData, *, env: Environment, rounds: Sequence[SiteRound],
    context: Mapping[str, object],
) -> list[Path]:
    """Write the home page (``index.html``, ``context`` holds what the site's
    pages share: the game's name, the teams, the hall of fame's file), the
    feed, the calendar and the JSON; returns their paths."""
    words: Any = env.get_template("home_words.j2").module
    game_name = str(context["game_name"])
    winners = [r for r in rounds if r.winner][:LAST_WINNERS]
    html = env.get_template("site_home.html.j2").render(
        **context, title=str(words.home_title(game_name)), home=home, rounds=rounds,
        winners=winners, webcal=webcal_url(home), feed=FEED, calendar=CALENDAR, data=DATA,
        rules=RULES,
    )
    language = str(env.globals["language"])
    planned = [(r, d) for r, d in home.planned]
    files = {
        INDEX: html.encode("utf-8"),
        FEED: atom_feed(rounds, home, game_name=game_name, words=words),
        CALENDAR: deadlines_calendar(planned, now=home.now, game_name=game_name,
                                     language=language, address=home.game_address, env=env),
        DATA: league_json(rounds, home, game_name=game_name),
    }
    written = []
    for name, data in files.items():
        atomic_write(folder / name, data)
        written.append(folder / name)
    return written


__all__ = ["CALENDAR", "DATA", "FEED", "INDEX", "RULES", "HomeData", "SiteRound", "atom_feed",
           "league_json", "webcal_url", "write_home"]
