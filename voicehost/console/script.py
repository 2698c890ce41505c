"""Scripted games: the keyboard language, one command per line, on a fake clock.

A whole game runs in well under a second and prints the announcement transcript.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from voicehost.clock import FakeClock
from voicehost.config import Settings
from voicehost.console.commandline import (
    CommandError,
    ShowHelp,
    ShowStatus,
    Wait,
    WriteProtocol,
    parse,
)
from voicehost.console.text import ScreenPrivateChannel, SilentCues, StreamScreen, TextSpeaker
from voicehost.console.view import status_lines
from voicehost.errors import VoicehostError
from voicehost.host import protocol as protocol_module
from voicehost.host.commands import Quit
from voicehost.host.loop import Host
from voicehost.phrases import PhraseBook
from voicehost.ports import CuePlayer, Listener, PrivateChannel, Speaker


@dataclass
class ScriptResult:
    """What a script run produced."""

    transcript: list[str]
    protocol: dict[str, Any]
    host: Host
    errors: list[str] = field(default_factory=list)


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
    host: Host | None = None,
) -> ScriptResult:
    """Play the script's commands; rejected lines are reported with their line number."""
    clock = clock or FakeClock()
    book = book or PhraseBook.load(settings.language)
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
        )
        if resume:
            host.resume()
        else:
            host.start()
    errors: list[str] = []

    def report(number: int, message: str) -> None:
        errors.append(f"line {number}: {message}")
        if out is not None:
            print(host.book.screen("script_line", {"line": number, "text": message}), file=out)

    for number, line in enumerate(lines, start=1):
        host.process_pending()
        try:
            action = parse(line, host.prompt(), host.book)
        except CommandError as exc:
            report(number, str(exc))
            continue
        if action is None:
            continue
        if host.over:
            report(number, host.book.error("game_over"))
            break
        try:
            if isinstance(action, Wait):
                if action.seconds is None:
                    host.wait_timer()
                else:
                    clock.advance(action.seconds)
                    host.process_due()
            elif isinstance(action, ShowHelp):
                _print(out, host.book.screen("help"))
            elif isinstance(action, ShowStatus):
                _print(out, "\n".join(status_lines(host)))
            elif isinstance(action, WriteProtocol):
                _print(out, protocol_module.to_table(protocol_module.build(host.state), host.book))  # type: ignore[arg-type]  # started above
            elif isinstance(action, Quit):
                break
            elif not host.handle(action):
                report(number, host.rejections[-1] if host.rejections else "rejected")
        except VoicehostError as exc:
            report(number, str(exc))
    assert host.state is not None
    return ScriptResult(list(host.transcript), protocol_module.build(host.state), host, errors)


def _print(out: TextIO | None, text: str) -> None:
    print(text, file=out or sys.stdout)
