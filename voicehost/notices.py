"""Notices: log lines that the host's screen shows in the game's language.

Adapters below the phrase book log in English, for the system log and whoever repairs the box.
A log call that is also news for the person at the table names a phrase with ``extra=``::

    log.info("no keypad found: keyboard only", extra=notice("no_keypad"))

and the screen shows the book's ``screen.notice_no_keypad`` instead of the English line. A line
for the log alone says so with ``extra=LOG_ONLY`` (another notice already tells the table), and
one already written from the book with ``extra=WRITTEN``.
"""

from __future__ import annotations

import logging
from typing import Any

ATTRIBUTE = "voicehost_notice"

LOG_ONLY: dict[str, Any] = {ATTRIBUTE: ("", {})}
"""``extra=`` for a log line the screen does not show."""


WRITTEN: dict[str, Any] = {ATTRIBUTE: ("*", {})}
"""``extra=`` for a log line already written in the game's language (from the phrase book)."""


def notice(key: str, **params: Any) -> dict[str, Any]:
    """``extra=`` for a log line the screen shows as the phrase ``screen.notice_<key>``."""
    return {ATTRIBUTE: (key, params)}


def notice_of(record: logging.LogRecord) -> tuple[str, dict[str, Any]] | None:
    """The phrase a log record names (key ``""``: not for the screen), or None if it names none."""
    found = record.__dict__.get(ATTRIBUTE)
    if found is None:
        return None
    key, params = found
    return str(key), dict(params)


def said(record: logging.LogRecord, book: Any) -> str | None:
    """What a person reads for ``record`` in ``book``'s language (a ``PhraseBook``): the phrase
    it names, its own text when it was written from the book (or names nothing), None when it
    is for the log alone. Errors among the phrase's parameters are said from the book too."""
    phrase = notice_of(record)
    if phrase is None or phrase[0] == WRITTEN[ATTRIBUTE][0]:
        return record.getMessage()
    key, params = phrase
    if not key:
        return None
    explained = {
        name: book.explain(value) if isinstance(value, BaseException) else value
        for name, value in params.items()
    }
    return str(book.screen(f"notice_{key}", explained))
