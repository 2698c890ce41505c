"""Factories: settings -> adapters. The host never opens a device itself.

Each factory imports its adapter lazily, so a machine without a sound card, a model or a
keypad still runs the keyboard game.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost.notices import notice

if TYPE_CHECKING:
    from collections.abc import Callable

    from voicehost.clips import SilenceSqueezer
    from voicehost.config import Settings
    from voicehost.phrases import PhraseBook
    from voicehost.ports import (
        Background,
        Clock,
        CuePlayer,
        Keypad,
        Listener,
        PrivateChannel,
        Screen,
        Speaker,
    )
    from voicehost.voice_in.loading import ListenerReady

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Sound:
    """The table's sound: the speaker, the cue player and, on a sound card, the night's
    Background (one ``SoundOutput`` serves all three)."""

    speaker: Speaker
    cues: CuePlayer
    background: Background | None = None


def make_audio(
    settings: Settings, clock: Clock, book: PhraseBook, *, audio_out: Path | None = None
) -> tuple[Speaker, CuePlayer]:
    """The table's speaker and cue player; see ``make_sound``."""
    sound = make_sound(settings, clock, book, audio_out=audio_out)
    return sound.speaker, sound.cues


def make_sound(
    settings: Settings, clock: Clock, book: PhraseBook, *, audio_out: Path | None = None
) -> Sound:
    """The table's speaker and cue player (voice out). Falls back to text when there is none.

    Every piece of every announcement is made ready first (the audio cache is filled if it is
    incomplete), so the game never waits for synthesis. On a sound card one
    ``SoundOutput`` serves the three ports. A missing Russian
    voice stops here with the install hint; a missing sound card is said once, on one line, and
    the game goes on with text (still recorded when ``audio_out`` is given).
    """
    from voicehost.console.text import SilentCues, TextSpeaker

    if settings.voice.engine == "text":
        if audio_out is not None:
            log.warning(
                "voice.engine is text: nothing to record to %s",
                audio_out,
                extra=notice("text_nothing_recorded", path=audio_out),
            )
        return Sound(TextSpeaker(clock), SilentCues())
    from voicehost.errors import DeviceError
    from voicehost.voice_out.sound import open_sound_output
    from voicehost.voice_out.sound_probe import sound_system_crash
    from voicehost.voice_out.speech import speech_library

    library = speech_library(settings)
    report = library.prepare(book.all_segments(texts=(settings.rules.acquaintance_topic,)))
    log.info(
        "voice: %s",
        report.describe(),
        extra=notice("voice_ready", pieces=report.pieces, pack=report.from_pack),
    )
    crash = sound_system_crash()
    if crash is not None:
        log.warning(
            "%s; repair or remove a broken ~/.asoundrc or /etc/asound.conf "
            "(`voicehost doctor` explains). Announcements are shown as text.",
            crash,
            extra=notice("sound_system_broken", reason=crash),
        )
        return Sound(TextSpeaker(clock), SilentCues())
    try:
        output = open_sound_output(
            clock,
            library,
            rate=settings.audio.sample_rate,
            cue_volume=settings.audio.cue_volume,
            device=settings.audio.output_device,
            audio_out=audio_out,
            block_frames=settings.audio.block_frames,
        )
    except DeviceError as exc:
        log.warning(
            "%s. Announcements are shown as text.",
            exc,
            extra=notice("no_sound_card", reason=exc),
        )
        return Sound(TextSpeaker(clock), SilentCues())
    return Sound(output, output, output)


def make_recording(
    settings: Settings,
    audio_out: Path,
    *,
    book: PhraseBook | None = None,
    quiet: bool = False,
    squeezer: SilenceSqueezer | None = None,
) -> dict[str, Any]:
    """``run_script`` keywords that record a scripted game's audio to ``audio_out``.

    The script's FakeClock places every sound; ``speaker.finish()`` (or ``close()``) renders
    the whole timeline to the file, its long silences shortened by ``squeezer`` if given.
    Announcements are still printed, unless ``quiet``.
    """
    from voicehost.clock import FakeClock
    from voicehost.phrases import PhraseBook
    from voicehost.voice_out.sound import open_sound_output
    from voicehost.voice_out.speech import speech_library

    book = book or PhraseBook.load(settings.language)
    library = speech_library(settings)
    library.prepare(book.all_segments(texts=(settings.rules.acquaintance_topic,)))
    clock = FakeClock()
    output = open_sound_output(
        clock,
        library,
        rate=settings.audio.sample_rate,
        cue_volume=settings.audio.cue_volume,
        device="",
        use_device=False,
        audio_out=audio_out,
        echo=None if quiet else sys.stdout,
        lockstep=True,
        squeezer=squeezer,
    )
    return {"speaker": output, "cues": output, "clock": clock, "book": book}


def make_listener(
    settings: Settings,
    clock: Clock,
    on_ready: Callable[[ListenerReady], None] | None = None,
) -> Listener | None:
    """The stop-word Listener (voice in), or None when disabled or no model is installed.

    The model loads in the background once the Listener is started, so the first announcement
    never waits for it; ``on_ready`` hears when listening is ready (or why it never will be).
    With no model, one log line says so (and how to install a model); with no vosk package, no
    microphone or a model that does not know the stop words (the wrong model) one line says so
    when loading fails. Either way the game goes on with speeches ended from the keyboard or the
    keypad.
    """
    if not settings.listener.enabled:
        return None
    from voicehost.voice_in.models import find_model, install_hint

    folder = find_model(settings)
    if folder is None:
        log.warning(
            "no %s speech model in %s: speeches end from the keyboard or keypad. Install one "
            "with %s",
            settings.language,
            settings.path(settings.listener.models_dir),
            install_hint(settings.language),
            extra=notice(
                "no_model",
                language=settings.language,
                folder=settings.path(settings.listener.models_dir),
            ),
        )
        return None
    from voicehost.phrases import PhraseBook
    from voicehost.voice_in.loading import LoadingListener
    from voicehost.voice_in.vosk_listener import build_listener

    stop_words = PhraseBook.load(settings.language).stop_words
    return LoadingListener(lambda: build_listener(settings, clock, folder, stop_words), on_ready)


def make_keypad(settings: Settings) -> Keypad | None:
    """The USB keypad (evdev), or None when off or absent.

    ``keypad.enabled: auto`` uses a keypad found now and says nothing when there is none;
    ``on`` insists: a keypad missing at the start is reported (the game waits for it), and a
    missing python-evdev is an error.
    """
    if settings.keypad.enabled == "off":
        return None
    from voicehost.errors import MissingDependency
    from voicehost.keypad.evdev_keypad import EvdevKeypad, evdev_opener, find_keypad

    try:
        found = find_keypad(settings.keypad.device)
    except MissingDependency:
        if settings.keypad.enabled == "on":
            raise
        log.warning(
            "no keypad support (python-evdev is missing): keyboard only", extra=notice("no_evdev")
        )
        return None
    if found is None and settings.keypad.enabled == "auto":
        log.info("no keypad found: keyboard only", extra=notice("no_keypad"))
        return None
    return EvdevKeypad(settings.keypad.keymap, evdev_opener(settings.keypad.device))


def make_private_channel(
    settings: Settings, screen: Screen | None, book: PhraseBook | None = None
) -> PrivateChannel:
    """The Commissar's private channel: keypad LED or a self-clearing screen line.

    The LED is used when ``private.channel`` is ``led`` and a keypad with that LED is plugged in;
    otherwise the screen is, and a log line says so once. With the LED the screen stays the
    fallback should the keypad be unplugged while an answer is due.
    """
    from voicehost.console.text import ScreenPrivateChannel

    on_screen = ScreenPrivateChannel(screen, settings.private.screen_seconds, book=book)
    if settings.private.channel == "screen" or settings.keypad.enabled == "off":
        return on_screen
    from voicehost.errors import MissingDependency
    from voicehost.keypad.evdev_keypad import find_keypad

    try:
        found = find_keypad(settings.keypad.device)
    except MissingDependency:
        found = None
    if found is None or not found.has_led(settings.private.led):
        log.warning(
            "no keypad with a %s LED found: the answer to a check goes to the screen",
            settings.private.led,
            extra=notice("no_led", led=settings.private.led),
        )
        return on_screen
    from voicehost.keypad.led import EvdevLed, LedPrivateChannel

    led = EvdevLed(settings.keypad.device, settings.private.led)
    return LedPrivateChannel(led, settings.private, fallback=on_screen)


def make_night_sound(settings: Settings, background: Background | None) -> dict[str, object]:
    """Host keywords for the night's masking sound: ``background`` and ``masking``, or none
    (masking is off, or the announcements are text: there is no sound to mask with)."""
    if settings.night.masking == "off" or background is None:
        return {}
    from voicehost.voice_out.masking import masking_sound

    rate = settings.audio.sample_rate

    def masking() -> tuple[object, int] | None:
        samples = masking_sound(settings, rate)
        return None if samples is None else (samples, rate)

    return {"background": background, "masking": masking}
