"""Turn the HTML of a mail into plain text lines, optionally without quoted replies.

A small converter on the standard library's ``html.parser``: block elements
start new lines, ``<br>`` breaks lines, scripts/styles/heads are skipped,
entities are decoded, runs of blanks collapse. ``<blockquote>`` content is
rendered with ``> `` prefixes so the text form still shows what is quoted.

With ``drop_quotes=True`` the quoted part of a reply is left out before it
becomes text: every ``<blockquote>``, Gmail's ``gmail_quote``/``gmail_attr``,
Yahoo's ``yahoo_quoted``, Thunderbird's ``moz-cite-prefix``, and everything
from Outlook's ``divRplyFwdMsg``/``appendonsend``/``OutlookMessageHeader`` or
Hotmail's ``<hr id="stopSpelling">`` to the end.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

__all__ = ["html_to_text"]

_BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "center", "dd", "div", "dl", "dt",
        "fieldset", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
        "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table",
        "tbody", "thead", "tfoot", "tr", "ul",
    }
)
_SKIP_CONTENT_TAGS = frozenset(
    {"head", "script", "style", "title", "noscript", "template", "xml", "object", "svg"}
)
_VOID_TAGS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
     "source", "track", "wbr"}
)
_QUOTE_CLASSES = frozenset(
    {"gmail_quote", "gmail_attr", "gmail_quote_container", "yahoo_quoted", "moz-cite-prefix",
     "protonmail_quote", "zmail_extra", "bloop_markdown_quote"}
)
_STOP_IDS = frozenset({"divrplyfwdmsg", "appendonsend", "stopspelling", "divrplyfwdmsg_"})
_STOP_CLASSES = frozenset({"outlookmessageheader", "divrplyfwdmsg"})
#: Deeper blockquotes get no more "> " marks (the output stays linear in the input).
_MAX_QUOTE_DEPTH = 8
_WHITESPACE = re.compile(r"[ \t\r\n\f\v\u00a0\u200b\u2007\u202f]+")


def html_to_text(html: str, *, drop_quotes: bool = False) -> str:
    """The text of ``html``; with ``drop_quotes`` the quoted reply parts are left out.

    Never raises on malformed HTML (the parser is lenient; unclosed quotes run
    to the end of the document).
    """
    converter = _Converter(drop_quotes=drop_quotes)
    try:
        converter.feed(html)
        converter.close()
    except Exception:  # html.parser can trip on pathological input
        converter.note_broken()
    return converter.result()


class _Converter(HTMLParser):
    def __init__(self, *, drop_quotes: bool) -> None:
        super().__init__(convert_charrefs=True)
        self._drop_quotes = drop_quotes
        self._lines: list[tuple[int, str]] = []
        self._current: list[str] = []
        self._depth = 0  # blockquote depth for '> ' prefixes
        self._pre = 0
        self._skip_content: list[str] = []  # open tags whose text is not shown
        self._drop_tag: str | None = None  # tag name of the dropped quote element
        self._drop_level = 0
        self._stopped = False
        self.broken = False

    # -- parser callbacks ------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._stopped:
            return
        if self._drop_tag is not None:
            if tag == self._drop_tag and tag not in _VOID_TAGS:
                self._drop_level += 1
            return
        if self._drop_quotes and self._starts_quote(tag, attrs):
            if self._is_stop(tag, attrs):
                self._break_line()
                self._stopped = True
                return
            if tag not in _VOID_TAGS:
                self._break_line()
                self._drop_tag = tag
                self._drop_level = 1
            return
        if tag in _SKIP_CONTENT_TAGS:
            self._skip_content.append(tag)
            return
        if tag == "br":
            self._break_line(force=True)
        elif tag in _BLOCK_TAGS:
            self._break_line()
            if tag == "blockquote":
                self._depth += 1
            elif tag == "pre":
                self._pre += 1
            elif tag == "li":
                self._current.append("- ")
            elif tag == "hr":
                self._break_line()
        elif tag in {"td", "th"} and self._current:
            self._current.append(" ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID_TAGS:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if self._stopped:
            return
        if self._drop_tag is not None:
            if tag == self._drop_tag:
                self._drop_level -= 1
                if self._drop_level <= 0:
                    self._drop_tag = None
            return
        if self._skip_content:
            if tag in self._skip_content:
                # close up to (and including) the innermost matching tag
                while self._skip_content:
                    if self._skip_content.pop() == tag:
                        break
            return
        if tag in _BLOCK_TAGS:
            self._break_line()
            if tag == "blockquote" and self._depth > 0:
                self._depth -= 1
            elif tag == "pre" and self._pre > 0:
                self._pre -= 1

    def handle_data(self, data: str) -> None:
        if self._stopped or self._drop_tag is not None or self._skip_content:
            return
        if self._pre:
            parts = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            for k, part in enumerate(parts):
                if k:
                    self._break_line(force=True)
                self._current.append(part.replace("\u00a0", " "))
            return
        self._current.append(_WHITESPACE.sub(" ", data))

    # -- helpers ----------------------------------------------------------
    def _starts_quote(self, tag: str, attrs: list[tuple[str, str | None]]) -> bool:
        if tag == "blockquote":
            return True
        return self._is_stop(tag, attrs) or bool(_classes(attrs) & _QUOTE_CLASSES)

    @staticmethod
    def _is_stop(tag: str, attrs: list[tuple[str, str | None]]) -> bool:
        ident = (dict(attrs).get("id") or "").strip().lower()
        return ident in _STOP_IDS or bool(_classes(attrs) & _STOP_CLASSES)

    def _break_line(self, *, force: bool = False) -> None:
        text = "".join(self._current)
        if not self._pre:
            text = text.strip()
        if text or force:
            self._lines.append((self._depth, text.rstrip()))
        self._current = []

    def note_broken(self) -> None:
        self.broken = True

    def result(self) -> str:
        if not self._stopped:
            self._break_line()
        out: list[str] = []
        for depth, text in self._lines:
            prefix = "> " * min(depth, _MAX_QUOTE_DEPTH)
            line = (prefix + text).rstrip()
            if not line and out and not out[-1]:
                continue  # at most one blank line in a row
            out.append(line)
        while out and not out[-1]:
            out.pop()
        while out and not out[0]:
            out.pop(0)
        return "\n".join(out)


def _classes(attrs: list[tuple[str, str | None]]) -> set[str]:
    for name, value in attrs:
        if name == "class" and value:
            return {c.lower() for c in value.split()}
    return set()
