"""Child process of test_a_slow_cpu_overflows_the_microphone_without_harm.

Run with ``ALSA_CONFIG_PATH`` naming a file-device microphone (read as fast as the disk goes,
like a Pi whose CPU cannot keep up). Every block costs the Listener 20 ms more than usual, so
the microphone's queue overflows. Usage: ``slow_microphone_child.py MODEL_FOLDER SECONDS``;
prints one JSON object with what happened.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from voicehost.clock import FakeClock
from voicehost.config import Settings
from voicehost.voice_in.microphone import MicrophoneSource
from voicehost.voice_in.vosk_listener import build_listener


def main() -> None:
    folder, seconds = Path(sys.argv[1]), float(sys.argv[2])
    clock = FakeClock()
    microphone = MicrophoneSource(
        clock, sample_rate=16000, block_seconds=0.05, real_time=False, max_queue_seconds=0.5
    )
    listener = build_listener(Settings(), clock, folder, ("감사합니다", "패스"), microphone)
    ended: list[int] = []
    blocks = [0]
    process = listener.process

    def slow_process(block):  # a CPU six times slower than this one
        blocks[0] += 1
        time.sleep(0.02)
        process(block)

    listener.process = slow_process  # type: ignore[method-assign]
    listener.listen(1)
    listener.start(ended.append)
    time.sleep(seconds)
    alive = listener._thread is not None and listener._thread.is_alive()
    listener.close()
    print(
        json.dumps(
            {
                "overflows": microphone.overflows,
                "blocks": blocks[0],
                "failure": repr(listener.failure) if listener.failure else None,
                "restarts": listener.restarts,
                "ended": ended,
                "alive": alive,
            }
        )
    )


if __name__ == "__main__":
    main()
