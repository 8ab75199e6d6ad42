"""The renderer takes the typed ``RoundReport`` and the league's table rows,
shares one render cache (``Environments``), and its modules import each
other directly, without cycles."""

from __future__ import annotations

import ast
import json
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

import bot.render
from bot.render import (
    Environments,
    LineupLeakError,
    ReminderTeam,
    render_digest,
    render_newsletter,
    render_problem,
    render_reminder,
    write_archive,
)
from bot.render.view import build_newsletter
from tests.render.conftest import DEADLINE
from tests.render.rounds import Round

RENDER = Path(bot.render.__file__).parent
NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


def newsletter(rnd: Round, public: object, language: str = "de", **overrides: object):
    kwargs: dict = {
        "round_info": rnd.round_info, "wp_table": rnd.wp_table, "psz_table": rnd.psz_table,
        "next_deadline": DEADLINE, "timezone": "Europe/Berlin", "language": language,
        "game_name": "Turnited", "game_address": "turnited@example.org",
    }
    kwargs.update(overrides)
    return render_newsletter(public, **kwargs)


@pytest.mark.parametrize("language", ["de", "en"])
def test_typed_and_stored_report_render_the_same(round16: Round, language: str) -> None:
    typed = newsletter(round16, round16.public_typed, language)
    stored = newsletter(round16, json.loads(json.dumps(round16.public)), language)
    assert typed == stored


def test_full_typed_report_refused(round16: Round) -> None:
    with pytest.raises(LineupLeakError, match=r"report\['teams'\]\[0\]\['lineup'\]") as err:
        newsletter(round16, round16.typed)
    assert err.value.team == round16.entrants[0].name


def test_view_reads_the_report_types_as_they_are(round16: Round) -> None:
    nl = build_newsletter(round16.public_typed, round16.wp_table, round16.psz_table)
    assert nl.stages is round16.public_typed.stages
    assert nl.bracket.games == round16.typed.knockout
    assert nl.placings == tuple(round16.report["placings"])
    assert nl.wp_table == round16.wp_table and nl.psz_table == round16.psz_table
    final = nl.bracket.final
    assert final is not None and nl.odds(final) == round16.typed.knockout_odds[-1]
    assert [c.team for c in nl.chances] == sorted(
        round16.report["semi_final_probability"],
        key=lambda t: -round16.report["semi_final_probability"][t],
    )
    points = [e.row.points for e in nl.expectation]
    assert points == sorted(points, reverse=True)
    assert nl.expectation[0].position == 1


def test_ranks_come_from_the_league_rows(round16: Round) -> None:
    """The places of the league's rows are shown as given, not recomputed."""
    wp = tuple(replace(r, place=7) for r in round16.wp_table)
    text = newsletter(round16, round16.public_typed, "en", wp_table=wp).text
    table = text.split("WP table")[1].split("PSZ table")[0]
    assert table.count(" 7. ") == len(wp)
    psz = tuple(replace(r, shown=4321) for r in round16.psz_table)
    text = newsletter(round16, round16.public_typed, "en", psz_table=psz).text
    assert text.split("PSZ table")[1].count("4321") == len(psz)


def test_no_gain_is_shown_as_zero(round16: Round) -> None:
    wp = (replace(round16.wp_table[0], gain=None),)
    zero = (replace(round16.wp_table[0], gain=Decimal("0.0")),)
    assert newsletter(round16, round16.public_typed, wp_table=wp) == newsletter(
        round16, round16.public_typed, wp_table=zero)


def test_archive_takes_the_typed_report(round16: Round, tmp_path: Path) -> None:
    mail = newsletter(round16, round16.public_typed)
    paths = write_archive(tmp_path, 3, mail, round16.public_typed)
    assert json.loads(paths.json.read_text(encoding="utf-8")) == round16.public
    with pytest.raises(LineupLeakError):
        write_archive(tmp_path / "full", 3, mail, round16.typed)
    assert not (tmp_path / "full").exists()


def test_one_render_cache_serves_every_renderer(round16: Round, tmp_path: Path) -> None:
    cache = Environments()
    de = newsletter(round16, round16.public_typed, "de", env=cache)
    en = newsletter(round16, round16.public_typed, "en", env=cache)
    made = dict(cache._made)
    assert set(made) == {"de", "en"}
    reminder = render_reminder(
        manager="Anna", teams=[ReminderTeam("Blaue Adler", 90)], round_info=round16.round_info,
        deadline=DEADLINE, now=NOW, timezone="Europe/Berlin", language="en",
        game_name="Turnited", env=cache,
    )
    digest = render_digest({"moves": 3}, now=NOW, timezone="Europe/Berlin",
                           game_name="Turnited", language="de", env=cache)
    problem = render_problem("too_large", limit=65536, subject="x", language="de",
                             game_name="Turnited", game_address=None, env=cache)
    write_archive(tmp_path, 1, de, round16.public_typed, env=cache)
    assert cache._made == made and all(cache.get(k) is v for k, v in made.items())
    assert (de, en) == (newsletter(round16, round16.public_typed, "de"),
                        newsletter(round16, round16.public_typed, "en"))
    assert reminder.language == "en" and digest.language == problem.language == "de"


def _render_imports(path: Path) -> set[str]:
    """The ``bot.render`` modules (or the package) a render module imports."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(
                "bot.render"):
            if node.module == "bot.render":
                found.update(f"bot.render.{alias.name}" for alias in node.names)
                found.add("bot.render")
            else:
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("bot.render"))
    return found


def test_render_modules_import_each_other_directly_without_cycles() -> None:
    graph = {
        f"bot.render.{p.stem}": _render_imports(p)
        for p in RENDER.glob("*.py") if p.name != "__init__.py"
    }
    for module, imports in graph.items():
        assert "bot.render" not in imports, f"{module} imports through the package"
    state: dict[str, str] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = "open"
        for target in sorted(graph.get(module, ())):
            assert state.get(target) != "open", f"import cycle: {' -> '.join([*path, target])}"
            if target not in state:
                visit(target, [*path, target])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
