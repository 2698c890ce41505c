"""Speech synthesis: espeak-ng through pyttsx3, rendered to WAV (never spoken by pyttsx3 itself).

espeak-ng ignores a voice it does not know and speaks English instead, reading Cyrillic letter
by letter. So the synthesizer checks, after every change, that the voice really is the one
asked for, and stops with an install hint when it is missing.

pyttsx3's ``say()`` shells out to ``aplay`` and blocks; a game never uses it. ``render`` calls
``save_to_file`` + ``runAndWait`` and reads the WAV back. espeak-ng is one engine per process,
so every call holds one module lock.

pyttsx3's espeak driver returns from ``runAndWait()`` as soon as espeak-ng has *started*: the
WAV is written later, from espeak-ng's own thread, when the utterance ends (about 10 ms on a
PC, 100 ms and more on a Raspberry Pi or under emulation). So ``render`` waits for the driver's
``finished-utterance`` notice, which comes after the file is closed, renders every phrase to a
file of its own (a late file can never pass for the next phrase's audio), and checks the file
is whole and as long as its text before anyone uses it.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import io
import itertools
import logging
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost.config import Settings, VoiceSettings
from voicehost.errors import MissingDependency, VoicehostError
from voicehost.notices import LOG_ONLY
from voicehost.voice_out.wavcheck import check_wav

if TYPE_CHECKING:
    from voicehost.clips import Clip

log = logging.getLogger(__name__)

AUTO_VOICES = {"ru": "zle/ru", "en": "gmw/en"}
"""The espeak-ng voice ``voice: auto`` picks for each phrase-book language."""

INSTALL_HINT = (
    "install it with `sudo apt-get install espeak-ng` (and `.venv/bin/pip install pyttsx3`)"
)

ESPEAK_RATE = 22050
"""Sample rate of espeak-ng's output (hertz)."""

SYNTHESIS_ATTEMPTS = 3
"""Tries per phrase when espeak-ng reports it was cancelled before the end (then it is said
again; a phrase that never completes stops the build with a message)."""

SYNTHESIS_TIMEOUT_SECONDS = 30.0
"""How long one phrase may take to synthesise, plus a second per character (espeak-ng takes
about 10 ms a phrase on a PC and ten times that under emulation: only a hung engine is slower)."""

_ENGINE_LOCK = threading.Lock()


class SynthesisError(VoicehostError):
    """espeak-ng did not produce whole audio for a text; the message names it and what to do."""


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

_ENGINE: list[Any] = []
"""The process's one pyttsx3 engine, kept alive: pyttsx3 forgets an engine nobody holds, and
its next driver starts in the default voice behind ``_APPLIED``'s back."""


class _Utterance:
    """The end of the utterance in progress, as pyttsx3 reports it from espeak-ng's thread."""

    def __init__(self) -> None:
        self.finished = threading.Event()
        self.completed = False

    def start(self) -> None:
        self.finished.clear()
        self.completed = False

    def on_finished(self, name: object = None, completed: bool = True) -> None:
        """pyttsx3's ``finished-utterance`` notice (sent after the WAV file is closed)."""
        self.completed = bool(completed)
        self.finished.set()


_UTTERANCE = _Utterance()


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
        self._numbers = itertools.count()
        known = _voice_ids(self._engine)
        if choice.voice not in known:
            raise _missing_voice(choice.voice)
        self.render("1")  # properties are applied when the engine runs: check the voice now

    @property
    def engine_version(self) -> str:
        """espeak-ng's and pyttsx3's versions (a cache key: a new engine sounds different)."""
        return engine_version()

    def render(self, text: str) -> Clip:
        """The spoken ``text`` as a clip (espeak-ng's rate, with its own silence at the ends).

        Raises SynthesisError when espeak-ng does not finish, or finishes with a broken file.
        """
        if not text.strip():
            from voicehost.clips import silence

            return silence(0, ESPEAK_RATE)
        with _ENGINE_LOCK:
            path = Path(self._folder.name) / f"render-{next(self._numbers)}.wav"
            engine = self._engine
            if _APPLIED.get("choice") != self.choice or not _speaks_at(self.choice):
                self._apply(engine)
            for attempt in range(SYNTHESIS_ATTEMPTS):
                _UTTERANCE.start()
                engine.save_to_file(text, str(path))
                # pyttsx3 prints "Audio saved to", from espeak-ng's thread, after runAndWait
                with contextlib.redirect_stdout(io.StringIO()):
                    engine.runAndWait()
                    self._wait_until_written(text)
                if _UTTERANCE.completed:
                    break
                log.info(
                    "espeak-ng was cancelled in «%s» (attempt %d)",
                    text,
                    attempt + 1,
                    extra=LOG_ONLY,
                )
            else:
                raise SynthesisError(
                    f"espeak-ng stopped before the end of «{text}» {SYNTHESIS_ATTEMPTS} times; "
                    "run `voicehost phrases build` again"
                )
            actual = str(engine.getProperty("voice"))
            if actual != self.choice.voice:
                raise _missing_voice(self.choice.voice, actual)
            try:
                clip = self._checked_clip(text, path)
            finally:
                path.unlink(missing_ok=True)
        return clip

    def _apply(self, engine: Any) -> None:
        """Give espeak-ng this voice, rate and volume, and make sure it really took them.

        espeak-ng queues a rate or volume change behind whatever it is doing, and pyttsx3's
        runAndWait() cancels that queue when espeak-ng is still busy. A fresh engine is busy
        with pyttsx3's own defaults (rate 200), so about one start in thirty kept rate 200 for
        the whole evening. So the change is read back from espeak-ng and made again until
        it holds.
        """
        _APPLIED.pop("choice", None)
        for _ in range(SYNTHESIS_ATTEMPTS):
            engine.setProperty("voice", self.choice.voice)
            engine.setProperty("rate", self.choice.rate)
            engine.setProperty("volume", self.choice.volume)
            if engine.proxy.isBusy():  # a fresh engine runs its commands only in its loop
                with contextlib.redirect_stdout(io.StringIO()):
                    engine.runAndWait()
            _wait_until_idle()
            if _speaks_at(self.choice):
                _APPLIED["choice"] = self.choice
                return
            log.info("espeak-ng dropped the rate or volume change; setting it again",
                     extra=LOG_ONLY)  # fmt: skip
        raise SynthesisError(
            f"espeak-ng does not keep rate {self.choice.rate} and volume {self.choice.volume}; "
            "check voice.rate and voice.volume in config.yaml, then run `voicehost phrases "
            "build` again"
        )

    def _wait_until_written(self, text: str) -> None:
        finished = _UTTERANCE.finished.wait(SYNTHESIS_TIMEOUT_SECONDS + len(text))
        if not finished:
            raise SynthesisError(
                f"espeak-ng did not finish speaking «{text}» within "
                f"{SYNTHESIS_TIMEOUT_SECONDS + len(text):.0f} s; check `espeak-ng -v "
                f"{self.choice.voice} '{text}'` works, then run `voicehost phrases build` again"
            )
        # espeak-ng still counts as playing for a moment after its last notice, and pyttsx3's
        # next runAndWait() would then cancel the *next* phrase: wait until it is really idle.
        _wait_until_idle()

    def _checked_clip(self, text: str, path: Path) -> Clip:
        problem = check_wav(path, text, self.choice.rate)
        if problem is not None:
            raise SynthesisError(
                f"espeak-ng's audio of «{text}» is broken: {problem}; check `espeak-ng -v "
                f"{self.choice.voice} '{text}'` speaks it, then run `voicehost phrases build` again"
            )
        from voicehost.clips import read_wav

        return read_wav(path)

    def close(self) -> None:
        """Remove the scratch folder."""
        self._folder.cleanup()


def available_voices() -> set[str]:
    """The voice ids espeak-ng offers (raises MissingDependency when it cannot start)."""
    return _voice_ids(_start_engine())


def engine_version() -> str:
    """``espeak-ng <version> / pyttsx3 <version>``, or ``unknown`` parts when unreadable."""
    espeak = "unknown"
    try:
        from pyttsx3.drivers import _espeak

        espeak = _espeak.Info().decode("ascii", "replace")
    except Exception:  # noqa: BLE001 - the version only names the cache; never fatal
        pass
    return f"espeak-ng {espeak} / pyttsx3 {_pyttsx3_version()}"


def _pyttsx3_version() -> str:
    """pyttsx3's version from its ``.dist-info`` folder's name (importlib.metadata costs a
    tenth of a second at every start: it reads every installed package's metadata)."""
    with contextlib.suppress(Exception):
        import importlib.util

        spec = importlib.util.find_spec("pyttsx3")
        if spec is not None and spec.origin is not None:
            for info in Path(spec.origin).parent.parent.glob("pyttsx3-*.dist-info"):
                return info.name.removeprefix("pyttsx3-").removesuffix(".dist-info")
    with contextlib.suppress(Exception):
        from importlib.metadata import version

        return version("pyttsx3")
    return "unknown"


def _start_engine() -> Any:
    try:
        import pyttsx3
    except ImportError as exc:
        raise MissingDependency(f"the pyttsx3 package is missing; {INSTALL_HINT}") from exc
    try:
        with _ENGINE_LOCK:
            if not _ENGINE:
                engine = pyttsx3.init("espeak")
                engine.connect("finished-utterance", _UTTERANCE.on_finished)
                _ENGINE.append(engine)
                # let it go while modules still exist (pyttsx3's __del__ fails at shutdown)
                atexit.register(_ENGINE.clear)
            engine = _ENGINE[0]
    except Exception as exc:  # noqa: BLE001 - pyttsx3 raises OSError/RuntimeError/... when espeak is absent
        raise MissingDependency(
            f"the speech engine espeak-ng cannot start ({exc}); {INSTALL_HINT}"
        ) from exc
    _allow_phonemes()
    _type_get_parameter()
    return engine


def _type_get_parameter() -> None:
    """Declare espeak-ng's ``espeak_GetParameter(parameter, current)`` for :func:`_speaks_at`
    (pyttsx3's own binding drops ``current`` and so reads the defaults, not what is set)."""
    try:
        from pyttsx3.drivers import _espeak

        get = _espeak.dll.espeak_GetParameter
    except Exception:  # noqa: BLE001 - an espeak without it: _speaks_at trusts the change
        return
    get.restype, get.argtypes = ctypes.c_int, [ctypes.c_int, ctypes.c_int]


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


def _wait_until_idle() -> None:
    deadline = time.monotonic() + SYNTHESIS_TIMEOUT_SECONDS
    while _is_playing() and time.monotonic() < deadline:
        time.sleep(0.002)


def _speaks_at(choice: VoiceChoice) -> bool:
    """True when espeak-ng's current rate and volume are the choice's (read back from it)."""
    try:
        from pyttsx3.drivers import _espeak

        get = _espeak.dll.espeak_GetParameter  # typed once by _start_engine
        rate, volume = get(_espeak.RATE, 1), get(_espeak.VOLUME, 1)
    except Exception:  # noqa: BLE001 - an espeak without it: trust the change was taken
        return True
    return rate == choice.rate and volume == int(round(choice.volume * 100, 2))


def _is_playing() -> bool:
    """True while espeak-ng's synthesis thread is still busy with an utterance."""
    try:
        from pyttsx3.drivers import _espeak

        return bool(_espeak.IsPlaying())
    except Exception:  # noqa: BLE001 - an older pyttsx3 without it: the notice must do
        return False


def _voice_ids(engine: Any) -> set[str]:
    with _ENGINE_LOCK:
        return {str(voice.id) for voice in engine.getProperty("voices")}


def _missing_voice(wanted: str, actual: str | None = None) -> MissingDependency:
    fell_back = f" (it fell back to «{actual}»)" if actual else ""
    return MissingDependency(
        f"espeak-ng has no voice «{wanted}»{fell_back}, so it would read Russian letter by letter; "
        f"{INSTALL_HINT}, check `espeak-ng --voices` lists it, or set voice.voice in config.yaml"
    )
