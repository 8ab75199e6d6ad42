"""Benchmark: the whole mail-in pipeline against a bare IMAP fetch.

Starts a private Dovecot (``tests.servers.DovecotServer``), registers ~200
managers (about a quarter with a second team) through the real pipeline
(setup, not measured), then APPENDs 1,000 realistic player mails (German and
English lineups, the labelled notation, two teams in one mail, quoted
replies with an old lineup below, status requests, a third of them
multipart/alternative with HTML) and times:

  (a)  a bare imapclient FETCH BODY.PEEK[] of all of them (one command),
  (a') a bare FETCH + one UID MOVE (the protocol floor of MOVE mode),
  (p)  ``App.poll_once`` over ``ImapMailbox``: spool + ledger + read +
       classify + parse + league + reply rendering + outbox, batched MOVE;
       split into (t) its transport part (``fetch_new`` +
       ``mark_processed_many``, timed inside the same poll) and (i) the rest;
  (o)  the old per-mail path side by side, on the same state and mails:
       ``Ingestor.ingest`` mail by mail (a spool flush, a connection and a
       transaction each) with the verified-password cache off.

Every measured poll starts with an empty password cache, as a freshly
started worker would (so each manager's first mail costs one scrypt).
Prints mails/s, the ratios to (a) (the old target: "ingest within 2x of the
bare fetch") and where the ingest time goes, step by step in ms per mail
(timers around the pipeline's steps), at scrypt N=2**10 (so scrypt does not
dominate). Then, at the DEFAULT cost N=2**14, the issue-15 figures: the new
path against the old one (target: at least 4x faster) and how both grow with
the number of mails (``--growth``). ``--profile`` adds a cProfile of one poll.

    python -m bench.bench_ingest [--managers 200] [--mails 1000] [--repeat 2]
                                 [--growth 250,500] [--compare-repeat 1]
                                 [--no-default-cost] [--profile]
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import email
import io
import pstats
import random
import re
import shutil
import tempfile
import time
import types
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email import policy
from pathlib import Path

import bot.league.passwords
import bot.service.commands.runner
import bot.service.inbound
import bot.service.outgoing
import bot.storage.outbox
from bench.bench_imap_ingest import (
    Figure,
    bare_fetch,
    bare_fetch_and_move,
    best,
    dovecot_config,
    per_mail_poll,
    reset,
)
from bench.player_mails import START, Manager, managers, measured_mails, registration
from bot.app import App, build_app
from bot.league.passwords import DEFAULT_N, VERIFIED
from bot.league.settings import LeagueSettings
from bot.mail.transport import IncomingMail, MailSource
from tests.servers import DovecotServer

BENCH_COST = 2**10


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


class TimedSource:
    """Delegates to the real source and adds up the time spent in it."""

    def __init__(self, inner: MailSource) -> None:
        self.inner = inner
        self.seconds = 0.0

    def _timed(self, action: Callable[[], object]) -> object:
        started = time.perf_counter()
        try:
            return action()
        finally:
            self.seconds += time.perf_counter() - started

    def fetch_new(self, limit: int | None = None, *,
                  max_size: int | None = None) -> list[IncomingMail]:
        return self._timed(  # type: ignore[return-value]
            lambda: self.inner.fetch_new(limit, max_size=max_size))

    def mark_processed(self, mail: IncomingMail) -> None:
        self._timed(lambda: self.inner.mark_processed(mail))

    def mark_processed_many(self, mails: list[IncomingMail]) -> None:
        self._timed(lambda: self.inner.mark_processed_many(mails))

    def quarantine(self, mail: IncomingMail) -> None:
        self._timed(lambda: self.inner.quarantine(mail))

    def wait_for_mail(self, timeout: float) -> bool:
        return self.inner.wait_for_mail(timeout)  # type: ignore[no-any-return]

    def close(self) -> None:
        self.inner.close()


#: (object, attribute, label) of the ingest's steps, timed where the pipeline
#: looks them up; "commands" (``carry_out``, the command runner) includes the
#: password check listed below it.
STAGES = (
    ("ingestor", "_known", "ledger lookup (dedupe)"),
    (bot.service.inbound, "spool_many", "spool: write the mails + one flush per batch"),
    (bot.service.inbound, "read_message", "read: MIME, charsets, quotes"),
    (bot.service.inbound, "classify", "classify"),
    (bot.service.inbound, "parse_moves", "parse the commands"),
    (bot.service.inbound, "carry_out", "commands: SQL, corrections, password check"),
    (bot.service.commands.runner, "verify_password",
     "  of which the password check (cache, scrypt)"),
    (bot.league.passwords, "_scrypt", "    of which scrypt itself"),
    (bot.service.inbound, "render_reply", "render the reply (Jinja)"),
    (bot.service.outgoing, "compose", "compose the reply (MIME, headers)"),
    (bot.storage.outbox, "enqueue", "outbox insert"),
)


@contextlib.contextmanager
def stage_timers(app: App, totals: Counter[str]) -> Iterator[None]:
    """Add up the time of each step of ``STAGES`` (and of the whole ingest)."""
    owners = {"ingestor": app.ingestor}
    patched = []

    def timed(label: str, real: Callable[..., object]) -> Callable[..., object]:
        def wrapper(*args: object, **kwargs: object) -> object:
            started = time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                totals[label] += time.perf_counter() - started

        return wrapper

    for owner, name, label in (*STAGES, ("ingestor", "ingest_batch", "ingest")):
        target = owners.get(owner, owner) if isinstance(owner, str) else owner
        real = getattr(target, name)
        setattr(target, name, timed(label, real))
        patched.append((target, name, real))
    try:
        yield
    finally:
        for target, name, real in reversed(patched):
            if isinstance(target, types.ModuleType):
                setattr(target, name, real)
            else:
                delattr(target, name)  # the instance attribute hid the method


def make_app(server: DovecotServer, state: Path, cost: int) -> App:
    app = build_app(dovecot_config(server, state), clock=Clock(), league_settings=LeagueSettings(
        password_cost=cost, simulations=0))
    app.ensure_started()
    return app


_PASSWORD = re.compile(r"^\s*(?:Passwort|Password): (\S+)\s*$", re.M)


def register(app: App, players: list[Manager], rng: random.Random) -> None:
    """Every manager's first team (then the second, with the password) through
    the real ingest, fed directly; passwords and reply ids read from the outbox."""
    serial = 0
    for round_ in (0, 1):
        for manager in players:
            if round_ < len(manager.teams):
                raw = registration(manager, manager.teams[round_], rng, serial)
                result = app.ingestor.ingest(IncomingMail("maildir:setup", None, None, raw,
                                                          f"setup-{serial}"))
                serial += 1
                if result.move is None or not result.move.accepted:
                    raise RuntimeError(f"setup: registration failed: {result.outcome}")
        if round_ == 0:
            by_address = {m.address: m for m in players}
            with app.db.read() as conn:
                rows = conn.execute(
                    "SELECT recipient, message_id, raw FROM outbox WHERE kind = 'reply'"
                ).fetchall()
            for recipient, message_id, raw in rows:
                manager = by_address[recipient]
                msg = email.message_from_bytes(bytes(raw), policy=policy.default)
                body = msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
                manager.password = _PASSWORD.search(body).group(1)  # type: ignore[union-attr]
                manager.bot_ids.append(message_id)


# ---------------------------------------------------------------- one run


@dataclass
class Setup:
    """Registered managers and their mails; the state saved to start every
    measured poll from (not measured)."""

    tmp: Path
    cost: int
    players: list[Manager]
    mails: list[bytes]
    seconds: float

    @property
    def snapshot(self) -> Path:
        return self.tmp / "registered"

    @property
    def state(self) -> Path:
        return self.tmp / "state"


def prepare(server: DovecotServer, tmp: Path, count: int, manager_count: int, cost: int,
            seed: int) -> Setup:
    rng = random.Random(seed)
    players = managers(manager_count, rng)
    setup = Setup(tmp, cost, players, [], 0.0)
    app = make_app(server, setup.state, cost)
    started = time.perf_counter()
    register(app, players, rng)
    setup.seconds = time.perf_counter() - started
    app.close()
    shutil.copytree(setup.state, setup.snapshot)
    setup.mails = measured_mails(players, count, rng)
    return setup


def one_run(
    server: DovecotServer, setup: Setup, count: int, *, old: bool = False,
    bare_repeat: int = 3, profile: bool = False,
) -> Run:
    """Poll ``count`` of the setup's mails into a copy of the registered state."""
    server.empty("INBOX", "Processed")  # not measured
    shutil.rmtree(setup.state, ignore_errors=True)
    shutil.copytree(setup.snapshot, setup.state)
    app = make_app(server, setup.state, setup.cost)
    mails = setup.mails[:count]
    started = time.perf_counter()
    server.append_many(mails)
    append_seconds = time.perf_counter() - started

    bares, moves_ = [], []
    for _ in range(bare_repeat):
        bares.append(bare_fetch(server))
    for _ in range(bare_repeat):
        moves_.append(bare_fetch_and_move(server))
        reset(server)
    if len(server.list_folder("INBOX")) != count:
        raise RuntimeError("reset did not bring every mail back to INBOX")

    timed = TimedSource(app.source)
    app.source = timed
    app.clock.now = START + timedelta(days=1)  # type: ignore[attr-defined]
    profiler = cProfile.Profile() if profile else None
    stages: Counter[str] = Counter()
    VERIFIED.clear()  # a freshly started worker
    VERIFIED.enabled = not old
    try:
        with stage_timers(app, stages):
            started = time.perf_counter()
            if profiler:
                profiler.enable()
            report = per_mail_poll(app) if old else app.poll_once()
            if profiler:
                profiler.disable()
            elapsed = time.perf_counter() - started
    finally:
        VERIFIED.enabled = True

    if len(report.results) != count or report.processed != count:
        raise RuntimeError(f"poll took {report.processed} of {count} mails")
    if server.list_folder("INBOX") or len(server.list_folder("Processed")) != count:
        raise RuntimeError("not every mail was moved to Processed")
    failures = [r.outcome for r in report.results if not (r.move and r.move.accepted)]
    if failures:
        raise RuntimeError(f"{len(failures)} mails were not accepted, e.g. {failures[0]!r}")
    if report.replies != count:
        raise RuntimeError(f"{report.replies} replies for {count} mails")
    moves = sum(1 for r in report.results if r.move is not None)
    app.close()
    profile_text = ""
    if profiler:
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out).sort_stats("cumulative")
        stats.print_stats(30)
        profile_text = out.getvalue()
    what = "(o)  the old per-mail path, no password cache" if old else \
        "(p)  App.poll_once: the whole pipeline"
    return Run(
        bare=best(bares),
        bare_move=best(moves_),
        poll=Figure(what, count, elapsed),
        transport=Figure("(t)    its transport: fetch_new + batched MOVE", count, timed.seconds),
        ingest=Figure("(i)    its ingest: spool, ledger, parse, league, reply, outbox", count,
                      elapsed - timed.seconds),
        setup_seconds=setup.seconds,
        append_seconds=append_seconds,
        kinds=dict(report.kinds),
        moves=moves,
        replies=report.replies,
        stages=stages,
        profile=profile_text,
    )


@dataclass
class Run:
    bare: Figure
    bare_move: Figure
    poll: Figure
    transport: Figure
    ingest: Figure
    setup_seconds: float
    append_seconds: float
    kinds: dict[str, int]
    moves: int
    replies: int
    stages: Counter[str] = field(default_factory=Counter)
    profile: str = ""


# ---------------------------------------------------------------- report


def line(figure: Figure, base: Figure) -> str:
    ratio = figure.seconds / base.seconds if base.seconds else float("inf")
    return (f"{figure.name:<64} {figure.mails:>6} {figure.seconds:>8.3f} "
            f"{figure.rate:>9.0f} {ratio:>6.2f}x")


def verdict(figure: Figure, base: Figure) -> str:
    ratio = figure.seconds / base.seconds
    return f"{ratio:.2f}x -> {'met' if ratio <= 2 else 'NOT met'}"


def print_stages(run: Run, mails: int) -> None:
    """Where the ingest time of the best run went, in ms per mail."""
    stages = run.stages
    top = sum(v for label, v in stages.items() if not label.startswith(" ") and label != "ingest")
    rows = [(label, stages[label]) for _o, _n, label in STAGES]
    rows.append(("transaction(s): connect, BEGIN, COMMIT (fsync), rest", stages["ingest"] - top))
    rows.append(("mail loop, batching, report", run.ingest.seconds - stages["ingest"]))
    print(f"where the ingest (i) goes ({1000 * run.ingest.seconds / mails:.2f} ms per mail):")
    for label, seconds in rows:
        share = seconds / run.ingest.seconds
        print(f"  {label:<54} {1000 * seconds / mails:>6.2f} ms {share:>5.0%}")


def compare(server: DovecotServer, setup: Setup, counts: list[int], repeat: int) -> None:
    """Issue 15 at one cost: the new path against the old, side by side on the
    same state and mails, and how both grow with the number of mails."""
    n = f"2**{setup.cost.bit_length() - 1}"
    print(f"issue 15: new path (p) against the old per-mail path (o) at scrypt N={n}, "
          f"{len(setup.players)} managers, best of {repeat}, cache emptied before each poll")
    print(f"{'mails':>6} {'old s':>8} {'new s':>8} {'old ms/mail':>12} {'new ms/mail':>12} "
          f"{'speed-up':>9} {'new/(a)':>8} {'old/(a)':>8}")
    rows = []
    for count in counts:
        olds, news = [], []
        for _ in range(repeat):  # interleaved: a busy spell hits both paths alike
            olds.append(one_run(server, setup, count, old=True, bare_repeat=1))
            news.append(one_run(server, setup, count, bare_repeat=1))
        old = min((r.poll for r in olds), key=lambda f: f.seconds)
        new = min((r.poll for r in news), key=lambda f: f.seconds)
        bare = best([r.bare for r in olds + news])
        speed = old.seconds / new.seconds
        rows.append((count, old, new, speed))
        print(f"{count:>6} {old.seconds:>8.2f} {new.seconds:>8.2f} "
              f"{1000 * old.seconds / count:>12.2f} {1000 * new.seconds / count:>12.2f} "
              f"{speed:>8.2f}x {new.seconds / bare.seconds:>7.0f}x "
              f"{old.seconds / bare.seconds:>7.0f}x")
    if len(rows) > 1:
        (c0, o0, n0, _), (c1, o1, n1, _) = rows[0], rows[-1]
        print(f"growth {c0} -> {c1} mails ({c1 / c0:.0f}x): new path x{n1.seconds / n0.seconds:.2f}"
              f", old path x{o1.seconds / o0.seconds:.2f} (the new path's scrypt is per "
              "manager, not per mail)")
    count, _old, _new, speed = rows[-1]
    print(f"target (new path at least 4x faster than the old, {count} mails, N={n}): "
          f"{speed:.2f}x -> {'met' if speed >= 4 else 'NOT met'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mails", type=int, default=1000)
    parser.add_argument("--managers", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=2, help="runs of the pipeline; best shown")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--growth", default="250,500",
                        help="smaller mail counts for the growth rows at the default cost")
    parser.add_argument("--compare-repeat", type=int, default=1,
                        help="runs of each path at the default cost; best shown")
    parser.add_argument("--no-default-cost", action="store_true",
                        help="skip the issue-15 comparison at the default scrypt cost")
    parser.add_argument("--profile", action="store_true", help="cProfile one extra poll")
    args = parser.parse_args(argv)

    bench_n = f"2**{BENCH_COST.bit_length() - 1}"
    growth = sorted({int(c) for c in args.growth.split(",") if c.strip()} - {args.mails})
    with DovecotServer(name="bench") as server, \
            tempfile.TemporaryDirectory(prefix="bench-ingest-") as tmp:
        setup = prepare(server, Path(tmp) / "bench-cost", args.mails, args.managers, BENCH_COST,
                        args.seed)
        runs, olds = [], []
        for _ in range(args.repeat):  # interleaved: a busy spell hits both paths alike
            runs.append(one_run(server, setup, args.mails))
            olds.append(one_run(server, setup, args.mails, old=True, bare_repeat=1))
        run = min(runs, key=lambda r: r.poll.seconds)
        old = min((r.poll for r in olds), key=lambda f: f.seconds)
        bare = min((r.bare for r in runs + olds), key=lambda f: f.seconds)
        bare_move = min((r.bare_move for r in runs), key=lambda f: f.seconds)
        print(f"{args.managers} managers registered through the pipeline in "
              f"{run.setup_seconds:.2f} s, {args.mails} mails appended in "
              f"{run.append_seconds:.2f} s (setup, not measured)")
        print(f"mails: {run.kinds}; {run.moves} with moves accepted, {run.replies} replies "
              "queued")
        print(f"password hashes: scrypt N={bench_n} via LeagueSettings(password_cost={bench_n}), "
              "so that scrypt does not dominate (default cost below)")
        print(f"best of {args.repeat} pipeline runs and {3 * args.repeat} bare fetches; "
              "the machine may be shared")
        print()
        print(f"{'what':<64} {'mails':>6} {'seconds':>8} {'mails/s':>9} {'ratio':>7}")
        for figure in (bare, bare_move, run.poll, run.transport, run.ingest, old):
            print(line(figure, bare))
        print()
        print(f"transport (t) against the bare fetch (a): {verdict(run.transport, bare)} "
              f"(against the protocol floor (a'), which moves too: "
              f"{run.transport.seconds / bare_move.seconds:.2f}x)")
        print(f"whole ingest (p) against the bare fetch (a): {verdict(run.poll, bare)}")
        print(f"new path (p) against the old per-mail path (o) at N={bench_n}: "
              f"{old.seconds / run.poll.seconds:.2f}x faster")
        share = run.ingest.seconds / run.poll.seconds
        print(f"the ingest work (i) is {share:.0%} of the poll, "
              f"{1000 * run.ingest.seconds / args.mails:.2f} ms per mail; "
              f"the transport (t) {1 - share:.0%}")
        print_stages(run, args.mails)
        if not args.no_default_cost:
            print()
            default = prepare(server, Path(tmp) / "default-cost", args.mails, args.managers,
                              DEFAULT_N, args.seed)
            compare(server, default, [*growth, args.mails], args.compare_repeat)
        if args.profile:
            profiled = one_run(server, setup, args.mails, bare_repeat=1, profile=True)
            print()
            print(profiled.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
