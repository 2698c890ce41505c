"""Where the Listener's audio comes from: a live microphone, a WAV file, or samples in memory.

Every source yields :class:`AudioBlock` s of mono int16 samples stamped with the clock time of
their first sample, so a recording, the ALSA file device and a live microphone share one code
path in the Listener.
"""

from __future__ import annotations

import queue
import threading
import wave
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from voicehost.errors import DeviceError, MissingDependency, VoicehostError

if TYPE_CHECKING:
    from voicehost.ports import Clock


@dataclass(frozen=True)
class AudioBlock:
    """A stretch of mono int16 audio; ``captured_at`` is the clock time of its first sample."""

    samples: np.ndarray
    captured_at: float
    sample_rate: int

    @property
    def seconds(self) -> float:
        """Length of the block (seconds)."""
        return len(self.samples) / self.sample_rate

    @property
    def ends_at(self) -> float:
        """Clock time just after its last sample."""
        return self.captured_at + self.seconds


class AudioSource(Protocol):
    """Yields audio blocks until closed (a microphone) or exhausted (a recording)."""

    sample_rate: int

    def open(self) -> None:
        """Start capturing (again, after ``close``); a recording has nothing to open."""
        ...

    def blocks(self) -> Iterator[AudioBlock]: ...

    def close(self) -> None: ...


class ArraySource:
    """Samples in memory, as if captured from clock time ``start_at`` on (recordings, tests)."""

    def __init__(
        self,
        samples: np.ndarray,
        sample_rate: int,
        start_at: float = 0.0,
        block_seconds: float = 0.05,
    ) -> None:
        if samples.dtype != np.int16 or samples.ndim != 1:
            raise ValueError("ArraySource takes mono int16 samples")
        self.samples = samples
        self.sample_rate = sample_rate
        self.start_at = start_at
        self.block_frames = max(1, round(sample_rate * block_seconds))
        self._closed = threading.Event()

    @property
    def seconds(self) -> float:
        """Length of the recording (seconds)."""
        return len(self.samples) / self.sample_rate

    def open(self) -> None:
        """A recording in memory has nothing to open."""

    def blocks(self) -> Iterator[AudioBlock]:
        for first in range(0, len(self.samples), self.block_frames):
            if self._closed.is_set():
                return
            chunk = self.samples[first : first + self.block_frames]
            yield AudioBlock(chunk, self.start_at + first / self.sample_rate, self.sample_rate)

    def close(self) -> None:
        self._closed.set()


class WavError(VoicehostError):
    """A recording cannot be read; the text says what kind of file is needed."""


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    """Mono int16 samples and the rate of a 16-bit PCM WAV file (stereo is mixed down)."""
    try:
        with wave.open(str(path), "rb") as recording:
            width = recording.getsampwidth()
            channels = recording.getnchannels()
            rate = recording.getframerate()
            raw = recording.readframes(recording.getnframes())
    except FileNotFoundError as exc:
        raise WavError(f"{path}: no such file", phrase="no_such_file", path=path) from exc
    except (wave.Error, EOFError) as exc:
        raise WavError(
            f"{path}: not a PCM WAV file ({exc}); convert it, e.g. "
            f"`ffmpeg -i {path.name} -ac 1 -ar 16000 out.wav`",
            phrase="wav_not_pcm",
            path=path,
            name=path.name,
            library=exc,
        ) from exc
    if width != 2:
        raise WavError(
            f"{path}: {8 * width}-bit samples; the listener reads 16-bit PCM "
            f"(`ffmpeg -i {path.name} -ac 1 -ar 16000 -sample_fmt s16 out.wav`)"
        )
    samples = np.frombuffer(raw, dtype="<i2").astype(np.int16)
    if channels > 1:
        samples = samples.reshape(-1, channels).mean(axis=1).astype(np.int16)
    return samples, rate


def wav_source(path: Path, start_at: float = 0.0, block_seconds: float = 0.05) -> ArraySource:
    """A WAV recording as an audio source, its first sample at clock time ``start_at``."""
    samples, rate = read_wav(path)
    return ArraySource(samples, rate, start_at=start_at, block_seconds=block_seconds)


def no_microphone(exc: Exception, also: str = "") -> DeviceError:
    """The error of a microphone that cannot be opened, with what to check."""
    return DeviceError(
        f"cannot open the microphone ({exc}); check `arecord -l` and set "
        f"audio.input_device in config.yaml{also}",
        phrase="reason_no_microphone_listener" if also else "reason_no_microphone",
        library=str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__,
    )


class MicrophoneSource:
    """A live microphone through sounddevice, 16-bit mono.

    The stream's callback only copies the block into a queue with its capture time, so input
    never overflows however long Vosk takes; :meth:`blocks` hands them to the Listener's thread.
    Should the Listener fall more than ``max_queue_seconds`` behind, new audio is dropped (and
    counted in ``overflows``) rather than filling the memory.

    A block's capture time is the clock's time at the callback minus the block's length. A
    sound card that is not real time (the ALSA file device of the tests delivers a whole file
    at once) is stamped by its sample count instead: ``real_time=False``.
    """

    def __init__(
        self,
        clock: Clock,
        device: str = "",
        sample_rate: int = 16000,
        block_seconds: float = 0.05,
        real_time: bool = True,
        max_queue_seconds: float = 10.0,
    ) -> None:
        self.clock = clock
        self.device = device or None
        self.sample_rate = sample_rate
        self.block_frames = max(1, round(sample_rate * block_seconds))
        self.real_time = real_time
        self.max_blocks = max(1, round(max_queue_seconds / block_seconds))
        self.overflows = 0
        self._queue: queue.Queue[AudioBlock | None] = queue.Queue()
        self._stream: Any = None
        self._opened_at = 0.0
        self._frames = 0

    def open(self) -> None:
        """Open the input stream now, so a missing microphone is reported at startup."""
        if self._stream is not None:
            return
        sounddevice = _import_sounddevice()
        self._opened_at = self.clock.now()
        self._frames = 0
        try:
            self._stream = sounddevice.InputStream(
                samplerate=self.sample_rate,
                channels=1,
                dtype="int16",
                blocksize=self.block_frames,
                device=self.device,
                callback=self._on_audio,
            )
            self._stream.start()
        except Exception as exc:  # sounddevice raises PortAudioError or ValueError
            self._stream = None
            raise no_microphone(exc, ", or set listener.enabled: false") from exc

    def _on_audio(self, data: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        if status and status.input_overflow:
            self.overflows += 1
        if self.real_time:
            captured_at = self.clock.now() - frames / self.sample_rate
        else:
            captured_at = self._opened_at + self._frames / self.sample_rate
        self._frames += frames
        if self._queue.qsize() >= self.max_blocks:
            self.overflows += 1
            return
        self._queue.put(AudioBlock(data[:, 0].copy(), captured_at, self.sample_rate))

    def blocks(self) -> Iterator[AudioBlock]:
        self.open()
        while True:
            block = self._queue.get()
            if block is None:
                return
            yield block

    def close(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.stop()
            stream.close()
        self._queue.put(None)


def _import_sounddevice() -> Any:
    try:
        import sounddevice
    except (ImportError, OSError) as exc:
        raise MissingDependency(
            f"the microphone needs sounddevice and PortAudio ({exc}); install them with "
            "`sudo apt-get install libportaudio2` and `.venv/bin/pip install sounddevice`"
        ) from exc
    return sounddevice


class MicrophoneReader:
    """A microphone read on demand (blocking reads), for recording voice-pack takes.

    Unlike :class:`MicrophoneSource` nothing is queued: the caller reads what it needs. A live
    microphone keeps capturing between reads, so :meth:`discard_pending` drops what was heard
    while the host listened to a playback; a device that is not real time (the ALSA file device
    of the tests) delivers exactly what is read, so nothing is dropped: ``real_time=False``.
    """

    def __init__(self, device: str = "", sample_rate: int = 16000, real_time: bool = True) -> None:
        self.device = device or None
        self.sample_rate = sample_rate
        self.real_time = real_time
        self._stream: Any = None

    def open(self) -> None:
        """Open the input stream; DeviceError with a hint when there is no microphone."""
        if self._stream is not None:
            return
        sounddevice = _import_sounddevice()
        try:
            self._stream = sounddevice.InputStream(
                samplerate=self.sample_rate, channels=1, dtype="int16", device=self.device
            )
            self._stream.start()
        except Exception as exc:  # sounddevice raises PortAudioError or ValueError
            self._stream = None
            raise no_microphone(exc) from exc

    def read(self, frames: int) -> np.ndarray:
        """The next ``frames`` mono int16 samples."""
        self.open()
        data, _overflowed = self._stream.read(frames)
        return np.asarray(data[:, 0], dtype=np.int16).copy()

    def discard_pending(self) -> None:
        """Drop audio captured since the last read (a live microphone only)."""
        if self.real_time and self._stream is not None:
            waiting = int(self._stream.read_available)
            if waiting:
                self._stream.read(waiting)

    def close(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.stop()
            stream.close()
