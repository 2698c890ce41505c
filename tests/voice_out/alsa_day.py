"""Subprocess for the end-to-end test: play a scripted day through the default sound card.

Run with ``ALSA_CONFIG_PATH`` pointing at an ALSA file device (set before sounddevice loads):
``python alsa_day.py CONFIG SCRIPT REPORT.json``. The game runs on a fake clock; the sound
output runs the real sounddevice stream in lockstep with it. The report holds what the host
asked for (announcements, cues with their deadlines, timers), for the test to find in the
recording.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from voicehost import config
from voicehost.cli.demo import run_paced
from voicehost.clock import FakeClock
from voicehost.phrases import PhraseBook
from voicehost.testing.fakes import Witness
from voicehost.voice_out.sound import DeviceBackend, open_sound_output
from voicehost.voice_out.speech import speech_library


def main(config_path: str, script_path: str, report_path: str) -> int:
    settings = config.load(config_path)
    book = PhraseBook.load(settings.language)
    library = speech_library(settings)
    library.prepare(book.all_segments())
    clock = FakeClock()
    output = open_sound_output(
        clock,
        library,
        rate=settings.audio.sample_rate,
        cue_volume=settings.audio.cue_volume,
        device=settings.audio.output_device,
        block_frames=settings.audio.block_frames,
        lockstep=True,
    )
    assert isinstance(output.backend, DeviceBackend) and output.backend.lockstep
    witness = Witness(output, output, clock)
    timers: dict[int, dict] = {}

    def note_timer(host):
        if host.timer is not None:
            timers[host.timer.timer_id] = {
                "kind": str(host.timer.effect.timer),
                "starts": host.timer.starts_at,
                "ends": host.timer.ends_at,
            }

    lines = Path(script_path).read_text(encoding="utf-8").splitlines()
    result = run_paced(lines, settings, witness, clock, book, after_line=note_timer)
    output.close()
    placed = [
        {"tag": p.tag, "requested": p.requested, "start": p.start, "end": p.end}
        for p in output.placements()
    ]
    report = {
        "said": witness.said,
        "cues": witness.cues,
        "timers": list(timers.values()),
        "placed": placed,
    }
    Path(report_path).write_text(json.dumps(report), encoding="utf-8")
    for error in result.errors:
        print(error, file=sys.stderr)
    return 0 if not result.errors else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
