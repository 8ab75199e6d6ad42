"""The one reply to a manager's mail: what was understood and stored, or why not.

Renders a ``bot.league.outcome.MoveOutcome`` (language-neutral codes) into
German or English plain text. The reply shows the manager's whole current
state for the round (both teams, their lineups with every correction and the
budget, what changed), the deadline with its time zone and the time left,
the ignored lines, and for every error the line, the reason and the right
form. A corrected lineup is explained once, by the rules that changed it,
with the WP it leaves unused and a lineup that would spend them
(``bot.render.explain``): in the notice of the mail that sent it, else in
the teams section. Only the manager sees it, so it may show their own lineups.

Problems found before the league sees the mail (too large, too many lines,
too many mails, an internal error) are rendered by ``render_problem``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Literal

from jinja2 import Environment

from bot.league.outcome import Code, MoveOutcome, TeamState
from bot.render.environment import Environments, environment_for
from bot.render.explain import Explanation, explain, explain_notice
from bot.render.formatting import zone
from bot.render.model import RenderedMail
from bot.render.rules_doc import rules_text
from bot.render.textwidth import clean, tidy_text

#: The notice of a reply that carries the rules (``bot.service.commands.rules``).
RULES_CODE = "rules"

Problem = Literal["too_large", "too_many_lines", "slow_down", "internal_error", "unreadable"]
PROBLEMS: tuple[str, ...] = (
    "too_large", "too_many_lines", "slow_down", "internal_error", "unreadable",
)


def reply_subject(original: str | None, language: str) -> str:
    """``Re: <original subject>`` (one ``Re:`` only), or a default subject."""
    subject = clean(original or "").strip()
    while subject.lower().startswith(("re:", "aw:")):
        subject = subject[3:].strip()
    if not subject:
        subject = "Turnited"
    return f"Re: {subject}"


def render_reply(
    outcome: MoveOutcome,
    *,
    subject: str | None,
    now: datetime,
    timezone: str,
    game_name: str,
    game_address: str | None,
    language: str | None = None,
    env: Environment | Environments | None = None,
    to_gm: bool = False,
) -> RenderedMail:
    """The reply to the mail that led to ``outcome`` (``to_gm``: to the game
    master's own mail, whose footer does not tell him how to reach himself)."""
    language = language or outcome.language
    env = environment_for(language, env)
    zone(timezone)
    manager_name = greeting_name(outcome)
    status = next((n.params for n in outcome.notices if n.code == Code.STATUS), {})
    explanations = _Explanations()
    context = {
        "o": outcome,
        "manager_name": clean(manager_name).strip() if manager_name else None,
        "now": now,
        "left": (outcome.deadline - now) if outcome.deadline and outcome.deadline > now else None,
        "timezone": timezone,
        "game_name": clean(game_name).strip(),
        "address": clean(game_address).strip() if game_address else None,
        "show_help": _wants_help(outcome),
        "to_gm": to_gm,
        # each correction explained once: in its notice, else in the teams section
        "explain_notice": explanations.of_notice,
        "explain_team": explanations.of_team,
        "told": {n.params.get("team") for n in outcome.notices
                 if n.code == Code.LINEUP_CORRECTED},
        # a Status: each team's WP rank and last result, shown with the team
        "standings": status.get("standings") or {},
        # the round's seed commitment: a stored lineup's, or the one a Status asked for
        "commitment": outcome.commitment or status.get("commitment"),
        # ``Regeln``: the rules document, then the help's commands
        "rules_text": rules_text(language) if RULES_CODE in outcome.codes() else None,
    }
    text = tidy_text(env.get_template("reply.txt.j2").render(context))
    return RenderedMail(
        subject=reply_subject(subject, language), text=text, html=None, language=language
    )


def render_problem(
    problem: Problem,
    *,
    subject: str | None,
    language: str,
    game_name: str,
    game_address: str | None,
    limit: int | None = None,
    env: Environment | Environments | None = None,
) -> RenderedMail:
    """A reply for a mail the league never saw (it changed nothing)."""
    if problem not in PROBLEMS:
        raise ValueError(f"unknown problem {problem!r}; known: {', '.join(PROBLEMS)}")
    env = environment_for(language, env)
    context = {
        "problem": problem,
        "limit": limit,
        "game_name": clean(game_name).strip(),
        "address": clean(game_address).strip() if game_address else None,
    }
    text = tidy_text(env.get_template("reply_problem.txt.j2").render(context))
    return RenderedMail(
        subject=reply_subject(subject, language), text=text, html=None, language=language
    )


class _Explanations:
    """The explanations of one reply's lineups, each worked out once: a
    team's notice and its line in the teams section explain the same lineup."""

    def __init__(self) -> None:
        self._made: dict[tuple[str, str, int], Explanation] = {}

    def of_team(self, team: TeamState) -> Explanation:
        if team.corrected is None:
            raise ValueError(f"{team.name!r} has no lineup to explain")
        key = (team.name, str(team.corrected.original), team.corrected.budget)
        if key not in self._made:
            self._made[key] = explain(team.name, team.corrected)
        return self._made[key]

    def of_notice(self, params: Mapping[str, object]) -> Explanation:
        budget = params["budget"]
        if isinstance(budget, bool) or not isinstance(budget, int):
            raise ValueError(f"a lineup_corrected notice needs a whole budget, not {budget!r}")
        key = (str(params["team"]), str(params["lineup"]), budget)
        if key not in self._made:
            self._made[key] = explain_notice(params)
        return self._made[key]


def greeting_name(outcome: MoveOutcome) -> str | None:
    """Whom the reply greets: the manager's name once known (``Manager:``),
    else the display name of the mail's From header (not an address)."""
    if outcome.manager is not None and outcome.manager.display_name:
        return outcome.manager.display_name
    name = outcome.sender_name
    if not name or "@" in name or not any(c.isalpha() for c in name):
        return None
    return name


def _wants_help(outcome: MoveOutcome) -> bool:
    codes = set(outcome.codes())
    return bool(codes & {"help", "nothing_to_do", "not_registered", "no_team"}) or bool(
        outcome.line_errors
    )
