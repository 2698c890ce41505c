"""Audio clips and the few sound operations voice out needs: pure numpy, no device.

A ``Clip`` is mono float32 samples in -1..1 at a sample rate. Everything the table hears (an
announcement, a cue, the night's masking loop) is a Clip before the mixer places it in time.

Loudness is measured as *gated RMS*: the energy of the 20 ms windows that carry sound (louder
than -60 dBFS and within 30 dB of the loudest window), so pauses and silent padding do not
lower the figure. Recordings and synthesis levelled to the same gated RMS sound equally loud.
"""

from __future__ import annotations

import io
import math
import wave
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from voicehost.errors import VoicehostError

Samples = npt.NDArray[np.float32]

FLOOR_DBFS = -120.0
"""The level of digital silence, and the lowest level any figure in dBFS has: every level in
voicehost (the players' voices, the room's noise, a take, a cue) is computed by
``power_dbfs``, ``level_dbfs`` or ``frame_levels_dbfs`` below, so all share this floor."""

INT16_FULL_SCALE = 32768.0
"""An int16 sample (the microphone's) at full scale: levels of int16 and float samples agree."""

LOUDNESS_WINDOW_SECONDS = 0.02
"""Window length for gated loudness (seconds)."""

LOUDNESS_ABSOLUTE_GATE_DBFS = -60.0
"""Windows quieter than this are silence and do not count towards loudness."""

LOUDNESS_RELATIVE_GATE_DB = 30.0
"""Windows this far below the loudest window are pauses and do not count either."""

SILENCE_THRESHOLD = 10 ** (-50 / 20)
"""Amplitude below which the ends of a clip count as silence and are trimmed (-50 dBFS)."""

LIMITER_KNEE = 0.8
"""Peaks above this amplitude are softly compressed so that levelling never clips."""


class AudioFileError(VoicehostError):
    """An audio file cannot be read or written; the text names the file and what to do."""


@dataclass(frozen=True, eq=False)
class Clip:
    """Mono audio: float32 ``samples`` in -1..1 at ``rate`` hertz."""

    samples: Samples
    rate: int

    @property
    def duration(self) -> float:
        """Length in seconds."""
        return len(self.samples) / self.rate

    @property
    def frames(self) -> int:
        """Length in samples."""
        return len(self.samples)


def silence(seconds: float, rate: int) -> Clip:
    """A silent clip of ``seconds``."""
    return Clip(np.zeros(max(0, round(seconds * rate)), dtype=np.float32), rate)


def from_int16(data: bytes, rate: int) -> Clip:
    """A clip from little-endian 16-bit PCM bytes."""
    samples = np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0
    return Clip(samples, rate)


def to_int16(samples: Samples) -> bytes:
    """Little-endian 16-bit PCM bytes of float samples (clipped to full scale)."""
    scaled = np.clip(samples, -1.0, 1.0) * 32767.0
    return np.round(scaled).astype("<i2").tobytes()


def read_wav(path: Path) -> Clip:
    """A 16- or 32-bit PCM WAV file (mono, or stereo mixed down to mono)."""
    try:
        with wave.open(str(path), "rb") as reader:
            channels = reader.getnchannels()
            width = reader.getsampwidth()
            rate = reader.getframerate()
            data = reader.readframes(reader.getnframes())
    except (OSError, EOFError, wave.Error) as exc:
        raise AudioFileError(f"cannot read {path}: {exc}; delete it and render it again") from exc
    if width == 2:
        clip = from_int16(data, rate)
    elif width == 4:  # what a sound card's file device records
        clip = Clip((np.frombuffer(data, dtype="<i4") / 2.0**31).astype(np.float32), rate)
    else:
        raise AudioFileError(f"{path}: only 16- and 32-bit WAV are read here, not {8 * width}-bit")
    if channels > 1:
        frames = clip.samples[: len(clip.samples) // channels * channels]
        clip = Clip(frames.reshape(-1, channels).mean(axis=1).astype(np.float32), rate)
    return clip


def write_wav(clip: Clip, path: Path | io.BufferedIOBase) -> None:
    """Write a clip as mono 16-bit PCM WAV (to a path or an open binary file)."""
    target = str(path) if isinstance(path, Path) else path
    with wave.open(target, "wb") as writer:  # type: ignore[arg-type]  # wave takes both
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(clip.rate)
        writer.writeframes(to_int16(clip.samples))


def resample(clip: Clip, rate: int) -> Clip:
    """The clip at ``rate`` hertz, band-limited first, so nothing above the lower rate's
    Nyquist frequency folds back as a whistle (a 48 kHz cue played by a 22 kHz card).

    The converter is libsoxr's (its high-quality preset), the library behind ffmpeg's own
    resampling and a Debian package on every architecture a Pi runs (libsoxr0); where it is
    missing, the same band-limited conversion is done in numpy through the Fourier transform.
    See docs/PERFORMANCE.md for why this library and not SciPy's or a wheel.
    """
    if clip.rate == rate or clip.frames == 0:
        return clip if clip.rate == rate else Clip(clip.samples, rate)
    length = max(1, round(clip.frames * rate / clip.rate))
    samples = np.ascontiguousarray(clip.samples, dtype=np.float32)
    converted = _soxr_resample(samples, clip.rate, rate, length)
    if converted is None:
        converted = _fourier_resample(samples, length)
    return Clip(converted, rate)


_SOXR: list[Any] = []
"""libsoxr's ``soxr_oneshot`` once looked for (None when the library is missing)."""


def _soxr() -> Any:
    """libsoxr's ``soxr_oneshot`` through ctypes, or None where the library is missing."""
    if not _SOXR:
        import ctypes

        oneshot: Any = None
        try:
            oneshot = ctypes.CDLL("libsoxr.so.0").soxr_oneshot
        except (OSError, AttributeError):
            oneshot = None
        if oneshot is not None:
            size_p = ctypes.POINTER(ctypes.c_size_t)
            oneshot.restype = ctypes.c_char_p  # an error's text, NULL when it went well
            oneshot.argtypes = [
                ctypes.c_double, ctypes.c_double, ctypes.c_uint,
                ctypes.c_void_p, ctypes.c_size_t, size_p,
                ctypes.c_void_p, ctypes.c_size_t, size_p,
                ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
            ]  # fmt: skip
        _SOXR.append(oneshot)
    return _SOXR[0]


def _soxr_resample(samples: Samples, old: int, new: int, length: int) -> Samples | None:
    """``samples`` (float32 mono) from ``old`` to ``new`` hertz, ``length`` of them, by
    libsoxr (default specs: float32 in and out, high quality); None without libsoxr."""
    oneshot = _soxr()
    if oneshot is None:
        return None
    import ctypes

    out = np.zeros(length, dtype=np.float32)
    done = ctypes.c_size_t(0)
    error = oneshot(
        float(old), float(new), 1,
        samples.ctypes.data, len(samples), None,
        out.ctypes.data, length, ctypes.byref(done),
        None, None, None,
    )  # fmt: skip
    if error is not None:
        return None  # the numpy conversion does it instead
    return out


def _fourier_resample(samples: Samples, length: int) -> Samples:
    """Band-limited conversion to ``length`` samples in numpy: the spectrum is cut (or padded)
    at the lower rate's Nyquist frequency. Silence around the clip keeps the transform's
    wrap-around from joining its end to its start."""
    pad = max(64, len(samples) // 8)
    padded = np.concatenate([np.zeros(pad), np.asarray(samples, dtype=np.float64), np.zeros(pad)])
    ratio = length / len(samples)
    total = max(1, round(len(padded) * ratio))
    spectrum = np.fft.rfft(padded)
    kept = np.zeros(total // 2 + 1, dtype=complex)
    bins = min(len(spectrum), len(kept))
    kept[:bins] = spectrum[:bins]
    converted = np.fft.irfft(kept, total) * (total / len(padded))
    start = round(pad * ratio)
    return converted[start : start + length].astype(np.float32)


def trim_silence(clip: Clip, margin_seconds: float = 0.01) -> Clip:
    """The clip without the silence at its ends (keeping ``margin_seconds`` of each)."""
    loud = np.flatnonzero(np.abs(clip.samples) > SILENCE_THRESHOLD)
    if len(loud) == 0:
        return Clip(clip.samples[:0], clip.rate)
    margin = round(margin_seconds * clip.rate)
    start = max(0, int(loud[0]) - margin)
    end = min(clip.frames, int(loud[-1]) + 1 + margin)
    return Clip(clip.samples[start:end], clip.rate)


def power_dbfs(power: float) -> float:
    """A mean power (full scale 1.0) in dBFS, never below ``FLOOR_DBFS``."""
    floor = 10.0 ** (FLOOR_DBFS / 10.0)
    return 10.0 * math.log10(power) if power > floor else FLOOR_DBFS


def _full_scale(samples: npt.NDArray[np.generic]) -> npt.NDArray[np.float64]:
    """Samples as float64 with full scale at 1.0 (int16 ones are divided by 32768)."""
    values = np.asarray(samples).reshape(-1)
    scale = INT16_FULL_SCALE if values.dtype.kind in "iu" else 1.0
    return values.astype(np.float64) / scale


def level_dbfs(samples: npt.NDArray[np.generic]) -> float:
    """The RMS level of int16 or float samples in dBFS (``FLOOR_DBFS`` for none or silence)."""
    return _rms_dbfs(_full_scale(samples))


def _rms_dbfs(values: npt.NDArray[np.float64]) -> float:
    """:func:`level_dbfs` of samples already at full scale 1.0."""
    return power_dbfs(float(np.mean(values * values))) if values.size else FLOOR_DBFS


TREBLE = 0.95
"""Each sample less this much of the one before: low tones down by up to 26 dB, high ones up
by 6 dB (pre-emphasis, as speech recognisers hear)."""


def treble_dbfs(samples: npt.NDArray[np.generic]) -> float:
    """:func:`level_dbfs` of int16 or float samples with their low tones taken down
    (:data:`TREBLE`). Pink noise and a room's rumble carry their power in a few low tones, so a
    32 ms frame of them is louder or softer by chance (2 dB from frame to frame on the listening
    set's pink noise at 10 dB); with those tones down, 0.3 dB: a frame of the room is told from
    a voice to a dB (``voice_in/rule.py``, ``room_floor_db``)."""
    values = _full_scale(samples)
    return _rms_dbfs(values[1:] - TREBLE * values[:-1] if len(values) > 1 else values)


def frame_levels_dbfs(samples: npt.NDArray[np.generic], frame: int) -> npt.NDArray[np.float64]:
    """The RMS level (dBFS, at least ``FLOOR_DBFS``) of each whole frame of ``frame`` samples;
    fewer samples than one frame are one frame (none at all: the floor)."""
    values = _full_scale(samples)
    frame = max(1, frame)
    count = len(values) // frame
    if count == 0:
        return np.full(1, level_dbfs(values))
    frames = values[: count * frame].reshape(count, frame)
    power = np.mean(frames * frames, axis=1)
    floor = 10.0 ** (FLOOR_DBFS / 10.0)
    return 10.0 * np.log10(np.maximum(power, floor))


def window_levels_dbfs(clip: Clip, window_seconds: float = LOUDNESS_WINDOW_SECONDS) -> Samples:
    """RMS level of each window of the clip, in dBFS (``FLOOR_DBFS`` for digital silence)."""
    window = round(window_seconds * clip.rate)
    return frame_levels_dbfs(clip.samples, window).astype(np.float32)


def loudness_dbfs(clip: Clip) -> float:
    """Gated RMS loudness in dBFS; ``FLOOR_DBFS`` for a silent clip (see the module text)."""
    if clip.frames == 0:
        return FLOOR_DBFS
    levels = window_levels_dbfs(clip)
    audible = levels[levels > LOUDNESS_ABSOLUTE_GATE_DBFS]
    if len(audible) == 0:
        return FLOOR_DBFS
    kept = audible[audible > audible.max() - LOUDNESS_RELATIVE_GATE_DB]
    return power_dbfs(float(np.mean(10.0 ** (kept.astype(np.float64) / 10.0))))


def soft_limit(samples: Samples, knee: float = LIMITER_KNEE) -> Samples:
    """Compress peaks above ``knee`` smoothly towards full scale; quieter samples are untouched."""
    magnitude = np.abs(samples)
    over = magnitude > knee
    if not np.any(over):
        return samples
    headroom = 1.0 - knee
    limited = samples.copy()
    excess = (magnitude[over] - knee) / headroom
    limited[over] = np.sign(samples[over]) * (knee + headroom * np.tanh(excess))
    return limited


def normalise(clip: Clip, target_dbfs: float, gain: float = 1.0) -> Clip:
    """The clip levelled to ``target_dbfs`` gated loudness, times ``gain``, peaks limited.

    A silent clip is returned as it is.
    """
    level = loudness_dbfs(clip)
    if level <= FLOOR_DBFS:
        return clip
    factor = np.float32(10 ** ((target_dbfs - level) / 20) * gain)
    return Clip(soft_limit((clip.samples * factor).astype(np.float32)), clip.rate)


def concatenate(clips: Sequence[Clip], pauses: Sequence[float], rate: int) -> Clip:
    """Clips one after another with ``pauses[i]`` seconds of silence after clip ``i``.

    ``pauses`` has one entry fewer than ``clips`` (a trailing entry is ignored).
    """
    parts: list[Samples] = []
    for index, clip in enumerate(clips):
        parts.append(resample(clip, rate).samples)
        if index < len(clips) - 1 and index < len(pauses):
            parts.append(np.zeros(max(0, round(pauses[index] * rate)), dtype=np.float32))
    if not parts:
        return Clip(np.zeros(0, dtype=np.float32), rate)
    return Clip(np.concatenate(parts).astype(np.float32), rate)


@dataclass(frozen=True)
class Cut:
    """A stretch removed from a clip: ``removed`` samples from ``position`` of the original."""

    position: int
    removed: int


def compress_silences(
    clip: Clip,
    longest_seconds: float,
    threshold_dbfs: float = -55.0,
    window_seconds: float = 0.01,
) -> tuple[Clip, list[Cut]]:
    """Shorten every silence longer than ``longest_seconds`` to that length.

    The middle of a long silence is removed (its two ends stay, so sounds keep their decay and
    onset). Returns the new clip and the cuts, for mapping positions (``position_after_cuts``).
    """
    window = max(1, round(window_seconds * clip.rate))
    quiet = window_levels_dbfs(clip, window_seconds) < threshold_dbfs
    keep_each_side = round(longest_seconds * clip.rate / 2)
    cuts: list[Cut] = []
    run_start: int | None = None
    for index, is_quiet in enumerate([*quiet.tolist(), False]):
        if is_quiet and run_start is None:
            run_start = index
        elif not is_quiet and run_start is not None:
            first, last = run_start * window, index * window
            if last - first > 2 * keep_each_side:
                cuts.append(Cut(first + keep_each_side, last - first - 2 * keep_each_side))
            run_start = None
    parts: list[Samples] = []
    cursor = 0
    for cut in cuts:
        parts.append(clip.samples[cursor : cut.position])
        cursor = cut.position + cut.removed
    parts.append(clip.samples[cursor:])
    return Clip(np.concatenate(parts).astype(np.float32), clip.rate), cuts


def position_after_cuts(position: int, cuts: Sequence[Cut]) -> int:
    """Where sample ``position`` of the original is after ``cuts`` (a cut sample: the cut's end)."""
    moved = position
    for cut in cuts:
        if cut.position >= position:
            break
        moved -= min(cut.removed, position - cut.position)
    return moved


def loudness_window_dbfs(samples: Samples) -> np.float32:
    """The RMS level of ``samples`` as one window, in dBFS (``FLOOR_DBFS`` for silence)."""
    return np.float32(level_dbfs(samples))


class SilenceSqueezer:
    """``compress_silences`` for audio that comes block by block (a game's timeline as it is
    rendered): the same cuts and the same samples kept, holding at most ``longest_seconds``
    of silence in memory instead of the whole game.

    ``feed(block)`` returns the samples that can be written now; ``finish()`` the rest.
    ``cuts`` are the stretches removed (positions of the original, as ``compress_silences``
    gives them); ``frames`` counts the samples fed.
    """

    def __init__(
        self,
        rate: int,
        longest_seconds: float,
        threshold_dbfs: float = -55.0,
        window_seconds: float = 0.01,
    ) -> None:
        self.rate = rate
        self.window = max(1, round(window_seconds * rate))
        self.keep = round(longest_seconds * rate / 2)
        self.threshold = threshold_dbfs
        self.cuts: list[Cut] = []
        self.frames = 0
        self._pending = np.zeros(0, dtype=np.float32)  # less than one window, not yet judged
        self._run_start: int | None = None  # first sample of the silence being heard
        self._run_length = 0
        self._tail: list[Samples] = []  # the silence after its first `keep` samples, at most
        self._tail_length = 0  # `keep` of its last samples (the rest is cut)

    def feed(self, samples: Samples) -> Samples:
        """The samples of ``samples`` (and of earlier blocks) that are kept, in order."""
        self.frames += len(samples)
        data = np.concatenate([self._pending, samples]) if len(self._pending) else samples
        whole = len(data) // self.window * self.window
        self._pending = data[whole:].copy()
        if whole == 0:
            return np.zeros(0, dtype=np.float32)
        levels = frame_levels_dbfs(data[:whole], self.window).astype(np.float32)
        quiet = levels < self.threshold
        start = self.frames - len(samples) - (len(data) - len(samples))  # of data[0]
        out: list[Samples] = []
        index = 0
        while index < len(quiet):
            same = index + 1
            while same < len(quiet) and quiet[same] == quiet[index]:
                same += 1
            piece = data[index * self.window : same * self.window]
            if quiet[index]:
                self._silence(start + index * self.window, piece, out)
            else:
                self._end_silence(out)
                out.append(piece)
            index = same
        return np.concatenate(out).astype(np.float32) if out else np.zeros(0, dtype=np.float32)

    def finish(self) -> Samples:
        """What is left: the end of a silence in progress and the last part-window."""
        out: list[Samples] = []
        pending, self._pending = self._pending, np.zeros(0, dtype=np.float32)
        if 0 < self.frames < self.window:  # shorter than a window: judged whole, as a clip is
            level = loudness_window_dbfs(pending)
            if level < self.threshold:
                self._silence(0, pending, out)
                pending = pending[:0]
        self._end_silence(out)
        out.append(pending)
        return np.concatenate(out).astype(np.float32)

    def _silence(self, position: int, piece: Samples, out: list[Samples]) -> None:
        if self._run_start is None:
            self._run_start, self._run_length = position, 0
        head = max(0, min(len(piece), self.keep - self._run_length))
        if head:
            out.append(piece[:head])  # a silence's first `keep` samples always stay
        self._run_length += len(piece)
        if head < len(piece):
            self._tail.append(piece[head:])
            self._tail_length += len(piece) - head
            while self._tail and self._tail_length - len(self._tail[0]) >= self.keep:
                self._tail_length -= len(self._tail.pop(0))

    def _end_silence(self, out: list[Samples]) -> None:
        if self._run_start is None:
            return
        tail = np.concatenate(self._tail) if self._tail else np.zeros(0, dtype=np.float32)
        if self._run_length > 2 * self.keep:
            removed = self._run_length - 2 * self.keep
            self.cuts.append(Cut(self._run_start + self.keep, removed))
            tail = tail[len(tail) - self.keep :] if self.keep else tail[:0]
        out.append(tail)
        self._run_start, self._run_length = None, 0
        self._tail, self._tail_length = [], 0
