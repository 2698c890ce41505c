"""Speech synthesis: espeak-ng through pyttsx3, rendered to WAV (never spoken by pyttsx3 itself).

espeak-ng ignores a voice it does not know and speaks English instead, reading Cyrillic letter
by letter. So the synthesizer checks, after every change, that the voice really is the one
asked for, and stops with an install hint when it is missing.

pyttsx3's ``say()`` shells out to ``aplay`` and blocks; a game never uses it. ``render`` calls
``save_to_file`` + ``runAndWait`` (about 10 ms a phrase) and reads the WAV back. espeak-ng is
one engine per process, so every call holds one module lock.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voicehost.clips import Clip, read_wav
from voicehost.config import Settings, VoiceSettings
from voicehost.errors import MissingDependency

AUTO_VOICES = {"ru": "zle/ru", "en": "gmw/en"}
"""The espeak-ng voice ``voice: auto`` picks for each phrase-book language."""

INSTALL_HINT = (
    "install it with `sudo apt-get install espeak-ng` (and `.venv/bin/pip install pyttsx3`)"
)

ESPEAK_RATE = 22050
"""Sample rate of espeak-ng's output (hertz)."""

_ENGINE_LOCK = threading.Lock()


@dataclass(frozen=True)
class VoiceChoice:
    """What the synthesizer is asked to use: everything that changes the rendered audio."""

    voice: str
    """espeak-ng voice identifier, e.g. ``zle/ru``."""
    rate: int
    """Speaking rate (words per minute)."""
    volume: float
    """espeak-ng's own amplitude, 0..1 (announcements are levelled afterwards)."""


_APPLIED: dict[str, VoiceChoice] = {}
"""The choice last given to the process's one espeak-ng engine (guarded by the lock)."""


def resolve_voice(voice: str, language: str) -> str:
    """The espeak-ng voice id for ``voice`` (``auto`` -> the language's voice)."""
    if voice != "auto":
        return voice
    try:
        return AUTO_VOICES[language]
    except KeyError:
        raise MissingDependency(
            f"no espeak-ng voice is known for language {language!r}; set voice.voice in "
            "config.yaml to one of `espeak-ng --voices` (e.g. zle/ru)"
        ) from None


def voice_choice(settings: Settings) -> VoiceChoice:
    """The voice, rate and volume the settings ask for."""
    voice: VoiceSettings = settings.voice
    return VoiceChoice(resolve_voice(voice.voice, settings.language), voice.rate, voice.volume)


class EspeakSynthesizer:
    """Renders text to a Clip with espeak-ng through pyttsx3, in one checked voice."""

    def __init__(self, choice: VoiceChoice) -> None:
        self.choice = choice
        self._engine = _start_engine()
        self._folder = tempfile.TemporaryDirectory(prefix="voicehost-tts-")
        known = _voice_ids(self._engine)
        if choice.voice not in known:
            raise _missing_voice(choice.voice)
        self.render("1")  # properties are applied when the engine runs: check the voice now

    @property
    def engine_version(self) -> str:
        """espeak-ng's and pyttsx3's versions (a cache key: a new engine sounds different)."""
        return engine_version()

    def render(self, text: str) -> Clip:
        """The spoken ``text`` as a clip (espeak-ng's rate, with its own silence at the ends)."""
        path = Path(self._folder.name) / "render.wav"
        if not text.strip():
            return Clip(np.zeros(0, dtype=np.float32), ESPEAK_RATE)
        with _ENGINE_LOCK:
            engine = self._engine
            if _APPLIED.get("choice") != self.choice:  # a voice change costs 1.5 ms: only then
                engine.setProperty("voice", self.choice.voice)
                engine.setProperty("rate", self.choice.rate)
                engine.setProperty("volume", self.choice.volume)
                _APPLIED["choice"] = self.choice
            engine.save_to_file(text, str(path))
            with contextlib.redirect_stdout(io.StringIO()):  # pyttsx3 prints "Audio saved to"
                engine.runAndWait()
            actual = str(engine.getProperty("voice"))
            if actual != self.choice.voice:
                raise _missing_voice(self.choice.voice, actual)
            clip = read_wav(path)
        return clip

    def close(self) -> None:
        """Remove the scratch folder."""
        self._folder.cleanup()


def engine_version() -> str:
    """``espeak-ng <version> / pyttsx3 <version>``, or ``unknown`` parts when unreadable."""
    espeak = "unknown"
    try:
        from pyttsx3.drivers import _espeak

        espeak = _espeak.Info().decode("ascii", "replace")
    except Exception:  # noqa: BLE001 - the version only names the cache; never fatal
        pass
    pyttsx3_version = "unknown"
    with contextlib.suppress(Exception):
        from importlib.metadata import version

        pyttsx3_version = version("pyttsx3")
    return f"espeak-ng {espeak} / pyttsx3 {pyttsx3_version}"


def _start_engine() -> Any:
    try:
        import pyttsx3
    except ImportError as exc:
        raise MissingDependency(f"the pyttsx3 package is missing; {INSTALL_HINT}") from exc
    try:
        with _ENGINE_LOCK:
            engine = pyttsx3.init("espeak")
    except Exception as exc:  # noqa: BLE001 - pyttsx3 raises OSError/RuntimeError/... when espeak is absent
        raise MissingDependency(
            f"the speech engine espeak-ng cannot start ({exc}); {INSTALL_HINT}"
        ) from exc
    _allow_phonemes()
    return engine


def _allow_phonemes() -> None:
    """Let espeak-ng read ``[[...]]`` as phonemes, as its command line does.

    The phrase book gives a stressed word («го́лоса») as phonemes (``[[g'olVsa]]``) because
    espeak-ng ignores a stress mark in Russian text; pyttsx3 synthesises without espeak's
    PHONEMES flag, so its call is wrapped once to add it.
    """
    from pyttsx3.drivers import _espeak

    synth = _espeak.Synth
    if getattr(synth, "voicehost_phonemes", False):
        return

    def with_phonemes(text: bytes, *args: Any, flags: int = 0, **kwargs: Any) -> Any:
        return synth(text, *args, flags=flags | _espeak.PHONEMES, **kwargs)

    with_phonemes.voicehost_phonemes = True  # type: ignore[attr-defined]
    _espeak.Synth = with_phonemes


def _voice_ids(engine: Any) -> set[str]:
    with _ENGINE_LOCK:
        return {str(voice.id) for voice in engine.getProperty("voices")}


def _missing_voice(wanted: str, actual: str | None = None) -> MissingDependency:
    fell_back = f" (it fell back to «{actual}»)" if actual else ""
    return MissingDependency(
        f"espeak-ng has no voice «{wanted}»{fell_back}, so it would read Russian letter by letter; "
        f"{INSTALL_HINT}, check `espeak-ng --voices` lists it, or set voice.voice in config.yaml"
    )
