"""Scripted games: the keyboard language, one command per line, on a fake clock.

A script is one more source of commands for ``Host.run``, the loop every game runs on: each line
is handed to the loop as a ``ScriptLine`` and read on the loop's thread, against the question the
game is asking at that moment. The loop runs in lockstep (it never waits for a real clock): time
passes only when a line says ``wait``. A whole game runs in well under a second and prints the
announcement transcript.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from voicehost.clock import FakeClock
from voicehost.config import Settings, with_preset
from voicehost.console.commandline import (
    CommandError,
    ShowHelp,
    ShowStatus,
    Wait,
    WriteProtocol,
    help_text,
    parse,
    strip_comment,
)
from voicehost.console.text import ScreenPrivateChannel, SilentCues, StreamScreen, TextSpeaker
from voicehost.console.view import status_lines
from voicehost.errors import VoicehostError
from voicehost.game.model import Seat
from voicehost.game.rules import PRESETS
from voicehost.host import protocol as protocol_module
from voicehost.host.commands import Command, ScriptLine
from voicehost.host.loop import Host
from voicehost.phrases import PhraseBook
from voicehost.ports import CuePlayer, Listener, PrivateChannel, Speaker


@dataclass
class ScriptResult:
    """What a script run produced."""

    transcript: list[str]
    protocol: protocol_module.ProtocolRecord
    host: Host
    errors: list[str] = field(default_factory=list)


def wait_timer(host: Host, clock: FakeClock) -> None:
    """Jump ``clock`` to the running timer's end, firing its warning on the way."""
    timer = host.timer
    if timer is None:
        raise VoicehostError.written(host.book.screen("nothing_to_wait_for"))
    while host.timer is timer:
        deadline = host.next_deadline()
        if deadline is None:
            raise VoicehostError.written(host.book.screen("wait_paused"))
        clock.set(deadline)
        host.process_due()


def wait_warning(host: Host, clock: FakeClock) -> None:
    """Jump ``clock`` to the running timer's warning (the timer goes on), as set in config."""
    timer = host.timer
    if timer is None:
        raise VoicehostError.written(host.book.screen("nothing_to_wait_for"))
    if timer.warn_at is None or timer.warned:
        raise VoicehostError.written(host.book.screen("wait_no_warning"))
    while host.timer is timer and not timer.warned:
        deadline = host.next_deadline()
        if deadline is None:
            raise VoicehostError.written(host.book.screen("wait_paused"))
        clock.set(deadline)
        host.process_due()


class ScriptFeed:
    """Feeds a script's lines to ``Host.run`` one at a time, and notes the rejected ones."""

    def __init__(
        self,
        host: Host,
        clock: FakeClock,
        lines: Iterable[str],
        out: TextIO | None,
        before_line: Callable[[Host], None] | None = None,
        after_line: Callable[[Host], None] | None = None,
    ) -> None:
        self.host = host
        self.clock = clock
        self.out = out
        self.errors: list[str] = []
        lines = list(lines)
        self._first_command = next(
            (n for n, line in enumerate(lines, start=1) if strip_comment(line)), 0
        )
        self._lines: Iterator[tuple[int, str]] = enumerate(lines, start=1)
        self._before = before_line
        self._after = after_line
        host.script = self

    def __call__(self) -> Command | None:
        """The next command for the loop; None when the script is over."""
        for number, line in self._lines:
            return ScriptLine(number, line)
        return None

    def report(self, number: int, message: str) -> None:
        self.errors.append(self.host.book.screen("script_error", {"line": number, "text": message}))
        if self.out is not None:
            text = self.host.book.screen("script_line", {"line": number, "text": message})
            print(text, file=self.out)

    def line(self, number: int, line: str) -> None:
        """Carry out line ``number`` of the script (on the loop's thread)."""
        if self._before is not None:
            self._before(self.host)
        self._carry_out(number, line)
        if self._after is not None:
            self._after(self.host)

    def _carry_out(self, number: int, line: str) -> None:
        host = self.host
        words = strip_comment(line).split()
        if words and words[0].casefold() == PRESET_DIRECTIVE:
            if number != self._first_command:
                self.report(number, host.book.screen("script_preset_late"))
            return
        try:
            action = parse(line, host.prompt(), host.book)
        except CommandError as exc:
            self.report(number, str(exc))
            return
        if action is None:
            return
        try:
            if isinstance(action, Wait):
                if action.warning:
                    wait_warning(host, self.clock)
                elif action.seconds is None:
                    wait_timer(host, self.clock)
                else:
                    self.clock.advance(action.seconds)
            elif isinstance(action, ShowHelp):
                _print(self.out, help_text(host.book))
            elif isinstance(action, ShowStatus):
                _print(self.out, "\n".join(status_lines(host, "plain")))
            elif isinstance(action, WriteProtocol):
                _print(self.out, protocol_module.to_table(_protocol(host), host.book))
            elif not host.handle(action):
                self.report(number, host.rejections[-1] if host.rejections else "rejected")
        except VoicehostError as exc:
            self.report(number, str(exc))

    def after_game_over(self) -> None:
        """Lines after the end of the game: the first command among them is reported."""
        for number, line in self._lines:
            try:
                action = parse(line, self.host.prompt(), self.host.book)
            except CommandError as exc:
                self.report(number, str(exc))
                continue
            if action is not None:
                self.report(number, self.host.book.error("game_over"))
                return


def run_script(
    lines: Iterable[str],
    settings: Settings,
    *,
    speaker: Speaker | None = None,
    cues: CuePlayer | None = None,
    clock: FakeClock | None = None,
    private: PrivateChannel | None = None,
    listener: Listener | None = None,
    book: PhraseBook | None = None,
    journal_path: Path | None = None,
    resume: bool = False,
    out: TextIO | None = None,
    before_line: Callable[[Host], None] | None = None,
    after_line: Callable[[Host], None] | None = None,
    host: Host | None = None,
    names: Mapping[Seat, str] | None = None,
) -> ScriptResult:
    """Play the script's commands on ``Host.run``; rejected lines are reported by number.

    ``before_line`` and ``after_line`` run on the loop's thread around each line (a paced demo
    lets the last announcement end first). ``host`` carries on a game already started;
    ``names`` are the players' names a new game starts with (``--roster``).
    """
    lines = list(lines)
    clock = clock or FakeClock()
    book = book or PhraseBook.load(settings.language)
    if host is None and not resume:
        preset = script_preset(lines, book)
        if preset is not None:
            settings = with_preset(settings, preset)
    screen = StreamScreen(out) if out is not None else None
    if host is None:
        host = Host(
            settings,
            book,
            clock,
            speaker=speaker or TextSpeaker(clock, out),
            cues=cues or SilentCues(),
            private=private or ScreenPrivateChannel(None),
            listener=listener,
            journal_path=journal_path,
            screen=screen,
            names=names,
        )
        if resume:
            host.resume()
        else:
            host.start()
    feed = ScriptFeed(host, clock, lines, out, before_line, after_line)
    if not host.over:
        host.run(feed=feed)
    if host.over:
        feed.after_game_over()
    return ScriptResult(list(host.transcript), _protocol(host), host, feed.errors)


#: A script's first command may name the rules it is written for: ``preset fiim``.
PRESET_DIRECTIVE = "preset"


def script_preset(lines: list[str], book: PhraseBook) -> str | None:
    """The preset a script's first command names, if it names one."""
    for line in lines:
        words = strip_comment(line).split()
        if not words:
            continue
        if words[0].casefold() != PRESET_DIRECTIVE:
            return None
        if len(words) != 2 or words[1] not in PRESETS:
            shown = {"text": line.strip(), "presets": ", ".join(sorted(PRESETS))}
            raise VoicehostError.written(book.screen("script_preset_unknown", shown))
        return words[1]
    return None


def _print(out: TextIO | None, text: str) -> None:
    print(text, file=out or sys.stdout)


def _protocol(host: Host) -> protocol_module.ProtocolRecord:
    assert host.state is not None  # the game has started
    voters = [voters for _, voters in host.voter_lists]
    return protocol_module.build(host.state, names=host.names.as_dict(), voters=voters)
