"""The language of a mail (RULES.md §11): German or English, from its words.

``en`` if English-only keywords (Lineup, New team, Password, Withdraw, Help,
Short name, English row names) were used and no German-only ones; ``de`` if
German ones were; otherwise a guess from common words (hello/thanks/regards
vs hallo/danke/gruß, "AW:"/"WG:" prefixes), ``de`` when undecided. The
grammar (``bot.mail.grammar``) feeds a ``LanguageGuess`` line by line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.mail.keywords import DE_ROW_WORDS, DE_WORDS, EN_ROW_WORDS, EN_WORDS, WORD


@dataclass
class LanguageGuess:
    """What a mail's words said about its language so far (module doc)."""

    #: Languages of the keywords (and row names) read as commands.
    keywords: set[str] = field(default_factory=set)
    words_de: int = 0
    words_en: int = 0

    def count_words(self, line: str) -> None:
        """Common German and English words of an ordinary line."""
        for word in WORD.findall(line.lower()):
            if word in DE_WORDS:
                self.words_de += 1
            elif word in EN_WORDS:
                self.words_en += 1

    def note_row_words(self, text: str) -> None:
        """Row names of a lineup that was read (``Torwart``, ``goalkeeper``)."""
        for word in WORD.findall(text.lower()):
            if word in EN_ROW_WORDS:
                self.keywords.add("en")
            elif word in DE_ROW_WORDS:
                self.keywords.add("de")

    @property
    def language(self) -> str:
        if "de" in self.keywords:
            return "de"
        if "en" in self.keywords:
            return "en"
        return "en" if self.words_en > self.words_de else "de"

    @property
    def known(self) -> bool:
        """False when nothing told the language (then ``language`` is the default)."""
        return bool(self.keywords) or self.words_en != self.words_de
