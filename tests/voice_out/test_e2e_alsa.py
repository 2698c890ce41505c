"""End to end: a scripted day played through the ALSA file device, checked in the recording.

The game runs on a fake clock in a subprocess whose default sound card is an ALSA file device;
the sound output runs the real sounddevice stream in lockstep with the clock. In the recording,
every announcement that opens a speech ends where the speech's timer starts, and every cue
starts on its deadline (silence just before, its own pitch just after).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from voice_out_kit import alsa_file_device, dominant_frequency, level_dbfs, write_config

from voicehost.clips import read_wav
from voicehost.game.model import Cue
from voicehost.voice_out.cues import CUE_NOTES

HERE = Path(__file__).resolve().parent

QUICK_GAME = """
timers:
  discussion_seconds: 10
  nomination_speech_seconds: 4
  defence_speech_seconds: 4
  last_words_seconds: 3
  warning_seconds: 1.5
night:
  registration_window_seconds: 3
  mafia_window_seconds: 4
  no_agreed_shot_after_seconds: 2
  commissar_window_seconds: 3
  doctor_window_seconds: 3
"""

DAY = """
# night 0, then day 1: each speaker talks a second, the host enters the nomination,
# and the speech ends early («спасибо») or runs out of time (warning, then time up)
2 5 9
wait
4
wait
7
wait
wait
wait 1
5
wait 1
.
wait 1
9
wait
wait 1
5
wait 1
.
wait 1
9
wait 1
.
wait 1
9
wait
wait 1
5
wait 1
.
wait 1
9
wait 1
.
wait 1
5
wait 1
.
wait 1
5
wait
wait 1
9
wait 1
.
wait
wait 1
.
6
wait
"""

SPEECHES = ("nomination_speech", "defence_speech", "last_words")


@pytest.fixture(scope="module")
def played_day(tmp_path_factory, warm_cache_dir):
    folder = tmp_path_factory.mktemp("alsa-day")
    env, played = alsa_file_device(folder)
    config = write_config(folder, warm_cache_dir, QUICK_GAME)
    script = folder / "day.txt"
    script.write_text(DAY, encoding="utf-8")
    report = folder / "report.json"
    done = subprocess.run(
        [sys.executable, str(HERE / "alsa_day.py"), str(config), str(script), str(report)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return read_wav(played), json.loads(report.read_text(encoding="utf-8"))


def test_the_whole_day_is_recorded(played_day):
    audio, report = played_day
    last_cue = max(cue["deadline"] for cue in report["cues"])
    assert audio.rate == 22050
    assert audio.duration > last_cue + 0.5
    assert len(report["said"]) > 30


def test_each_speech_starts_when_its_announcement_ends(played_day):
    audio, report = played_day
    speeches = [timer for timer in report["timers"] if timer["kind"] in SPEECHES]
    assert len(speeches) >= 12
    for timer in speeches:
        start = timer["starts"]
        assert level_dbfs(audio, start - 0.25, start - 0.01) > -45, f"nothing said by {start}"
        assert level_dbfs(audio, start + 0.02, start + 0.6) < -70, f"still talking at {start}"


def test_each_cue_starts_on_its_deadline(played_day):
    audio, report = played_day
    kinds = {cue["cue"] for cue in report["cues"]}
    assert {Cue.WARNING, Cue.TIME_UP, Cue.SPEECH_ENDED} <= kinds
    for cue in report["cues"]:
        onset = cue["deadline"]
        where = f"{cue['cue']} at {onset:.3f} s"
        assert level_dbfs(audio, onset - 0.05, onset - 0.003) < -70, f"sound before {where}"
        assert level_dbfs(audio, onset + 0.003, onset + 0.06) > -25, f"no sound after {where}"
        expected = CUE_NOTES[Cue(cue["cue"])][0].frequency
        heard = dominant_frequency(audio, onset, 0.1)
        assert heard == pytest.approx(expected, rel=0.05), where
