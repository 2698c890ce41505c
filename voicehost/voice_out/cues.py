"""The cues: short generated tones, each with its own shape so nobody confuses them.

=================  ==========================================  =======
cue                what the table hears                         length
=================  ==========================================  =======
``WARNING``        two soft rising notes (E5, A5): "soon"       0.35 s
``TIME_UP``        three falling notes (A5, F#5, D5): "over"    0.85 s
``SPEECH_ENDED``   one warm low chime (G4): "thank you"         0.45 s
``KEY_ACK``        a short high tick, the same for every key    0.04 s
``REJECT``         two low buzzing notes (B♭3, A3): "no"        0.32 s
=================  ==========================================  =======

Notes are bell-like (a sine and two soft overtones, a 5 ms attack and an exponential decay),
so they are pleasant at a table, and their peak is ``audio.cue_volume`` of full scale.
``KEY_ACK`` is one clip for every key by design: at night a key's sound must reveal nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from voicehost.clips import Clip
from voicehost.game.model import Cue

ATTACK_SECONDS = 0.005
"""Rise time of every note: short enough to be crisp, long enough not to click."""


@dataclass(frozen=True)
class Note:
    """One tone of a cue."""

    frequency: float
    """Fundamental (hertz)."""
    start: float
    """Onset within the cue (seconds)."""
    length: float
    """Duration (seconds)."""
    decay: float
    """Time for the tone to fall to 1/e (seconds)."""
    overtones: tuple[float, ...] = (0.25, 0.08)
    """Amplitudes of the 2nd, 3rd, ... harmonics relative to the fundamental."""


CUE_NOTES: dict[Cue, tuple[Note, ...]] = {
    Cue.WARNING: (
        Note(659.3, 0.00, 0.16, 0.09),
        Note(880.0, 0.17, 0.18, 0.10),
    ),
    Cue.TIME_UP: (
        Note(880.0, 0.00, 0.20, 0.12),
        Note(740.0, 0.21, 0.20, 0.12),
        Note(587.3, 0.42, 0.43, 0.22),
    ),
    Cue.SPEECH_ENDED: (Note(392.0, 0.00, 0.45, 0.16, overtones=(0.35, 0.12, 0.05)),),
    Cue.KEY_ACK: (Note(1568.0, 0.00, 0.04, 0.012, overtones=()),),
    Cue.REJECT: (
        Note(233.1, 0.00, 0.14, 0.10, overtones=(0.0, 0.45, 0.0, 0.2)),
        Note(220.0, 0.17, 0.15, 0.10, overtones=(0.0, 0.45, 0.0, 0.2)),
    ),
}
"""Every cue's notes (see the module text)."""


def make_cue(cue: Cue, rate: int, volume: float) -> Clip:
    """The cue's clip at ``rate`` hertz with its peak at ``volume`` (0..1) of full scale."""
    notes = CUE_NOTES[cue]
    length = max(note.start + note.length for note in notes)
    samples = np.zeros(round(length * rate) + 1, dtype=np.float64)
    for note in notes:
        tone = _note(note, rate)
        first = round(note.start * rate)
        samples[first : first + len(tone)] += tone
    peak = float(np.max(np.abs(samples)))
    if peak > 0:
        samples *= volume / peak
    return Clip(samples.astype(np.float32), rate)


def cue_clips(rate: int, volume: float) -> dict[Cue, Clip]:
    """Every cue, ready to play."""
    return {cue: make_cue(cue, rate, volume) for cue in Cue}


def _note(note: Note, rate: int) -> np.ndarray:
    times = np.arange(round(note.length * rate)) / rate
    wave = np.sin(2 * np.pi * note.frequency * times)
    for harmonic, amplitude in enumerate(note.overtones, start=2):
        if amplitude and note.frequency * harmonic < rate / 2:
            wave += amplitude * np.sin(2 * np.pi * note.frequency * harmonic * times)
    attack = np.clip(times / ATTACK_SECONDS, 0.0, 1.0)
    decay = np.exp(-times / note.decay)
    release = np.clip((note.length - times) / ATTACK_SECONDS, 0.0, 1.0)  # no click at the end
    return wave * attack * decay * release
