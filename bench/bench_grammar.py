"""Benchmark: ``parse_moves`` on hostile and large input (issue 11, bounded work),
and the cost of reading real mails (issue 20).

Every shape is parsed at growing sizes; the script prints the time per KB
of input and the growth factor between consecutive sizes (time ratio over
size ratio: about 1.0 is linear, 2.0 would be quadratic). Shapes:

  long line      one body line without spaces (digits and dashes, letters,
                 colons, ``for`` + letters)
  long subject   the same shapes as the Subject
  many lines     N short lines of mixed commands, text and lineups
  many words     one line of words (a paragraph of an HTML mail)

    python -m bench.bench_grammar [--sizes 2500,10000,20000,60000,1000000] [--repeat 3]

``--corpus`` instead reads every mail of the corpora (the player corpus
``tests/corpus/players``, ``tests/corpus``, ``tests/mail/eml``) as the ingest
does - ``read_message``, then the grammar with every command's keywords -
and prints the CPU time per mail (the best of ``--repeat`` passes).
``--against REF`` measures the same for the ``bot`` package (and its templates) of the git
revision REF (extracted to a temporary directory) side by side: the two
run in turns, ``--rounds`` times each, in fresh processes on the same
machine load, and the ratio of their medians is printed (issue 20: reading
may cost at most 10 % more than before). With ``--instructions`` the
grammar's cost is counted instead of timed, which the machine's load does
not disturb: each tree runs under valgrind's callgrind once reading the
corpus only and once also parsing it ``--passes`` times; the difference
over the passes and mails is the instructions ``parse_moves`` takes per
mail (about a minute per run).

    python -m bench.bench_grammar --corpus [--against main] [--rounds 7] [--repeat 5]
    python -m bench.bench_grammar --corpus --against main --instructions [--passes 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.revision import ROOT, export, run_module
from bot.mail.grammar import parse_moves
from bot.mail.reading import read_message
from bot.service.commands import registry

#: The keywords of a player's mail, as the ingest reads it.
VOCABULARY = registry().vocabulary()
#: The mails ``--corpus`` reads.
CORPORA = ("tests/corpus/players/*.eml", "tests/corpus/*.eml", "tests/mail/eml/*.eml",
           "tests/mail/eml/lang/*.eml")

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


def corpus() -> list[bytes]:
    """Every mail of ``CORPORA`` (always read from this checkout)."""
    return [path.read_bytes() for pattern in CORPORA for path in sorted(ROOT.glob(pattern))]


def corpus_seconds_per_mail(repeat: int) -> tuple[float, float]:
    """CPU seconds per mail to read it (``read_message``) and to run the
    grammar on what was read (``parse_moves``), each the best of ``repeat``
    passes over the corpus."""
    mails = corpus()
    read = grammar = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        texts = [(m.subject, m.fresh_text) for m in map(read_message, mails)]
        middle = time.process_time()
        for subject, text in texts:
            parse_moves(subject, text, vocabulary=VOCABULARY)
        end = time.process_time()
        read, grammar = min(read, middle - start), min(grammar, end - middle)
    return read / len(mails), grammar / len(mails)


def _worker(root: Path, repeat: int) -> tuple[float, float]:
    """``corpus_seconds_per_mail`` in a fresh process with ``root``'s ``bot``."""
    out = run_module(__spec__.name, ["--corpus-worker", "--repeat", str(repeat)], root).stdout
    read, grammar = out.split()[-2:]
    return float(read), float(grammar)


def _instructions(root: Path, passes: int) -> int:
    """Instructions (callgrind's ``I refs``) of a worker that reads the corpus
    and parses it ``passes`` times, with ``root``'s ``bot``."""
    out = run_module(__spec__.name, ["--corpus-passes", str(passes)], root, wrapper=[
        "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", "--dump-instr=no",
        "--collect-jumps=no"]).stderr
    refs = next(line for line in out.splitlines() if "refs:" in line)
    return int(refs.split()[-1].replace(",", ""))


def parse_passes(passes: int) -> None:
    """Read the corpus, then run the grammar over it ``passes`` times."""
    texts = [(m.subject, m.fresh_text) for m in map(read_message, corpus())]
    for _ in range(passes):
        for subject, text in texts:
            parse_moves(subject, text, vocabulary=VOCABULARY)


def run_instructions(against: str, passes: int) -> None:
    count = len(corpus())
    per_mail: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        export(against, Path(tmp))
        for name, root in ((against, Path(tmp)), ("this tree", ROOT)):
            base, parsed = _instructions(root, 0), _instructions(root, passes)
            per_mail[name] = (parsed - base) / passes / count
    print(f"{count} mails, instructions of parse_moves per mail (callgrind, {passes} passes):")
    for name, value in per_mail.items():
        print(f"  {name:<12}{value:>14,.0f}")
    print(f"  ratio this tree / {against}: {per_mail['this tree'] / per_mail[against]:.3f}")


def run_corpus(against: str | None, rounds: int, repeat: int) -> None:
    count = len(corpus())
    if against is None:
        read, grammar = corpus_seconds_per_mail(repeat)
        print(f"{count} mails, CPU per mail: read_message {read * 1e6:.0f} µs, "
              f"parse_moves {grammar * 1e6:.0f} µs")
        return
    with tempfile.TemporaryDirectory() as tmp:
        export(against, Path(tmp))
        ours: list[tuple[float, float]] = []
        theirs: list[tuple[float, float]] = []
        for _ in range(rounds):  # in turns, so both see the same machine load
            theirs.append(_worker(Path(tmp), repeat))
            ours.append(_worker(ROOT, repeat))
    print(f"{count} mails, CPU µs per mail, median of {rounds} runs in turns "
          f"(each the best of {repeat} passes):")
    print(f"  {'':<22}{against:>12}{'this tree':>12}{'ratio':>8}")
    for index, part in enumerate(("read_message", "parse_moves", "both")):
        def value(runs: list[tuple[float, float]], i: int = index) -> float:
            return statistics.median(sum(r) if i == 2 else r[i] for r in runs)
        base, mine = value(theirs), value(ours)
        print(f"  {part:<22}{base * 1e6:>12.0f}{mine * 1e6:>12.0f}{mine / base:>8.3f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2500,10000,20000,60000,1000000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--corpus", action="store_true")
    parser.add_argument("--against", default=None)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--corpus-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--corpus-passes", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.corpus_worker:
        print(*corpus_seconds_per_mail(args.repeat))
        return 0
    if args.corpus_passes is not None:
        parse_passes(args.corpus_passes)
        return 0
    if args.corpus and args.instructions:
        run_instructions(args.against or "main", args.passes)
        return 0
    if args.corpus:
        run_corpus(args.against, args.rounds, args.repeat)
        return 0
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
