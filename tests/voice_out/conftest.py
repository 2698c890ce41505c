"""Fixtures for voice out: the real espeak-ng voices, a filled audio cache, the ALSA file device.

Helpers live in ``voice_out_kit.py`` beside this file (this conftest puts it on the path). The
cache of the whole Russian book is synthesised once per session (about 2 s) into a temp folder;
tests that need a voice use it, so nothing is written into the repository's cache.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from voicehost.config import Settings
from voicehost.phrases import PhraseBook
from voicehost.voice_out.cache import AudioCache
from voicehost.voice_out.speech import SpeechLibrary, speech_library
from voicehost.voice_out.tts import EspeakSynthesizer, VoiceChoice, engine_version

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

RU = VoiceChoice("zle/ru", 150, 1.0)
EN = VoiceChoice("gmw/en", 150, 1.0)


@pytest.fixture(scope="session")
def ru_voice() -> EspeakSynthesizer:
    return EspeakSynthesizer(RU)


@pytest.fixture(scope="session")
def en_voice() -> EspeakSynthesizer:
    return EspeakSynthesizer(EN)


@pytest.fixture(scope="session")
def ru_book() -> PhraseBook:
    return PhraseBook.load("ru")


@pytest.fixture(scope="session")
def warm_cache_dir(tmp_path_factory: pytest.TempPathFactory, ru_book: PhraseBook) -> Path:
    """A cache folder holding every piece of the Russian book, in the default voice."""
    folder = tmp_path_factory.mktemp("voice-cache")
    cache = AudioCache(
        folder, RU, engine_version(), lambda: EspeakSynthesizer(RU), espeak_workers=4
    )
    cache.fill(segment.text for segment in ru_book.all_segments())
    return folder


@pytest.fixture
def settings(warm_cache_dir: Path, tmp_path: Path) -> Settings:
    """Default settings whose cache is the session's filled one."""
    base = Settings(base_dir=str(tmp_path))
    return dataclasses.replace(
        base, voice=dataclasses.replace(base.voice, cache_dir=str(warm_cache_dir))
    )


@pytest.fixture
def library(settings: Settings, ru_book: PhraseBook) -> SpeechLibrary:
    """The Russian speech library, prepared from the filled cache."""
    prepared = speech_library(settings)
    prepared.prepare(ru_book.all_segments())
    return prepared
