"""``turnited rollback [ROUND]``: undo the last evaluation (WP, PSZ, deleted
teams, ageing, its archive page, results and WP history) and open the round
again with its moves; the next evaluation uses the same committed seed and
its newsletter says that it corrects the earlier one.

Output follows ``game.language`` (German unless English).
"""

from __future__ import annotations

import argparse

from bot.cli import CliError, setup
from bot.cli.manager import add_state_options

MESSAGES = {
    "de": {
        "done": "Auswertung von Runde {round} zurückgenommen: {teams} Teams haben wieder ihre "
                "WP und PSZ von vorher{aged}. Runde {round} ist wieder offen, mit ihren "
                "Aufstellungen und ihrem hinterlegten Los-Startwert; die nächste Auswertung "
                "berichtigt die frühere (Berichtigung Nr. {corrects}).",
        "aged": ", die Alterung zum Saisonende ist zurückgenommen",
        "restored": "Wieder da (ihre Löschung bleibt angekündigt): {names}",
        "removed": "Runde {removed} ist entfernt; {moves} Aufstellungen für sie bleiben "
                   "gespeichert.",
        "mails": "Nicht versandte Mails dieser Runde (Rundbriefe, Rundenbericht) storniert: "
                 "{count} (versandte bleiben versandt).",
        "archive": "Aus dem Archiv entfernt: {files}",
        "deadline": "Der Einsendeschluss {deadline} ist vorbei: die Runde wird beim nächsten "
                    "Lauf neu ausgewertet (`turnited evaluate`), oder verschiebe ihn mit "
                    "`turnited deadline set`.",
        "nothing": "Es wurde noch keine Runde ausgewertet: nichts zurückzunehmen.",
        "later": "Runde {round} kann nicht zurückgenommen werden: danach wurde Runde {last} "
                 "ausgewertet. Nur die zuletzt ausgewertete Runde ({last}) lässt sich "
                 "zurücknehmen.",
        "unknown": "Runde {round} wurde nicht ausgewertet: nichts zurückzunehmen.",
    },
    "en": {
        "done": "Evaluation of round {round} rolled back: {teams} teams have their WP and PSZ "
                "of before again{aged}. Round {round} is open again, with its lineups and "
                "its committed seed; the next evaluation corrects the earlier one "
                "(correction no. {corrects}).",
        "aged": ", the season-end ageing is undone",
        "restored": "Back again (their deletion stays announced): {names}",
        "removed": "Round {removed} is removed; {moves} lineups for it stay stored.",
        "mails": "Unsent mails of this round (newsletters, round report) cancelled: {count} "
                 "(sent ones stay sent).",
        "archive": "Removed from the archive: {files}",
        "deadline": "The deadline {deadline} has passed: the round is evaluated again at the "
                    "next run (`turnited evaluate`), or move it with `turnited deadline set`.",
        "nothing": "No round has been evaluated yet: there is nothing to roll back.",
        "later": "Round {round} cannot be rolled back: round {last} was evaluated after it. "
                 "Only the last evaluated round ({last}) can be rolled back.",
        "unknown": "Round {round} has not been evaluated: there is nothing to roll back.",
    },
}


def cmd_rollback(args: argparse.Namespace) -> int:
    from bot.league.errors import UnknownRound
    from bot.league.service import CannotRollBack
    from bot.service.rollback import rollback

    config = setup.load(args)
    language = setup.language(args, config)
    text = MESSAGES[language if language in MESSAGES else "de"]
    try:
        with setup.services(config) as ctx:
            report = rollback(ctx, args.round)
            now = ctx.clock()
    except CannotRollBack as exc:
        key = "nothing" if exc.reason == "nothing" else "later"
        raise CliError(text[key].format(round=exc.round, last=exc.last)) from exc
    except UnknownRound as exc:
        raise CliError(text["unknown"].format(round=exc.number)) from exc
    undone = report.undone
    print(text["done"].format(round=undone.round, teams=undone.teams, corrects=undone.corrects,
                              aged=text["aged"] if undone.aged else ""))
    if undone.restored:
        print(text["restored"].format(names=", ".join(undone.restored)))
    print(text["removed"].format(removed=undone.removed_round, moves=undone.kept_moves))
    print(text["mails"].format(count=undone.cancelled_mails))
    if report.removed:
        print(text["archive"].format(files=", ".join(p.name for p in report.removed)))
    if undone.deadline <= now:
        print(text["deadline"].format(deadline=undone.deadline.strftime("%Y-%m-%d %H:%M UTC")))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rollback", help="undo the last evaluation and open its round again",
        description="Undo the last evaluation: WP, PSZ, deleted teams, ageing, its archive "
        "page, its results and WP history. The round is open again with its lineups; the "
        "next evaluation uses the same committed seed and its newsletter says that it "
        "corrects the earlier one. Unsent newsletters of the round are cancelled. Refused "
        "when nothing was evaluated or ROUND is not the last evaluated round.",
        epilog="examples:\n  turnited rollback\n  turnited rollback 12   "
        "(refused unless 12 is the last evaluated round)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("round", metavar="ROUND", type=int, nargs="?",
                   help="the round to roll back (must be the last evaluated one)")
    add_state_options(p)
    p.set_defaults(handler=cmd_rollback)
