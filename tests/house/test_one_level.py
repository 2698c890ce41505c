"""A level in dBFS is computed in one place (voicehost/clips.py: ``power_dbfs``,
``level_dbfs``, ``frame_levels_dbfs``), so the players' voices, the room's noise, a take and
the doctor's microphone check all read silence as the same floor and agree on a level."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from voicehost.clips import FLOOR_DBFS, frame_levels_dbfs, level_dbfs
from voicehost.voice_in.calibration import frame_levels

PACKAGE = Path(__file__).resolve().parents[2] / "voicehost"


def test_no_decibels_outside_the_one_place() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "log10":
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert all(place.startswith("clips.py:") for place in found), found


def test_silence_reads_as_the_floor_in_int16_and_float_alike() -> None:
    assert level_dbfs(np.zeros(480, dtype=np.int16)) == FLOOR_DBFS
    assert level_dbfs(np.zeros(480, dtype=np.float32)) == FLOOR_DBFS
    assert level_dbfs(np.zeros(0, dtype=np.int16)) == FLOOR_DBFS
    assert list(frame_levels(np.zeros(16000, dtype=np.int16), 16000)) == [FLOOR_DBFS] * 33


def test_a_voice_reads_the_same_level_from_the_microphone_and_from_a_clip() -> None:
    tone = 0.25 * np.sin(np.linspace(0, 200 * np.pi, 4800))
    as_int16 = (tone * 32768).astype(np.int16)
    assert abs(level_dbfs(as_int16) - level_dbfs(tone.astype(np.float32))) < 0.01
    assert abs(level_dbfs(as_int16) - (20 * np.log10(0.25 / np.sqrt(2)))) < 0.05
    assert np.allclose(frame_levels_dbfs(as_int16, 480), level_dbfs(as_int16), atol=0.05)
