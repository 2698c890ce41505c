"""A microphone that fails mid-game comes back by itself; the game never stops for it."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import numpy as np

from voicehost.clock import FakeClock
from voicehost.voice_in import vosk_listener
from voicehost.voice_in.microphone import AudioBlock


class FlakyMicrophone:
    """Fails on its first use (the cable was pulled), then delivers three blocks and ends."""

    sample_rate = 16000

    def __init__(self) -> None:
        self.opened = 0
        self.calls = 0

    def open(self) -> None:
        self.opened += 1

    def blocks(self) -> Iterator[AudioBlock]:
        self.calls += 1
        if self.calls == 1:
            raise OSError("PortAudio: device unavailable")
        for index in range(3):
            yield AudioBlock(np.zeros(800, dtype=np.int16), index * 0.05, self.sample_rate)

    def close(self) -> None:
        pass


def test_a_failed_microphone_is_opened_again_and_listening_goes_on(monkeypatch):
    monkeypatch.setattr(vosk_listener, "RESTART_DELAY_SECONDS", 0.01)
    source = FlakyMicrophone()
    recognizer = SimpleNamespace(sample_rate=16000)
    listener = vosk_listener.VoskListener(recognizer, source, FakeClock(), ["спасибо"])  # type: ignore[arg-type]
    listener.start(lambda token: None)
    assert listener.wait(timeout=5)
    assert isinstance(listener.failure, OSError)
    assert listener.restarts == 1
    assert source.opened == 2  # opened at start, and again after the failure
    assert source.calls == 2  # and the audio flowed again until the source ended


def test_closing_the_listener_stops_the_retries(monkeypatch):
    monkeypatch.setattr(vosk_listener, "RESTART_DELAY_SECONDS", 30)

    class DeadMicrophone(FlakyMicrophone):
        def blocks(self) -> Iterator[AudioBlock]:
            self.calls += 1
            raise OSError("gone")

    source = DeadMicrophone()
    listener = vosk_listener.VoskListener(
        SimpleNamespace(sample_rate=16000),  # type: ignore[arg-type]
        source,
        FakeClock(),
        ["спасибо"],
    )
    listener.start(lambda token: None)
    listener.close()  # during the 30 s wait: it returns at once
    assert listener.wait(timeout=2)
    assert source.calls == 1
