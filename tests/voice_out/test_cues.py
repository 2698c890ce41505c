"""Cues: five distinct, pleasant tones at the configured volume."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from voice_out_kit import dominant_frequency

from voicehost.game.model import Cue
from voicehost.voice_out.cues import CUE_NOTES, cue_clips, make_cue

RATE = 22050


@pytest.fixture(scope="module")
def cues():
    return cue_clips(RATE, 0.5)


def spectrum(clip):
    padded = np.zeros(RATE, dtype=np.float64)
    padded[: clip.frames] = clip.samples[:RATE]
    magnitude = np.abs(np.fft.rfft(padded))
    return magnitude / np.linalg.norm(magnitude)


def test_every_cue_sounds_and_peaks_at_the_cue_volume(cues):
    assert set(cues) == set(Cue)
    for clip in cues.values():
        assert np.max(np.abs(clip.samples)) == pytest.approx(0.5, rel=0.01)
    louder = make_cue(Cue.WARNING, RATE, 0.9)
    assert np.max(np.abs(louder.samples)) == pytest.approx(0.9, rel=0.01)


@pytest.mark.parametrize(("first", "second"), list(itertools.combinations(list(Cue), 2)))
def test_no_two_cues_sound_alike(cues, first, second):
    similarity = float(np.dot(spectrum(cues[first]), spectrum(cues[second])))
    shape_differs = abs(cues[first].duration - cues[second].duration) > 0.08
    pitch_differs = (
        abs(dominant_frequency(cues[first], 0, 0.03) - dominant_frequency(cues[second], 0, 0.03))
        > 60
    )
    assert similarity < 0.8
    assert shape_differs or pitch_differs


def test_cues_start_and_end_without_a_click(cues):
    for clip in cues.values():
        assert abs(clip.samples[0]) < 0.01 and abs(clip.samples[-1]) < 0.01


def test_the_key_ack_is_a_short_tick(cues):
    assert cues[Cue.KEY_ACK].duration < 0.06


def test_each_cue_starts_on_its_first_note(cues):
    for cue, clip in cues.items():
        expected = CUE_NOTES[cue][0].frequency
        window = min(0.1, CUE_NOTES[cue][0].length)
        measured = dominant_frequency(clip, 0, window)
        assert measured == pytest.approx(expected, rel=0.1)
