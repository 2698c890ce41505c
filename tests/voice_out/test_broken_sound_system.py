"""A broken ALSA configuration: one clear line, then the game goes on in text (no traceback)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROGRAM = """
from voicehost import config
from voicehost.cli import wiring
from voicehost.clock import MonotonicClock
from voicehost.phrases import PhraseBook
speaker, cues = wiring.make_audio(config.load(None), MonotonicClock(), PhraseBook.load("ru"))
print(type(speaker).__name__)
"""


def test_a_broken_alsa_configuration_falls_back_to_text(tmp_path: Path) -> None:
    broken = tmp_path / "broken.conf"
    broken.write_text('pcm.!default { type asym; playback.pcm "tap"\n')  # never closed
    env = dict(os.environ, ALSA_CONFIG_PATH=f"/usr/share/alsa/alsa.conf:{broken}")
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "TextSpeaker"
    assert "Traceback" not in result.stderr
    assert "asound" in result.stderr and "shown as text" in result.stderr
