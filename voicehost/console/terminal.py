"""The keyboard host: a full-screen terminal view (curses) and a plain line mode.

Both are a view and a key source of the one loop, ``Host.run``: a reader thread only posts what
was typed, and the loop's thread edits the line, carries it out and draws the screen, so a cue
starts on its deadline and a keypad key or a heard «спасибо» is handled at once.

The screen faces the table. What is typed at night is shown as dots, a refusal at night says only
that the entry was refused, and everything the night left on the screen is wiped when the town
wakes, so no day-time screen tells who acted or what anyone is.
"""

from __future__ import annotations

import codecs
import contextlib
import curses
import os
import re
import select
import sys
import termios
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from voicehost.console.commandline import (
    CommandError,
    Line,
    ShowHelp,
    ShowStatus,
    Wait,
    WriteProtocol,
    help_text,
    parse,
)
from voicehost.console.view import status_lines
from voicehost.errors import VoicehostError
from voicehost.host.actions import CONFIRM_WORDS
from voicehost.host.commands import Quit, Source, Submit, TextTyped, TypingEnded
from voicehost.host.loop import Host
from voicehost.host.names import char_width
from voicehost.host.names import width as cells
from voicehost.host.table import table_view
from voicehost.phrases import PhraseBook
from voicehost.ports import Screen

#: How long the reader waits for a key before it looks whether it should stop (seconds).
READ_POLL_SECONDS = 0.1


class LogScreen(Screen):
    """Keeps the announcements and messages; the views draw from it.

    Lines logged during a night are forgotten when the town wakes (``day_breaks``): the night's
    entries and refusals must not stay readable by day.
    """

    def __init__(self) -> None:
        self.lines: list[str] = []  # a game has a few hundred lines: keep them all
        self.private_text = ""
        self.private_until = 0.0
        self.night_started: int | None = None  # index of the first line of the running night
        self.wiped = 0  # lines the nights have taken off the screen so far
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

    def clear_private(self) -> None:
        """The night step has ended: the private line goes now, not seconds later."""
        self.private_text = ""
        self.private_until = 0.0
        self.changed.set()

    def current_private(self) -> str:
        return self.private_text if time.monotonic() < self.private_until else ""

    def follow(self, night: bool) -> None:
        """Keep track of the night: at daybreak, the night's lines leave the screen."""
        if night and self.night_started is None:
            self.night_started = len(self.lines)
        elif not night and self.night_started is not None:
            self.wiped += len(self.lines) - self.night_started
            del self.lines[self.night_started :]
            self.night_started = None
            self.private_text = ""
            self.changed.set()


#: What the line being typed at night shows, whatever it holds: seat 3 and seat 12 (and a
#: foul, a miss, a typo) look the same.
NIGHT_TYPING = "•••"


def masked(line: str) -> str:
    """A line being typed at night as the table may see it: the same mask whatever was typed."""
    return NIGHT_TYPING if line.strip() else ""


#: An entry made at night, as the log keeps it: the same whatever was typed (seat 3 and seat 12
#: must not differ even by the number of dots).
NIGHT_ENTRY = "> •••"


class LineHandler:
    """Carries out typed lines on the loop's thread; both views share it."""

    def __init__(
        self,
        host: Host,
        screen: LogScreen,
        write_protocol: Callable[[], str],
        face: str = "",
        resume: Callable[[Path], str] | None = None,
    ) -> None:
        self.host = host
        self.screen = screen
        self.write_protocol = write_protocol
        self.face = face  # whose words the questions take (view.status_lines)
        self.resume = resume  # the command that carries a journal on, as it will be printed
        self.quit_asked = False  # `q` was typed: the next line confirms it or goes on playing
        self._begun: tuple[int, float] | None = None  # the line's step and first key's moment

    def at_night(self) -> bool:
        state = self.host.state
        return state is not None and state.phase.is_night

    def line(self, text: str, begun: tuple[int, float] | None = None) -> None:
        """One typed line: echo it (masked at night), carry it out, show the reply. ``begun``
        is the night step and the moment its first key was typed (the live keyboard's): an
        entry is taken only in the step it was begun in (``Host.refuses_out_of_step``)."""
        night = self.at_night()
        self.screen.message(NIGHT_ENTRY if night else f"> {text}")
        self._begun = begun
        try:
            reply = self.reply(text, night)
        finally:
            self._begun = None
        for row in (reply or "").splitlines():
            self.screen.message(row)

    def reply(self, text: str, night: bool) -> str | None:
        host = self.host
        book = host.book
        try:
            action = parse(text, host.prompt(), book)
        except CommandError as exc:
            if self.quit_asked and _confirms(text):
                self.quit_asked = False
                host.handle(Quit())
                return None
            if self.quit_asked and text.strip().casefold() in DECLINE_WORDS:
                self.quit_asked = False
                return book.screen("quit_cancelled")
            refused = f"✗ {book.screen('night_refused') if night else exc}"
            if night:
                host.not_understood_at_night()
            if self.quit_asked:
                self.quit_asked = False
                return f"{book.screen('quit_cancelled')}\n{refused}"
            return refused
        if action is None:
            return None
        if self.quit_asked:
            self.quit_asked = False
            if isinstance(action, Quit) or _confirms(text):
                host.handle(action if isinstance(action, Quit) else Quit())
                return None
            cancelled = book.screen("quit_cancelled")
            rest = self._carry_out(action, book)
            return cancelled if rest is None else f"{cancelled}\n{rest}"
        if isinstance(action, Quit) and not host.over:
            # A mistyped `q` must not cost the host a resume: quitting is asked once more.
            return self._ask_quit()
        return self._carry_out(action, book)

    def _ask_quit(self) -> str:
        host = self.host
        self.quit_asked = True
        if host.journal_path is not None and self.resume is not None:
            # named: a bare `voicehost resume` prefers a played game to an empty one
            command = self.resume(host.journal_path)
            return host.book.screen("quit_question_journal", {"command": command})
        return host.book.screen("quit_question")

    def interrupted(self) -> None:
        """Ctrl+C at the terminal (on the loop's thread): quitting is asked as `q` asks it; a
        second Ctrl+C (or `да`) confirms it, anything else plays on."""
        if self.quit_asked or self.host.over:
            self.quit_asked = False
            self.host.handle(Quit())
            return
        self.screen.message(self._ask_quit())

    def _carry_out(self, action: Line, book: PhraseBook) -> str | None:
        host = self.host
        if isinstance(action, Wait):
            return f"✗ {book.screen('wait_for_scripts')}"
        if isinstance(action, ShowHelp):
            return help_text(book)
        if isinstance(action, ShowStatus):
            return "\n".join(status_lines(host, self.face))
        if isinstance(action, WriteProtocol):
            return self.write_protocol()
        begun = self._begun
        if (
            isinstance(action, Submit)
            and begun is not None
            and host.refuses_out_of_step(action.input, *begun, action.source)
        ):
            return None  # the screen says the refusal, the one awake why
        try:
            host.handle(action)
        except VoicehostError as exc:
            return f"✗ {exc}"
        return None


#: The answers that say «no, go on playing» to the quit question (``т`` is ``n`` on the Russian
#: layout).
DECLINE_WORDS = frozenset({"нет", "н", "no", "n", "т"})


def _take_interrupts(interrupts: list[int], lines: LineHandler) -> None:
    """The Ctrl+C presses noted since the last turn, each handled as the keyboard's own."""
    while interrupts and not lines.host.quit:
        interrupts.pop()
        lines.interrupted()


def _confirms(text: str) -> bool:
    """Whether a typed line is the answer that confirms quitting (``да``, ``y``, ``yes``)."""
    return text.strip().casefold() in CONFIRM_WORDS


class KeyboardReader:
    """Reads the keyboard on its own thread and posts each piece of text to the loop
    (``TextTyped``; ``TypingEnded`` at the end of input), which hands it to ``host.typing``.

    Bytes are decoded as UTF-8 with bad bytes replaced, so one stray byte (a strict UTF-8 locale
    on a Pi) costs one character, never the keyboard.
    """

    def __init__(self, host: Host, descriptor: int = 0) -> None:
        self.host = host
        self.descriptor = descriptor
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True, name="keyboard")

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=1.0)

    def _read(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        while not self.stopping.is_set():
            try:
                ready, _, _ = select.select([self.descriptor], [], [], READ_POLL_SECONDS)
                if not ready:
                    continue
                data = os.read(self.descriptor, 1024)
            except (OSError, ValueError):
                data = b""
            if not data:
                self.host.post(TypingEnded())
                return
            text = decoder.decode(data)
            if text:
                self.host.post(TextTyped(text))


class TerminalEcho:
    """Switches the terminal's own echo of typed text: off at night, so digits typed for a
    night choice are never left on the screen (the host echoes the entry masked). A stream that
    is not a terminal is left alone."""

    def __init__(self, stream: TextIO) -> None:
        try:
            self.descriptor = stream.fileno()
            self.saved = termios.tcgetattr(self.descriptor) if os.isatty(self.descriptor) else None
        except (OSError, ValueError, termios.error):
            self.saved = None
        self.echoing = True

    def set(self, echoing: bool) -> None:
        if self.saved is None or echoing == self.echoing:
            return
        flags = list(self.saved)
        if not echoing:
            flags[3] &= ~termios.ECHO  # lflags: keep line editing, drop the echo
        termios.tcsetattr(self.descriptor, termios.TCSADRAIN, flags)
        self.echoing = echoing

    def restore(self) -> None:
        self.set(True)


class CursesUI:
    """A full-screen view; typing never blocks the clock."""

    def __init__(
        self,
        host: Host,
        screen: LogScreen,
        write_protocol: Callable[[], str],
        resume: Callable[[Path], str] | None = None,
    ) -> None:
        self.host = host
        self.screen = screen
        self.lines = LineHandler(host, screen, write_protocol, resume=resume)
        self.buffer = ""
        self.begun: tuple[int, float] | None = None  # the line's night step and first key's time
        self._dropped: tuple[int, float] | None = None  # a line the change of step dropped
        self._last_key_at = 0.0
        self._escape = ""  # an escape sequence (an arrow key) being skipped
        self._window: Any = None
        self._shown: list[tuple[str, str]] = []
        self._attributes: dict[str, int] = {}
        self._lost = False
        self.interrupts: list[int] = []  # Ctrl+C presses, from the signal handler

    def interrupt(self) -> None:
        """Ctrl+C (in the signal handler: only notes it; the loop asks on its next turn)."""
        self.interrupts.append(1)

    def run(self) -> None:
        try:
            curses.wrapper(self._main)
        except curses.error:
            if not self.terminal_lost:
                raise
            # The terminal is gone: curses cannot put it back the way it found it, and nobody
            # is left to see it. The game is in the journal; the session says how to go on.

    @property
    def terminal_lost(self) -> bool:
        """The terminal went away under the game (its window closed, the ssh link dropped)."""
        return self._lost

    def _terminal_gone(self) -> None:
        """Stop drawing and end the session as a quit: the journal keeps the game to resume."""
        self._lost = True
        self._window = None
        self.host.quit = True

    def _main(self, window: Any) -> None:
        self._window = window
        curses.curs_set(1)
        self._attributes = {"bold": curses.A_BOLD, "reverse": curses.A_REVERSE}
        self._attributes["warning"] = curses.A_BOLD | curses.A_REVERSE
        self._attributes["ended"] = curses.A_BOLD | curses.A_REVERSE | curses.A_BLINK
        with contextlib.suppress(curses.error):  # a terminal without colour keeps the markers
            curses.start_color()
            curses.use_default_colors()
            curses.init_pair(1, curses.COLOR_BLACK, curses.COLOR_YELLOW)
            curses.init_pair(2, curses.COLOR_WHITE, curses.COLOR_RED)
            self._attributes["warning"] = curses.A_BOLD | curses.color_pair(1)
            self._attributes["ended"] = curses.A_BOLD | curses.color_pair(2)
        self.host.typing = self
        reader = KeyboardReader(self.host)
        reader.start()
        try:
            self.host.run(on_idle=self.draw)
        finally:
            reader.stop()
        self.draw()
        if self.host.over and not self._lost:
            self.screen.message(self.host.book.screen("game_over_press_key"))
            self.draw()
            window.timeout(-1)
            window.get_wch()

    def typing_ended(self) -> None:
        self.screen.message(self.host.book.screen("keyboard_closed"))
        self.host.quit = True

    def typed(self, text: str) -> None:
        """Keys typed (on the loop's thread): edit the line, carry it out on Enter."""
        now = self.host.clock.now()
        if now - self._last_key_at >= self.host.settings.keypad.entry_timeout_seconds:
            self._dropped = None  # no key for a while: what comes now is a new line
        self._last_key_at = now
        for char in text:
            self._drop_stale_line()
            if self._escape:
                self._escape += char
                final = char.isalpha() or char == "~" or len(self._escape) > 8
                if final and (len(self._escape) > 2 or char not in "[O"):
                    self._escape = ""
                continue
            if char == "\x1b":
                self._escape = char
                continue
            if char in ("\n", "\r"):
                line, self.buffer = self.buffer, ""
                begun, dropped = self.begun, self._dropped
                self.begun = self._dropped = None
                if dropped is not None:  # the rest of the line the change of step dropped
                    self.screen.message(NIGHT_ENTRY if self.lines.at_night() else "> ")
                    self.host.refuses_out_of_step(None, *dropped, Source.KEYBOARD)
                else:
                    self.lines.line(line, begun)
            elif char in ("\b", "\x7f"):
                if not self.buffer:
                    self._dropped = None  # the host cleared what was left of the dropped line
                self.buffer = self.buffer[:-1]
            elif char == "\x15":  # Ctrl+U: clear the line
                self.buffer = ""
                self._dropped = None
            elif char.isprintable():
                if not self.buffer:
                    self.begun = (self.host.step, self.host.clock.now())
                self.buffer += char
            if not self.buffer:
                self.begun = None

    def _drop_stale_line(self) -> None:
        """At a change of night step the line being typed is dropped: it was meant for the step
        that is over (its Enter is then refused, and the one awake told why, privately)."""
        begun = self.begun
        if begun is not None and begun[0] != self.host.step:
            self.buffer = ""
            self.begun = None
            self._dropped = begun

    def draw(self) -> None:
        """Draw the screen (on the loop's thread, after every command and tick); a screen that
        has not changed is not sent to the terminal again, so typing never waits for a redraw."""
        _take_interrupts(self.interrupts, self.lines)
        window = self._window
        self._drop_stale_line()  # the screen shows the line gone at the change of step
        if window is None:
            return
        try:
            self._draw(window)
        except OSError:  # EIO: the terminal was closed under the game
            self._terminal_gone()

    def _draw(self, window: Any) -> None:
        size = os.get_terminal_size(sys.__stdout__.fileno()) if sys.__stdout__ else None
        if size is not None and curses.is_term_resized(size.lines, size.columns):
            curses.resizeterm(size.lines, size.columns)
            self._shown = []
        height, width = window.getmaxyx()
        rows = screen_rows(self.host, self.screen, self.buffer, height, width - 1)
        if rows == self._shown:
            return
        self._shown = rows
        window.erase()
        for row, (text, style) in enumerate(rows):
            attribute = self._attributes.get(style, 0)
            with contextlib.suppress(curses.error):  # a tiny window's last cell cannot be written
                window.addnstr(row, 0, text, max(1, width - 1), attribute)
        window.move(len(rows) - 1, min(width - 1, 2 + len(rows[-1][0]) - 2))
        window.refresh()


def screen_rows(
    host: Host, screen: LogScreen, buffer: str, height: int, width: int | None = None
) -> list[tuple[str, str]]:
    """The screen as rows of (text, style): status, private line, the log, the typed line.

    A line longer than ``width`` goes on in the rows below it (an install hint must be readable
    whole). A pure function of what the host and the screen hold, so tests read exactly what the
    table sees.
    """
    status = [row for line in status_lines(host) for row in _wrapped(line, width)]
    timer = table_view(host).timer
    head = (
        "bold"
        if timer is None
        else "ended"
        if timer.ended
        else "warning"
        if timer.warning
        else "bold"
    )
    rows: list[tuple[str, str]] = [
        (text, head if index == 0 else "")
        for index, text in enumerate(status[: max(0, height - 4)])
    ]
    rows.append((screen.current_private(), "reverse"))
    log_rows = max(0, height - len(rows) - 2)
    log_lines = [row for line in screen.lines[-log_rows:] for row in _wrapped(line, width)]
    recent = log_lines[-log_rows:] if log_rows else []
    rows.extend((text, "") for text in recent)
    while len(rows) < height - 1:
        rows.append(("", ""))
    state = host.state
    night = state is not None and state.phase.is_night
    rows.append((f"> {masked(buffer) if night else buffer}", ""))
    return rows[:height]


def _wrapped(line: str, width: int | None) -> list[str]:
    """``line`` as rows of at most ``width`` terminal cells, broken at spaces where it can be.

    Cells, not characters: a player's name may hold wide characters (two cells each) or
    combining marks (none), and a row must never run past the edge of the screen."""
    if width is None or width < 10 or cells(line) <= width:
        return [line]
    units = _seats_with_names(line.split(" "))
    if line.isascii() and len(units) == line.count(" ") + 1:
        return textwrap.wrap(line, width, subsequent_indent="  ", break_on_hyphens=False) or [""]
    rows: list[str] = []
    row = ""
    for word in units:
        candidate = f"{row} {word}" if row else word
        if cells(candidate) <= width:
            row = candidate
            continue
        if row:
            rows.append(row)
        row = "  " + word if rows or row else word
        while cells(row) > width:  # one word longer than the row: cut it
            cut = _fit(row, width)
            rows.append(cut)
            row = "  " + row[len(cut) :]
    rows.append(row)
    return rows


#: A seat as the status lines write it: its number, ✗ when it left, ! for each foul.
SEAT_TOKEN = re.compile(r"\d{1,2}[✗!]*")


def _seats_with_names(words: list[str]) -> list[str]:
    """The words of a line, each seat joined to the name after it («7 Валентина»), so that a
    row never ends between a seat's number and its player's name."""
    units: list[str] = []
    for word in words:
        if units and SEAT_TOKEN.fullmatch(units[-1]) and word[:1].isalpha():
            units[-1] = f"{units[-1]} {word}"
        else:
            units.append(word)
    return units


def _fit(text: str, width: int) -> str:
    """The longest start of ``text`` that takes at most ``width`` cells (at least one char)."""
    used = 0
    for index, char in enumerate(text):
        used += char_width(char)
        if used > width:
            return text[: max(1, index)]
    return text


#: Home, clear the screen, clear the scrollback (xterm, VTE, the Linux console).
CLEAR_WITH_SCROLLBACK = "\x1b[H\x1b[2J\x1b[3J"


#: The line mode's face: its own wording of a question where it has one (``plain_prompt_...``).
PLAIN = "plain"


class PlainUI:
    """Line mode for dumb terminals and a headless Pi: stdin lines in, text out."""

    def __init__(
        self,
        host: Host,
        screen: LogScreen,
        write_protocol: Callable[[], str],
        *,
        keyboard_only: bool = True,
        out: TextIO | None = None,
        resume: Callable[[Path], str] | None = None,
    ) -> None:
        self.host = host
        self.screen = screen
        self.lines = LineHandler(host, screen, write_protocol, PLAIN, resume)
        self.keyboard_only = keyboard_only
        self.out = out or sys.stdout
        self.partial = ""
        self.begun: tuple[int, float] | None = None  # the line's night step and first key's time
        self._printed = 0
        self._last_status: list[str] = []
        self._private_shown = ""
        self._wiped_seen = 0
        self.echo = TerminalEcho(sys.stdin)
        self.interrupts: list[int] = []  # Ctrl+C presses, from the signal handler

    def interrupt(self) -> None:
        """Ctrl+C (in the signal handler: only notes it; the loop asks on its next turn)."""
        self.interrupts.append(1)

    def run(self) -> None:
        self.host.typing = self
        reader = KeyboardReader(self.host)
        reader.start()
        try:
            self.host.run(on_idle=self._flush)
        finally:
            reader.stop()
            self.echo.restore()
        self._flush()

    def typed(self, text: str) -> None:
        if not self.partial:  # a line comes whole from a terminal: it is begun as it arrives
            self.begun = (self.host.step, self.host.clock.now())
        self.partial += text
        while "\n" in self.partial:
            line, self.partial = self.partial.split("\n", 1)
            self.lines.line(line.rstrip("\r"), self.begun)
            self.begun = (self.host.step, self.host.clock.now())

    def typing_ended(self) -> None:
        if self.partial.strip():
            self.lines.line(self.partial, self.begun)
            self.partial = ""
        if self.keyboard_only:
            # Nothing else can move the game on: say how to go on, instead of waiting for ever.
            self.screen.message(self.host.book.screen("keyboard_closed"))
            self.host.quit = True
        # With a keypad or the Listener (a service has no terminal) the game goes on.

    def _print(self, text: str) -> None:
        if self._private_shown:
            self.out.write("\r" + " " * len(self._private_shown) + "\r")
            self._private_shown = ""  # shown again by _private() if it is still current
        print(text, file=self.out, flush=True)

    def _flush(self) -> None:
        _take_interrupts(self.interrupts, self.lines)
        self.echo.set(not self.lines.at_night())
        lines = self.screen.lines
        if self.screen.wiped > self._wiped_seen:
            self._wiped_seen = self.screen.wiped
            if self.out.isatty():
                # Daybreak: the night's masked entries and refusals leave the scrollback too.
                # The terminal is cleared with its scrollback and the day's lines printed again.
                self.out.write(CLEAR_WITH_SCROLLBACK)
                self._printed = self.screen.wiped
                self._last_status = []
        # Counted over the whole game: the night's lines (printed masked) may have been wiped.
        for text in lines[max(0, self._printed - self.screen.wiped) :]:
            self._print(text)
        self._printed = self.screen.wiped + len(lines)
        self._private()
        status = status_lines(self.host, PLAIN)
        head_without_clock = [line.split(" · ⏱")[0] for line in status]
        if head_without_clock != self._last_status:
            self._last_status = head_without_clock
            self._print("  " + "\n  ".join(status))

    def _private(self) -> None:
        """The Commissar's answer, on a terminal only: written on one line and then erased, so
        it never stays in the scrollback (and never reaches a log when stdout is not a terminal).
        """
        if not self.out.isatty():
            return
        text = self.screen.current_private()
        if text and text != self._private_shown:
            self.out.write(f"\r{text}")
            self.out.flush()
        elif not text and self._private_shown:
            self.out.write("\r" + " " * len(self._private_shown) + "\r")
            self.out.flush()
        self._private_shown = text
