"""With the Russian model (on a club's or a developer's machine): «спасибо» / «пас» end a speech.

Skipped here, with the reason: the Russian model cannot be downloaded on this machine. Install
it with `voicehost models fetch ru` and these tests run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from voicehost.clock import FakeClock
from voicehost.config import Settings
from voicehost.voice_in.microphone import ArraySource
from voicehost.voice_in.models import find_model
from voicehost.voice_in.rule import Decision, Verdict
from voicehost.voice_in.vosk_listener import ListenerEvent, build_listener

REPOSITORY = Path(__file__).resolve().parents[2]
RATE = 16000
STOP_WORDS = ("спасибо", "пас")

pytestmark = pytest.mark.needs_ru_model


@pytest.fixture(scope="module")
def russian_folder() -> Path:
    folder = find_model(Settings(base_dir=str(REPOSITORY)))
    if folder is None:
        pytest.skip("no Russian Vosk model in models/ (install it: voicehost models fetch ru)")
    return folder


def speech_ends(folder: Path, record, parts: list[str | float]) -> list[Decision]:
    recording = record(parts, voice="ru")
    events: list[ListenerEvent] = []
    source = ArraySource(recording.samples, RATE)
    listener = build_listener(Settings(), FakeClock(), folder, STOP_WORDS, source, events.append)
    listener.start(lambda token: None, thread=False)
    listener.listen(1)
    for block in source.blocks():
        listener.process(block)
    return [e for e in events if isinstance(e, Decision) and e.verdict is Verdict.SPEECH_ENDED]


def test_the_russian_model_knows_the_stop_words(russian_folder):
    from voicehost.voice_in.vosk_listener import SpeechModel

    assert SpeechModel(russian_folder).unknown(list(STOP_WORDS)) == []


def test_spasibo_at_the_end_ends_the_speech(russian_folder, record):
    parts: list[str | float] = ["Я думаю, пятый игрок мафия.", 0.8, "Спасибо", 2.0]
    [ended] = speech_ends(russian_folder, record, parts)
    assert ended.word.word == "спасибо"


def test_spasibo_that_starts_a_sentence_does_not_end_it(russian_folder, record):
    parts: list[str | float] = ["Спасибо, что выслушали, я думаю, пятый мафия", 2.0]
    assert speech_ends(russian_folder, record, parts) == []
