"""Is a rendered or cached WAV whole, and does it last about as long as its text?

A WAV that espeak-ng has not finished writing, or that a power cut cut short, can still open
and play: ``wave`` reads whatever frames are there. Caching such a file would make the host
swallow half a word for every game to come, so a file is checked before it enters the cache
and when it is loaded: the RIFF and data sizes must agree with the file's length, there must
be at least one frame, and the duration must be plausible for the text at the voice's rate.
"""

from __future__ import annotations

import os
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


HEADER_BYTES = 4096
"""The headers are read from this much of the file's start (its size comes from the file
system), so checking a cached WAV does not read its audio."""


def _inspect(path: Path) -> tuple[str | None, float]:
    """The file's problem (or None) and its duration in seconds, from its headers and size."""
    try:
        with path.open("rb") as file:
            head = file.read(HEADER_BYTES)
            size = os.fstat(file.fileno()).st_size
            problem, seconds, complete = _inspect_header(head, size)
            if not complete:  # headers beyond the first 4 KiB (a long LIST chunk): read on
                problem, seconds, _ = _inspect_header(head + file.read(), size)
    except OSError as exc:
        return f"cannot read it ({exc.strerror})", 0.0
    return problem, seconds


def _inspect_header(data: bytes, size: int) -> tuple[str | None, float, bool]:
    """(problem, seconds, whether ``data`` held every header) of a file of ``size`` bytes whose
    first bytes are ``data``."""
    if size < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return f"it is no WAV file ({size} bytes)", 0.0, True
    riff_size = struct.unpack_from("<I", data, 4)[0]
    if riff_size + 8 != size:
        return f"its RIFF header promises {riff_size + 8} bytes but it has {size}", 0.0, True
    block_align = 0
    frame_rate = 0
    offset = 12
    while offset + 8 <= size:
        if offset + 8 > len(data):
            return None, 0.0, False
        kind = data[offset : offset + 4]
        chunk = struct.unpack_from("<I", data, offset + 4)[0]
        body = offset + 8
        if kind == b"fmt " and chunk >= 16 and body + 16 <= size:
            if body + 16 > len(data):
                return None, 0.0, False
            frame_rate = struct.unpack_from("<I", data, body + 4)[0]
            block_align = struct.unpack_from("<H", data, body + 12)[0]
        if kind == b"data":
            if block_align == 0 or frame_rate == 0:
                return "its data comes before (or without) a format chunk", 0.0, True
            if body + chunk > size:
                return (
                    f"its data chunk promises {chunk} bytes but {size - body} are there",
                    0.0,
                    True,
                )
            if chunk // block_align == 0:
                return NO_FRAMES, 0.0, True
            return None, chunk // block_align / frame_rate, True
        offset = body + chunk + (chunk & 1)  # chunks are padded to an even length
    return "it has no data chunk", 0.0, True


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
