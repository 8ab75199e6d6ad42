"""What ``turnited import`` tells the game master, in the game's language:
the problems of a refused table, line by line, or what was (or, in a dry
run, would be) imported, with the notes on short names."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from jinja2 import Environment

from bot.league.import_check import ImportPlan
from bot.league.import_table import Problem
from bot.render.environment import Environments, environment_for
from bot.render.textwidth import tidy_text


def render_refusal(problems: Sequence[Problem], *, source: str, language: str,
                   env: Environment | Environments | None = None) -> str:
    """Every problem of a table that was not imported, with its line."""
    env = environment_for(language, env)
    return tidy_text(env.get_template("import_report.txt.j2").render(
        kind="refused", problems=list(problems), source=source))


def render_plan(plan: ImportPlan, *, source: str, dry_run: bool, deadline: datetime,
                timezone: str, language: str, commitment: str | None = None,
                welcome_mails: int = 0,
                env: Environment | Environments | None = None) -> str:
    """What an import stored (or would store): every team with its numbers."""
    env = environment_for(language, env)
    return tidy_text(env.get_template("import_report.txt.j2").render(
        kind="plan", plan=plan, notes=list(plan.notes), source=source, dry_run=dry_run,
        deadline=deadline, timezone=timezone, commitment=commitment,
        welcome_mails=welcome_mails))


__all__ = ["render_plan", "render_refusal"]
