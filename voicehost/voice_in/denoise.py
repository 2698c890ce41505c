"""Take the room's steady noise out of the audio the second look decodes (spectral subtraction).

Vosk's small models hear a stop word under a fan, pink or white noise as a look-alike
(패스티, 페슈트, 생각합니다) far more often than in quiet. The second look decodes a second or so of
audio, and the Listener keeps the last few seconds, most of them the room between words: its
quietest frames give the noise's spectrum, which is taken out of every frame (``over`` times
it, never below ``floor`` of the frame), and the clip is put back together by overlap-add.

Only steady noise goes: babble (other voices) is speech, and stays. Pure numpy, a few
milliseconds per look.
"""

from __future__ import annotations

import numpy as np

FRAME = 512
"""Samples per analysis frame (32 ms at 16 kHz)."""
HOP = 128
"""Samples between frames (a quarter frame: the window's overlap-add is smooth)."""
QUIETEST = 0.2
"""The share of the kept audio's frames, the quietest, that is taken for the noise."""


def _frames(samples: np.ndarray, window: np.ndarray) -> np.ndarray:
    data = samples.astype(np.float64)
    if len(data) < FRAME:
        data = np.pad(data, (0, FRAME - len(data)))
    count = 1 + (len(data) - FRAME) // HOP
    index = np.arange(FRAME)[None, :] + HOP * np.arange(count)[:, None]
    return data[index] * window


def noise_spectrum(room: np.ndarray) -> np.ndarray:
    """The power spectrum of the quietest frames of ``room`` (int16 samples)."""
    window = np.hanning(FRAME)
    power = np.abs(np.fft.rfft(_frames(room, window), axis=1)) ** 2
    energy = power.sum(axis=1)
    quiet = max(1, int(len(energy) * QUIETEST))
    return np.asarray(power[np.argsort(energy)[:quiet]].mean(axis=0))


def subtract_noise(
    samples: np.ndarray, noise: np.ndarray, over: float, floor: float = 0.02
) -> np.ndarray:
    """``samples`` (int16) with ``over`` times the ``noise`` power spectrum taken out of each
    frame, each frequency kept at ``floor`` of its power at least; as long as ``samples``."""
    if over <= 0 or samples.size == 0:
        return samples
    spectrum, padded = _spectrum(samples)
    power = np.abs(spectrum) ** 2
    gain = np.sqrt(np.maximum(1.0 - over * noise / np.maximum(power, 1e-9), floor))
    return _rebuilt(spectrum * gain, padded, samples.size)


def follow_noise(
    samples: np.ndarray,
    noise: np.ndarray,
    over: float,
    floor: float = 0.02,
    follow: float = 0.98,
) -> np.ndarray:
    """``samples`` (int16) cleaned of ``over`` times the ``noise`` power spectrum by a gain
    that follows the voice from frame to frame (a Wiener filter whose estimate of each
    frequency's signal-to-noise ratio is ``follow`` the last frame's cleaned power and the
    rest this frame's: decision-directed). :func:`subtract_noise` decides each frame alone,
    and in hiss leaves a scatter of short tones where the noise happened to peak; this gain
    cannot jump from frame to frame, so the hiss left is steady. Each frequency keeps at
    least ``floor`` of its power; as long as ``samples``."""
    if over <= 0 or samples.size == 0:
        return samples
    spectrum, padded = _spectrum(samples)
    power = np.abs(spectrum) ** 2
    room = np.maximum(over * noise, 1e-9)
    lowest = np.sqrt(floor)
    gains = np.empty_like(power)
    kept: np.ndarray | None = None  # the last frame's cleaned power
    for number, frame in enumerate(power):
        heard = np.maximum(frame / room - 1.0, 0.0)
        ratio = heard if kept is None else follow * kept / room + (1.0 - follow) * heard
        gains[number] = np.maximum(ratio / (1.0 + ratio), lowest)
        kept = gains[number] ** 2 * frame
    return _rebuilt(spectrum * gains, padded, samples.size)


def _spectrum(samples: np.ndarray) -> tuple[np.ndarray, int]:
    """The short-time spectrum of ``samples`` padded by a frame each side, and that length."""
    padded = np.pad(samples.astype(np.float64), (FRAME, FRAME))
    return np.fft.rfft(_frames(padded, np.hanning(FRAME)), axis=1), len(padded)


def _rebuilt(spectrum: np.ndarray, padded: int, size: int) -> np.ndarray:
    """The int16 samples (``size`` of them) of a short-time ``spectrum`` (:func:`_spectrum`),
    put back together by overlap-add."""
    window = np.hanning(FRAME)
    pieces = np.fft.irfft(spectrum, n=FRAME, axis=1) * window
    out = np.zeros(padded + FRAME)
    weight = np.zeros(padded + FRAME)
    for number, piece in enumerate(pieces):
        out[number * HOP : number * HOP + FRAME] += piece
        weight[number * HOP : number * HOP + FRAME] += window**2
    out = out / np.maximum(weight, 1e-6)
    return np.clip(out[FRAME : FRAME + size], -32768, 32767).astype(np.int16)
