"""Benchmark: ``parse_moves`` on hostile and large input (issue 11, bounded work).

Every shape is parsed at growing sizes; the script prints the time per KB
of input and the growth factor between consecutive sizes (time ratio over
size ratio: about 1.0 is linear, 2.0 would be quadratic). Shapes:

  long line      one body line without spaces (digits and dashes, letters,
                 colons, ``for`` + letters)
  long subject   the same shapes as the Subject
  many lines     N short lines of mixed commands, text and lineups
  many words     one line of words (a paragraph of an HTML mail)

    python bench/bench_grammar.py [--sizes 2500,10000,20000,60000,1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.mail.grammar import parse_moves
from bot.service.commands import registry

#: The keywords of a player's mail, as the ingest reads it.
VOCABULARY = registry().vocabulary()

LINE_SHAPES: dict[str, Callable[[int], str]] = {
    "digits-dashes": lambda n: ("1-" * n)[:n],
    "letters": lambda n: "x" * n,
    "colons": lambda n: ("a:" * n)[:n],
    "for+letters": lambda n: "Aufstellung für " + "a" * n,
    "spaces": lambda n: "Re" + " " * n + "x",
    "labels": lambda n: ("T1" * n)[:n],
    "name+lineup": lambda n: ("ab " * n)[:n] + " 10-10-15-15-20",
}
MIXED = (
    "Team: Rote Teufel",
    "Aufstellung: 10-10-15-15-20 (diesmal offensiv)",
    "Hallo zusammen, hier kommt meine Aufstellung für diese Woche",
    "Blaue Jungs T10 A10 V15 M15 S20 # wie immer",
    "Aufstelung: 10/10/15/15/20",
    "Viele Grüße",
)


def timed(call: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def report(title: str, sizes: list[int], make: Callable[[int], tuple[str, str]],
           repeat: int) -> None:
    print(f"\n{title}")
    print(f"  {'size':>10} {'chars':>10} {'seconds':>10} {'ms/KB':>8} {'growth':>7}")
    previous: tuple[int, float] | None = None
    for size in sizes:
        subject, text = make(size)
        chars = len(subject) + len(text)
        seconds = timed(lambda s=subject, t=text: parse_moves(s, t, vocabulary=VOCABULARY), repeat)
        per_kb = seconds * 1000 / max(chars / 1024, 1e-9)
        growth = ""
        if previous is not None:
            growth = f"{(seconds / previous[1]) / (chars / previous[0]):.2f}"
        print(f"  {size:>10} {chars:>10} {seconds:>10.4f} {per_kb:>8.3f} {growth:>7}")
        previous = (chars, max(seconds, 1e-9))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2500,10000,20000,60000,1000000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    for name, shape in LINE_SHAPES.items():
        report(f"long body line: {name}", sizes, lambda n, f=shape: ("", f(n)), args.repeat)
    for name in ("digits-dashes", "letters", "spaces"):
        shape = LINE_SHAPES[name]
        report(f"long subject: {name}", sizes, lambda n, f=shape: (f(n), ""), args.repeat)
    line_counts = [max(1, s // 40) for s in sizes]
    report("many lines (mixed commands and text)", line_counts,
           lambda n: ("", "\n".join(MIXED[i % len(MIXED)] for i in range(n))), args.repeat)
    report("many words on one line (a paragraph)", sizes,
           lambda n: ("", ("Wort " * n)[:n]), args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
