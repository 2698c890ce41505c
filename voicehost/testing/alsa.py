"""A sound card for a child process: an ALSA file device whose microphone reads given samples
and whose speaker writes a WAV file (tests and benches; no sound hardware needed)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np


def alsa_microphone(folder: Path, samples: np.ndarray) -> dict[str, str]:
    """Environment for a child process whose default microphone reads ``samples`` (16 kHz)
    and whose speaker writes ``folder/played.wav``."""
    (folder / "mic_in.raw").write_bytes(samples.astype("<i2").tobytes())
    conf = folder / "asound.conf"
    conf.write_text(
        'pcm.!default { type asym; playback.pcm "tap"; capture.pcm "mic" }\n'
        f'pcm.tap {{ type file; slave.pcm "null"; file "{folder}/played.wav"; format "wav" }}\n'
        f'pcm.mic {{ type file; slave.pcm "null"; file "/dev/null"; '
        f'infile "{folder}/mic_in.raw"; format "raw" }}\n',
        encoding="utf-8",
    )
    environment = {key: value for key, value in os.environ.items() if not key.startswith("ALSA")}
    # The system's alsa.conf first: it defines the "null" and "file" plugins used above.
    return {**environment, "ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{conf}"}
