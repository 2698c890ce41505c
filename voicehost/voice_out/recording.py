"""Recording a voice pack: the pieces a game needs, takes from a microphone, checked and levelled.

``voicehost phrases record`` walks through :func:`game_pieces` (derived from the phrase book's
segments, never a hand list), records each from a :class:`SampleReader` (the microphone, or
samples in memory), and keeps only a take that passes :func:`assess_take`:

- **clipping**: more than a few samples at full scale;
- **too quiet**: gated loudness below ``QUIET_DBFS`` before levelling;
- **too long** for its slot: the slot is the synthetic version's duration times
  ``SLOT_STRETCH`` plus ``SLOT_SLACK_SECONDS``, but never more than the pack's slot limit;
- **mostly noise**: the sound is spectrally flat (hiss, hum, a fan) or barely above the floor.

A kept take is trimmed to the speech (the threshold follows the take's own noise floor), given
``FADE_SECONDS`` fades so a join never clicks, and levelled to ``audio.target_loudness_dbfs``,
so «Слово игроку номер» and «семь» recorded minutes apart join as one sentence.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import date
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from voicehost.clips import (
    FLOOR_DBFS,
    Clip,
    level_dbfs,
    loudness_dbfs,
    normalise,
    window_levels_dbfs,
)
from voicehost.errors import VoicehostError
from voicehost.phrases import PhraseBook
from voicehost.ports import Segment
from voicehost.voice_out.voicepack import AUDIO_SUFFIXES, VoicePackError, phrase_of, slot_limit

TABLE_SIZES = range(8, 14)
"""Table sizes a pack is checked for (players)."""

WINDOW_SECONDS = 0.02
"""Analysis window for onsets, trimming and noise (seconds)."""

ONSET_DBFS = -45.0
"""A window this loud starts a take (three in a row: a click does not)."""

END_SILENCE_SECONDS = 0.8
"""This much quiet after speech ends a take (a comma's pause is shorter)."""

WAIT_SECONDS = 8.0
"""A take with no speech this long after the count-in is refused as unheard."""

PRE_ROLL_SECONDS = 0.25
"""Audio kept from before the onset, so a soft first consonant is not lost."""

TRIM_MARGIN_SECONDS = (0.03, 0.06)
"""Kept before the first and after the last speech window (consonant onsets and tails)."""

FADE_SECONDS = 0.01
"""Fade in and out of every kept take: a piece starts and ends at zero, so joins never click."""

QUIET_DBFS = -40.0
"""A take quieter than this (gated loudness, before levelling) is refused as too quiet."""

CLIP_LEVEL = 0.99
"""A sample at or above this magnitude is clipped."""

CLIPPED_FRACTION = 0.0005
"""More than this share of samples clipped (and at least ``CLIPPED_MIN``) refuses a take."""

CLIPPED_MIN = 8

NOISE_FLATNESS = 0.35
"""Median spectral flatness of the loud windows above which a take is noise, not speech."""

NOISE_SNR_DB = 15.0
"""The speech must stand this far above the take's noise floor."""

SLOT_STRETCH = 2.0
SLOT_SLACK_SECONDS = 0.6
"""A slot: the synthetic duration times SLOT_STRETCH plus the slack, capped by the pack limit."""

MANIFEST = "pack.json"
"""The manifest file inside a pack folder."""

MANIFEST_FORMAT = 1


class PieceKind(StrEnum):
    """What a piece is, for the slot and the walk order."""

    PHRASE = "phrase"
    NUMBER = "number"
    FORM = "form"
    WORD = "word"


@dataclass(frozen=True)
class Piece:
    """One thing to record: the pack key it is saved under and the text to say.

    ``text`` is the segment's text as the synthesiser is given it (a stressed word may be
    espeak-ng phonemes, ``[[g'olVsa]]``) and what the manifest notes; ``display`` is the piece
    as written, when it differs. ``guide`` is what the synthetic guide says instead of ``text``
    when espeak-ng says the piece too fast to follow (see :func:`with_audible_guides`).
    """

    key: str
    text: str
    display: str = ""
    guide: str = ""

    @property
    def shown(self) -> str:
        """The piece as the host reads it on the screen: never phonemes."""
        return self.display or self.text

    @property
    def guide_text(self) -> str:
        """What the synthetic guide says."""
        return self.guide or self.text

    @property
    def kind(self) -> PieceKind:
        """Phrase piece, number, noun form or word."""
        head = self.key.split(".", 1)[0]
        return {
            "num": PieceKind.NUMBER,
            "form": PieceKind.FORM,
            "word": PieceKind.WORD,
        }.get(head, PieceKind.PHRASE)

    @property
    def phase(self) -> str:
        """The key's first word (``day``, ``night``, ``num``, ``word`` ...), for ``--phase``."""
        return phrase_of(self.key).split(".", 1)[0]


# --------------------------------------------------------------------------- what to record


def game_numbers(seats: int, discussion_seconds: float = 180) -> set[int]:
    """The numbers a game at a table of ``seats`` can say: seats, counts 0..seats, the talk time."""
    minutes, seconds = divmod(int(discussion_seconds), 60)
    return set(range(seats + 1)) | {minutes, seconds}


def game_pieces(segments: Iterable[Segment], numbers: set[int]) -> list[Piece]:
    """The pieces to record, in the book's order: every segment but numerals not in ``numbers``.

    One recording serves every piece with the same text (``num.f.5`` and ``num.m.5`` are both
    «пять»), so a text is listed once, under its first key.
    """
    seen: set[str] = set()
    pieces: list[Piece] = []
    for segment in segments:
        if segment.key.startswith("num.") and int(segment.key.rsplit(".", 1)[1]) not in numbers:
            continue
        if segment.text in seen:
            continue
        seen.add(segment.text)
        pieces.append(Piece(segment.key, segment.text, segment.display))
    return pieces


SHORTEST_WORD_SECONDS = 0.1
"""A guide shorter than this is said again with its vowels drawn out (seconds).

espeak-ng says «и» in 55 ms, less than a person ever takes: as a guide it is a blip, and its
slot would be set by it. Drawn out, «и» takes about 0.15 s.
"""

_SHORT_VOWEL = re.compile(r"([aeiouyAEIOUVY@03]#?)(?![:#])")


def drawn_out(phonemes: str) -> str:
    """espeak-ng input saying ``phonemes`` with every vowel long: ``'i`` -> ``[['i:]]``."""
    return "[[" + _SHORT_VOWEL.sub(r"\1:", phonemes.strip()) + "]]"


def with_audible_guides(
    pieces: Iterable[Piece],
    guide_seconds: Callable[[Piece], float],
    phonemes_of: Callable[[str], str | None],
) -> list[Piece]:
    """``pieces``, each whose guide lasts under ``SHORTEST_WORD_SECONDS`` given a drawn-out guide.

    ``guide_seconds`` is the synthetic guide's length (silence trimmed), ``phonemes_of`` reads a
    text as espeak-ng phonemes (:func:`espeak_phonemes`). The piece's text, and so the
    manifest and ``--missing``, stay the book's; only what the guide says changes.
    """
    audible: list[Piece] = []
    for piece in pieces:
        phonemes = None
        if not piece.guide and guide_seconds(piece) < SHORTEST_WORD_SECONDS:
            phonemes = phonemes_of(piece.text)
        audible.append(piece if not phonemes else replace(piece, guide=drawn_out(phonemes)))
    return audible


def select_pieces(
    pieces: list[Piece], *, phase: str | None = None, key: str | None = None
) -> list[Piece]:
    """The pieces of one phase (``day``, ``num`` ...) or of one phrase or piece key."""
    if key is not None:
        chosen = [p for p in pieces if key in (p.key, phrase_of(p.key))]
        if not chosen:
            raise VoicehostError(
                f"no phrase or piece {key!r} to record (`voicehost rehearse --list` lists the "
                "phrases; pieces are <phrase>#0, num.m.7, form.голоса, word.mafia)",
                phrase="record_no_key",
                key=key,
            )
        return chosen
    if phase is not None:
        chosen = [p for p in pieces if p.phase == phase]
        if not chosen:
            phases = ", ".join(dict.fromkeys(p.phase for p in pieces))
            raise VoicehostError(
                f"no pieces for phase {phase!r}; the phases are: {phases}",
                phrase="record_no_phase",
                phase=phase,
                phases=phases,
            )
        return chosen
    return pieces


def recorded_texts(folder: Path, pieces: Iterable[Piece]) -> set[str]:
    """The texts of ``pieces`` the pack folder already has a file for."""
    files = {p.stem for p in folder.glob("*") if p.suffix.lower() in AUDIO_SUFFIXES}
    return {piece.text for piece in pieces if piece.key in files}


# --------------------------------------------------------------------------- stress marks

STRESS_MARK = "\u0301"
"""Combining acute accent: «сло́во»."""

_VOWELS = "аеёиоуыэюяАЕЁИОУЫЭЮЯ"
_PHONEME_VOWELS = re.compile(r"[aeiouyAEIOUVY@03]")


def mark_stress(text: str, phonemes: str | None) -> str:
    """``text`` with each stressed vowel marked.

    A ``+`` before a vowel in the text (a phrase book's own mark) wins; otherwise the stress is
    read from espeak-ng's phonemes (``'`` before the stressed syllable). A word whose syllables
    cannot be matched to the phonemes is shown unmarked.
    """
    if "+" in text:
        return re.sub(r"\+(.)", lambda m: m.group(1) + STRESS_MARK, text)
    if not phonemes:
        return text
    words = re.findall(r"[^\W\d_]+", text)
    sounds = phonemes.split()
    if len(words) != len(sounds):
        return text
    marked: dict[int, str] = {}
    cursor = 0
    for word, sound in zip(words, sounds, strict=True):
        start = text.index(word, cursor)
        cursor = start + len(word)
        vowels = [i for i, ch in enumerate(word) if ch in _VOWELS]
        if len(vowels) < 2 or "'" not in sound or "ё" in word.casefold():
            continue  # one syllable, or «ё», which is always stressed: nothing to mark
        before, after = sound.split("'", 1)
        nth = len(_PHONEME_VOWELS.findall(before))
        if len(_PHONEME_VOWELS.findall(sound)) != len(vowels):
            # espeak inserted or merged a sound early in the word («Ig@-rVk'u»): count from
            # the end, where the stressed syllable's vowel and those after it still match
            nth = len(vowels) - len(_PHONEME_VOWELS.findall(after))
        if not 0 <= nth < len(vowels):
            continue
        marked[start + vowels[nth]] = STRESS_MARK
    return "".join(ch + marked.get(i, "") for i, ch in enumerate(text))


def stress_marks(
    pieces: Iterable[Piece], phonemes_of: Callable[[str], str | None]
) -> dict[str, str]:
    """Each piece as the screen shows it: written as in the book, stressed vowels marked.

    The phonemes come from what is spoken (``text``, perhaps ``[[g'olVsa]]``), the letters from
    what is written (``shown``, «голоса»), so the host reads «го́лоса», never phonemes.
    """
    return {piece.key: mark_stress(piece.shown, phonemes_of(piece.text)) for piece in pieces}


def espeak_phonemes(text: str, voice: str = "ru") -> str | None:
    """espeak-ng's phonemes for ``text`` (``-x``), or None without espeak-ng."""
    binary = shutil.which("espeak-ng")
    if binary is None:
        return None
    try:
        done = subprocess.run(
            [binary, "-v", voice, "-q", "-x", text],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return " ".join(done.stdout.split()) or None


# --------------------------------------------------------------------------- takes


class SampleReader(Protocol):
    """Mono int16 audio on demand: a microphone, or samples in memory."""

    sample_rate: int

    def read(self, frames: int) -> np.ndarray: ...

    def discard_pending(self) -> None: ...


class ArrayReader:
    """Samples in memory read as a microphone would be; silence after the end."""

    def __init__(self, samples: np.ndarray, sample_rate: int) -> None:
        self.samples = samples.astype(np.int16)
        self.sample_rate = sample_rate
        self.position = 0

    def read(self, frames: int) -> np.ndarray:
        """The next ``frames`` samples (zeros past the end)."""
        chunk = self.samples[self.position : self.position + frames]
        self.position += frames
        if len(chunk) < frames:
            chunk = np.concatenate([chunk, np.zeros(frames - len(chunk), dtype=np.int16)])
        return chunk

    def discard_pending(self) -> None:
        """Nothing is pending in memory."""


def capture_take(reader: SampleReader, max_seconds: float) -> Clip | None:
    """One take: wait for speech, record until it has been quiet a while or ``max_seconds``.

    None when nothing was heard within ``WAIT_SECONDS``.
    """
    rate = reader.sample_rate
    window = round(WINDOW_SECONDS * rate)
    pre_roll = round(PRE_ROLL_SECONDS / WINDOW_SECONDS)
    history: list[np.ndarray] = []
    loud_run = 0
    waited = 0
    while True:
        block = reader.read(window)
        history.append(block)
        history = history[-(pre_roll + 3) :]
        waited += 1
        loud_run = loud_run + 1 if level_dbfs(block) > ONSET_DBFS else 0
        if loud_run >= 3:
            break
        if waited * WINDOW_SECONDS > WAIT_SECONDS:
            return None
    taken = list(history)
    quiet = 0
    end_quiet = round(END_SILENCE_SECONDS / WINDOW_SECONDS)
    limit = round(max_seconds / WINDOW_SECONDS)
    while quiet < end_quiet and len(taken) < limit:
        block = reader.read(window)
        taken.append(block)
        quiet = quiet + 1 if level_dbfs(block) <= ONSET_DBFS else 0
    samples = np.concatenate(taken).astype(np.float32) / 32768.0
    return Clip(samples, rate)


@dataclass(frozen=True)
class TakeResult:
    """A judged take: ``clip`` ready for the pack when ``refusal`` is None."""

    clip: Clip | None
    refusal: str | None
    """In English; ``phrase`` names the book's ``screen`` text saying it with ``params``."""
    seconds: float = 0.0
    loudness_dbfs: float = FLOOR_DBFS
    phrase: str = ""
    params: tuple[tuple[str, object], ...] = ()


def slot_seconds(key: str, synthetic_seconds: float) -> float:
    """How long a recording of ``key`` may be (see the module text)."""
    limit = slot_limit(key).seconds
    stretched = synthetic_seconds * SLOT_STRETCH + SLOT_SLACK_SECONDS
    return max(min(stretched, limit), min(limit, synthetic_seconds * 1.3))


def assess_take(take: Clip | None, slot: float, target_dbfs: float) -> TakeResult:
    """Refuse a bad take with the reason, or trim, fade and level a good one."""
    if take is None or take.frames == 0:
        return TakeResult(
            None,
            "heard nothing: speak after the count-in, closer to the microphone",
            phrase="record_heard_nothing",
        )
    clipped = int(np.count_nonzero(np.abs(take.samples) >= CLIP_LEVEL))
    if clipped >= max(CLIPPED_MIN, CLIPPED_FRACTION * take.frames):
        return TakeResult(
            None,
            f"it clips ({clipped} samples at full scale): speak a little further from the "
            "microphone or lower its input level",
            phrase="record_clips",
            params=(("count", clipped),),
        )
    trimmed, floor = trim_to_speech(take)
    if trimmed.frames == 0:
        return TakeResult(
            None, "heard nothing but noise: speak after the count-in", phrase="record_only_noise"
        )
    level = loudness_dbfs(trimmed)
    if level < QUIET_DBFS:
        return TakeResult(
            None,
            f"too quiet ({level:.0f} dBFS; at least {QUIET_DBFS:.0f}): speak up or move closer",
            trimmed.duration,
            level,
            "record_too_quiet",
            (("level", f"{level:.0f}"), ("minimum", f"{QUIET_DBFS:.0f}")),
        )
    flatness = speech_flatness(trimmed)
    if flatness > NOISE_FLATNESS or level - floor < NOISE_SNR_DB:
        return TakeResult(
            None,
            "mostly noise, not speech: record somewhere quieter, or turn away from the fan",
            trimmed.duration,
            level,
            "record_mostly_noise",
        )
    if trimmed.duration > slot:
        return TakeResult(
            None,
            f"too long ({trimmed.duration:.1f} s; its slot is {slot:.1f} s): say it more briskly",
            trimmed.duration,
            level,
            "record_too_long",
            (("seconds", f"{trimmed.duration:.1f}"), ("slot", f"{slot:.1f}")),
        )
    ready = normalise(fade(trimmed), target_dbfs)
    return TakeResult(ready, None, ready.duration, level)


def trim_to_speech(take: Clip) -> tuple[Clip, float]:
    """The take cut to its speech, and the noise floor (dBFS) the cut was judged against."""
    levels = window_levels_dbfs(take, WINDOW_SECONDS)
    floor = float(np.percentile(levels, 10))
    threshold = max(floor + 12.0, -50.0)
    loud = np.flatnonzero(levels > threshold)
    if len(loud) == 0:
        return Clip(take.samples[:0], take.rate), floor
    window = round(WINDOW_SECONDS * take.rate)
    start = max(0, int(loud[0]) * window - round(TRIM_MARGIN_SECONDS[0] * take.rate))
    end = min(take.frames, (int(loud[-1]) + 1) * window + round(TRIM_MARGIN_SECONDS[1] * take.rate))
    return Clip(take.samples[start:end].copy(), take.rate), floor


def fade(clip: Clip, seconds: float = FADE_SECONDS) -> Clip:
    """Raised-cosine fades in and out, so the clip starts and ends at zero."""
    length = min(round(seconds * clip.rate), clip.frames // 2)
    if length == 0:
        return clip
    ramp = (0.5 - 0.5 * np.cos(np.linspace(0.0, np.pi, length))).astype(np.float32)
    samples = clip.samples.copy()
    samples[:length] *= ramp
    samples[-length:] *= ramp[::-1]
    samples[0] = samples[-1] = 0.0
    return Clip(samples, clip.rate)


def speech_flatness(clip: Clip) -> float:
    """Median spectral flatness of the clip's loud windows: near 0 for speech, ~0.5+ for hiss."""
    window = round(0.032 * clip.rate)
    count = clip.frames // window
    if count == 0:
        return 0.0
    frames = clip.samples[: count * window].astype(np.float64).reshape(count, window)
    energy = np.mean(frames**2, axis=1)
    loud = frames[energy > energy.max() * 10 ** (-20 / 10)]
    spectrum = np.abs(np.fft.rfft(loud * np.hanning(window), axis=1)) ** 2 + 1e-12
    flatness = np.exp(np.mean(np.log(spectrum), axis=1)) / np.mean(spectrum, axis=1)
    return float(np.median(flatness))


# --------------------------------------------------------------------------- joins


@dataclass(frozen=True)
class JoinMeasure:
    """How two pieces meet: the largest sample step near the join, and the loudness step."""

    click: float
    level_step_db: float


def measure_join(first: Clip, second: Clip, gap_seconds: float) -> JoinMeasure:
    """Join ``first`` and ``second`` with ``gap_seconds`` of silence and measure the seam.

    ``click`` is the largest jump between neighbouring samples within 1 ms of either edge of
    the gap (a click is a jump far above the speech's own), ``level_step_db`` the difference of
    the pieces' gated loudness.
    """
    rate = first.rate
    gap = np.zeros(round(gap_seconds * rate), dtype=np.float32)
    joined = np.concatenate([first.samples, gap, second.samples])
    near = max(1, round(0.001 * rate))
    seams = (first.frames, first.frames + len(gap))
    steps = [
        float(np.max(np.abs(np.diff(joined[max(0, s - near) : s + near])), initial=0.0))
        for s in seams
    ]
    return JoinMeasure(max(steps), abs(loudness_dbfs(first) - loudness_dbfs(second)))


# --------------------------------------------------------------------------- the manifest


def phrase_fingerprints(segments: Iterable[Segment], phrase_keys: Iterable[str]) -> dict[str, str]:
    """Each phrase's fingerprint: a hash of its own pieces' texts (a wording change changes it)."""
    texts: dict[str, list[str]] = {key: [] for key in phrase_keys}
    for segment in segments:
        owner = phrase_of(segment.key)
        if owner in texts:
            texts[owner].append(f"{segment.key}={segment.text}")
    return {key: _digest("\n".join(parts)) for key, parts in texts.items()}


def book_version(fingerprints: dict[str, str]) -> str:
    """The phrase book's version: a hash of every phrase's fingerprint."""
    return _digest("\n".join(f"{k}:{v}" for k, v in sorted(fingerprints.items())))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


@dataclass
class Manifest:
    """A pack's ``pack.json``: who recorded it, when, for which phrase book."""

    language: str
    voice: str
    created: str
    phrase_book: str
    phrases: dict[str, str] = field(default_factory=dict)
    pieces: dict[str, str] = field(default_factory=dict)

    @classmethod
    def new(cls, language: str, voice: str, fingerprints: dict[str, str]) -> Manifest:
        """A manifest for a pack started today for the current book."""
        return cls(
            language,
            voice,
            date.today().isoformat(),
            book_version(fingerprints),
            dict(fingerprints),
        )

    @classmethod
    def read(cls, folder: Path) -> Manifest | None:
        """The folder's manifest, None if it has none; VoicePackError if it is unreadable."""
        path = folder / MANIFEST
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(
                str(data["language"]),
                str(data["voice"]),
                str(data["created"]),
                str(data["phrase_book"]),
                {str(k): str(v) for k, v in dict(data.get("phrases", {})).items()},
                {str(k): str(v) for k, v in dict(data.get("pieces", {})).items()},
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise VoicePackError(
                f"{path} is not a voice pack manifest ({exc}); delete it and run "
                "`voicehost phrases record --missing` to write a new one"
            ) from exc

    def write(self, folder: Path) -> None:
        """Save as ``folder/pack.json``."""
        data = {
            "format": MANIFEST_FORMAT,
            "language": self.language,
            "voice": self.voice,
            "created": self.created,
            "phrase_book": self.phrase_book,
            "phrases": self.phrases,
            "pieces": self.pieces,
        }
        text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True)
        (folder / MANIFEST).write_text(text + "\n", encoding="utf-8")

    def changed_phrases(self, fingerprints: dict[str, str]) -> list[str]:
        """Phrases whose wording changed since recorded pieces of them were made."""
        recorded = {phrase_of(key) for key in self.pieces}
        return sorted(
            key
            for key in recorded
            if key in self.phrases
            and key in fingerprints
            and self.phrases[key] != fingerprints[key]
        )

    def changed_pieces(self, texts: dict[str, str]) -> list[str]:
        """Recorded pieces whose text is no longer what was recorded."""
        return sorted(k for k, text in self.pieces.items() if k in texts and texts[k] != text)


# --------------------------------------------------------------------------- the session


class Player(Protocol):
    """Plays a clip to the host and returns when it has been played."""

    def play(self, clip: Clip) -> None: ...

    def close(self) -> None:
        """Release the sound card."""
        ...


@dataclass
class SessionReport:
    """What a recording sitting did."""

    kept: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    refusals: list[tuple[str, str]] = field(default_factory=list)
    quit: bool = False


def count_in_clip(rate: int) -> Clip:
    """Three short beeps, the last higher: speak after it."""
    parts = []
    for hertz in (660, 660, 990):
        t = np.arange(round(0.08 * rate)) / rate
        parts.append(fade(Clip((0.3 * np.sin(2 * np.pi * hertz * t)).astype(np.float32), rate)))
        parts.append(Clip(np.zeros(round(0.25 * rate), dtype=np.float32), rate))
    return Clip(np.concatenate([p.samples for p in parts]), rate)


class RecordingSession:
    """One sitting: each piece shown, counted in, recorded, judged, played back, kept or not."""

    def __init__(
        self,
        folder: Path,
        manifest: Manifest,
        reader: SampleReader,
        player: Player,
        guide: dict[str, Clip],
        *,
        target_dbfs: float,
        show_guide: bool = False,
        stress: dict[str, str] | None = None,
        fingerprints: dict[str, str] | None = None,
        book: PhraseBook | None = None,
    ) -> None:
        self.folder = folder
        self.manifest = manifest
        self.reader = reader
        self.player = player
        self.guide = guide
        self.target_dbfs = target_dbfs
        self.show_guide = show_guide
        self.stress = stress or {}
        self.fingerprints = fingerprints or {}
        self.book = book if book is not None else PhraseBook.load("en")
        """What the host reads (the keys, a refused take's reason) is said from this book."""

    def _say(self, key: str, params: dict[str, Any] | None = None) -> str:
        return str(self.book.screen(key, params or {}))

    def run(self, pieces: list[Piece], keys: Iterator[str], out: _Writer) -> SessionReport:
        """Walk ``pieces``; ``keys`` are single letters ('' for Enter); end of keys quits."""
        report = SessionReport()
        index = 0
        beeps = count_in_clip(self.reader.sample_rate)
        while 0 <= index < len(pieces):
            piece = pieces[index]
            synthetic = self.guide.get(piece.key)
            slot = slot_seconds(piece.key, synthetic.duration if synthetic else 1.0)
            shown = self.stress.get(piece.key, piece.shown)
            where = {"slot": f"{slot:.1f}"}
            out.write(
                f"[{index + 1}/{len(pieces)}] {piece.key}  {self._say('record_slot', where)}\n"
            )
            out.write(f"    {shown}\n")
            out.flush()
            if self.show_guide and synthetic is not None:
                self.player.play(synthetic)
            step = self._piece(piece, slot, synthetic, beeps, keys, out, report)
            if step is None:
                report.quit = True
                break
            index = max(0, index + step)
        return report

    def _piece(
        self,
        piece: Piece,
        slot: float,
        synthetic: Clip | None,
        beeps: Clip,
        keys: Iterator[str],
        out: _Writer,
        report: SessionReport,
    ) -> int | None:
        """Record ``piece`` until kept or left; the step to the next piece, None to quit."""
        while True:
            self.player.play(beeps)
            self.reader.discard_pending()
            raw = capture_take(self.reader, slot * 2 + 1.0)
            result = assess_take(raw, slot, self.target_dbfs)
            keys_help = self._say(
                "record_keys" if result.clip is not None else "record_keys_refused"
            )
            if result.refusal is not None:
                reason = (
                    self._say(result.phrase, dict(result.params))
                    if result.phrase
                    else result.refusal
                )
                refused = self._say("record_refused", {"reason": reason})
                out.write(f"    {refused}\n    {keys_help}\n")
                report.refusals.append((piece.key, result.refusal))
            else:
                assert result.clip is not None
                self.player.play(result.clip)
                take = {
                    "seconds": f"{result.seconds:.2f}",
                    "level": f"{result.loudness_dbfs:.0f}",
                    "target": f"{self.target_dbfs:.0f}",
                }
                out.write(f"    {self._say('record_take', take)}\n    {keys_help}\n")
            out.flush()
            while True:
                key = next(keys, "q")
                if key == "g" and synthetic is not None:
                    self.player.play(synthetic)
                    continue
                if key == "p" and result.clip is not None:
                    self.player.play(result.clip)
                    continue
                if key in ("", "k") and result.clip is not None:
                    self.keep(piece, result.clip)
                    report.kept.append(piece.key)
                    return 1
                if key in ("", "r", "k"):
                    break  # record again
                if key == "s":
                    report.skipped.append(piece.key)
                    return 1
                if key == "b":
                    return -1
                if key == "q":
                    return None
                unknown = self._say("record_unknown_key", {"key": key, "help": keys_help})
                out.write(f"    {unknown}\n")
                out.flush()

    def keep(self, piece: Piece, clip: Clip) -> None:
        """Save the take as ``<key>.wav`` (replacing any older file for the key) and note it."""
        from voicehost.clips import write_wav

        for suffix in AUDIO_SUFFIXES:
            (self.folder / f"{piece.key}{suffix}").unlink(missing_ok=True)
        write_wav(clip, self.folder / f"{piece.key}.wav")
        self.manifest.pieces[piece.key] = piece.text
        phrase = phrase_of(piece.key)
        if phrase in self.fingerprints:
            self.manifest.phrases[phrase] = self.fingerprints[phrase]
        self.manifest.write(self.folder)


class _Writer(Protocol):
    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


class DevicePlayer:
    """Plays clips on the sound card with blocking writes (the recorder waits for each)."""

    def __init__(self, rate: int, device: str = "") -> None:
        self.rate = rate
        self.device = device
        self._stream: Any = None

    def play(self, clip: Clip) -> None:
        """Play ``clip`` to its end."""
        from voicehost.clips import resample
        from voicehost.voice_out.sound import device_setting, import_sounddevice

        if self._stream is None:
            sounddevice = import_sounddevice()
            try:
                stream = sounddevice.OutputStream(
                    samplerate=self.rate,
                    channels=1,
                    dtype="float32",
                    device=device_setting(self.device),
                )
                stream.start()
            except Exception as exc:  # PortAudioError or ValueError
                from voicehost.errors import DeviceError

                library = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
                raise DeviceError(
                    f"cannot open the sound output ({exc}); check `aplay -l` and "
                    "audio.output_device in config.yaml",
                    phrase="reason_no_sound_output",
                    library=library,
                ) from exc
            self._stream = stream
        samples = resample(clip, self.rate).samples
        self._stream.write(samples.reshape(-1, 1))

    def close(self) -> None:
        """Close the output stream."""
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.stop()
            stream.close()
