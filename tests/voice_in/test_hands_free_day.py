"""End to end: a player's recorded speech through the ALSA file device's microphone, real
sounddevice, real Vosk and the host: the speech ends by voice at the right moment."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from voicehost.testing.alsa import alsa_microphone

CHILD = Path(__file__).with_name("alsa_listening_day.py")
SILENCE = 0.6  # listener.silence_seconds, the default


@pytest.mark.slow
def test_a_nomination_speech_ends_by_voice_soon_after_the_stop_word(
    tmp_path, korean_folder, record
):
    # Seat 1: «I nominate seat two» ... «thank you», then silence (the file's tail repeats).
    recording = record([0.8, "저는 이번을 지명합니다", 1.0, "감사합니다", 5.0])
    environment = alsa_microphone(tmp_path, recording.samples)

    done = subprocess.run(
        [sys.executable, str(CHILD), str(korean_folder)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])

    assert result["failure"] is None
    assert result["voice_word"] == "감사합니다", result["words"]
    stop_word_ends = result["speech_starts"] + recording.speech_ends[1]
    waited = result["voice_end_at"] - stop_word_ends
    assert SILENCE <= waited <= SILENCE + 0.2, waited  # the right moment
    assert result["voice_end_at"] < result["speech_ends"] - 5  # well before the timer
    # Held for listener.spoke_on_seconds in case the player talks on; nobody did.
    assert result["held_first"] is True and result["spoke_on"] == []
    assert result["cues_during_speech"] == ["speech_ended"]  # no warning, no time up
    assert result["asks_for_nomination_of"] == 1  # the host enters seat 1's nomination...
    assert result["transcript_tail"] == ["Номер два принят.", "Слово игроку номер два."]
    assert result["next_speaker"] == 2 and result["next_timer"] != result["speech_timer"]
