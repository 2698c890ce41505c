"""Is a rendered or cached WAV whole, and does it last about as long as its text?

A WAV that espeak-ng has not finished writing, or that a power cut cut short, can still open
and play: ``wave`` reads whatever frames are there. Caching such a file would make the host
swallow half a word for every game to come, so a file is checked before it enters the cache
and when it is loaded: the RIFF and data sizes must agree with the file's length, there must
be at least one frame, and the duration must be plausible for the text at the voice's rate.
"""

from __future__ import annotations

import struct
from pathlib import Path

REFERENCE_RATE = 175
"""espeak-ng's default speaking rate (words per minute), at which the bounds below hold."""

MIN_SECONDS_PER_CHARACTER = 0.025
"""Fewer seconds per letter or digit than this is no speech of the text (espeak-ng at 175 wpm
speaks a Russian letter in about 0.07 s; a clip cut short or another, shorter text is below)."""

MAX_SECONDS_PER_CHARACTER = 0.40
"""More than this is no speech of the text either (numbers and abbreviations are read out in
full, «1000» -> «одна тысяча», so the bound is loose)."""

MAX_EXTRA_SECONDS = 1.5
"""Silence espeak-ng adds around an utterance, allowed on top of the per-letter bound."""


NO_FRAMES = "it holds no audio frames"


def check_wav(path: Path, text: str, rate_wpm: int) -> str | None:
    """What is wrong with ``path`` as the audio of ``text`` at ``rate_wpm`` (None: all is well)."""
    problem, seconds = _inspect(path)
    if problem == NO_FRAMES and not any(character.isalnum() for character in text):
        return None  # a text with nothing to say («—») may well be silent
    if problem is not None:
        return problem
    return duration_problem(text, seconds, rate_wpm)


def wav_problem(path: Path) -> str | None:
    """What is wrong with the WAV file at ``path`` (None when it is whole and not empty)."""
    return _inspect(path)[0]


def _inspect(path: Path) -> tuple[str | None, float]:
    """The file's problem (or None) and its duration in seconds."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"cannot read it ({exc.strerror})", 0.0
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return f"it is no WAV file ({len(data)} bytes)", 0.0
    riff_size = struct.unpack_from("<I", data, 4)[0]
    if riff_size + 8 != len(data):
        return f"its RIFF header promises {riff_size + 8} bytes but it has {len(data)}", 0.0
    block_align = 0
    frame_rate = 0
    offset = 12
    while offset + 8 <= len(data):
        kind = data[offset : offset + 4]
        size = struct.unpack_from("<I", data, offset + 4)[0]
        body = offset + 8
        if kind == b"fmt " and size >= 16 and body + 16 <= len(data):
            frame_rate = struct.unpack_from("<I", data, body + 4)[0]
            block_align = struct.unpack_from("<H", data, body + 12)[0]
        if kind == b"data":
            if block_align == 0 or frame_rate == 0:
                return "its data comes before (or without) a format chunk", 0.0
            if body + size > len(data):
                return f"its data chunk promises {size} bytes but {len(data) - body} are there", 0.0
            if size // block_align == 0:
                return NO_FRAMES, 0.0
            return None, size // block_align / frame_rate
        offset = body + size + (size & 1)  # chunks are padded to an even length
    return "it has no data chunk", 0.0


def duration_problem(text: str, seconds: float, rate_wpm: int) -> str | None:
    """Why ``seconds`` of audio cannot be ``text`` spoken at ``rate_wpm`` (None when plausible).

    Only letters and digits count; a text without any (a lone dash) is not checked.
    """
    characters = sum(1 for character in text if character.isalnum())
    if characters == 0:
        return None
    scale = REFERENCE_RATE / max(rate_wpm, 1)
    shortest = characters * MIN_SECONDS_PER_CHARACTER * scale
    longest = characters * MAX_SECONDS_PER_CHARACTER * scale + MAX_EXTRA_SECONDS
    if seconds < shortest:
        return f"{seconds:.2f} s is too short for {characters} letters (at least {shortest:.2f} s)"
    if seconds > longest:
        return f"{seconds:.2f} s is too long for {characters} letters (at most {longest:.2f} s)"
    return None
