"""The room's steady noise taken out of the second look's audio (pure numpy, no Vosk)."""

from __future__ import annotations

import numpy as np

from voicehost.clips import level_dbfs
from voicehost.voice_in.denoise import noise_spectrum, subtract_noise

RATE = 16000


def _room_and_voice() -> tuple[np.ndarray, np.ndarray, slice]:
    rng = np.random.default_rng(5)
    hiss = rng.normal(0, 32768 * 10 ** (-40 / 20), 3 * RATE)
    t = np.arange(RATE) / RATE
    # A voice-like sound: a 150 Hz buzz with harmonics, 1 s in the middle, 20 dB over the hiss.
    voice = sum(np.sin(2 * np.pi * 150 * k * t) / k for k in range(1, 8))
    voice *= 32768 * 10 ** (-20 / 20) / np.sqrt(np.mean(voice**2))
    mixed = hiss.copy()
    mixed[RATE : 2 * RATE] += voice
    clean = np.zeros_like(mixed)
    clean[RATE : 2 * RATE] = voice
    as_int = lambda x: np.clip(np.round(x), -32768, 32767).astype(np.int16)  # noqa: E731
    return as_int(mixed), as_int(clean), slice(RATE, 2 * RATE)


def test_the_hiss_between_words_goes_and_the_voice_stays():
    mixed, clean, voiced = _room_and_voice()

    out = subtract_noise(mixed, noise_spectrum(mixed), over=2.0)

    assert len(out) == len(mixed) and out.dtype == np.int16
    assert level_dbfs(out[: RATE // 2]) < level_dbfs(mixed[: RATE // 2]) - 6  # the room: quieter
    kept = level_dbfs(out[voiced]) - level_dbfs(clean[voiced])
    assert abs(kept) < 1.5  # the voice: as loud as it was
    residual = out[voiced].astype(np.float64) - clean[voiced]
    before = mixed[voiced].astype(np.float64) - clean[voiced]
    assert np.sqrt(np.mean(residual**2)) < np.sqrt(np.mean(before**2))  # nearer the clean voice


def test_nothing_is_taken_when_it_is_off():
    mixed, _clean, _voiced = _room_and_voice()

    assert subtract_noise(mixed, noise_spectrum(mixed), over=0.0) is mixed
