"""Calibration at the table: the room's noise, the players' level, and the settings to propose.

No Russian speech model can be measured where voicehost is built, so a club measures its own
table: ``voicehost listen --calibrate`` records the quiet room and a few takes (a stop word
alone, a sentence ending with one, sentences that end otherwise), replays them through the
Listener with a few candidate settings, and proposes the best. This module is the arithmetic;
the prompts and the microphone are in ``cli/listen.py``.

Choosing: **a false stop is worse than a miss**, so the candidates are ranked first by early and
false ends (fewest), then by stop words heard (most), then by the shorter silence window (the
table waits less).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from voicehost.voice_in.takes import Tally

ROOM_PERCENTILE = 20
"""The room's noise floor is this percentile of the frame levels of a quiet recording."""
SPEECH_PERCENTILE = 90
"""The players' level is this percentile of the frame levels where the VAD heard a voice."""
FRAME_SECONDS = 0.03

MIN_SNR_DB = 10.0
"""Below this distance between the players' voices and the room, hearing is unreliable: on the
bench (docs/LISTENING.md) pink noise at 10 dB SNR already costs about half the stop words."""


def frame_levels(samples: np.ndarray, sample_rate: int) -> np.ndarray:
    """Loudness (dBFS) of each 30 ms frame of int16 samples."""
    size = max(1, round(sample_rate * FRAME_SECONDS))
    whole = len(samples) // size * size
    if whole == 0:
        return np.full(1, -120.0)
    frames = samples[:whole].astype(np.float64).reshape(-1, size)
    rms = np.sqrt(np.mean(frames * frames, axis=1)) / 32768.0
    return 20.0 * np.log10(np.maximum(rms, 1e-6))


def noise_floor(samples: np.ndarray, sample_rate: int) -> float:
    """The room's noise floor (dBFS): a low percentile of the frame levels, so a cough or a
    word in the quiet recording does not raise it."""
    return float(np.percentile(frame_levels(samples, sample_rate), ROOM_PERCENTILE))


def speech_level(levels: Sequence[float]) -> float | None:
    """The players' level (dBFS) from the levels of frames the VAD called voice; None if none."""
    if not levels:
        return None
    return float(np.percentile(np.asarray(levels, dtype=np.float64), SPEECH_PERCENTILE))


@dataclass(frozen=True)
class RoomVerdict:
    """What the room's noise means for hearing."""

    noise_dbfs: float
    speech_dbfs: float
    loud: bool
    text: str

    @property
    def snr_db(self) -> float:
        return self.speech_dbfs - self.noise_dbfs


def judge_room(noise_dbfs: float, speech_dbfs: float) -> RoomVerdict:
    """Whether the room is too loud for hearing stop words, as a sentence for a person."""
    snr = speech_dbfs - noise_dbfs
    if snr < MIN_SNR_DB:
        text = (
            f"the room is too loud for hearing: its noise ({noise_dbfs:.0f} dBFS) is only "
            f"{snr:.0f} dB under the players' voices ({speech_dbfs:.0f} dBFS), and under "
            f"{MIN_SNR_DB:.0f} dB most stop words are missed. Move the microphone closer to the "
            "players, away from fans and the speaker, or end speeches from the keypad"
        )
        return RoomVerdict(noise_dbfs, speech_dbfs, True, text)
    text = (
        f"the room's noise ({noise_dbfs:.0f} dBFS) is {snr:.0f} dB under the players' voices "
        f"({speech_dbfs:.0f} dBFS): quiet enough"
    )
    return RoomVerdict(noise_dbfs, speech_dbfs, False, text)


@dataclass(frozen=True)
class Candidate:
    """One setting tried on the takes, and how it did."""

    silence_seconds: float
    room_margin_db: float
    tally: Tally

    @property
    def wrong_ends(self) -> int:
        return self.tally.early + self.tally.false


def best(candidates: Sequence[Candidate]) -> Candidate:
    """The candidate to propose: fewest early and false ends, then most heard, then the
    shortest silence window (and the current margin's order as given)."""
    if not candidates:
        raise ValueError("no candidates to choose from")
    return min(
        candidates,
        key=lambda c: (c.wrong_ends, -c.tally.heard, c.silence_seconds),
    )


SILENCE_CANDIDATES = (0.5, 0.6, 0.8, 1.0)
MARGIN_CANDIDATES = (9.0, 12.0, 15.0)
