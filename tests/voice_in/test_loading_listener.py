"""The speech model loads behind the game: the host speaks at once, a wrong model costs one line."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from voicehost.clock import FakeClock
from voicehost.config import Settings
from voicehost.testing.alsa import alsa_microphone
from voicehost.voice_in.loading import ListenerReady, ListenerStatus, LoadingListener
from voicehost.voice_in.microphone import AudioBlock
from voicehost.voice_in.vosk_listener import build_listener


class Recorded:
    """A Listener that notes what it is told."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    def start(self, on_stop_word, on_spoke_on=None):
        self.calls.append(("start", None))
        self.callbacks = (on_stop_word, on_spoke_on)

    def listen(self, token):
        self.calls.append(("listen", token))

    def stop_listening(self):
        self.calls.append(("stop_listening", None))

    def deafen_until(self, until):
        self.calls.append(("deafen_until", until))

    def close(self):
        self.calls.append(("close", None))


class FiniteSource:
    """Silence, late: each block comes a quarter of a second after it was due."""

    sample_rate = 16000

    def __init__(self, clock: FakeClock, blocks: int = 4) -> None:
        self.clock = clock
        self.count = blocks

    def open(self):
        pass

    def blocks(self):
        for index in range(self.count):
            time.sleep(0.25)
            yield AudioBlock(np.zeros(1600, dtype=np.int16), index * 0.1, self.sample_rate)

    def close(self):
        pass


def test_start_returns_before_the_model_is_loaded_and_calls_are_handed_on():
    release = threading.Event()
    inner = Recorded()
    heard: list[ListenerReady] = []

    def slow_load():
        release.wait(10)
        return inner

    listener = LoadingListener(slow_load, heard.append)
    began = time.monotonic()
    ended, spoke_on = (lambda token: None), (lambda token: None)
    listener.start(ended, spoke_on)
    assert time.monotonic() - began < 0.5, "the game waited for the model"
    listener.deafen_until(3.0)
    listener.listen(7)  # a speech begins while the model still loads
    assert listener.status is ListenerStatus.LOADING and not heard

    release.set()
    assert listener.done.wait(5)
    assert [result.status for result in heard] == [ListenerStatus.READY]
    assert inner.calls == [("start", None), ("deafen_until", 3.0), ("listen", 7)]
    assert inner.callbacks == (ended, spoke_on)  # the player talking on reaches the host too
    listener.stop_listening()
    listener.close()
    assert inner.calls[-2:] == [("stop_listening", None), ("close", None)]


def test_a_wrong_model_is_said_once_and_the_game_goes_on(korean_folder, tmp_path, caplog):
    clock = FakeClock()
    settings = Settings(base_dir=str(tmp_path))
    heard: list[ListenerReady] = []
    russian = ["спасибо", "пас"]  # the Korean model knows neither

    listener = LoadingListener(
        lambda: build_listener(settings, clock, korean_folder, russian, FiniteSource(clock)),
        heard.append,
    )
    with caplog.at_level(logging.WARNING):
        listener.start(lambda token: None)
        assert listener.done.wait(60)
    [result] = heard
    assert result.status is ListenerStatus.FAILED
    assert "does not know the stop words «спасибо», «пас»" in result.reason
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 1 and "keyboard or keypad" in lines[0]
    listener.listen(1)  # the host goes on as with no model
    listener.deafen_until(2.0)
    listener.stop_listening()
    listener.close()


def test_late_blocks_do_not_end_a_speech_or_stop_the_listener(korean_folder, tmp_path):
    clock = FakeClock()
    settings = Settings(base_dir=str(tmp_path))
    ended: list[int] = []
    source = FiniteSource(clock, blocks=6)
    loading = LoadingListener(
        lambda: build_listener(settings, clock, korean_folder, ["감사합니다", "패스"], source)
    )
    loading.listen(3)
    loading.start(ended.append)
    assert loading.done.wait(60)
    assert loading.status is ListenerStatus.READY
    inner = loading._inner
    assert inner is not None
    assert inner.wait(10), "the listener's thread did not get through the late blocks"
    assert inner.failure is None
    assert ended == [], "silence delivered late ended the speech"
    loading.close()


@pytest.mark.slow
def test_a_slow_cpu_overflows_the_microphone_without_harm(tmp_path, korean_folder):
    half_a_minute_of_silence = np.zeros(16000 * 30, dtype=np.int16)
    environment = alsa_microphone(tmp_path, half_a_minute_of_silence)
    child = Path(__file__).with_name("slow_microphone_child.py")
    command = [sys.executable, str(child), str(korean_folder), "3"]

    done = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=180)

    assert done.returncode == 0, done.stderr[-2000:]
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["overflows"] > 0, "the microphone was not made to overflow"
    assert outcome["blocks"] > 10, "the listener stopped taking audio"
    assert outcome["failure"] is None and outcome["restarts"] == 0
    assert outcome["alive"], "the listener's thread died"
    assert outcome["ended"] == [], "dropped audio ended the speech"
