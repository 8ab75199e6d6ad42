"""The command seam: every request type has its command, every notice code its
template, and who may run a command is checked in one place (the runner)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import dataclass
from pathlib import Path

import pytest

import bot.rules.requests
import bot.service.commands
from bot.league.outcome import Code
from bot.mail.vocabulary import KeywordCommand, Value
from bot.render.environment import TEMPLATES_DIR
from bot.rules.requests import Request
from bot.service.commands import Access, Command, Registry, Session, discover, registry
from tests.service.harness import Game


def request_types() -> set[type[Request]]:
    """Every request type of the rules core and of the command modules."""
    modules = [bot.rules.requests] + [
        importlib.import_module(f"bot.service.commands.{info.name}")
        for info in pkgutil.iter_modules(bot.service.commands.__path__)
    ]
    return {
        value for module in modules for value in vars(module).values()
        if inspect.isclass(value) and issubclass(value, Request) and value is not Request
        and value.__module__ == module.__name__
    }


def test_every_request_type_has_a_command() -> None:
    table = registry()
    for request in request_types():
        assert request in {c.request for c in table.commands}, f"{request.__name__} has no command"


def test_every_notice_code_has_its_template() -> None:
    for code in {*Code, *registry().codes()}:
        assert (TEMPLATES_DIR / "mail" / "notice" / f"{code}.txt.j2").is_file(), code


def test_every_template_of_a_notice_belongs_to_a_code() -> None:
    codes = {*Code, *registry().codes()}
    for path in (TEMPLATES_DIR / "mail" / "notice").glob("*.txt.j2"):
        assert path.name.removesuffix(".txt.j2") in codes, f"{path.name} is no code's"


def test_a_keyword_belongs_to_one_command() -> None:
    def build(line: str, value: str) -> Request:
        return Request(line)

    twin = Command(Request, lambda s, r: None, Access.ANYONE, keyword=KeywordCommand(
        "twin", {"de": ("hilfe",)}, Value.NONE, build))
    with pytest.raises(ValueError, match="belongs to both"):
        Registry([*discover(), twin])


# -- a command added through the seam alone ------------------------------------------


@dataclass(frozen=True, slots=True)
class Cheer(Request):
    """``Anfeuern`` / ``Cheer``: a test command open to anyone."""


@dataclass(frozen=True, slots=True)
class Rename(Request):
    """``Umbenennen: NAME``: a test command a manager only may run."""

    name: str


def cheer(s: Session, request: Cheer) -> None:
    s.note(Code.HELP)


def rename(s: Session, request: Rename) -> None:
    s.note(Code.MANAGER_NAME_SET, name=request.name)


EXTRA = (
    Command(Cheer, cheer, Access.ANYONE, keyword=KeywordCommand(
        "cheer", {"de": ("anfeuern",), "en": ("cheer",)}, Value.NONE,
        lambda line, value: Cheer(line))),
    Command(Rename, rename, Access.MANAGER, keyword=KeywordCommand(
        "rename", {"de": ("umbenennen",)}, Value.REQUIRED,
        lambda line, value: Rename(line, value), example="Umbenennen: Hans",
        missing="no name after the keyword")),
)


@pytest.fixture
def game(tmp_path: Path) -> Game:
    game = Game(tmp_path)
    game.ingestor.commands = Registry([*discover(), *EXTRA])
    return game


def reply(game: Game, sender: str, body: str) -> str:
    (result,) = game.send(game.mail(sender, body))
    assert result.replied, result
    return result.outcome


def test_a_new_command_is_read_and_carried_out_through_the_registry(game: Game) -> None:
    assert reply(game, "fan@player.example", "Anfeuern") == "accepted round 1: help"
    # A manager's command: a stranger's mail reaches the handler without a manager.
    outcome = reply(game, "neu@player.example", "Umbenennen: Hans")
    assert outcome == "accepted round 1: manager_name_set"


def test_who_may_run_a_command_is_checked_by_the_runner(game: Game) -> None:
    first = reply(game, "hans@player.example", "Neues Team: Rote Teufel\n10-10-15-15-20")
    assert first.startswith("accepted round 1: manager_created")
    # Without his password the manager's command is refused, the open one runs.
    outcome = reply(game, "hans@player.example", "Anfeuern\nUmbenennen: Hans")
    assert outcome == "rejected round 1: help, nothing_changed, password_missing"
    # The open command alone needs no password.
    assert reply(game, "hans@player.example", "Anfeuern") == "accepted round 1: help"


def test_a_value_the_command_cannot_read_is_an_error_of_its_line(game: Game) -> None:
    outcome = reply(game, "neu@player.example", "Umbenennen:")
    assert outcome == "rejected round 1: nothing_changed, line_error"


def test_a_keyword_without_a_value_followed_by_text_is_text(game: Game) -> None:
    outcome = reply(game, "fan@player.example", "Anfeuern tue ich nicht\n10-10-15-15-20")
    assert "help" not in outcome


@dataclass(frozen=True, slots=True)
class Halt(Request):
    """``Anhalten``: a test command only the game master may run."""


def test_a_game_masters_command_in_a_players_mail_is_refused(tmp_path: Path) -> None:
    game = Game(tmp_path)
    halt = Command(Halt, lambda s, r: s.note(Code.HELP), Access.GM, keyword=KeywordCommand(
        "halt", {"de": ("anhalten",)}, Value.NONE, lambda line, value: Halt(line)))
    game.ingestor.commands = Registry([*discover(), halt])
    assert reply(game, "hans@player.example", "Anhalten") == (
        "rejected round 1: nothing_changed, gm_only")


def test_every_code_of_a_command_has_its_digest_sentence_in_both_languages() -> None:
    from bot.render.i18n import translations

    german = translations("de")
    for code, sentence in registry().digest_sentences().items():
        assert sentence.endswith(".") and sentence[0].isupper(), code
        assert german.gettext(sentence) != sentence, f"{code}: no German digest sentence"
