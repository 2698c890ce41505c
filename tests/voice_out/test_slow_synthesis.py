"""Synthesis as slow as on a Raspberry Pi: every clip is its own text, whole, or re-rendered.

pyttsx3's espeak driver writes the WAV from espeak-ng's thread after ``runAndWait()`` has
returned. On a PC that takes ~10 ms, so a race hides; on a Pi (or under qemu) it is 100 ms and
more. These tests make the driver's file write 100-500 ms late, with the real espeak-ng, so
ordinary CI sees what a Pi would.
"""

from __future__ import annotations

import random
import struct
import time
import wave as real_wave
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voicehost.clips import read_wav, trim_silence
from voicehost.voice_out.cache import AudioCache
from voicehost.voice_out.tts import EspeakSynthesizer, VoiceChoice, engine_version
from voicehost.voice_out.wavcheck import check_wav, wav_problem

RU = VoiceChoice("zle/ru", 150, 1.0)

# very different lengths, so a clip that is its neighbour's audio cannot pass for its own
TEXTS = [
    "Да.",
    "Оправдательное слово игроку номер",
    "Ночь.",
    "Город просыпается и видит, что этой ночью никто не был убит.",
    "пять",
    "Голосование.",
]


class SlowWave:
    """Stands in for the ``wave`` module inside pyttsx3's driver: each file opens late."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)
        self.delays: list[float] = []

    def open(self, *args: Any, **kwargs: Any) -> Any:
        delay = self._random.uniform(0.1, 0.5)
        self.delays.append(delay)
        time.sleep(delay)
        return real_wave.open(*args, **kwargs)


@pytest.fixture(scope="module")
def reference() -> dict[str, float]:
    """Each text's duration, rendered at full speed."""
    voice = EspeakSynthesizer(RU)
    return {text: trim_silence(voice.render(text)).duration for text in TEXTS}


@pytest.fixture
def slow_wave(monkeypatch: pytest.MonkeyPatch) -> SlowWave:
    import pyttsx3.drivers.espeak as driver

    slow = SlowWave(seed=14)
    monkeypatch.setattr(driver, "wave", slow)
    return slow


def test_slow_synthesis_gives_every_text_its_own_audio(slow_wave, reference):
    voice = EspeakSynthesizer(RU)
    for text in TEXTS:
        clip = trim_silence(voice.render(text))
        assert clip.duration == pytest.approx(reference[text], rel=0.05), text
    assert len(slow_wave.delays) >= len(TEXTS), "the delay was not in the synthesis path"
    assert min(slow_wave.delays) >= 0.1


def test_slow_synthesis_builds_a_correct_cache(slow_wave, reference, tmp_path):
    cache = AudioCache(tmp_path, RU, engine_version(), lambda: EspeakSynthesizer(RU))
    report = cache.fill(TEXTS)
    assert report.rendered == len(TEXTS)
    for text in TEXTS:
        path = cache.path_for(text)
        assert check_wav(path, text, RU.rate) is None
        assert read_wav(path).duration == pytest.approx(reference[text], rel=0.05), text


def test_a_cut_cache_file_is_rendered_again(tmp_path, reference):
    cache = AudioCache(tmp_path, RU, engine_version(), lambda: EspeakSynthesizer(RU))
    text = TEXTS[3]
    cache.fill([text])
    path = cache.path_for(text)
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 3])  # a power cut in the middle of the write
    assert not cache.has(text)
    assert cache.fill([text]).rendered == 1
    assert check_wav(path, text, RU.rate) is None
    assert read_wav(path).duration == pytest.approx(reference[text], rel=0.05)


def test_another_texts_audio_is_not_taken_for_this_text(tmp_path):
    cache = AudioCache(tmp_path, RU, engine_version(), lambda: EspeakSynthesizer(RU))
    cache.fill(["Да."])
    long_text = TEXTS[3]
    cache.path_for(long_text).write_bytes(cache.path_for("Да.").read_bytes())
    assert not cache.has(long_text), "a one-word clip passed for a long sentence"
    clip, rendered = cache.get(long_text)
    assert rendered
    assert clip.duration > 2.0


def _wav(frames: int, rate: int = 22050) -> bytes:
    header = struct.pack("<4sI4s", b"RIFF", 36 + 2 * frames, b"WAVE")
    fmt = struct.pack("<4sIHHIIHH", b"fmt ", 16, 1, 1, rate, 2 * rate, 2, 16)
    return header + fmt + struct.pack("<4sI", b"data", 2 * frames) + b"\0\1" * frames


@settings(max_examples=200, deadline=None)
@given(cut=st.integers(min_value=0, max_value=44 + 2 * 2205 - 1))
def test_any_cut_wav_is_found_broken(tmp_path_factory, cut):
    path = tmp_path_factory.mktemp("cut") / "cut.wav"
    path.write_bytes(_wav(2205)[:cut])
    assert wav_problem(path) is not None


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=200))
def test_any_bytes_give_an_answer_not_a_crash(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("junk") / "junk.wav"
    path.write_bytes(data)
    answer = check_wav(path, "пять", 150)  # never raises, whatever the file holds
    assert answer is None or answer.startswith(("it ", "its ", "cannot"))


def test_a_whole_wav_passes_and_its_duration_is_checked(tmp_path):
    path = Path(tmp_path) / "ok.wav"
    path.write_bytes(_wav(22050))  # one second
    assert wav_problem(path) is None
    assert check_wav(path, "пять", 150) is None
    assert check_wav(path, "Город просыпается и видит, что никто не был убит этой ночью", 150)
