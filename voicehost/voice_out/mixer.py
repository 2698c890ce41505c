"""The mixer: clips placed at sample positions on one output timeline, rendered block by block.

Pure numpy, no device and no threads (the sound adapter holds the lock). Two rules make timing
something players can trust:

- The voice lane is sequential: an announcement starts no earlier than the end of the one before
  it, and never over a cue already placed (it waits for the cue to end), so announcements never
  overlap and the end of each one is known exactly when it is queued.
- Every clip starts at a sample position computed from its clock time by a ``Timeline``, so a cue
  lands on its deadline to the sample, and nothing drifts however long the game runs.

A looped background (the night's masking sound) fades in and out under everything.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from voicehost.clips import Samples, soft_limit

BACKGROUND_FADE_SECONDS = 0.5
"""The masking loop fades in and out over this long, so night starts and ends without a click."""

ORIGIN_SNAP_SECONDS = 0.05
"""A device whose timing jumps by more than this (an underrun) is re-anchored at once."""

ORIGIN_SMOOTHING = 0.02
"""How much of each callback's measurement moves the anchor: small, so jitter averages out."""


class Lane(StrEnum):
    """Where a clip plays: the sequential voice lane or the free cue lane."""

    VOICE = "voice"
    CUE = "cue"


@dataclass(frozen=True)
class Placement:
    """Where a clip was put: ``start`` and ``length`` in samples, ``requested`` what was asked."""

    lane: Lane
    tag: str
    requested: int
    start: int
    length: int

    @property
    def end(self) -> int:
        """The sample after the clip."""
        return self.start + self.length


@dataclass
class _Sounding:
    placement: Placement
    samples: Samples


class Mixer:
    """Clips at sample positions, summed into blocks; ``position`` is the next sample to render."""

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self.position = 0
        self.placements: list[Placement] = []
        self._sounding: list[_Sounding] = []
        self._voice_end = 0
        self._background: Samples | None = None
        self._background_offset = 0
        self._background_gain = 0.0
        self._background_target = 0.0

    # --- placing ---

    def place(self, lane: Lane, samples: Samples, requested: int, tag: str = "") -> Placement:
        """Put a clip on a lane at ``requested`` (or as soon after as the lane allows)."""
        start = max(requested, self.position)
        if lane is Lane.VOICE:
            start = self._voice_start(max(start, self._voice_end), len(samples))
            self._voice_end = start + len(samples)
        placement = Placement(lane, tag, requested, start, len(samples))
        self.placements.append(placement)
        if len(samples):
            self._sounding.append(_Sounding(placement, samples))
        return placement

    def _voice_start(self, start: int, length: int) -> int:
        """Push a voice start past every cue it would overlap (a cue is never talked over)."""
        moved = True
        while moved:
            moved = False
            for item in self._sounding:
                cue = item.placement
                if cue.lane is Lane.CUE and cue.start < start + max(length, 1) and start < cue.end:
                    start, moved = cue.end, True
        return start

    @property
    def voice_end(self) -> int:
        """The sample position where the last queued announcement ends."""
        return self._voice_end

    def end_of_everything(self) -> int:
        """The position after which nothing placed is left to play."""
        ends = [item.placement.end for item in self._sounding]
        return max([self.position, self._voice_end, *ends])

    # --- background ---

    def start_background(self, samples: Samples) -> None:
        """Loop ``samples`` under everything, fading in."""
        if len(samples) == 0:
            return
        self._background = samples
        self._background_offset = 0
        self._background_target = 1.0

    def stop_background(self) -> None:
        """Fade the loop out; it stops when silent."""
        self._background_target = 0.0

    @property
    def background_playing(self) -> bool:
        """True while a background loop sounds (or fades out)."""
        return self._background is not None

    # --- rendering ---

    def render(self, frames: int) -> Samples:
        """The next ``frames`` samples of the mix; advances ``position``."""
        block = np.zeros(frames, dtype=np.float32)
        block_start, block_end = self.position, self.position + frames
        still: list[_Sounding] = []
        for item in self._sounding:
            start, end = item.placement.start, item.placement.end
            if start < block_end and end > block_start:
                first = max(start, block_start)
                last = min(end, block_end)
                block[first - block_start : last - block_start] += item.samples[
                    first - start : last - start
                ]
            if end > block_end:
                still.append(item)
        self._sounding = still
        self._add_background(block)
        self.position = block_end
        return soft_limit(block)

    def _add_background(self, block: Samples) -> None:
        loop = self._background
        if loop is None:
            return
        frames = len(block)
        indices = (self._background_offset + np.arange(frames)) % len(loop)
        self._background_offset = int((self._background_offset + frames) % len(loop))
        gain, target = self._background_gain, self._background_target
        if gain == target:
            envelope = np.full(frames, gain)
        else:
            step = 1.0 / max(1.0, BACKGROUND_FADE_SECONDS * self.rate)
            ramp = gain + np.sign(target - gain) * step * np.arange(1, frames + 1)
            envelope = np.clip(ramp, min(gain, target), max(gain, target))
        block += (loop[indices] * envelope).astype(np.float32)
        self._background_gain = float(envelope[-1])
        if self._background_target == 0.0 and self._background_gain <= 0.0:
            self._background = None


class Timeline:
    """Clock time <-> sample position of the output: ``time = origin + position / rate``.

    With a fixed origin (a fake clock, a file, a software device) the mapping is exact. A real
    sound card reports, at each callback, when the block it asks for will be heard; ``observe``
    moves the origin a little towards each report, so callback jitter averages out, a card whose
    crystal runs slightly fast or slow is followed, and an underrun is caught up at once.
    """

    def __init__(self, rate: int, origin: float) -> None:
        self.rate = rate
        self.origin = origin
        self._observed = False

    def position_of(self, time: float) -> int:
        """The sample that plays at clock ``time``."""
        return round((time - self.origin) * self.rate)

    def time_of(self, position: int) -> float:
        """The clock time at which sample ``position`` plays."""
        return self.origin + position / self.rate

    def observe(self, position: int, heard_at: float) -> None:
        """A device says sample ``position`` will be heard at clock time ``heard_at``."""
        measured = heard_at - position / self.rate
        if not self._observed or abs(measured - self.origin) > ORIGIN_SNAP_SECONDS:
            self.origin = measured
            self._observed = True
            return
        self.origin += ORIGIN_SMOOTHING * (measured - self.origin)
