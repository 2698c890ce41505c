"""The speaker's voice as the rule sees it, from real audio: the VAD's frames and their levels.

What a player notices: in a noisy room, a «спасибо» said after a short breath is still heard on
its own. The VAD goes on hearing speech for a tenth of a second or more after a sentence in
steady noise; the frames it hears there are at the room's level, and only a level that the
room's rumble does not shake tells them from a voice.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voicehost.clips import FLOOR_DBFS, level_dbfs, treble_dbfs
from voicehost.errors import MissingDependency
from voicehost.testing import listening_set
from voicehost.voice_in.rule import AloneRule, AloneTuning
from voicehost.voice_in.vad import FrameMeter, make_detector

RATE = 16000
FRAME = 512
PINK_10_DB = listening_set.Condition("pink 10 dB", True, "pink", 10)


def frame_levels(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each 32 ms frame's level and treble level (dBFS)."""
    frames = [samples[i : i + FRAME] for i in range(0, len(samples) - FRAME + 1, FRAME)]
    return (
        np.array([level_dbfs(frame) for frame in frames]),
        np.array([treble_dbfs(frame) for frame in frames]),
    )


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31), st.floats(-50.0, -20.0))
def test_steady_pink_noise_measured_without_its_low_tones_hardly_moves(seed, level):
    rng = np.random.default_rng(seed)
    noise = listening_set.pink_noise(RATE * 2, rng) * 32768 * 10 ** (level / 20)
    samples = np.clip(np.round(noise), -32768, 32767).astype(np.int16)

    full, treble = frame_levels(samples)

    # A frame of the room is known to half a dB, where its full level moves by more than one;
    # so the rule trusts the treble level in such a room (``AloneRule.STEADIER``).
    assert np.std(treble) < min(0.5, np.std(full) / 2)
    assert spread(treble) < AloneRule.STEADIER * spread(full)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31), st.floats(-50.0, -20.0))
def test_hiss_measured_without_its_low_tones_is_no_steadier(seed, level):
    # So the rule does not trust the treble level in hiss (``AloneRule.STEADIER``): a soft
    # syllable's treble sinks into white noise's.
    rng = np.random.default_rng(seed)
    noise = rng.normal(size=RATE * 4) * 32768 * 10 ** (level / 20)
    samples = np.clip(np.round(noise), -32768, 32767).astype(np.int16)

    full, treble = frame_levels(samples)

    assert spread(treble) >= AloneRule.STEADIER * spread(full)


def spread(levels: np.ndarray) -> float:
    low, high = np.percentile(levels, (25, 75))
    return float(high - low)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-32768, 32767), min_size=0, max_size=600))
def test_any_frame_has_a_treble_level_no_louder_than_twice_full_scale(values):
    level = treble_dbfs(np.array(values, dtype=np.int16))

    assert FLOOR_DBFS <= level <= 20 * np.log10(1.95) + 1e-9


def breath_then_stop_word(seed: int) -> tuple[np.ndarray, float]:
    """A sentence, a 0.3 s breath and 감사합니다 over pink noise at 10 dB; the word's end."""
    rng = np.random.default_rng(seed)
    voice = listening_set.Voice(listening_set.VOICES[seed % len(listening_set.VOICES)], 175, 50)
    sentence = listening_set.SENTENCES[seed % len(listening_set.SENTENCES)]
    speech, stop_end = listening_set.mix([0.8, sentence, 0.3, "감사합니다", 2.0], voice, rng, 3)
    assert stop_end is not None
    return listening_set.finish(speech, PINK_10_DB, rng), stop_end


def looked_at(samples: np.ndarray, tuning: AloneTuning | None = None) -> list[float]:
    """Where the stretches the rule would look at end (seconds)."""
    try:
        detector = make_detector("silero", RATE)
    except MissingDependency as missing:
        pytest.skip(str(missing))
    meter = FrameMeter(detector, RATE)
    rule = AloneRule(listening_set.STOP_WORDS, tuning)
    ends: list[float] = []
    for first in range(0, len(samples), 800):
        ends += [utterance.end for utterance in rule.hear(meter.feed(samples[first : first + 800]))]
    return ends


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_a_stop_word_after_a_short_breath_in_pink_noise_stands_alone():
    takes = [breath_then_stop_word(seed) for seed in range(24)]

    alone = [
        any(abs(end - stop_end) < 0.35 for end in looked_at(samples)) for samples, stop_end in takes
    ]
    # Without the room's floor (the VAD's word alone), 4 of these 24 were one stretch with the
    # sentence before them, or had less than 0.25 s of quiet before them.
    assert all(alone)


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_the_sentence_before_the_breath_is_never_taken_for_a_word_on_its_own():
    for seed in range(24):
        samples, stop_end = breath_then_stop_word(seed)

        assert all(end > stop_end - 0.35 for end in looked_at(samples))
