"""Calibration at the table: the room's noise, the players' level, and the settings to propose.

No Russian speech model can be measured where voicehost is built, so a club measures its own
table: ``voicehost listen --calibrate`` records the quiet room and a few takes (a stop word
alone, a sentence ending with one, sentences that end otherwise), replays them through the
Listener with a few candidate settings, and proposes the best. This module is the arithmetic;
the prompts and the microphone are in ``cli/listen.py``.

Choosing: **a false stop is worse than a miss**, so the candidates are ranked first by early and
false ends (fewest), then by stop words heard (most), then by the shorter silence window (the
table waits less). It decides from evidence only: a candidate with more early or more false ends
than the current settings on these very takes is never proposed; with too few takes, or when
the takes cannot tell the candidates apart (all hear the same and end the same), it says so and
keeps the current settings (:func:`choose`).

The room's verdict compares like with like: the players' level is the energy average of what the
VAD heard as voice (no longer its 90th percentile, which read a 10 dB room as 17 dB), so the
distance between it and the room's noise floor is the signal-to-noise ratio a bench measures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from voicehost.clips import frame_levels_dbfs, power_dbfs
from voicehost.voice_in.takes import Tally

ROOM_PERCENTILE = 20
"""The room's noise floor is this percentile of the frame levels of a recording: a cough, a
chair or a voice (doctor asks people to speak while it records) does not move it, and steady
noise, whose 30 ms frames vary by a decibel or so, reads within a decibel of its level."""
FRAME_SECONDS = 0.03

MIN_SNR_DB = 12.0
"""Below this distance between the players' voices and the room, hearing is unreliable: on the
bench (docs/HEARING.md) white noise at 10 dB SNR costs a third of the stop words."""

MIN_TAKES_WITH_STOP_WORD = 3
MIN_TAKES_WITHOUT = 2
"""Fewer takes than this (ending with a stop word, or not) and no setting is proposed."""


def frame_levels(samples: np.ndarray, sample_rate: int) -> np.ndarray:
    """Loudness (dBFS) of each 30 ms frame of int16 samples."""
    return frame_levels_dbfs(samples, round(sample_rate * FRAME_SECONDS))


def noise_floor(samples: np.ndarray, sample_rate: int) -> float:
    """The room's noise floor (dBFS): a low percentile of the frame levels, so a cough or a
    word in the quiet recording does not raise it."""
    return float(np.percentile(frame_levels(samples, sample_rate), ROOM_PERCENTILE))


def room_noise(samples: np.ndarray, sample_rate: int) -> float:
    """The room's noise (dBFS) from a recording made with nobody talking: the median frame
    level, which reads steady noise at its own level (the noise floor, a low percentile, reads
    pink noise 2 to 3 dB quieter than it is) and is not moved by a cough."""
    return float(np.median(frame_levels(samples, sample_rate)))


def speech_level(levels: Sequence[float]) -> float | None:
    """The players' level (dBFS): the energy average of the frames the VAD called voice, as a
    signal-to-noise ratio is measured; None if there were none."""
    if not levels:
        return None
    return power_dbfs(float(np.mean(10.0 ** (np.asarray(levels, dtype=np.float64) / 10.0))))


@dataclass(frozen=True)
class RoomVerdict:
    """What the room's noise means for hearing."""

    noise_dbfs: float
    speech_dbfs: float
    loud: bool
    text: str
    """In English; the book's ``screen.calibrate_room_loud`` / ``calibrate_room_quiet`` says it
    in the game's language with :attr:`params`."""

    @property
    def phrase(self) -> str:
        return "calibrate_room_loud" if self.loud else "calibrate_room_quiet"

    @property
    def params(self) -> dict[str, str]:
        return {
            "noise": f"{self.noise_dbfs:.0f}",
            "speech": f"{self.speech_dbfs:.0f}",
            "snr": f"{self.snr_db:.0f}",
            "minimum": f"{MIN_SNR_DB:.0f}",
        }

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


@dataclass(frozen=True)
class Choice:
    """What the calibration proposes, and why."""

    candidate: Candidate
    decided: bool
    """False: the takes could not decide; ``candidate`` is the current setting, kept."""
    why: str
    """In English; ``phrase`` names the book's ``screen`` text saying it with ``params``."""
    phrase: str = ""
    params: tuple[tuple[str, object], ...] = ()


def choose(candidates: Sequence[Candidate], current: Candidate) -> Choice:
    """The setting to propose from the takes, or the current one when they cannot decide.

    Never a setting with more early ends or more false ends than ``current`` on these takes;
    never a change the takes do not support: too few takes, or no candidate doing better than
    the current setting (the tie-break alone decides nothing).
    """
    tally = current.tally
    if tally.with_stop_word < MIN_TAKES_WITH_STOP_WORD or (
        tally.takes - tally.with_stop_word < MIN_TAKES_WITHOUT
    ):
        return Choice(
            current,
            False,
            f"too few takes to decide ({tally.with_stop_word} ending with a stop word, "
            f"{tally.takes - tally.with_stop_word} without; at least "
            f"{MIN_TAKES_WITH_STOP_WORD} and {MIN_TAKES_WITHOUT} are needed): the current "
            "settings are kept; record more rounds (--rounds N)",
            "calibrate_too_few_takes",
            (
                ("with", tally.with_stop_word),
                ("without", tally.takes - tally.with_stop_word),
                ("min_with", MIN_TAKES_WITH_STOP_WORD),
                ("min_without", MIN_TAKES_WITHOUT),
            ),
        )
    safe = [
        candidate
        for candidate in candidates
        if candidate.tally.early <= tally.early and candidate.tally.false <= tally.false
    ]
    chosen = best([current, *safe])
    better = (chosen.wrong_ends, -chosen.tally.heard) < (current.wrong_ends, -tally.heard)
    if not better:
        return Choice(
            current,
            False,
            "no setting did better than the current one on these takes (the same stop words "
            "heard, no fewer wrong ends): the current settings are kept",
            "calibrate_none_better",
        )
    return Choice(chosen, True, "it did best on these takes", "calibrate_did_best")


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
