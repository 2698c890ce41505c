"""Helpers for the voice out tests: configs, the ALSA file device, measuring recordings."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from voicehost.clips import Clip

SYSTEM_ALSA_CONF = Path("/usr/share/alsa/alsa.conf")


def write_config(folder: Path, cache_dir: Path, extra: str = "") -> Path:
    """A config.yaml in ``folder`` using ``cache_dir``; ``extra`` is more YAML."""
    path = folder / "config.yaml"
    path.write_text(f"voice:\n  cache_dir: {cache_dir}\n{extra}", encoding="utf-8")
    return path


def alsa_file_device(folder: Path) -> tuple[dict[str, str], Path]:
    """Environment for a subprocess whose default sound card writes to ``folder/played.wav``."""
    played = folder / "played.wav"
    conf = folder / "asound.conf"
    conf.write_text(
        f"<{SYSTEM_ALSA_CONF}>\n"
        'pcm.!default { type asym; playback.pcm "tap"; capture.pcm "mic" }\n'
        f'pcm.tap {{ type file; slave.pcm "null"; file "{played}"; format "wav" }}\n'
        f'pcm.mic {{ type file; slave.pcm "null"; file "/dev/null"; infile "{folder}/mic.raw";'
        ' format "raw" }\n',
        encoding="utf-8",
    )
    (folder / "mic.raw").write_bytes(b"\0" * 64000)
    return {**os.environ, "ALSA_CONFIG_PATH": str(conf)}, played


def level_dbfs(clip: Clip, start: float, end: float) -> float:
    """RMS level of ``clip`` between two times (seconds), in dBFS."""
    part = clip.samples[max(0, round(start * clip.rate)) : max(0, round(end * clip.rate))]
    if len(part) == 0:
        return float("-inf")
    energy = float(np.mean(part.astype(np.float64) ** 2))
    return 10 * np.log10(energy) if energy > 0 else float("-inf")


def speech_loudness(clip: Clip) -> float:
    """Loudness as a listener's meter would read it: RMS of the 50 ms windows above -45 dBFS."""
    window = round(0.05 * clip.rate)
    count = clip.frames // window
    frames = clip.samples[: count * window].astype(np.float64).reshape(count, window)
    energy = np.mean(frames**2, axis=1)
    loud = energy[energy > 10 ** (-45 / 10)]
    return float(10 * np.log10(np.mean(loud)))


def dominant_frequency(clip: Clip, start: float, seconds: float) -> float:
    """The strongest frequency (hertz) of ``clip`` in a window."""
    part = clip.samples[round(start * clip.rate) : round((start + seconds) * clip.rate)]
    spectrum = np.abs(np.fft.rfft(part * np.hanning(len(part))))
    return float(np.fft.rfftfreq(len(part), 1 / clip.rate)[int(np.argmax(spectrum))])
