"""Comments on a command line (RULES.md §11): skipped, and named in the reply.

On a command line, text in parentheses after the value and anything from
``#`` or ``//`` (at the start or after a space) to the end of the line is a
comment. ``split_comments`` only splits; whether the rest is a command is
the grammar's decision (``bot.mail.grammar``): a line that is no command
with its comment removed is read as a whole.
"""

from __future__ import annotations

from bot.mail.keywords import LETTER, LINE_COMMENT, NUMBER

#: At most this many trailing ``(...)`` groups are taken for comments.
MAX_PARENS = 3


def split_comments(line: str) -> tuple[str, list[str]]:
    """``line`` without its comments, and the comments as written: from
    ``#`` or ``//`` to the end, then trailing ``(...)`` groups."""
    comments: list[str] = []
    body = line
    marker = LINE_COMMENT.search(body)
    if marker is not None and marker.start() > 0:
        comments.append(body[marker.start():].strip())
        body = body[: marker.start()].rstrip()
    parens: list[str] = []
    for _ in range(MAX_PARENS):
        if not body.endswith(")"):
            break
        opening = body.rfind("(")
        if opening <= 0 or body[opening - 1] != " " or ")" in body[opening:-1]:
            break
        parens.insert(0, body[opening:])
        body = body[:opening].rstrip()
    if not body or (not LETTER.search(body) and not NUMBER.search(body)):
        return line, []
    if body.endswith((":", "=")):
        return line, []  # "Manager: (Hans)": no value before it, so it is the value
    return body, parens + comments
