"""A simulated sound card for the voice-out benchmarks (this machine has none).

It does what PortAudio does with ``voicehost.voice_out.sound.DeviceBackend``'s callback: a thread
asks for one block every block-time of *its own* crystal, tells the timeline when that block
will be heard (PortAudio's ``outputBufferDacTime``), and pulls the mix. A callback so late that
the card ran dry is an underrun: the card resumes later, as a real one does. Its crystal may run
fast or slow (``ppm``), so a benchmark sees whether the timeline follows a card that drifts; and
since the card knows when each of its samples is really heard, onset errors are measured against the
truth, not against the timeline's own estimate.

The ALSA null/file devices cannot stand in here: they are not real time (they take blocks as
fast as they are made).
"""

from __future__ import annotations

import bisect
import math
import threading
import time

from voicehost.voice_out.sound import BLOCK_FRAMES, Backend, SoundOutput


class SimulatedCard(Backend):
    """A real-time card pulling ``block_frames`` per callback from a SoundOutput."""

    def __init__(
        self,
        output: SoundOutput,
        *,
        latency: float = 0.0,
        ppm: float = 0.0,
        block_frames: int = BLOCK_FRAMES,
    ) -> None:
        self.output = output
        self.latency = latency
        self.ppm = ppm
        self.true_rate = output.rate * (1 + ppm * 1e-6)
        self.block_frames = block_frames
        self.started = output.clock.now()
        self.underruns = 0
        self.blocks_heard: list[tuple[int, float]] = []
        self._stopped = threading.Event()
        output.backend = self
        self._thread = threading.Thread(target=self._run, name="simulated-card", daemon=True)
        self._thread.start()

    def heard_at(self, position: int) -> float:
        """When sample ``position`` will reach the listener, if no underrun comes first."""
        return self.started + position / self.true_rate + self.latency

    def was_heard_at(self, position: int) -> float:
        """When sample ``position``, already played, really reached the listener."""
        index = bisect.bisect_right(self.blocks_heard, (position, math.inf)) - 1
        first, heard = self.blocks_heard[index]
        return heard + (position - first) / self.true_rate

    def _run(self) -> None:
        output = self.output
        blocks = 0
        while not self._stopped.is_set():
            due = self.heard_at(blocks * self.block_frames) - self.latency
            pause = due - output.clock.now()
            if pause > 0:
                time.sleep(pause)
            with output._lock:
                first = output.mixer.position
                heard = self._dac_time(output)
                output.timeline.observe(first, heard)
            self.blocks_heard.append((first, heard))
            output.pull(self.block_frames)
            blocks += 1

    def _dac_time(self, output: SoundOutput) -> float:
        """When the block asked for now will be heard, as PortAudio reports it. The card asks
        ``latency`` ahead; a callback later than the block's own time to play found the card
        dry (an underrun), and the card goes on from now."""
        heard = self.heard_at(output.mixer.position)
        now = output.clock.now()
        if heard < now:
            self.started += now - heard
            self.underruns += 1
            heard = now
        return heard

    def drain(self, position: int) -> None:
        while self.output.mixer.position < position and not self._stopped.is_set():
            time.sleep(0.005)

    def close(self) -> None:
        self._stopped.set()
        self._thread.join()
