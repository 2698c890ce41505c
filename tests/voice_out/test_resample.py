"""Where rates differ, sound is converted band-limited: a cue or a voice pack's take made at
48 kHz and played by a card at 22 kHz has no whistle folded down from above the card's range,
with libsoxr and with the numpy conversion used where libsoxr is missing."""

from __future__ import annotations

import numpy as np
import pytest

from voicehost import clips
from voicehost.clips import Clip, resample


def tone(frequency: float, rate: int, seconds: float = 1.0) -> Clip:
    times = np.arange(round(rate * seconds)) / rate
    return Clip((0.5 * np.sin(2 * np.pi * frequency * times)).astype(np.float32), rate)


def level_db(clip: Clip) -> float:
    middle = clip.samples[clip.rate // 10 : -clip.rate // 10].astype(np.float64)
    return float(20 * np.log10(np.sqrt(np.mean(middle**2)) + 1e-12))


@pytest.fixture(params=["libsoxr", "numpy"])
def converter(request, monkeypatch):
    if request.param == "libsoxr":
        if clips._soxr() is None:
            pytest.skip("libsoxr0 is not installed here")
    else:
        monkeypatch.setattr(clips, "_SOXR", [None])  # as where libsoxr is missing
    return request.param


def test_a_tone_above_the_cards_range_is_not_heard_as_a_whistle(converter):
    played = resample(tone(15000, 48000), 22050)  # 15 kHz: above 22050 Hz's 11 kHz
    assert played.rate == 22050 and played.frames == 22050
    assert level_db(played) < -60  # linear interpolation folds it to 7 kHz at about -12 dBFS


def test_speech_range_keeps_its_level_and_pitch_either_way(converter):
    for old, new in ((48000, 22050), (22050, 48000), (16000, 44100)):
        played = resample(tone(1000, old), new)
        assert played.frames == new
        assert abs(level_db(played) - level_db(tone(1000, new))) < 0.1
        spectrum = np.abs(np.fft.rfft(played.samples))
        assert abs(np.argmax(spectrum) * new / played.frames - 1000) < 2


def test_a_clip_at_the_cards_rate_is_the_same_clip(converter):
    clip = tone(440, 22050)
    assert resample(clip, 22050) is clip
