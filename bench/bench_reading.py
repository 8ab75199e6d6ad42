"""Benchmark: bounded work per mail in the reading half (issue 11).

Builds hostile mails of growing size (1x, 4x, 16x) and times
``read_message`` + ``classify`` on each:

* ``subject``: a Subject of N characters without a space;
* ``long line``: one body line of N characters without a space;
* ``many lines``: N/20 short lines, every fifth one looking like an
  attribution or a header field (the quote stripper's worst case);
* ``deep MIME``: multipart nested N/1000 levels deep (capped by the reader);
* ``many parts``: N/100 text parts in one multipart/mixed;
* ``html``: an HTML body of N characters of nested tags;
* ``bounce``: a plain-text bounce from MAILER-DAEMON with N/40 address lines.

It prints, per case, the mail size, the time, the time per KB and the
growth of the time per KB from 1x to 16x (≈ 1.0 means linear; quadratic
work shows as ≈ 16; keep 16x below the 256 KB text caps to see the growth),
and the time for a mail of twice the read cap (what the caps bound). The
best of ``--repeat`` runs counts.

``--compare-html`` compares our HTML converter with html2text on every
multipart/alternative mail of the corpora (the plain part is the truth).

``--compare-quotes`` instead measures quote stripping: ours against the
maintained parsers that are installed (mail-parser-reply, talon,
quotequail) on the language corpus (tests/mail/eml/lang) and the replies of
the real-world corpus whose fresh text test_corpus pins: exact fresh texts,
texts that still contain the quoted old lineup, and the time per mail.

    python -m bench.bench_reading [--base-kb 8] [--repeat 3] [--compare-quotes]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from bot.mail.classify import classify
from bot.mail.reading import MAX_READ_SIZE, read_message

ROOT = Path(__file__).resolve().parent.parent

BOT = ("spielleitung@turnited.example",)
HEAD = (
    "From: Hans <hans@example.de>\r\nTo: spielleitung@turnited.example\r\n"
    "Date: Fri, 24 Nov 2017 16:32:10 +0100\r\nMessage-ID: <b.1@example.de>\r\n"
)


def subject(n: int) -> bytes:
    return (HEAD + "Subject: " + "A" * n + "\r\n\r\nStatus\r\n").encode()


def long_line(n: int) -> bytes:
    return (HEAD + "Subject: x\r\n\r\n" + "x!" * (n // 2) + "\r\n").encode()


def many_lines(n: int) -> bytes:
    pattern = [
        "Aufstellung: 10-10-15-15-20",
        "Am 24.11.2017 um 16:32 schrieb Hans",
        "Von: Hans",
        "",
        "2017-11-24 16:32 Hans <hans@example.de>",
    ]
    lines = [pattern[i % len(pattern)] for i in range(n // 20)]
    return (HEAD + "Subject: x\r\n\r\n" + "\r\n".join(lines) + "\r\n").encode()


def deep_mime(n: int) -> bytes:
    depth = max(2, n // 1000)
    head = HEAD + "Subject: x\r\nMIME-Version: 1.0\r\n"
    opening = "".join(
        f'Content-Type: multipart/mixed; boundary="b{i}"\r\n\r\n--b{i}\r\n' for i in range(depth)
    )
    closing = "".join(f"\r\n--b{i}--\r\n" for i in reversed(range(depth)))
    return (head + opening + "Content-Type: text/plain\r\n\r\nStatus\r\n" + closing).encode()


def many_parts(n: int) -> bytes:
    parts = max(2, n // 100)
    body = "".join(
        f"--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nTeil {i} " + "x" * 60 + "\r\n"
        for i in range(parts)
    )
    return (
        HEAD + 'Subject: x\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n'
        "\r\n" + body + "--b--\r\n"
    ).encode()


def html(n: int) -> bytes:
    chunk = '<div class="x"><blockquote><p>Aufstellung <b>10</b>-10</p>'
    body = chunk * (n // len(chunk))
    return (
        HEAD + "Subject: x\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
        + body + "\r\n"
    ).encode()


def bounce(n: int) -> bytes:
    lines = [f"<user{i}@example.org>: 550 5.1.1 user unknown" for i in range(n // 40)]
    return (
        "From: MAILER-DAEMON@mx.example.org\r\nTo: spielleitung@turnited.example\r\n"
        "Subject: Undelivered Mail Returned to Sender\r\n\r\n" + "\r\n".join(lines) + "\r\n"
    ).encode()


CASES: dict[str, Callable[[int], bytes]] = {
    "subject": subject,
    "long line": long_line,
    "many lines": many_lines,
    "deep MIME": deep_mime,
    "many parts": many_parts,
    "html": html,
    "bounce": bounce,
}


def best_time(raw: bytes, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        classify(read_message(raw), BOT)
        best = min(best, time.perf_counter() - start)
    return best


def run_growth(base_kb: int, repeat: int) -> None:
    print(
        f"{'case':<12}{'size':>10}{'time s':>10}{'ms/KB':>9}   ms/KB at 1x 4x 16x, growth"
        f"   at 2x the read cap ({2 * MAX_READ_SIZE // 1024} KB): s"
    )
    for name, make in CASES.items():
        per_kb = []
        for factor in (1, 4, 16):
            raw = make(base_kb * 1024 * factor)
            seconds = best_time(raw, repeat)
            per_kb.append(seconds * 1000 / (len(raw) / 1024))
            last = (len(raw), seconds)
        growth = per_kb[2] / per_kb[0] if per_kb[0] else float("nan")
        capped = best_time(make(2 * MAX_READ_SIZE), 1)
        print(
            f"{name:<12}{last[0]:>10}{last[1]:>10.3f}{per_kb[2]:>9.3f}   "
            + " ".join(f"{x:.3f}" for x in per_kb)
            + f"  x{growth:.2f}   {capped:.3f}"
        )


# -- quote parsers compared ---------------------------------------------------------


def _expected_tables() -> list[tuple[str, str, str]]:
    """(group, full text, expected fresh text) of every reply with a pinned fresh text."""
    cases: list[tuple[str, str, str]] = []
    namespace: dict = {}
    source = (ROOT / "tests/mail/test_corpus_lang.py").read_text()
    exec(source[source.index("EXPECTED") : source.index("\n}\n") + 3], namespace)
    for stem, fresh in namespace["EXPECTED"].items():
        mail = read_message((ROOT / "tests/mail/eml/lang" / f"{stem}.eml").read_bytes())
        cases.append(("lang", mail.text, fresh))
    import tests.mail.test_corpus as corpus

    marks = corpus.test_fresh_text_of_replies.pytestmark
    params = next(m.args[1] for m in marks if m.name == "parametrize")
    for number, fresh in params:
        (path,) = (ROOT / "tests/corpus").glob(f"{number}-*.eml")
        mail = read_message(path.read_bytes())
        if mail.body_source == "plain":
            cases.append(("corpus", mail.text, fresh))
    return cases


def _parsers() -> dict[str, Callable[[str], str]]:
    from bot.mail.quotes import strip_quotes

    parsers: dict[str, Callable[[str], str]] = {"ours (bot.mail.quotes)": strip_quotes}
    try:
        from mailparser_reply import EmailReplyParser

        langs = ["en", "de", "cs", "da", "es", "fr", "it", "ja", "nl", "pl", "sv"]
        reply_parser = EmailReplyParser(languages=langs)
        parsers["mail-parser-reply"] = lambda t: reply_parser.parse_reply(t) or ""
    except ImportError:
        pass
    try:
        import talon
        from talon import quotations

        talon.init()
        parsers["talon"] = quotations.extract_from_plain
    except Exception:
        pass
    try:
        import quotequail

        def quotequail_fresh(text: str) -> str:
            parts = quotequail.quote(text)
            return parts[0][1] if parts and parts[0][0] else ""

        parsers["quotequail"] = quotequail_fresh
    except ImportError:
        pass
    return parsers


def _norm(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def run_compare() -> None:
    cases = _expected_tables()
    groups = sorted({group for group, _, _ in cases})
    print(
        f"{len(cases)} replies with a pinned fresh text "
        + ", ".join(f"{g}: {sum(c[0] == g for c in cases)}" for g in groups)
    )
    header = f"{'parser':<26}{'exact':>7}  {'exact by group':<22}"
    print(header + f"{'old lineup kept':>16}{'ms/mail':>9}")
    for name, parse in _parsers().items():
        exact = leaked = 0
        by_group = dict.fromkeys(groups, 0)
        start = time.perf_counter()
        for group, text, fresh in cases:
            try:
                got = parse(text) or ""
            except Exception:
                got = text
            same = _norm(got) == _norm(fresh)
            exact += same
            by_group[group] += same
            leaked += "0-0-30-30-30" in got or "alt-1" in got
        ms = (time.perf_counter() - start) * 1000 / len(cases)
        split = " ".join(f"{g} {n}" for g, n in by_group.items())
        print(f"{name:<26}{exact:>4}/{len(cases):<3} {split:<22}{leaked:>10}{'':>6}{ms:>9.2f}")


# -- HTML converters compared ---------------------------------------------------------


def _alternatives() -> list[tuple[str, str]]:
    """(HTML, fresh text of the plain alternative) of every multipart/alternative
    mail of both corpora that has both parts: the plain part is the truth."""
    import email
    import email.policy

    from bot.mail.quotes import strip_quotes

    found: list[tuple[str, str]] = []
    paths = sorted((ROOT / "tests/corpus").glob("*.eml")) + sorted(
        (ROOT / "tests/mail/eml").glob("*.eml")
    )
    for path in paths:
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        for part in msg.walk():
            if part.get_content_type() != "multipart/alternative":
                continue
            kids = {c.get_content_type(): c for c in part.iter_parts()}
            if "text/plain" in kids and "text/html" in kids:
                try:
                    plain = kids["text/plain"].get_content()
                    html_text = kids["text/html"].get_content()
                except Exception:
                    continue
                if plain.strip():
                    found.append((html_text, strip_quotes(plain)))
            break
    return found


def _words(text: str) -> list[str]:
    return [w for w in text.replace(">", " ").replace("*", " ").split() if w]


def run_compare_html() -> None:
    from bot.mail.htmltext import html_to_text
    from bot.mail.quotes import strip_quotes

    converters: dict[str, Callable[[str], str]] = {
        "ours (bot.mail.htmltext)": lambda h: strip_quotes(html_to_text(h, drop_quotes=True))
    }
    try:
        import html2text

        def via_html2text(h: str) -> str:
            converter = html2text.HTML2Text()
            converter.body_width = 0
            converter.ignore_images = True
            return strip_quotes(converter.handle(h))

        converters["html2text"] = via_html2text
    except ImportError:
        pass
    cases = _alternatives()
    hostile = html(256 * 1024).split(b"\r\n\r\n", 1)[1].decode()
    print(f"{len(cases)} multipart/alternative mails: HTML fresh text vs the plain part's")
    print(f"{'converter':<26}{'same words':>11}{'ms/mail':>9}{'hostile 256 KB s':>18}")
    for name, convert in converters.items():
        same = 0
        start = time.perf_counter()
        for html_text, fresh in cases:
            same += _words(convert(html_text)) == _words(fresh)
        ms = (time.perf_counter() - start) * 1000 / max(1, len(cases))
        start = time.perf_counter()
        convert(hostile)
        print(f"{name:<26}{same:>5}/{len(cases):<5}{ms:>9.2f}{time.perf_counter() - start:>18.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-kb", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--compare-quotes", action="store_true")
    parser.add_argument("--compare-html", action="store_true")
    args = parser.parse_args()
    if args.compare_quotes:
        run_compare()
    elif args.compare_html:
        run_compare_html()
    else:
        run_growth(args.base_kb, args.repeat)


if __name__ == "__main__":
    main()
