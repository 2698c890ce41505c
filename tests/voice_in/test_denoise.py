"""The room's steady noise taken out of the second look's audio (pure numpy, no Vosk)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from voicehost.clips import level_dbfs
from voicehost.voice_in.denoise import FRAME, HOP, follow_noise, noise_spectrum, subtract_noise

RATE = 16000
CLEANERS = [subtract_noise, follow_noise]
Cleaner = Callable[[np.ndarray, np.ndarray, float], np.ndarray]


def _room_and_voice(hiss_db: float = -40) -> tuple[np.ndarray, np.ndarray, slice]:
    rng = np.random.default_rng(5)
    hiss = rng.normal(0, 32768 * 10 ** (hiss_db / 20), 3 * RATE)
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


@pytest.mark.parametrize("clean_out", CLEANERS)
def test_the_hiss_between_words_goes_and_the_voice_stays(clean_out: Cleaner):
    mixed, clean, voiced = _room_and_voice()

    out = clean_out(mixed, noise_spectrum(mixed), 2.0)

    assert len(out) == len(mixed) and out.dtype == np.int16
    assert level_dbfs(out[: RATE // 2]) < level_dbfs(mixed[: RATE // 2]) - 6  # the room: quieter
    kept = level_dbfs(out[voiced]) - level_dbfs(clean[voiced])
    assert abs(kept) < 1.5  # the voice: as loud as it was
    residual = out[voiced].astype(np.float64) - clean[voiced]
    before = mixed[voiced].astype(np.float64) - clean[voiced]
    assert np.sqrt(np.mean(residual**2)) < np.sqrt(np.mean(before**2))  # nearer the clean voice


@pytest.mark.parametrize("clean_out", CLEANERS)
def test_nothing_is_taken_when_it_is_off(clean_out: Cleaner):
    mixed, _clean, _voiced = _room_and_voice()

    assert clean_out(mixed, noise_spectrum(mixed), 0.0) is mixed


def _scatter(room: np.ndarray) -> float:
    """How unsteady a stretch of cleaned room is: the spread (standard deviation, dB) of its
    power over 32 ms frames and 250 Hz to 6 kHz. Hiss has the same spread everywhere (about
    5.6 dB); a scatter of short tones over a near-silent floor spreads far wider."""
    window = np.hanning(FRAME)
    count = 1 + (len(room) - FRAME) // HOP
    frames = np.stack([room[n * HOP : n * HOP + FRAME] * window for n in range(count)])
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    return float(np.std(10 * np.log10(power[:, 8:192] + 1e-3)))


def test_the_hiss_left_by_the_following_gain_is_steady_not_a_scatter_of_tones():
    # What frame-by-frame cleaning leaves of the room between words is a scatter of short
    # tones (the decoder hears such bursts as sounds); the gain that follows the voice leaves
    # a quieter hiss, as steady as the room's own.
    mixed, _clean, _voiced = _room_and_voice(hiss_db=-30)
    noise = noise_spectrum(mixed)
    room = slice(RATE // 4, 3 * RATE // 4)

    hiss = _scatter(mixed[room].astype(np.float64))
    by_frame = _scatter(subtract_noise(mixed, noise, 2.0)[room].astype(np.float64))
    following = follow_noise(mixed, noise, 2.0)[room]

    assert by_frame > hiss + 2
    assert abs(_scatter(following.astype(np.float64)) - hiss) < 0.5
    assert level_dbfs(following) < level_dbfs(mixed[room]) - 6  # and quieter


@settings(max_examples=60, deadline=None)
@given(
    samples=arrays(np.int16, st.integers(0, 3000)),
    over=st.floats(0.1, 6.0),
    cleaner=st.sampled_from(CLEANERS),
)
def test_any_audio_comes_back_as_long_and_no_louder(samples, over, cleaner):
    noise = noise_spectrum(samples if samples.size else np.zeros(512, np.int16))

    out = cleaner(samples, noise, over)

    assert len(out) == len(samples) and out.dtype == np.int16
    if samples.size:
        before = np.sqrt(np.mean(samples.astype(np.float64) ** 2))
        after = np.sqrt(np.mean(out.astype(np.float64) ** 2))
        assert after <= before * 1.05 + 1
