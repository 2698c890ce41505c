"""A microphone that fails mid-game comes back by itself; the game never stops for it; a
Listener behind the microphone stops at once when closed."""

from __future__ import annotations

import queue
import threading
import time
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


class BacklogMicrophone:
    """A microphone ten seconds ahead of the Listener: 200 blocks already queued, and, as with
    MicrophoneSource, close() stops the capture and ends the queue behind what is in it."""

    sample_rate = 16000

    def __init__(self, queued: int = 200) -> None:
        self._queue: queue.Queue[AudioBlock | None] = queue.Queue()
        for index in range(queued):
            self._queue.put(AudioBlock(np.zeros(800, dtype=np.int16), index * 0.05, 16000))

    def open(self) -> None:
        pass

    def blocks(self) -> Iterator[AudioBlock]:
        while (block := self._queue.get()) is not None:
            yield block

    def close(self) -> None:
        self._queue.put(None)


class SlowRecognizer:
    """Vosk on a CPU slower than the microphone (a Pi under load, an emulator): 50 ms a block."""

    sample_rate = 16000
    seconds = 0.0

    def __init__(self) -> None:
        self.fed = 0
        self.inside = threading.Event()

    def accept(self, samples: np.ndarray) -> vosk_listener.Hypothesis:
        self.inside.set()
        time.sleep(0.05)
        self.fed += 1
        self.inside.clear()
        return vosk_listener.Hypothesis((), False)

    def finish(self) -> vosk_listener.Hypothesis:
        return vosk_listener.Hypothesis((), True)

    def reset(self) -> None:
        pass

    def fresh(self) -> None:
        pass


class SlowDetector:
    """A voice detector on a CPU slower than the microphone: 50 ms a frame."""

    frame_samples = 512
    tail_seconds = 0.0

    def __init__(self) -> None:
        self.fed = 0
        self.inside = threading.Event()

    def probability(self, frame: np.ndarray) -> float:
        self.inside.set()
        time.sleep(0.05)
        self.fed += 1
        self.inside.clear()
        return 0.0

    def reset(self) -> None:
        pass


def test_closing_a_listener_behind_the_microphone_stops_it_at_once():
    # On arm64 under qemu `voicehost listen` ended with the Listener's thread still inside
    # Vosk, 5 s after close() gave up waiting for it, and the program crashed on its way out.
    # Every block goes through the voice detector first: that is where a slow CPU falls behind.
    recognizer = SlowDetector()
    listener = vosk_listener.VoskListener(
        SlowRecognizer(),  # type: ignore[arg-type]
        BacklogMicrophone(),  # type: ignore[arg-type]
        FakeClock(),
        ["пас"],
        detector=recognizer,
    )
    listener.listen(1)
    listener.start(lambda token: None)
    assert recognizer.inside.wait(5)
    began = time.monotonic()
    listener.close()
    assert time.monotonic() - began < 1.0, "close() waited for the backlog"
    assert listener._thread is not None and not listener._thread.is_alive()
    assert not recognizer.inside.is_set(), "close() returned while the recogniser was at work"
    assert recognizer.fed < 20, "the backlog was fed to the recogniser after close()"
