"""The screen as a player across the table reads it, after every line the host types."""

from __future__ import annotations

from voicehost import config
from voicehost.console.terminal import LogScreen, screen_rows
from voicehost.testing.table import text_table, typed


def typed_screens(
    lines: list[str], language: str | None = None, *, settings: config.Settings | None = None
) -> list[tuple[bool, list[str]]]:
    """(night?, the whole screen) after every line, each typed through the console's own line
    handler as `voicehost play` does; ``wait`` lets the running timer run out."""
    screen = LogScreen()
    host = text_table(language, settings=settings, screen=screen)
    host.start()
    shown: list[tuple[bool, list[str]]] = []
    for _line in typed(host, screen, lines):
        assert host.state is not None
        shown.append((host.state.phase.is_night, [t for t, _ in screen_rows(host, screen, "", 40)]))
    return shown
