"""Takes for recording tests: real espeak-ng speech with room noise, clipping, hiss and silence.

Everything is 22050 Hz mono int16, the rate of ``audio.sample_rate`` by default, so the takes
can be written to the ALSA file device's ``mic.raw`` as they are.
"""

from __future__ import annotations

import functools
import io
import subprocess
import wave

import numpy as np

from voicehost.clips import Clip, trim_silence
from voicehost.voice_out.recording import SHORTEST_WORD_SECONDS, drawn_out, espeak_phonemes

RATE = 22050
NOISE_DBFS = -58.0


@functools.lru_cache(maxsize=512)
def speech(text: str) -> np.ndarray:
    """espeak-ng Russian speech of ``text`` as float samples (-1..1) at 22050 Hz.

    A word espeak-ng says faster than any person (under ``SHORTEST_WORD_SECONDS``: «и» in 55 ms)
    is said with its vowels drawn out, as the recorder's guide says it and a host would.
    """
    samples = _espeak(text)
    if trim_silence(Clip(samples, RATE)).duration < SHORTEST_WORD_SECONDS:
        phonemes = espeak_phonemes(text)
        if phonemes:
            samples = _espeak(drawn_out(phonemes))
    return samples


def _espeak(text: str) -> np.ndarray:
    wav = subprocess.run(
        ["espeak-ng", "-v", "ru", "--stdout", text], capture_output=True, check=True
    ).stdout
    with wave.open(io.BytesIO(wav)) as recording:
        assert recording.getframerate() == RATE
        data = recording.readframes(recording.getnframes())
    return np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0


def room(samples: np.ndarray, gain: float = 0.5, seed: int = 0) -> np.ndarray:
    """``samples`` at ``gain`` between silences, with a quiet room's hiss throughout."""
    rng = np.random.default_rng(seed)
    padded = np.concatenate(
        [np.zeros(round(0.4 * RATE)), samples * gain, np.zeros(round(1.2 * RATE))]
    )
    return padded + rng.normal(0.0, 10 ** (NOISE_DBFS / 20), len(padded))


def good(text: str, seed: int = 0) -> np.ndarray:
    return room(speech(text), 0.5, seed)


def clipped(text: str) -> np.ndarray:
    return room(speech(text), 6.0)


def quiet(text: str) -> np.ndarray:
    return room(speech(text), 0.06)


def hiss(seconds: float = 1.0) -> np.ndarray:
    rng = np.random.default_rng(7)
    return room(rng.normal(0.0, 0.08, round(seconds * RATE)).astype(np.float32), 1.0)


def to_pcm(samples: np.ndarray) -> bytes:
    """16-bit little-endian PCM, clipped at full scale as a sound card's converter clips."""
    return (np.clip(samples, -1.0, 1.0) * 32767).round().astype("<i2").tobytes()


def to_int16(samples: np.ndarray) -> np.ndarray:
    return np.frombuffer(to_pcm(samples), dtype="<i2").astype(np.int16)
