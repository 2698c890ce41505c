"""The screen as a player across the table reads it, after every line the host types."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from voicehost import config
from voicehost.console.terminal import LineHandler, LogScreen, screen_rows
from voicehost.host.loop import Host
from voicehost.testing.clocked import wait_timer
from voicehost.testing.table import text_table


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


def typed(host: Host, screen: LogScreen, lines: Iterable[str]) -> Iterator[str]:
    """Type each line through the console's own line handler as `voicehost play` does
    (``wait``: let the running timer run out) and handle what it started; yields each line
    once the host has handled it."""
    handler = LineHandler(host, screen, lambda: "")
    for line in lines:
        if line == "wait":
            wait_timer(host)
        else:
            handler.line(line)
        host.process_pending()
        yield line


def type_all(host: Host, screen: LogScreen, lines: Iterable[str]) -> None:
    """:func:`typed`, every line."""
    for _line in typed(host, screen, lines):
        pass
