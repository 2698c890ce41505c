"""A notice on the host's screen is in the game's language: every log line at INFO or above that
the screen would show names a phrase of the book (``extra=notice(...)``) or says it is for the
log alone (``extra=LOG_ONLY``). English log lines stay for the system log."""

from __future__ import annotations

import ast
import logging
from pathlib import Path

import pytest

from voicehost.cli.session import ScreenNotices
from voicehost.console.terminal import LogScreen
from voicehost.notices import LOG_ONLY, notice
from voicehost.phrases import PhraseBook

ROOT = Path(__file__).resolve().parents[2]
LEVELS = {"info", "warning", "error", "exception", "critical"}


def log_calls() -> list[tuple[str, int, ast.Call]]:
    found = []
    for path in sorted((ROOT / "voicehost").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in LEVELS
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "log"
            ):
                found.append((str(path.relative_to(ROOT)), node.lineno, node))
    return found


def test_every_log_line_says_what_the_screen_shows() -> None:
    bare = [f"{path}:{line}" for path, line, call in log_calls() if not call.keywords]
    assert len(log_calls()) > 30
    assert bare == []


def test_every_named_notice_is_in_both_books() -> None:
    keys = set()
    for _, _, call in log_calls():
        for keyword in call.keywords:
            value = keyword.value
            if isinstance(value, ast.Call) and getattr(value.func, "id", "") == "notice":
                keys.add(value.args[0].value)  # type: ignore[attr-defined]
    assert "no_keypad" in keys
    for language in ("ru", "en"):
        book = PhraseBook.load(language)
        missing = sorted(key for key in keys if f"notice_{key}" not in book.screen_keys())
        assert missing == [], language


def shown(language: str, extra: dict[str, object], message: str) -> list[str]:
    screen = LogScreen()
    handler = ScreenNotices(screen, PhraseBook.load(language))
    logger = logging.getLogger("voicehost.test_notices")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        logger.warning(message, extra=extra)
    finally:
        logger.removeHandler(handler)
    return list(screen.lines)


@pytest.mark.parametrize(
    ("language", "expected"),
    [("ru", "ℹ кейпад не найден: только клавиатура"), ("en", "ℹ no keypad found: keyboard only")],
)
def test_a_notice_is_shown_in_the_game_language(language: str, expected: str) -> None:
    assert shown(language, notice("no_keypad"), "no keypad found: keyboard only") == [expected]


def test_a_log_only_line_stays_off_the_screen() -> None:
    assert shown("ru", LOG_ONLY, "listening for ('спасибо', 'пас')") == []
