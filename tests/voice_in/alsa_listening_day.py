"""Child process of test_hands_free_day: a scripted day whose first speech ends by voice.

Run with ``ALSA_CONFIG_PATH`` set (before sounddevice loads) to an ALSA file device whose
microphone reads a raw 16 kHz recording. Usage: ``alsa_listening_day.py MODEL_FOLDER``; prints
one JSON object with what happened.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from voicehost.clock import FakeClock
from voicehost.config import Settings
from voicehost.console.script import run_script
from voicehost.console.text import SilentCues
from voicehost.host.commands import VoiceSpokeOn, VoiceStop
from voicehost.voice_in.microphone import MicrophoneSource
from voicehost.voice_in.rule import Decision, Verdict
from voicehost.voice_in.vosk_listener import ListenerEvent, SpokeOn, build_listener

NIGHT_ZERO_AND_DISCUSSION = ["2 5 9", "wait", "4", "wait", "7", "wait", "wait"]


def main() -> None:
    folder = Path(sys.argv[1])
    settings = Settings()
    clock = FakeClock()
    cues = SilentCues()
    events: list[ListenerEvent] = []
    # The file device delivers the whole recording at once: stamp blocks by sample count.
    microphone = MicrophoneSource(clock, sample_rate=16000, block_seconds=0.05, real_time=False)
    listener = build_listener(
        settings, clock, folder, ("감사합니다", "패스"), microphone, events.append
    )

    day = run_script(NIGHT_ZERO_AND_DISCUSSION, settings, clock=clock, cues=cues, listener=listener)
    host = day.host
    speech = host.timer
    assert speech is not None and speech.effect.listen, "seat 1's nomination speech should run"
    cues_before = len(cues.played)
    # Seat 1 starts talking into the microphone as the speech's time starts.
    started = time.monotonic()
    listener.start(
        lambda token: host.post(VoiceStop(token)), lambda token: host.post(VoiceSpokeOn(token))
    )
    ended = wait_for_end(events, seconds=30.0)
    heard_after = time.monotonic() - started
    host.process_pending()
    held = host.held is not None and host.state is not None and host.state.speech_running
    clock.advance(settings.listener.spoke_on_seconds)  # nobody talks on: the end stands
    host.process_pending()
    cues_during = [str(cue) for cue, _ in cues.played[cues_before:]]
    prompt_after = host.prompt()
    run_script(["2"], settings, clock=clock, cues=cues, listener=listener, host=host)
    closing = time.monotonic()
    listener.close()
    closed_in = time.monotonic() - closing

    print(
        json.dumps(
            {
                "speech_timer": speech.timer_id,
                "speech_starts": speech.starts_at,
                "speech_ends": speech.ends_at,
                "voice_end_at": None if ended is None else ended.at,
                "held_first": held,
                "spoke_on": [str(e) for e in events if isinstance(e, SpokeOn)],
                "voice_word": None if ended is None else ended.word.word,
                "next_timer": None if host.timer is None else host.timer.timer_id,
                "next_speaker": None if host.timer is None else host.timer.effect.speaker,
                "cues_during_speech": cues_during,
                "heard_after_seconds": heard_after,
                "closed_in_seconds": closed_in,
                "asks_for_nomination_of": prompt_after.subject,
                "overflows": microphone.overflows,
                "transcript_tail": host.transcript[-2:],
                "words": [
                    w.word
                    for e in events
                    if hasattr(e, "words")
                    for w in e.words  # type: ignore[union-attr]
                ],
                "failure": None if listener.failure is None else str(listener.failure),
            },
            ensure_ascii=False,
        )
    )


def wait_for_end(events: list[ListenerEvent], seconds: float) -> Decision | None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for event in list(events):
            if isinstance(event, Decision) and event.verdict is Verdict.SPEECH_ENDED:
                return event
        time.sleep(0.02)
    return None


if __name__ == "__main__":
    main()
