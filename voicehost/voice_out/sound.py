"""Sound output: the table's Speaker, CuePlayer and night Background over one mixer.

One ``SoundOutput`` implements all three ports. Announcements, cues and the masking loop are
placed on one sample timeline (``voice_out.mixer``) and pulled block by block by a backend:

- ``DeviceBackend``: one sounddevice ``OutputStream`` with a callback, on the default device
  or ``audio.output_device``. Each callback tells the timeline when its block will be heard,
  so a clip queued for clock time *t* is heard at *t*.
  With ``lockstep`` (a clock that jumps: scripted games, tests) the callback waits until
  the script's clock is past the block, so a device that is not real time (the ALSA file
  device) still records every sound at its clock time.
- ``PacedBackend``: no sound card, but ``--audio-out``: a thread renders at real-time pace.
- offline (``lockstep`` without a device): nothing plays; ``close()`` renders the timeline
  to the recording. ``voicehost play --script --audio-out`` and ``voicehost demo`` use it.

``--audio-out FILE.wav`` records exactly what the mixer hands to the device (a writer thread
keeps the disk away from the audio callback).
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
import time
import wave
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from voicehost.clips import Clip, Samples, SilenceSqueezer, from_int16, resample, to_int16
from voicehost.errors import DeviceError
from voicehost.game.model import Cue
from voicehost.notices import LOG_ONLY
from voicehost.ports import Clock, Utterance
from voicehost.voice_out.cues import cue_clips
from voicehost.voice_out.mixer import Lane, Mixer, Placement, Timeline
from voicehost.voice_out.speech import SpeechLibrary

log = logging.getLogger(__name__)

BLOCK_FRAMES = 256
"""Default frames per device callback (``audio.block_frames``): 11.6 ms at 22050 Hz, how long a
sound may wait for the card to take it."""

LEAD_MARGIN_SECONDS = 0.030
"""``lead_seconds()`` adds this for the caller's own delay: the loop may be busy when a timer
event falls due, fsyncing a person's input (13 ms at p99 on an SD card) or redrawing the
screen. The cue is still placed on the deadline's sample; only the event fires earlier."""

DRAIN_LIMIT_SECONDS = 60.0
"""``close()`` waits at most this long for queued sound to finish playing."""

SCRIPT_SLACK_SECONDS = 5.0
"""With a fake clock, rendering (offline or lockstep) stays this far behind the clock: a script
moves the clock first and fires the deadlines it passed after (``wait 10``), and those cues
must still land on their deadlines."""

PORTAUDIO_HINT = "sudo apt-get install libportaudio2 (and .venv/bin/pip install sounddevice)"

BlockListener = Callable[[int, int], None]
"""Told ``(first_position, frames)`` after each block is handed to the device."""


class WavRecorder:
    """Appends blocks to a 16-bit mono WAV file; a writer thread does the disk work.

    With a ``squeezer`` (the demo) every silence longer than its limit is shortened as the
    blocks come, so a long game never sits in memory, not even as a WAV read back.
    """

    def __init__(self, path: Path, rate: int, squeezer: SilenceSqueezer | None = None) -> None:
        self.path = path
        self.squeezer = squeezer
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._writer = wave.open(str(path), "wb")  # noqa: SIM115 - closed by close()
        except OSError as exc:
            raise DeviceError(
                f"cannot record to {path} ({exc.strerror}); choose a writable file for --audio-out"
            ) from exc
        self._writer.setnchannels(1)
        self._writer.setsampwidth(2)
        self._writer.setframerate(rate)
        self._blocks: queue.Queue[bytes | None] = queue.Queue()
        self._thread = threading.Thread(target=self._drain, name="voicehost-recorder", daemon=True)
        self._thread.start()

    def write(self, block: Samples) -> None:
        """Queue a block; returns at once."""
        self._blocks.put(to_int16(block))

    def close(self) -> None:
        """Write what is queued and close the file."""
        self._blocks.put(None)
        self._thread.join()
        self._writer.close()

    def _drain(self) -> None:
        while (data := self._blocks.get()) is not None:
            if self.squeezer is not None:  # judged as the file holds it (16-bit), as it would be
                samples = from_int16(data, self.squeezer.rate).samples
                data = to_int16(self.squeezer.feed(samples))
            self._writer.writeframes(data)
        if self.squeezer is not None:
            self._writer.writeframes(to_int16(self.squeezer.finish()))


class SoundOutput:
    """Speaker, CuePlayer and Background over one mixer (see the module text)."""

    def __init__(
        self,
        clock: Clock,
        library: SpeechLibrary,
        cues: dict[Cue, Clip],
        *,
        rate: int,
        recorder: WavRecorder | None = None,
        echo: TextIO | None = None,
    ) -> None:
        self.clock = clock
        self.library = library
        self.cues = {cue: resample(clip, rate) for cue, clip in cues.items()}
        self.rate = rate
        self.recorder = recorder
        self.echo = echo
        self.mixer = Mixer(rate)
        self.timeline = Timeline(rate, origin=clock.now())
        self.backend: Backend | None = None
        self.block_listeners: list[BlockListener] = []
        self.spoken: list[str] = []
        self._lock = threading.Lock()
        self._voice_end_time = clock.now()
        self._closed = False

    # --- Speaker ---

    def say(self, utterance: Utterance) -> None:
        """Queue an announcement after everything queued before it; returns at once."""
        clip = self.library.utterance_clip(utterance)
        self.spoken.append(utterance.text)
        if self.echo is not None:
            print(f"🔊 {utterance.text}", file=self.echo, flush=True)
        self._place(Lane.VOICE, clip, self.clock.now(), utterance.key)

    def busy_until(self) -> float:
        """Clock time at which every queued announcement will have been heard."""
        with self._lock:
            return max(self.clock.now(), self._voice_end_time)

    # --- CuePlayer ---

    def play(self, cue: Cue, at: float | None = None) -> None:
        """Start ``cue`` at clock time ``at`` (now when None; as soon as possible when past)."""
        self._place(Lane.CUE, self.cues[cue], self.clock.now() if at is None else at, str(cue))

    # --- Background ---

    def start(self, samples: Any, rate: int) -> None:
        """Loop ``samples`` (mono, -1..1, at ``rate``) under everything until ``stop``."""
        loop = resample(Clip(np.asarray(samples, dtype=np.float32), rate), self.rate)
        with self._lock:
            self._catch_up(0.0)
            self.mixer.start_background(loop.samples)

    def stop(self) -> None:
        """Fade the background loop out."""
        with self._lock:
            self._catch_up(0.0)
            self.mixer.stop_background()

    # --- both ---

    def close(self) -> None:
        """Let everything queued be heard (or rendered), then release the device and the file."""
        if self._closed:
            return
        self._closed = True
        with self._lock:
            end = self.mixer.end_of_everything()
        if self.backend is not None:
            self.backend.drain(end)
            self.backend.close()
        else:
            self._render_until(end)
        if self.recorder is not None:
            self.recorder.close()

    def finish(self) -> None:
        """Same as ``close()`` (the script runner's name for it)."""
        self.close()

    # --- for backends, benches and tests ---

    def pull(self, frames: int) -> Samples:
        """The next block of the mix, recorded and reported to the block listeners."""
        with self._lock:
            first = self.mixer.position
            block = self.mixer.render(frames)
        if self.recorder is not None:
            self.recorder.write(block)
        for listener in self.block_listeners:
            listener(first, frames)
        return block

    def placements(self) -> list[Placement]:
        """Every clip placed so far (lane, tag, requested and actual start)."""
        with self._lock:
            return list(self.mixer.placements)

    def lead_seconds(self) -> float:
        """How long before a deadline ``play(cue, at=deadline)`` must be called for the cue to
        start on it: what the card already holds, one callback, and a margin for the caller."""
        with self._lock:
            held = self.timeline.time_of(self.mixer.position) - self.clock.now()
        block = self.backend.block_frames if self.backend is not None else 0
        return max(0.0, held) + block / self.rate + LEAD_MARGIN_SECONDS

    def heard_at(self, position: int) -> float:
        """Clock time at which sample ``position`` is heard."""
        with self._lock:
            return self.timeline.time_of(position)

    def _place(self, lane: Lane, clip: Clip, when: float, tag: str) -> Placement:
        with self._lock:
            self._catch_up(SCRIPT_SLACK_SECONDS)
            placement = self.mixer.place(lane, clip.samples, self.timeline.position_of(when), tag)
            if lane is Lane.VOICE:
                self._voice_end_time = self.timeline.time_of(placement.end)
            return placement

    def _catch_up(self, slack_seconds: float) -> None:
        """Offline only (no backend, lock held): render up to the clock, less ``slack``."""
        if self.backend is not None:
            return
        target = self.timeline.position_of(self.clock.now() - slack_seconds)
        self._render_locked(target)

    def _render_until(self, position: int) -> None:
        with self._lock:
            self._render_locked(position)

    def _render_locked(self, position: int) -> None:
        while self.mixer.position < position:
            frames = min(self.rate, position - self.mixer.position)
            block = self.mixer.render(frames)
            if self.recorder is not None:
                self.recorder.write(block)


class Backend:
    """Pulls blocks from a SoundOutput to somewhere they are heard."""

    block_frames = 0
    """Frames per pull: the card holds one such block ahead of what is heard (none offline)."""

    def drain(self, position: int) -> None:
        """Return when sample ``position`` has been handed over (or heard)."""

    def close(self) -> None:
        """Release the device or thread."""


class DeviceBackend(Backend):
    """One sounddevice OutputStream whose callback pulls the mix (see the module text)."""

    def __init__(
        self,
        output: SoundOutput,
        device: int | str | None,
        *,
        lockstep: bool,
        block_frames: int = BLOCK_FRAMES,
    ) -> None:
        self.output = output
        self.lockstep = lockstep
        self.block_frames = block_frames
        self._draining = False
        self._failed = False
        sd = import_sounddevice()
        output.backend = self
        try:
            self.stream = sd.OutputStream(
                samplerate=output.rate,
                channels=1,
                dtype="float32",
                blocksize=block_frames,
                device=device,
                latency="low",
                callback=self._callback,
            )
            self.stream.start()
        except Exception as exc:  # noqa: BLE001 - PortAudio raises its own error and ValueError
            output.backend = None
            raise DeviceError(
                f"no sound output ({_first_line(exc)}); plug in a speaker or set "
                "audio.output_device in config.yaml (`python -m sounddevice` lists devices)",
                phrase="reason_no_sound_output",
                library=_first_line(exc),
            ) from exc
        self.latency = float(self.stream.latency)

    def _callback(self, outdata: Any, frames: int, time_info: Any, status: Any) -> None:
        try:
            output = self.output
            if self.lockstep:
                self._wait_for_clock(frames)
            else:
                heard_in = max(0.0, time_info.outputBufferDacTime - time_info.currentTime)
                with output._lock:
                    output.timeline.observe(output.mixer.position, output.clock.now() + heard_in)
            outdata[:, 0] = output.pull(frames)
        except Exception:  # noqa: BLE001 - an exception would stop the stream for good
            if not self._failed:
                log.exception("sound output callback failed; playing silence", extra=LOG_ONLY)
                self._failed = True
            outdata.fill(0)

    def _wait_for_clock(self, frames: int) -> None:
        """Lockstep: hand over a block only once the fake clock is well past its end."""
        output = self.output
        while not self._draining:
            with output._lock:
                block_end = output.timeline.time_of(output.mixer.position + frames)
            if output.clock.now() - SCRIPT_SLACK_SECONDS >= block_end:
                return
            time.sleep(0.001)

    def drain(self, position: int) -> None:
        self._draining = self.lockstep
        deadline = time.monotonic() + DRAIN_LIMIT_SECONDS
        while self.output.mixer.position < position and time.monotonic() < deadline:
            time.sleep(0.005)
        if not self.lockstep:
            time.sleep(self.latency)  # the last block is still in the card's buffer

    def close(self) -> None:
        self._draining = True
        self.stream.stop()
        self.stream.close()


class PacedBackend(Backend):
    """No sound card: a thread pulls the mix at real-time pace (for ``--audio-out``)."""

    def __init__(self, output: SoundOutput, block_frames: int = BLOCK_FRAMES) -> None:
        self.output = output
        self.block_frames = block_frames
        self._stopped = threading.Event()
        output.backend = self
        self._thread = threading.Thread(target=self._run, name="voicehost-paced", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        output = self.output
        period = self.block_frames / output.rate
        while not self._stopped.is_set():
            wanted = output.timeline.position_of(output.clock.now()) + self.block_frames
            while output.mixer.position < wanted:
                output.pull(self.block_frames)
            self._stopped.wait(period / 2)

    def drain(self, position: int) -> None:
        deadline = time.monotonic() + DRAIN_LIMIT_SECONDS
        while self.output.mixer.position < position and time.monotonic() < deadline:
            time.sleep(0.005)

    def close(self) -> None:
        self._stopped.set()
        self._thread.join()


def import_sounddevice() -> Any:
    """The sounddevice module, or DeviceError with the install hint."""
    try:
        import sounddevice
    except (ImportError, OSError) as exc:
        raise DeviceError(
            f"no sound output: {_first_line(exc)}; {PORTAUDIO_HINT}",
            phrase="reason_no_portaudio",
            library=_first_line(exc),
        ) from exc
    except Exception as exc:  # PortAudioError: a broken ALSA configuration, no sound server
        raise DeviceError(
            f"the sound system did not start ({_first_line(exc)}); repair or remove a broken "
            "~/.asoundrc or /etc/asound.conf (`voicehost doctor` explains)",
            phrase="reason_sound_system_failed",
            library=_first_line(exc),
        ) from exc
    return sounddevice


def device_setting(name: str) -> int | str | None:
    """``audio.output_device`` as sounddevice wants it: None (default), a number or a name."""
    name = name.strip()
    if not name:
        return None
    return int(name) if name.isdigit() else name


def open_sound_output(
    clock: Clock,
    library: SpeechLibrary,
    *,
    rate: int,
    cue_volume: float,
    device: str,
    use_device: bool = True,
    audio_out: Path | None = None,
    echo: TextIO | None = None,
    block_frames: int = BLOCK_FRAMES,
    lockstep: bool = False,
    squeezer: SilenceSqueezer | None = None,
) -> SoundOutput:
    """A SoundOutput on the sound card, or without one (see the module text).

    ``squeezer`` shortens the long silences of what is recorded to ``audio_out`` (the demo).

    ``lockstep`` is for a clock that jumps (a scripted game, a test): the card then plays each
    block only when the clock has reached it, and without a card nothing is paced.

    Raises DeviceError when a device is wanted and there is none and nothing is recorded;
    with ``audio_out`` a missing device is reported once and the game is still recorded.
    """
    recorder = WavRecorder(audio_out, rate, squeezer) if audio_out is not None else None
    output = SoundOutput(
        clock, library, cue_clips(rate, cue_volume), rate=rate, recorder=recorder, echo=echo
    )
    fake = lockstep
    if not use_device:
        if not fake:
            PacedBackend(output, block_frames)
        return output
    try:
        DeviceBackend(output, device_setting(device), lockstep=fake, block_frames=block_frames)
    except DeviceError as exc:
        if recorder is None:
            raise
        print(f"voicehost: {exc}; recording to {audio_out} only.", file=sys.stderr)
        if not fake:
            PacedBackend(output, block_frames)
    return output


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


__all__ = [
    "DeviceBackend",
    "PacedBackend",
    "SoundOutput",
    "WavRecorder",
    "open_sound_output",
]
