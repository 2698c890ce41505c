"""Wiring a real game: settings -> adapters -> Host -> a UI. Used by `play` and `resume`."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from voicehost.cli import wiring
from voicehost.clock import MonotonicClock
from voicehost.config import Settings
from voicehost.console.terminal import CursesUI, LogScreen, PlainUI
from voicehost.console.text import SilentCues, TextSpeaker
from voicehost.host import protocol as protocol_module
from voicehost.host.commands import Notice, VoiceStop
from voicehost.host.journal import newest_unfinished
from voicehost.host.loop import Host
from voicehost.notices import LOG_ONLY, WRITTEN, notice, notice_of
from voicehost.phrases import PhraseBook
from voicehost.ports import Screen
from voicehost.voice_in.loading import ListenerReady, ListenerStatus

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


class ScreenNotices(logging.Handler):
    """Shows voicehost's notices (no sound card, no speech model, the keypad unplugged...) on
    the host's screen, where the full-screen view would otherwise hide them until the end.

    Notices come from any thread: once the host runs they are posted to its loop, which alone
    writes to the screen.
    """

    def __init__(self, screen: Screen, book: PhraseBook) -> None:
        super().__init__(logging.INFO)
        self.screen = screen
        self.book = book
        self.host: Host | None = None

    def attach(self, host: Host) -> None:
        self.host = host

    def emit(self, record: logging.LogRecord) -> None:
        phrase = notice_of(record)
        if phrase is not None and not phrase[0]:
            return  # for the log alone
        shown = (
            record.getMessage()
            if phrase is None
            else self.book.screen(f"notice_{phrase[0]}", phrase[1])
        )
        text = f"ℹ {shown}"
        if self.host is None:
            self.screen.message(text)  # still setting up, on the loop's own thread
        else:
            self.host.post(Notice(text))


def write_protocol(host: Host) -> str:
    """Write the protocol beside the journal's name; returns a line saying where."""
    assert host.state is not None
    stem = host.journal_path.stem if host.journal_path else time.strftime("game-%Y-%m-%d_%H-%M-%S")
    folder = host.settings.path(host.settings.storage.protocol_dir)
    try:
        json_path, text_path = protocol_module.write(
            protocol_module.build(host.state), folder, stem, host.book
        )
    except protocol_module.ProtocolError as exc:
        return f"✗ {exc}"  # the game goes on: the journal still holds it
    return host.book.screen("protocol_written", {"text": text_path, "json": json_path})


def play(
    settings: Settings,
    *,
    journal_path: Path,
    resume: bool,
    text_only: bool = False,
    plain: bool = False,
    audio_out: Path | None = None,
    set_aside: Sequence[str] = (),
) -> int:
    """Host a real game in real time until it ends or the host quits.

    ``set_aside`` are the messages of journals the boot service could not resume: each is shown
    and logged, and the table hears once that the last game cannot go on.
    """
    if not text_only and settings.voice.engine != "text":
        from voicehost.voice_out.sound_probe import start_probe

        start_probe()  # `play` started it already; `resume` starts it here
    book = PhraseBook.load(settings.language)
    clock = MonotonicClock()
    screen = LogScreen()
    interactive = sys.stdin.isatty() and sys.stdout.isatty() and not plain
    notices = ScreenNotices(screen, book)
    package_log = logging.getLogger("voicehost")
    package_log.addHandler(notices)
    if not interactive:  # line mode and the service: notices also go to stderr (the log)
        package_log.addHandler(logging.StreamHandler())
    package_log.setLevel(logging.INFO)
    extras: dict[str, Any] = {}
    if text_only:
        speaker: Any = TextSpeaker(clock)
        cues: Any = SilentCues()
    else:
        sound = wiring.make_sound(settings, clock, book, **_audio_kwargs(audio_out))
        speaker, cues = sound.speaker, sound.cues
        extras = wiring.make_night_sound(settings, sound.background)

    def listening(ready: ListenerReady) -> None:  # on the loader's thread: via the log
        if ready.status is ListenerStatus.READY:
            log.info(
                "%s",
                book.screen("listening_ready", {"seconds": round(ready.seconds, 1)}),
                extra=WRITTEN,
            )
        else:
            log.warning(
                "%s", book.screen("listening_failed", {"reason": ready.reason}), extra=WRITTEN
            )

    listener = wiring.make_listener(settings, clock, on_ready=listening)
    keypad = wiring.make_keypad(settings)
    private = wiring.make_private_channel(settings, screen, book)
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
    notices.attach(host)
    for message in set_aside:
        log.warning("%s", message, extra=notice("journal_set_aside", reason=message))
    if resume:
        host.resume()
    else:
        host.start()
    if set_aside and not resume:
        host.announce("game.journal_set_aside")
    ui: CursesUI | PlainUI
    if interactive:
        ui = CursesUI(host, screen, lambda: write_protocol(host))
    else:
        hands_free = keypad is not None or listener is not None
        ui = PlainUI(host, screen, lambda: write_protocol(host), keyboard_only=not hands_free)
    try:
        ui.run()
    finally:
        for device in (keypad, listener, private, cues, speaker):
            if device is not None:
                try:
                    device.close()
                except Exception:  # noqa: BLE001 - closing must never hide the game's result
                    log.exception("closing %s failed", device, extra=LOG_ONLY)
        host.close()
        package_log.removeHandler(notices)
    if host.over:
        print(write_protocol(host))
    elif not journal_path.exists():
        print(book.screen("game_not_saved", {"journal": journal_path}))
    else:
        print(book.screen("game_paused", {"journal": journal_path}))
    return 0


def _audio_kwargs(audio_out: Path | None) -> dict[str, Any]:
    return {} if audio_out is None else {"audio_out": audio_out}
