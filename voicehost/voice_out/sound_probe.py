"""Will the sound system start? Asked in a child process, because a broken ALSA configuration
makes alsa-lib abort the whole process when sounddevice is imported."""

from __future__ import annotations

import functools
import subprocess
import sys

PROBE_TIMEOUT_SECONDS = 10.0


@functools.cache
def sound_system_crash() -> str | None:
    """Why PortAudio would crash this process on import, or None when it starts."""
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
