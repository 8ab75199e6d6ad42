"""Benchmark: a number, a date and a time left, as the newsletter writes them.

``bot.render.formatting`` takes its symbols and names from Babel's locale
data (looked up once per language) and its rounding and layout from the
rules; this prints the cost per value of each of its formats, side by side
with Babel's own formatting functions for the same value (which round half
to even, group ``2000`` and write one rounded unit of time, so the bot does
not use them), the ratio, and the one-time cost of loading a language's
locale data. CPU time (``time.process_time``), median of several runs.

Run: .venv/bin/python -m bench.bench_formatting [--calls 20000]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

DEADLINE = datetime(2026, 12, 6, 19, 0, tzinfo=UTC)
BERLIN = ZoneInfo("Europe/Berlin")


def per_call(func: Callable[[], object], calls: int, runs: int = 5) -> float:
    """Median CPU seconds per call over ``runs`` runs of ``calls`` calls."""
    samples = []
    for _ in range(runs):
        start = time.process_time()
        for _ in range(calls):
            func()
        samples.append((time.process_time() - start) / calls)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=20_000)
    args = parser.parse_args()

    from bot.render import formatting as f

    start = time.process_time()
    f.locale_data("de")
    f.locale_data("en")
    loaded = time.process_time() - start
    from babel.dates import format_date, format_datetime, format_timedelta
    from babel.numbers import format_decimal

    from bot.rules.rounding import to_cents

    value, big = Decimal("90.805"), 2000
    left = timedelta(days=2, hours=3, minutes=5)
    local = DEADLINE.astimezone(BERLIN)
    #: a moment not formatted before (the formatted dates are kept)
    moments = (DEADLINE + timedelta(minutes=i) for i in itertools.count())
    rows = []
    for language in ("de", "en"):
        cases = [
            ("WP 90,81", lambda lang=language: f.wp(value, lang),
             lambda lang=language: format_decimal(to_cents(value), "0.00", locale=lang)),
            ("2000 in a table", lambda lang=language: f.integer(big, lang),
             lambda lang=language: format_decimal(big, locale=lang)),
            ("date", lambda lang=language: f.date(DEADLINE, "Europe/Berlin", lang),
             lambda lang=language: format_date(local, "long", locale=lang)),
            ("deadline", lambda lang=language: f.datetime_long(DEADLINE, "Europe/Berlin", lang),
             lambda lang=language: format_datetime(local, "E, d. MMMM y, HH:mm z",
                                                   tzinfo=BERLIN, locale=lang)),
            ("deadline, new", lambda lang=language: f.datetime_long(next(moments), "Europe/Berlin",
                                                                   lang),
             lambda lang=language: format_datetime(next(moments), "E, d. MMMM y, HH:mm z",
                                                   tzinfo=BERLIN, locale=lang)),
            ("time left", lambda lang=language: f.duration(left, lang),
             lambda lang=language: format_timedelta(left, locale=lang)),
        ]
        for name, ours, babels in cases:
            a, b = per_call(ours, args.calls), per_call(babels, args.calls)
            rows.append((language, name, str(ours()), a, str(babels()), b))
    print(f"loading the locale data of de and en, once per process: {loaded * 1000:.1f} ms CPU")
    for language, name, ours_text, a, babels_text, b in rows:
        print(f"{language} {name:16} ours {a * 1e6:6.2f} µs {ours_text!r:52} "
              f"Babel {b * 1e6:6.2f} µs {babels_text!r} (ratio {b / a:.1f}x)")


if __name__ == "__main__":
    main()
