"""Fair previews (RULES.md §13, issue 22): before the deadline a preview
(``evaluate --dry-run``, the preview use case) plays with a fresh random
seed, never the committed one, and says so in its first line; after the
deadline it plays the committed seed and equals the evaluation. Every
preview is recorded and listed in the round's digest."""

from __future__ import annotations

import email
from datetime import UTC, datetime, timedelta
from email import policy

from bot.cli import main
from bot.rules.lots import seed_commitment
from bot.service.preview import CONSOLE, MAIL, preview
from bot.storage import previews
from tests.support.app import START, field, make_app, state_rows, write_config
from tests.support.clock import FakeClock


def opened(tmp_path):
    clock = FakeClock(START)
    app = make_app(tmp_path, clock)
    field(app, clock, 6)
    clock.now = app.open_round_deadline() - timedelta(hours=2)  # the round is still open
    return app, clock


def committed_seed(app) -> int:
    with app.db.read() as conn:
        return app.league.open_round(conn).seed


def test_two_previews_before_the_deadline_play_different_lots_never_the_committed_seed(
        tmp_path):
    app, _clock = opened(tmp_path)
    before = state_rows(app)
    first, second = preview(app.services), preview(app.services, via=MAIL)
    assert first is not None and second is not None
    assert first.fresh and second.fresh
    committed = committed_seed(app)
    assert committed not in (first.seed, second.seed) and first.seed != second.seed
    # different lots: the groups are drawn differently, so the newsletters differ
    assert first.newsletter.text != second.newsletter.text
    assert f"Startwert {first.seed}" in " ".join(first.newsletter.text.split())
    assert str(committed) not in first.newsletter.text + second.newsletter.text
    # the first line says so, and nothing in the state changed but the record
    assert first.preview.text.splitlines()[0] == (
        "Vorschau der Spielrunde 1 mit einem neuen Zufallsstartwert, nicht dem hinterlegten: "
        "die Lose der Auswertung werden andere sein.")
    assert state_rows(app) == before
    with app.db.read() as conn:
        recorded = previews.of_round(conn, 1)
        assert app.league.open_round(conn).number == 1
    assert [(r.fresh, r.via) for r in recorded] == [(True, CONSOLE), (True, MAIL)]


def test_a_preview_after_the_deadline_equals_the_evaluation(tmp_path):
    app, clock = opened(tmp_path)
    clock.now = app.open_round_deadline() + timedelta(minutes=1)
    seen = preview(app.services)
    assert seen is not None and not seen.fresh and seen.seed == committed_seed(app)
    assert seen.preview.text.startswith(
        "Vorschau der Spielrunde 1 mit ihrem hinterlegten Startwert (der Einsendeschluss ist "
        "vorbei)")
    assert app.evaluate_due() == 1
    assert seen.newsletter == app.render_round(1, "de")
    stored = app.league.stored_report(1, public=False)
    assert stored["seed"] == seen.seed
    with app.db.read() as conn:
        assert seed_commitment(1, seen.seed) == app.league.commitment(conn, 1)


def test_the_digest_lists_every_preview_of_the_round(tmp_path):
    app, clock = opened(tmp_path)
    preview(app.services)
    clock.now += timedelta(hours=1)
    preview(app.services, via=MAIL)
    clock.now = app.open_round_deadline() + timedelta(minutes=1)
    preview(app.services)
    assert app.evaluate_due() == 1
    digest = app.digest_stats(1)
    assert len(digest["previews"]) == 3
    assert digest["previews"][0].endswith("an der Konsole: mit einem neuen Zufallsstartwert")
    assert digest["previews"][1].endswith("per Mail: mit einem neuen Zufallsstartwert")
    assert "mit dem hinterlegten Startwert (nach dem Einsendeschluss)" in digest["previews"][2]
    with app.db.read() as conn:
        (raw,) = [r[0] for r in conn.execute("SELECT raw FROM outbox WHERE kind = 'digest'")]
    text = " ".join(email.message_from_bytes(raw, policy=policy.default).get_body(
        ("plain",)).get_content().split())
    assert "Vorschauen der Runde (evaluate --dry-run, Vorschau)" in text
    assert text.count("mit einem neuen Zufallsstartwert") == 2


def test_evaluate_dry_run_says_the_seed_in_its_first_line(tmp_path, capsys):
    app, _clock = opened(tmp_path)
    app.league.set_deadline(1, datetime(2099, 1, 4, 19, tzinfo=UTC))  # the console's clock is real
    config = write_config(tmp_path)
    for language, first in (("de", "Vorschau der Spielrunde 1 mit einem neuen "
                                    "Zufallsstartwert, nicht dem hinterlegten"),
                            ("en", "Preview of round 1 with a fresh random seed, not the "
                                   "committed one")):
        assert main(["--config", str(config), "evaluate", "--dry-run", "--lang", language]) == 0
        out = capsys.readouterr().out
        assert out.splitlines()[0].startswith(first)
        assert str(committed_seed(app)) not in out
    with app.db.read() as conn:
        assert len(previews.of_round(conn, 1)) == 2
