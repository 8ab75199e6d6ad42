"""A scanner for player lineups in published text, in every notation of
RULES.md §11 (and as the five cells of an HTML table row).

Three independent searches, so a leak in any shape is found:

1. every literal notation (``10-10-15-15-20``, ``10/10/15/15/20``,
   ``10 10 15 15 20``, ``10,10,15,15,20``, ``T10 A10 V15 M15 S20``,
   ``T=10, A=10, ...``, ``Torwart 10 Ausputzer 10 ...``, the English labels);
2. the five numbers in T-A-V-M-S order with any separators of up to six
   non-digit characters (covers ``10 - 10 - 15``, ``10</td><td>10``, ...);
3. any five consecutive labelled numbers, labels in any order, whose labels
   name five different rows with the lineup's values.
"""

from __future__ import annotations

import html
import re
from email import message_from_bytes, policy

from bot.rules.lineup import LABELS, ROWS, Lineup

GERMAN = ("Torwart", "Ausputzer", "Verteidigung", "Mittelfeld", "Sturm")
ENGLISH = ("goalkeeper", "sweeper", "defence", "midfield", "attack")
SHORT_EN = ("G", "SW", "D", "M", "F")


def notations(lineup: Lineup) -> list[str]:
    """The lineup written in every form of RULES.md §11."""
    v = [str(x) for x in lineup.values]
    out = [
        "-".join(v), "/".join(v), " ".join(v), ",".join(v), ", ".join(v), " - ".join(v),
        " ".join(f"{r}{x}" for r, x in zip(ROWS, v, strict=True)),
        ", ".join(f"{r}={x}" for r, x in zip(ROWS, v, strict=True)),
        " ".join(f"{r}={x}" for r, x in zip(ROWS, v, strict=True)),
        " ".join(f"{r}: {x}" for r, x in zip(ROWS, v, strict=True)),
        " ".join(f"{w} {x}" for w, x in zip(GERMAN, v, strict=True)),
        " ".join(f"{w} {x}" for w, x in zip(ENGLISH, v, strict=True)),
        " ".join(f"{w}{x}" for w, x in zip(SHORT_EN, v, strict=True)),
    ]
    return out


def _plain(text: str) -> str:
    """Text without markup, entities decoded, white space collapsed."""
    text = re.sub(r"<[^>]*>", " ", text)
    return " ".join(html.unescape(text).split())


_LABELLED = re.compile(r"([^\W\d_]+)\s*[=:]?\s*(\d+)")
_FIVE = re.compile(r"(?<!\d)(?=(\d+)\D{1,6}(\d+)\D{1,6}(\d+)\D{1,6}(\d+)\D{1,6}(\d+)(?!\d))")


class Scan:
    """One text, indexed once: its lower-case forms, every run of five
    numbers and every window of five labelled numbers."""

    def __init__(self, text: str) -> None:
        self.hays = (text.lower(), _plain(text).lower())
        self.sequences: set[tuple[int, ...]] = set()
        self.labelled: set[tuple[int, ...]] = set()
        for hay in self.hays:
            self.sequences.update(tuple(map(int, m.groups())) for m in _FIVE.finditer(hay))
            items = [(m.group(1), int(m.group(2))) for m in _LABELLED.finditer(hay)]
            for i in range(len(items) - 4):
                window = items[i : i + 5]
                rows = [LABELS.get(label) for label, _ in window]
                if None in rows or len(set(rows)) != 5:
                    continue
                values = dict(zip(rows, (v for _, v in window), strict=True))
                self.labelled.add(tuple(values[r] for r in ROWS))

    def hits(self, lineup: Lineup) -> list[str]:
        """Every way ``lineup`` occurs in the text (empty list: none)."""
        found = []
        for hay in self.hays:
            for form in notations(lineup):
                needle = form.lower()
                start = hay.find(needle)
                while start >= 0:
                    before = hay[start - 1 : start]
                    after = hay[start + len(needle) : start + len(needle) + 1]
                    if not (before.isdigit() or after.isdigit()):
                        found.append(f"notation {form!r}")
                        break
                    start = hay.find(needle, start + 1)
        if lineup.values in self.sequences:
            found.append(f"the numbers {lineup.values} in a row")
        if lineup.values in self.labelled:
            found.append(f"labelled numbers {lineup.values}")
        return found


def find_lineup(text: str, lineup: Lineup) -> list[str]:
    """Every place ``lineup`` occurs in ``text`` (empty list: none)."""
    return Scan(text).hits(lineup)


def find_lineups(text: str, lineups: dict[str, Lineup]) -> dict[str, list[str]]:
    """``{team: hits}`` for every team whose lineup occurs in ``text``."""
    scan = Scan(text)
    found = {}
    for team, lineup in lineups.items():
        hits = scan.hits(lineup)
        if hits:
            found[team] = hits
    return found


def mail_texts(data: bytes) -> list[str]:
    """What a mail shows: the raw bytes, the decoded headers and every
    decoded text part."""
    message = message_from_bytes(data, policy=policy.default)
    texts = [data.decode("latin-1")]
    texts.extend(f"{name}: {value}" for name, value in message.items())
    for part in message.walk():
        if part.get_content_maintype() == "text":
            texts.append(part.get_content())
    return texts
