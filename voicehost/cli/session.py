"""Wiring a real game: settings -> adapters -> Host -> a UI. Used by `play` and `resume`."""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path
from typing import Any

from voicehost.cli import wiring
from voicehost.clock import MonotonicClock
from voicehost.config import Settings
from voicehost.console.terminal import CursesUI, LogScreen, PlainUI
from voicehost.console.text import SilentCues, TextSpeaker
from voicehost.host import protocol as protocol_module
from voicehost.host.journal import newest_unfinished
from voicehost.host.loop import Host, VoiceStop
from voicehost.phrases import PhraseBook

log = logging.getLogger(__name__)


def new_journal_path(settings: Settings) -> Path:
    """A fresh journal file name in the journal folder, by date and time."""
    folder = settings.path(settings.storage.journal_dir)
    stamp = time.strftime("%Y-%m-%d_%H-%M-%S")
    return folder / f"game-{stamp}.jsonl"


def find_journal(settings: Settings, given: str | None) -> Path | None:
    """The journal to resume: the one given, or the newest unfinished one."""
    if given:
        return Path(given)
    return newest_unfinished(settings.path(settings.storage.journal_dir))


def write_protocol(host: Host) -> str:
    """Write the protocol beside the journal's name; returns a line saying where."""
    assert host.state is not None
    stem = host.journal_path.stem if host.journal_path else time.strftime("game-%Y-%m-%d_%H-%M-%S")
    folder = host.settings.path(host.settings.storage.protocol_dir)
    json_path, text_path = protocol_module.write(protocol_module.build(host.state), folder, stem)
    return f"Protocol written: {text_path} and {json_path}"


def play(
    settings: Settings,
    *,
    journal_path: Path,
    resume: bool,
    text_only: bool = False,
    plain: bool = False,
    audio_out: Path | None = None,
) -> int:
    """Host a real game in real time until it ends or the host quits."""
    book = PhraseBook.load(settings.language)
    clock = MonotonicClock()
    screen = LogScreen()
    extras: dict[str, Any] = {}
    if text_only:
        speaker: Any = TextSpeaker(clock)
        cues: Any = SilentCues()
    else:
        speaker, cues = wiring.make_audio(settings, clock, book, **_audio_kwargs(audio_out))
        extras = wiring.make_night_sound(settings, speaker)
    listener = wiring.make_listener(settings, clock)
    keypad = wiring.make_keypad(settings)
    private = wiring.make_private_channel(settings, screen)
    host = Host(
        settings,
        book,
        clock,
        speaker=speaker,
        cues=cues,
        private=private,
        listener=listener,
        journal_path=journal_path,
        screen=screen,
        **extras,
    )
    if listener is not None:
        listener.start(lambda token: host.post(VoiceStop(token)))
    if keypad is not None:
        from voicehost.keypad.controller import attach_keypad

        attach_keypad(
            keypad,
            host,
            cues,
            clock,
            entry_timeout_seconds=settings.keypad.entry_timeout_seconds,
        )
    if resume:
        host.resume()
    else:
        host.start()
    interactive = sys.stdin.isatty() and sys.stdout.isatty() and not plain
    ui: CursesUI | PlainUI
    if interactive:
        ui = CursesUI(host, screen, lambda: write_protocol(host))
    else:
        ui = PlainUI(host, screen, lambda: write_protocol(host), keypad=keypad is not None)
    try:
        ui.run()
    finally:
        for device in (keypad, listener, private, cues, speaker):
            if device is not None:
                try:
                    device.close()
                except Exception:  # noqa: BLE001 - closing must never hide the game's result
                    log.exception("closing %s failed", device)
        host.close()
    if host.over:
        print(write_protocol(host))
    else:
        print(f"Game paused in the journal {journal_path}; continue with `voicehost resume`.")
    return 0


def _audio_kwargs(audio_out: Path | None) -> dict[str, Any]:
    return {} if audio_out is None else {"audio_out": audio_out}
