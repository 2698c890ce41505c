"""Will the sound system start? Asked in a child process, because a broken ALSA configuration
makes alsa-lib abort the whole process when sounddevice is imported.

The child takes about a tenth of a second (it imports sounddevice), and importing sounddevice
here takes as long again (it runs ``ldconfig -p`` to find PortAudio). So a game starts both
first, on a thread of their own (``start_probe()``): the child, then (when it lived) the import
in this process. Meanwhile the main thread reads the settings, the phrase book and the audio
cache; ``sound_system_crash()`` waits for the answer when the sound card is opened.
"""

from __future__ import annotations

import contextlib
import importlib
import subprocess
import sys
import threading

PROBE_TIMEOUT_SECONDS = 10.0

_lock = threading.Lock()
_thread: threading.Thread | None = None
_answer: list[str | None] = []


def start_probe() -> None:
    """Start asking, once; ``sound_system_crash()`` waits for the answer."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_probe, name="sound-probe", daemon=True)
            _thread.start()


def sound_system_crash() -> str | None:
    """Why PortAudio would crash this process on import, or None when it starts."""
    start_probe()
    assert _thread is not None
    _thread.join()
    return _answer[0]


def _probe() -> None:
    crash = _crash()
    _answer.append(crash)
    if crash is None:
        # ready when the card is opened; a failure is reported by the sound output's own import
        with contextlib.suppress(Exception):
            importlib.import_module("sounddevice")


def _crash() -> str | None:
    try:
        probe = subprocess.run(
            [sys.executable, "-c", "import sounddevice"],
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired:
        return "the sound system did not start within 10 s"
    if probe.returncode >= 0:
        return None  # it starts (a missing package is reported by the import itself)
    last_line = (probe.stderr.strip().splitlines() or ["no message"])[-1]
    return f"the sound system crashes when it starts ({last_line})"
