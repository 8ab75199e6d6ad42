"""The league service: one method per use case, each one transaction.

``League(db, settings)`` evaluates due rounds (``evaluate_due``: the
typed ``EvaluationResult``, whose news publishing takes as it is; a round
published again is read back with ``stored_news``), and
answers questions about the state (``status``, tables, reminders,
``replay``), and carries out the game master's console: ``rollback`` of
the last evaluation, ``ban``/``unban`` and ``reset_password`` of a manager.
Each round's seed is drawn when the round opens and committed
(``commitment``, RULES.md §4). Time is always passed in as an aware
``now``; nothing here reads the clock.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bot.errors import N_
from bot.league.addresses import normalize_address
from bot.league.errors import BadTime, LeagueError, NoOpenRound, RoundNotOpen, UnknownRound
from bot.league.passwords import generate_password, hash_password
from bot.league.settings import LeagueSettings
from bot.rules.lots import seed_commitment
from bot.storage import bounces, outbox, reminders, results
from bot.storage import managers as manager_rows
from bot.storage import moves as move_rows
from bot.storage import rounds as round_rows
from bot.storage import teams as team_rows
from bot.storage.db import Database
from bot.storage.rounds import RoundRow

if TYPE_CHECKING:  # the evaluation and its report (numpy, the Monte Carlo) are imported
    # when a round is played, the news and tables when published: the console's
    # status and the ingest never load them
    from bot.league import evaluation as ev
    from bot.league.evaluation import ReplayResult
    from bot.league.news import EvaluationResult, Recipient, RoundNews
    from bot.league.tables import PszRow, WpRow

__all__ = [
    "CannotRollBack",
    "League",
    "LeagueSettings",
    "LeagueStatus",
    "ReminderTarget",
    "RolledBack",
    "UnknownManager",
]


@dataclass(frozen=True, slots=True)
class ReminderTarget:
    """A manager to remind: ``teams`` played recently but have no lineup yet;
    ``language`` as in ``Recipient``."""

    manager_id: int
    address: str
    display_name: str | None
    teams: tuple[str, ...]
    language: str | None = None


@dataclass(frozen=True, slots=True)
class LeagueStatus:
    season: int
    round: int
    round_in_season: int
    deadline: datetime
    #: The deadline has passed; the round waits for its evaluation.
    deadline_passed: bool
    #: Managers with at least one team, and all managers ever registered.
    managers: int
    managers_total: int
    teams: int
    #: Names of the teams with a lineup for the open round (never the lineups).
    teams_with_lineup: tuple[str, ...]
    evaluated_rounds: int
    #: SHA-256 commitment of the open round's seed (RULES.md §4); None for a
    #: round of old state opened without a committed seed.
    commitment: str | None = None


class UnknownManager(LeagueError):
    """No manager is registered under this address."""

    def __init__(self, address: str) -> None:
        self.address = address
        message = N_("no manager is registered with the address %(address)s; "
                     "`turnited managers` lists them")
        self.words = (message, {"address": address})
        super().__init__(message % self.words[1])


class CannotRollBack(LeagueError):
    """``reason`` 'nothing': no round evaluated yet; 'later': ``round`` is not the
    last evaluated round (``last`` is)."""

    def __init__(self, reason: str, round: int | None = None, last: int | None = None) -> None:
        self.reason, self.round, self.last = reason, round, last
        if reason == "nothing":
            message = N_("no round has been evaluated yet: there is nothing to roll back")
        else:
            message = N_("round %(round)s cannot be rolled back: round %(last)s was evaluated "
                         "after it; only the last evaluated round (%(last)s) can be rolled "
                         "back")
        self.words = (message, {"round": round, "last": last})
        super().__init__(message % self.words[1] if reason != "nothing" else message)


@dataclass(frozen=True, slots=True)
class RolledBack:
    """A rolled-back evaluation: ``round`` is open again (its moves and seed kept)."""

    round: int
    #: How often this round has now been rolled back (its next newsletter corrects).
    corrects: int
    #: Teams that exist again (their deletion stays announced).
    restored: tuple[str, ...]
    #: Teams whose WP/PSZ went back; whether the season's ageing was undone.
    teams: int
    aged: bool
    #: The removed open round and how many of its moves stay for when it opens again.
    removed_round: int
    kept_moves: int
    #: Newsletters/digest of the round not sent yet, cancelled.
    cancelled_mails: int
    deadline: datetime


def _aware(what: str, moment: datetime) -> None:
    if not isinstance(moment, datetime) or moment.tzinfo is None:
        raise BadTime(what, moment)


def _new_seed() -> int:
    from bot.league.evaluation import new_seed

    return new_seed()


class League:
    """The league over one database.

    ``lot`` draws the lots of the two-team rule (a ``SystemRandom`` unless
    given). ``step``, if set, is called with the name of each point of the
    evaluation's write transaction (``evaluation.STEPS``); crash tests raise
    from it.
    """

    def __init__(
        self,
        db: Database,
        settings: LeagueSettings | None = None,
        *,
        lot: random.Random | None = None,
        seeds: Callable[[], int] | None = None,
    ) -> None:
        self.db = db
        self.settings = settings or LeagueSettings()
        self.lot = lot or random.SystemRandom()
        #: Draws the seed committed when a round opens (``secrets`` unless given).
        self.seeds = seeds or _new_seed
        self.step: Callable[[str], None] | None = None

    # -- rounds ------------------------------------------------------------------

    def open_round(self, conn: sqlite3.Connection) -> RoundRow | None:
        return round_rows.open_round(conn)

    def ensure_first_round(self, now: datetime, deadline: datetime) -> RoundRow:
        """Open round 1 of season 1 with ``deadline`` if the league has no round yet
        (a league taken over opened its first round at the import); returns the
        open round either way."""
        _aware("now", now)
        _aware("deadline", deadline)
        with self.db.transaction() as conn:
            if round_rows.round_by_number(conn, 1) is None and round_rows.open_round(conn) is None:
                seed = round_rows.commit_seed(conn, 1, self.seeds(), now)
                # Late mail for round 1 counts for round 2: its seed is fixed now.
                round_rows.commit_seed(conn, 2, self.seeds(), now)
                round_rows.insert_round(conn, number=1, season=1, round_in_season=1,
                                        deadline=deadline, now=now, seed=seed)
            current = round_rows.open_round(conn)
            if current is None:
                raise NoOpenRound()
            return current

    def set_deadline(self, round_number: int, deadline: datetime) -> None:
        """Move the deadline of the open round."""
        _aware("deadline", deadline)
        with self.db.transaction() as conn:
            rnd = round_rows.round_by_number(conn, round_number)
            if rnd is None:
                raise UnknownRound(round_number)
            if not rnd.is_open:
                raise RoundNotOpen(round_number)
            round_rows.set_deadline(conn, round_number, deadline)

    # -- evaluation --------------------------------------------------------------

    def _next_deadline(self, rnd: RoundRow, now: datetime, given: datetime | None) -> datetime:
        if given is not None:
            _aware("next_deadline", given)
            if given <= now:
                raise LeagueError(
                    f"next deadline {given.isoformat()} is not after now ({now.isoformat()}); "
                    "the next round needs a deadline in the future"
                )
            return given
        deadline = rnd.deadline + self.settings.round_length
        while deadline <= now:
            deadline += self.settings.round_length
        return deadline

    def evaluate_due(
        self,
        now: datetime,
        *,
        seed: int | None = None,
        next_deadline: datetime | None = None,
        force: bool = False,
        progress: Callable[..., Any] | None = None,
    ) -> EvaluationResult | None:
        """Evaluate the open round if its deadline has passed (or ``force``).

        The round is played with the seed committed when it opened (a round
        of old state opened without one draws it now). ``seed`` overrides it
        (tests and simulations; the published commitment then does not match).
        Returns None when nothing is due (or another process evaluated it
        first). See ``bot.league.evaluation`` for the steps.
        """
        from bot.league import evaluation as ev

        _aware("now", now)
        drawn = ev.new_seed()
        next_seeds = (self.seeds(), self.seeds())
        step = self.step or (lambda _name: None)
        for attempt in range(ev.MAX_ATTEMPTS):
            with self.db.read() as conn:
                rnd = round_rows.open_round(conn)
                if rnd is None or (not force and now <= rnd.deadline):
                    return None
                inputs = ev.gather_inputs(conn, rnd)
            chosen_seed = seed if seed is not None else rnd.seed if rnd.seed is not None else drawn
            inputs_json = inputs.to_json(chosen_seed, self.settings)
            deadline = self._next_deadline(rnd, now, next_deadline)
            last = attempt == ev.MAX_ATTEMPTS - 1
            if not last:
                report = ev.play(inputs_json, progress)
            with self.db.transaction() as conn:
                current = round_rows.open_round(conn)
                if current is None or current.number != rnd.number or current.seed != rnd.seed:
                    return None
                fresh = ev.gather_inputs(conn, current)
                if fresh.to_json(chosen_seed, self.settings) != inputs_json:
                    if not last:
                        continue
                    inputs = fresh
                    inputs_json = fresh.to_json(chosen_seed, self.settings)
                if last:
                    report = ev.play(inputs_json, progress)
                applied = ev.apply_round(
                    conn, self.settings, inputs, inputs_json, report,
                    now=now, next_deadline=deadline, step=step, next_seeds=next_seeds,
                )
                return self._result(conn, applied)
        return None  # pragma: no cover - the last attempt always returns

    def _result(self, conn: sqlite3.Connection, applied: ev.Applied) -> EvaluationResult:
        """The result of the evaluation just applied, inside its transaction: the
        typed reports as played, the tables as they stand after it."""
        from bot.league.news import EvaluationResult, round_news

        told = round_news(conn, self.settings, applied.round, applied.public,
                          deleted=applied.deleted, aged=applied.aged)
        return EvaluationResult.of(told, seed=applied.seed, report=applied.report)

    # -- auditable lots (RULES.md §4) ------------------------------------------

    def commitment(self, conn: sqlite3.Connection, round_number: int) -> str | None:
        """The published commitment of round ``round_number``'s seed,
        ``SHA-256("turnited-seed:<round>:<seed>")`` in hex; None for a round
        opened without a committed seed (old state) or not opened yet."""
        seed = round_rows.committed_seed(conn, round_number)
        return seed_commitment(round_number, seed) if seed is not None else None

    # -- the game master's console ------------------------------------------------

    def rollback_target(self, conn: sqlite3.Connection, round_number: int | None = None
                        ) -> RoundRow:
        """The round a rollback would take back: the last evaluated one
        (``round_number``, if given, must be it). Raises ``CannotRollBack`` or
        ``UnknownRound`` saying why not; changes nothing."""
        last = round_rows.last_evaluated(conn)
        if last is None:
            raise CannotRollBack("nothing")
        if round_number is not None and round_number != last.number:
            if round_rows.round_by_number(conn, round_number) is None:
                raise UnknownRound(round_number)
            if round_number > last.number:
                raise UnknownRound(round_number, "has been evaluated")
            raise CannotRollBack("later", round_number, last.number)
        return last

    def rollback(self, now: datetime, round_number: int | None = None, *,
                 deadline: datetime | None = None) -> RolledBack:
        """``rollback_in`` in a transaction of its own."""
        with self.db.transaction() as conn:
            return self.rollback_in(conn, now, round_number, deadline=deadline)

    def rollback_in(self, conn: sqlite3.Connection, now: datetime,
                    round_number: int | None = None, *,
                    deadline: datetime | None = None) -> RolledBack:
        """Undo the last evaluation (``round_number``, if given, must be it),
        inside the caller's transaction: WP, PSZ, deleted teams, ageing, its
        stored result and WP history; the round is open again with its moves
        and committed seed (and ``deadline``, if given, else the one it had),
        and its newsletters and digest not sent yet are cancelled (sent ones
        stay). The next evaluation corrects it (``RoundRow.corrects``)."""
        from bot.league import evaluation as ev

        _aware("now", now)
        if deadline is not None:
            _aware("deadline", deadline)
        last = self.rollback_target(conn, round_number)
        following = round_rows.round_by_number(conn, last.number + 1)
        if following is None or not following.is_open:
            raise ev.EvaluationError(
                f"round {last.number} is the last evaluated round but round "
                f"{last.number + 1} is not open"
            )
        kept = len(move_rows.current_moves(conn, following.number))
        undone = ev.undo_round(conn, last, following)
        cancelled = outbox.cancel_unsent(conn, last.number, ("newsletter", "digest"))
        if deadline is not None:
            round_rows.set_deadline(conn, last.number, deadline)
        reopened = round_rows.round_by_number(conn, last.number)
        assert reopened is not None
        return RolledBack(last.number, reopened.corrects, undone.restored, undone.teams,
                          undone.aged, following.number, kept, cancelled, reopened.deadline)

    def _manager(self, conn: sqlite3.Connection, address: str) -> manager_rows.ManagerRow:
        normalized = normalize_address(address)
        manager = manager_rows.manager_by_address(conn, normalized)
        if manager is None:
            raise UnknownManager(normalized)
        return manager

    def ban(self, address: str, now: datetime) -> tuple[manager_rows.ManagerRow, bool]:
        """Ban a manager: his mails get no reply and change nothing, his teams sit
        out of evaluations, his WP stay. Returns the manager and whether he was
        banned before (then nothing changes)."""
        _aware("now", now)
        with self.db.transaction() as conn:
            manager = self._manager(conn, address)
            if not manager.banned:
                manager_rows.set_banned(conn, manager.id, now)
            return manager, manager.banned

    def unban(self, address: str) -> tuple[manager_rows.ManagerRow, bool]:
        """Lift a ban; returns the manager and whether he was banned."""
        with self.db.transaction() as conn:
            manager = self._manager(conn, address)
            if manager.banned:
                manager_rows.set_banned(conn, manager.id, None)
            return manager, manager.banned

    def is_banned(self, conn: sqlite3.Connection, sender: str) -> bool:
        """Whether the sender of a mail is a banned manager."""
        try:
            return manager_rows.is_banned(conn, normalize_address(sender))
        except LeagueError:
            return False

    def reset_password(
        self, conn: sqlite3.Connection, address: str
    ) -> tuple[manager_rows.ManagerRow, str]:
        """A new password for the manager at ``address`` (in the caller's
        transaction, so the mail that carries it is queued with it); the old
        one stops working. Returns the manager and the new password."""
        manager = self._manager(conn, address)
        password = generate_password()
        manager_rows.update_manager(
            conn, manager.id, password_hash=hash_password(password, n=self.settings.password_cost)
        )
        return manager, password

    def replay(self, round_number: int) -> ReplayResult:
        """Re-play an evaluated round from its stored inputs and seed."""
        from bot.league import evaluation as ev

        with self.db.read() as conn:
            stored = results.stored_inputs_and_report(conn, round_number)
        if stored is None:
            raise UnknownRound(round_number, "has been evaluated")
        return ev.replay_stored(*stored, round_number)

    def stored_news(self, round_number: int) -> RoundNews:
        """The news of an evaluated round, read back to publish it again (its
        stored public report parsed once; ``bot.league.news``)."""
        from bot.league import news

        with self.db.read() as conn:
            return news.stored_news(conn, self.settings, round_number)

    def stored_report(self, round_number: int, *, public: bool = True) -> dict[str, Any]:
        """The stored (public or full) report of an evaluated round."""
        import json

        with self.db.read() as conn:
            text = results.stored_report(conn, round_number, public=public)
        if text is None:
            raise UnknownRound(round_number, "has been evaluated")
        return json.loads(text)

    # -- questions ---------------------------------------------------------------

    def wp_table(self, conn: sqlite3.Connection, round_number: int) -> list[WpRow]:
        from bot.league import tables

        return tables.wp_table(conn, round_number, self.settings.listed_rounds)

    def psz_table(self, conn: sqlite3.Connection, round_number: int) -> list[PszRow]:
        from bot.league import tables

        return tables.psz_table(conn, round_number, self.settings.listed_rounds)

    def recipients(self, conn: sqlite3.Connection) -> list[Recipient]:
        """Every manager with at least one team (the newsletter's recipients),
        but a banned one (RULES.md §13) and those who unsubscribed (``Abmelden``,
        RULES.md §12)."""
        from bot.league import news

        return list(news.recipients(conn))

    def status(self, conn: sqlite3.Connection, now: datetime) -> LeagueStatus:
        _aware("now", now)
        rnd = round_rows.open_round(conn)
        if rnd is None:
            raise NoOpenRound()
        moves = move_rows.current_moves(conn, rnd.number)
        active = team_rows.active_teams(conn)
        banned = manager_rows.banned_ids(conn)  # their teams sit out
        with_lineup = sorted(
            (t.name for t in active
             if t.registered_round <= rnd.number and t.id in moves
             and moves[t.id].lineup is not None and t.manager_id not in banned),
            key=str.casefold,
        )
        evaluated = round_rows.count_evaluated(conn)
        return LeagueStatus(
            season=rnd.season,
            round=rnd.number,
            round_in_season=rnd.round_in_season,
            deadline=rnd.deadline,
            deadline_passed=now > rnd.deadline,
            managers=manager_rows.count_managers(conn),
            managers_total=manager_rows.count_managers(conn, with_active_teams=False),
            teams=len(active),
            teams_with_lineup=tuple(with_lineup),
            evaluated_rounds=int(evaluated),
            commitment=self.commitment(conn, rnd.number),
        )

    def managers_without_lineup(
        self, conn: sqlite3.Connection, round_number: int
    ) -> list[ReminderTarget]:
        """Managers whose teams played in one of the last ``listed_rounds`` rounds
        before ``round_number`` but have no move (lineup or withdrawal) for it
        (banned managers are not reminded: their teams sit out; nor are those
        who unsubscribed, RULES.md §12)."""
        rows = reminders.teams_without_move(
            conn, round_number, first=round_number - self.settings.listed_rounds,
            last=round_number - 1,
        )
        grouped: dict[int, ReminderTarget] = {}
        # A banned manager's teams sit out; one who unsubscribed asked for none.
        skipped = manager_rows.banned_ids(conn) | manager_rows.unsubscribed_ids(conn)
        for row in rows:
            if row.manager_id in skipped:
                continue
            found = grouped.get(row.manager_id)
            teams = (*found.teams, row.team) if found else (row.team,)
            grouped[row.manager_id] = ReminderTarget(row.manager_id, row.address,
                                                     row.display_name, teams, row.language)
        return list(grouped.values())

    def record_bounce(
        self, conn: sqlite3.Connection, address: str, inbound_id: int | None, reason: str,
        *, now: datetime | None = None,
    ) -> int:
        """Record that mail to ``address`` bounced (linked to its manager, if any)."""
        try:
            normalized = normalize_address(address)
        except LeagueError:
            normalized = address
        manager = manager_rows.manager_by_address(conn, normalized)
        return bounces.insert_bounce(
            conn, manager_id=manager.id if manager else None, inbound_id=inbound_id,
            recipient=normalized, reason=reason, now=now,
        )

    def manager_label(self, conn: sqlite3.Connection, manager_id: int) -> str:
        from bot.league.tables import manager_label

        manager = manager_rows.manager_by_id(conn, manager_id)
        return manager_label(manager.display_name, manager.address)
