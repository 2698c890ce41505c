"""The audio cache: each text synthesised once, keyed by everything that changes the sound."""

from __future__ import annotations

import logging
import time

import pytest
from voice_out_kit import write_config

from voicehost.__main__ import main
from voicehost.errors import MissingDependency
from voicehost.ports import Segment, Utterance
from voicehost.voice_out.cache import AudioCache, cache_key
from voicehost.voice_out.speech import SpeechLibrary
from voicehost.voice_out.tts import VoiceChoice, engine_version

RU = VoiceChoice("zle/ru", 150, 1.0)


class Counting:
    """The real voice, counting what it is asked to say."""

    def __init__(self, voice):
        self.voice = voice
        self.texts: list[str] = []

    def render(self, text):
        self.texts.append(text)
        return self.voice.render(text)


def test_each_text_is_synthesised_once_then_served_from_disk(tmp_path, ru_voice):
    counting = Counting(ru_voice)
    cache = AudioCache(tmp_path, RU, engine_version(), lambda: counting)
    first = cache.fill(["пять", "семь", "пять", "Мафия засыпает."])
    assert (first.rendered, first.cached) == (3, 0)
    again = AudioCache(tmp_path, RU, engine_version(), lambda: counting).fill(["пять", "семь"])
    assert (again.rendered, again.cached) == (0, 2)
    assert counting.texts == ["пять", "семь", "Мафия засыпает."]
    clip = cache.load("Мафия засыпает.")
    assert clip is not None and 0.5 < clip.duration < 2.0


@pytest.mark.parametrize(
    "other",
    [
        ("шесть", RU, "espeak-ng 1.51"),
        ("пять", VoiceChoice("gmw/en", 150, 1.0), "espeak-ng 1.51"),
        ("пять", VoiceChoice("zle/ru", 170, 1.0), "espeak-ng 1.51"),
        ("пять", VoiceChoice("zle/ru", 150, 0.8), "espeak-ng 1.51"),
        ("пять", RU, "espeak-ng 1.52"),
    ],
)
def test_the_key_changes_with_text_voice_rate_volume_and_engine(other):
    assert cache_key("пять", RU, "espeak-ng 1.51") != cache_key(*other)


def test_the_key_is_stable():
    assert cache_key("пять", RU, "e") == cache_key("пять", VoiceChoice("zle/ru", 150, 1.0), "e")


def test_a_damaged_cache_file_is_rendered_again(tmp_path, ru_voice):
    counting = Counting(ru_voice)
    cache = AudioCache(tmp_path, RU, engine_version(), lambda: counting)
    cache.fill(["пять"])
    cache.path_for("пять").write_bytes(b"RIFF broken")
    clip, fresh = cache.get("пять")
    assert fresh and clip.duration > 0.1
    assert counting.texts == ["пять", "пять"]


def test_a_piece_nobody_prepared_is_synthesised_once_and_said_so(tmp_path, ru_voice, caplog):
    counting = Counting(ru_voice)
    cache = AudioCache(tmp_path, RU, engine_version(), lambda: counting)
    library = SpeechLibrary(rate=22050, target_dbfs=-18, cache=cache)
    library.prepare([Segment("day.speech_nomination#0", "Слово игроку номер")])
    assert counting.texts == ["Слово игроку номер"]
    surprise = Utterance(
        "day.speech_nomination",
        "Слово игроку номер сто один.",
        (
            Segment("day.speech_nomination#0", "Слово игроку номер"),
            Segment("num.m.101", "сто один"),
        ),
    )
    with caplog.at_level(logging.WARNING):
        clip = library.utterance_clip(surprise)
        library.utterance_clip(surprise)
    assert counting.texts == ["Слово игроку номер", "сто один"]
    assert library.live_syntheses == ["num.m.101"]
    assert "voicehost phrases build" in caplog.text and "сто один" in caplog.text
    assert clip.duration > 1.0


def test_a_piece_that_cannot_be_synthesised_is_silent_not_a_crash(tmp_path, caplog):
    def broken():
        raise MissingDependency("no espeak-ng")

    library = SpeechLibrary(
        rate=22050, target_dbfs=-18, cache=AudioCache(tmp_path, RU, "x", broken)
    )
    with caplog.at_level(logging.ERROR):
        clip = library.segment_clip(Segment("num.m.5", "пять"))
    assert clip.duration == 0
    assert "no espeak-ng" in caplog.text


def test_phrases_build_fills_the_cache_and_says_how_long(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home-cache"))
    config = write_config(tmp_path, tmp_path / "cache")
    started = time.perf_counter()
    assert main(["--config", str(config), "phrases", "build"]) == 0
    took = time.perf_counter() - started
    first = capsys.readouterr().out
    assert "синтезировано сейчас" in first and " с)." in first  # config: language ru
    files = list((tmp_path / "cache").glob("*.wav"))
    assert len(files) > 150
    assert main(["--config", str(config), "phrases", "build"]) == 0
    assert "синтезировано сейчас — 0," in capsys.readouterr().out
    assert took < 30


def test_a_build_after_a_full_build_says_the_same_and_one_after_a_change_does_the_work(
    tmp_path, capsys, monkeypatch
):
    """The stamp of a full cache: the next build says what the last one said; a deleted cache
    file or a changed setting makes the build look (and synthesise) again."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home-cache"))
    config = write_config(tmp_path, tmp_path / "cache")
    assert main(["--config", str(config), "phrases", "build"]) == 0
    capsys.readouterr()
    assert main(["--config", str(config), "phrases", "build"]) == 0  # finds all: stamps it
    found = capsys.readouterr().out
    assert "синтезировано сейчас — 0," in found
    assert list((tmp_path / "home-cache" / "voicehost").glob("build-*.json"))
    assert main(["--config", str(config), "phrases", "build"]) == 0
    assert capsys.readouterr().out == found
    files = sorted((tmp_path / "cache").glob("*.wav"))
    files[0].unlink()
    assert main(["--config", str(config), "phrases", "build"]) == 0
    assert "синтезировано сейчас — 1," in capsys.readouterr().out
    assert main(["--config", str(config), "phrases", "build"]) == 0
    assert "синтезировано сейчас — 0," in capsys.readouterr().out
    files[1].write_bytes(files[1].read_bytes()[:100])  # damaged in place
    assert main(["--config", str(config), "phrases", "build"]) == 0
    assert "синтезировано сейчас — 1," in capsys.readouterr().out
    write_config(tmp_path, tmp_path / "cache", "  rate: 151\n")
    assert main(["--config", str(config), "phrases", "build"]) == 0
    assert "синтезировано сейчас — 0," not in capsys.readouterr().out  # another voice: all anew
