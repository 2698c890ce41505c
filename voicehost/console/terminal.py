"""The keyboard host: a full-screen terminal UI (curses) and a plain line mode.

The screen always shows the phase, who speaks, the timer counting down, who is at the table and
each player's fouls; announcements scroll below; the Commissar's private line clears itself.
"""

from __future__ import annotations

import curses
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from voicehost.console.commandline import (
    HELP,
    CommandError,
    ShowHelp,
    ShowStatus,
    Wait,
    WriteProtocol,
    parse,
)
from voicehost.console.view import status_lines
from voicehost.errors import VoicehostError
from voicehost.host.loop import Host
from voicehost.ports import Screen


class LogScreen(Screen):
    """Keeps the announcements and messages; the UIs draw from it."""

    def __init__(self) -> None:
        self.lines: list[str] = []  # a game has a few hundred lines: keep them all
        self.private_text = ""
        self.private_until = 0.0
        self.changed = threading.Event()

    def announce(self, text: str) -> None:
        self.lines.append(f"🔊 {text}")
        self.changed.set()

    def message(self, text: str) -> None:
        self.lines.append(text)
        self.changed.set()

    def private(self, text: str, seconds: float) -> None:
        self.private_text = text
        self.private_until = time.monotonic() + seconds
        self.changed.set()

    def current_private(self) -> str:
        return self.private_text if time.monotonic() < self.private_until else ""


def handle_line(host: Host, line: str, write_protocol: Callable[[], str]) -> str | None:
    """Carry out one typed line; returns a text to show, if any."""
    try:
        action = parse(line, host.prompt())
    except CommandError as exc:
        return f"✗ {exc}"
    if action is None:
        return None
    if isinstance(action, Wait):
        return "✗ `wait` is for scripts; at the table, time passes by itself (`.` ends a speech)"
    if isinstance(action, ShowHelp):
        return HELP
    if isinstance(action, ShowStatus):
        return "\n".join(status_lines(host))
    if isinstance(action, WriteProtocol):
        return write_protocol()
    try:
        host.handle(action)
    except VoicehostError as exc:
        return f"✗ {exc}"
    return None


class CursesUI:
    """A full-screen UI; typing never blocks the clock."""

    def __init__(self, host: Host, screen: LogScreen, write_protocol: Callable[[], str]) -> None:
        self.host = host
        self.screen = screen
        self.write_protocol = write_protocol
        self.buffer = ""

    def run(self) -> None:
        curses.wrapper(self._main)

    def _main(self, window: Any) -> None:
        curses.curs_set(1)
        window.nodelay(False)
        while not self.host.over and not self.host.quit:
            deadline = self.host.next_deadline()
            wait = 0.2 if deadline is None else min(0.2, max(0.0, deadline - self.host.clock.now()))
            window.timeout(max(1, int(wait * 1000)))
            try:
                key = window.get_wch()
            except curses.error:
                key = None
            if key is not None:
                self._key(key)
            self.host.process_pending()
            self._draw(window)
        self._draw(window)
        window.timeout(-1)
        if self.host.over:
            self.screen.message("Игра окончена. Нажмите любую клавишу.")
            self._draw(window)
            window.get_wch()

    def _key(self, key: str | int) -> None:
        if key in ("\n", "\r", curses.KEY_ENTER):
            line, self.buffer = self.buffer, ""
            self.screen.message(f"> {line}")
            reply = handle_line(self.host, line, self.write_protocol)
            for text in (reply or "").splitlines():
                self.screen.message(text)
        elif key in (curses.KEY_BACKSPACE, "\b", "\x7f"):
            self.buffer = self.buffer[:-1]
        elif isinstance(key, str) and key.isprintable():
            self.buffer += key

    def _draw(self, window: Any) -> None:
        height, width = window.getmaxyx()
        window.erase()
        status = status_lines(self.host)
        for row, text in enumerate(status[: max(0, height - 4)]):
            window.addnstr(row, 0, text, width - 1, curses.A_BOLD if row == 0 else 0)
        private = self.screen.current_private()
        top = len(status)
        if private:
            window.addnstr(top, 0, private, width - 1, curses.A_REVERSE)
        log_rows = max(0, height - top - 3)
        recent = self.screen.lines[-log_rows:] if log_rows else []
        for index, text in enumerate(recent):
            window.addnstr(top + 1 + index, 0, text, width - 1)
        window.addnstr(height - 1, 0, f"> {self.buffer}", width - 1)
        window.refresh()


class PlainUI:
    """Line mode for dumb terminals and a headless Pi: stdin lines in, text out."""

    def __init__(
        self,
        host: Host,
        screen: LogScreen,
        write_protocol: Callable[[], str],
        *,
        keypad: bool = False,
    ) -> None:
        self.host = host
        self.screen = screen
        self.write_protocol = write_protocol
        self.keypad = keypad  # a keypad goes on when the keyboard's input ends
        self.lines: deque[str] = deque()
        self.input_ended = False
        self._printed = 0
        self._last_status: list[str] = []

    def _reader(self) -> None:
        for line in sys.stdin:
            self.lines.append(line)
        # End of input (a service has no terminal): the keypad and the voice go on; without a
        # keypad nobody could enter anything any more, so the game stops (see _idle).
        self.input_ended = True

    def run(self) -> None:
        threading.Thread(target=self._reader, daemon=True, name="stdin").start()
        self.host.run(on_idle=self._idle)
        self._flush()

    def _idle(self) -> None:
        while self.lines:
            reply = handle_line(self.host, self.lines.popleft(), self.write_protocol)
            if reply:
                print(reply, flush=True)
        self._flush()
        if self.input_ended and not self.keypad and not self.host.over and not self.host.quit:
            print(
                "voicehost: the input has ended (stdin is closed) and there is no keypad: "
                "nothing more can be entered, so the game stops here.",
                flush=True,
            )
            self.host.quit = True

    def _flush(self) -> None:
        lines = self.screen.lines
        for text in lines[self._printed :]:
            print(text, flush=True)
        self._printed = len(lines)
        status = status_lines(self.host)
        head_without_clock = [line.split(" · ⏱")[0] for line in status]
        if head_without_clock != self._last_status:
            self._last_status = head_without_clock
            print("  " + "\n  ".join(status), flush=True)
