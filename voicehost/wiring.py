"""Factories: settings -> adapters. The host never opens a device itself.

Each factory imports its adapter lazily, so a machine without a sound card, a model or a
keypad still runs the keyboard game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from voicehost.adapters.text import Screen
    from voicehost.config import Settings
    from voicehost.phrases import PhraseBook
    from voicehost.ports import Clock, CuePlayer, Keypad, Listener, PrivateChannel, Speaker


def make_audio(settings: Settings, clock: Clock, book: PhraseBook) -> tuple[Speaker, CuePlayer]:
    """The table's speaker and cue player (voice out). Falls back to text when there is none."""
    from voicehost.adapters.text import SilentCues, TextSpeaker

    return TextSpeaker(clock), SilentCues()


def make_listener(settings: Settings, clock: Clock) -> Listener | None:
    """The stop-word Listener (voice in), or None when disabled or no model is installed."""
    return None


def make_keypad(settings: Settings) -> Keypad | None:
    """The USB keypad (evdev), or None when off or absent."""
    return None


def make_private_channel(settings: Settings, screen: Screen | None) -> PrivateChannel:
    """The Commissar's private channel: keypad LED or a self-clearing screen line."""
    from voicehost.adapters.text import ScreenPrivateChannel

    return ScreenPrivateChannel(screen)


def make_night_sound(settings: Settings, speaker: object) -> dict[str, object]:
    """Host keywords for the night's masking sound: ``background`` and ``masking``, or none.

    The sound output adapter doubles as the Background port when it has ``start``/``stop``.
    """
    if settings.night.masking == "off" or not hasattr(speaker, "start"):
        return {}
    from voicehost.masking import masking_sound

    rate = settings.audio.sample_rate

    def masking() -> tuple[object, int] | None:
        samples = masking_sound(settings, rate)
        return None if samples is None else (samples, rate)

    return {"background": speaker, "masking": masking}
