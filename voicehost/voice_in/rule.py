"""When does «спасибо» end a speech? The decision rule, the room's silence, and filler words.

Pure: no Vosk, no clock, no threads, so the rule is tested with plain numbers and the
Listener adapter (``voicehost.voice_in.vosk_listener``) only wires Vosk and the microphone to it.

The rule: a stop word ends a speech only when it is the **last word** of what was said and is
followed by ``silence_seconds`` of silence. «Спасибо, что выслушали, я думаю…» does not end it,
because more words follow the stop word before the silence is long enough.

Two measures of silence work together, because Vosk alone is slow to show the last word:
its partial results lag the audio by up to about a second (the network decodes in chunks), so
the :class:`SilenceMeter` watches the loudness of the microphone and, once the room has been
quiet for the silence window, the Listener asks Vosk for its final result at once. Vosk's word
list then says *what* was said last, the meter says that nothing was said after it. Where the
meter never hears silence (people chatting at the table), no speech ends by voice: a speech
ended by accident is worse than one ended from the keypad.
"""

from __future__ import annotations

import math
import random
import unicodedata
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np


@dataclass(frozen=True)
class HeardWord:
    """One word Vosk heard, with its times in seconds of audio since the listener began hearing."""

    word: str
    start: float
    end: float
    confidence: float = 1.0


@dataclass(frozen=True)
class Hypothesis:
    """What Vosk thinks was said: ``final`` once the utterance is closed and will not change."""

    words: tuple[HeardWord, ...]
    final: bool


class Verdict(StrEnum):
    """What the rule made of a stop word."""

    SPEECH_ENDED = "speech_ended"
    FOLLOWED_BY_SPEECH = "followed_by_speech"
    LOW_CONFIDENCE = "low_confidence"


@dataclass(frozen=True)
class Decision:
    """A verdict on one heard stop word, at audio time ``at``; ``reason`` is for a person."""

    verdict: Verdict
    word: HeardWord
    at: float
    reason: str


class StopWordRule:
    """Decides, hypothesis by hypothesis, whether the speaker has finished with a stop word.

    Feed it every hypothesis with the audio time it covers and the trailing silence the
    :class:`SilenceMeter` measured. It returns the decisions that became certain, at most one
    ``SPEECH_ENDED`` until :meth:`reset`.
    """

    def __init__(
        self,
        stop_words: Iterable[str],
        silence_seconds: float,
        min_confidence: float = 0.0,
    ) -> None:
        self.stop_words = frozenset(word.casefold() for word in stop_words)
        if not self.stop_words:
            raise ValueError("StopWordRule needs at least one stop word")
        if silence_seconds <= 0:
            raise ValueError(f"silence_seconds must be positive, not {silence_seconds}")
        self.silence_seconds = silence_seconds
        self.min_confidence = min_confidence
        self.reset()

    def reset(self) -> None:
        """Forget everything heard: a new speech begins."""
        self._candidate: HeardWord | None = None
        self._judged: set[tuple[str, float]] = set()
        self.ended = False

    def is_stop_word(self, word: str) -> bool:
        return word.casefold() in self.stop_words

    def observe(self, hypothesis: Hypothesis, now: float, silent_for: float) -> list[Decision]:
        """Take Vosk's latest hypothesis; ``now`` is the audio time it covers and
        ``silent_for`` the seconds of quiet the meter has measured up to ``now``."""
        if self.ended:
            return []
        decisions: list[Decision] = []
        if hypothesis.final:
            decisions.extend(self._judge_final(hypothesis.words, now))
        elif hypothesis.words and self._candidate is not None:
            decisions.append(self._followed(self._candidate, hypothesis.words[0], now))
            self._candidate = None
        ended = self._check_silence(hypothesis, now, silent_for)
        if ended is not None:
            decisions.append(ended)
        return decisions

    def _judge_final(self, words: Sequence[HeardWord], now: float) -> list[Decision]:
        decisions: list[Decision] = []
        if words and self._candidate is not None:
            decisions.append(self._followed(self._candidate, words[0], now))
            self._candidate = None
        for index, heard in enumerate(words):
            if not self.is_stop_word(heard.word) or self._seen(heard):
                continue
            if index + 1 < len(words):
                decisions.append(self._followed(heard, words[index + 1], now))
            elif heard.confidence < self.min_confidence:
                self._judged.add(self._key(heard))
                reason = (
                    f"«{heard.word}» heard with confidence {heard.confidence:.2f}, below "
                    f"listener.min_confidence {self.min_confidence:.2f}"
                )
                decisions.append(Decision(Verdict.LOW_CONFIDENCE, heard, now, reason))
            else:
                self._candidate = heard
        return decisions

    def _check_silence(
        self, hypothesis: Hypothesis, now: float, silent_for: float
    ) -> Decision | None:
        candidate = self._candidate
        if candidate is None or (hypothesis.words and not hypothesis.final):
            return None
        if silent_for < self.silence_seconds - 1e-6:
            return None
        self.ended = True
        self._candidate = None
        self._judged.add(self._key(candidate))
        reason = f"«{candidate.word}» was the last word, then {silent_for:.2f} s of silence"
        return Decision(Verdict.SPEECH_ENDED, candidate, now, reason)

    def _followed(self, heard: HeardWord, following: HeardWord, now: float) -> Decision:
        self._judged.add(self._key(heard))
        gap = max(0.0, following.start - heard.end)
        reason = f"«{heard.word}» was followed by «{following.word}» {gap:.2f} s later"
        return Decision(Verdict.FOLLOWED_BY_SPEECH, heard, now, reason)

    def _seen(self, heard: HeardWord) -> bool:
        return self._key(heard) in self._judged

    @staticmethod
    def _key(heard: HeardWord) -> tuple[str, float]:
        return heard.word, round(heard.start, 2)


class SilenceMeter:
    """Measures how long the microphone has been quiet, against the room's own noise floor.

    Loudness is taken per 10 ms frame in dBFS. The noise floor is a low percentile of the last
    few seconds, so a humming fridge or a fan counts as quiet; a frame is speech when it is
    ``margin_db`` above the floor and above ``floor_db``.
    """

    FRAME_SECONDS = 0.01
    HISTORY_SECONDS = 6.0
    FLOOR_PERCENTILE = 10

    def __init__(self, sample_rate: int, margin_db: float = 12.0, floor_db: float = -50.0) -> None:
        self.sample_rate = sample_rate
        self.margin_db = margin_db
        self.floor_db = floor_db
        self._frame = max(1, round(sample_rate * self.FRAME_SECONDS))
        self._levels: deque[float] = deque(maxlen=round(self.HISTORY_SECONDS / self.FRAME_SECONDS))
        self._leftover = np.zeros(0, dtype=np.float64)
        self.reset()

    def reset(self) -> None:
        """Forget the trailing silence and any speech heard (the noise floor is kept)."""
        self._silent_frames = 0
        self.heard_speech = False
        self._leftover = np.zeros(0, dtype=np.float64)

    def mark_closed(self) -> None:
        """The utterance was closed; speech must be heard again before the next close."""
        self.heard_speech = False

    def feed(self, samples: np.ndarray) -> float:
        """Take int16 samples; return the seconds of trailing silence so far."""
        data = np.concatenate([self._leftover, samples.astype(np.float64)])
        whole = len(data) // self._frame * self._frame
        self._leftover = data[whole:]
        if whole == 0:
            return self.silent_for
        frames = data[:whole].reshape(-1, self._frame)
        rms = np.sqrt(np.mean(frames * frames, axis=1)) / 32768.0
        levels = 20.0 * np.log10(np.maximum(rms, 1e-6))
        self._levels.extend(levels.tolist())
        threshold = max(self.noise_floor() + self.margin_db, self.floor_db)
        loud = np.flatnonzero(levels > threshold)
        if loud.size:
            self.heard_speech = True
            self._silent_frames = len(levels) - 1 - int(loud[-1])
        else:
            self._silent_frames += len(levels)
        return self.silent_for

    @property
    def silent_for(self) -> float:
        """Seconds of trailing silence so far."""
        return self._silent_frames * self.FRAME_SECONDS

    def noise_floor(self) -> float:
        """The room's quiet level (dBFS) over the last few seconds."""
        if not self._levels:
            return -120.0
        levels = np.fromiter(self._levels, dtype=np.float64)
        return float(np.percentile(levels, self.FLOOR_PERCENTILE))


def choose_fillers(
    vocabulary: Sequence[str], stop_words: Sequence[str], count: int
) -> tuple[str, ...]:
    """Pick ``count`` words of the model's vocabulary for other speech to land on.

    Without them, grammar mode forces every sound onto a stop word. Fillers are words of the
    stop words' own script (Cyrillic for Russian, Hangul for Korean) that share no three
    letters in a row with a stop word, drawn with a fixed seed so the same model always gives
    the same list. Only the words drawn are examined, so a vocabulary of half a million words
    costs milliseconds.
    """
    if count <= 0 or not vocabulary:
        return ()
    scripts = {_script(char) for word in stop_words for char in word}
    decomposed = [unicodedata.normalize("NFD", word.casefold()) for word in stop_words]
    longest = max((len(word) for word in stop_words), default=1)
    draw = random.Random(FILLER_SEED)
    chosen: dict[str, None] = {}
    for _attempt in range(FILLER_ATTEMPTS_PER_WORD * count):
        word = vocabulary[draw.randrange(len(vocabulary))]
        if word in chosen or not 2 <= len(word) <= 2 * longest:
            continue
        if not all(_script(char) in scripts for char in word):
            continue
        if _sounds_like(unicodedata.normalize("NFD", word.casefold()), decomposed):
            continue
        chosen[word] = None
        if len(chosen) == count:
            break
    return tuple(chosen)


FILLER_SEED = 20250601
FILLER_ATTEMPTS_PER_WORD = 200


def _script(char: str) -> str:
    """The Unicode script a letter belongs to, by its name (CYRILLIC, HANGUL, LATIN...)."""
    if not char.isalpha():
        return "-"
    return unicodedata.name(char, "-").split(" ")[0]


def _sounds_like(word: str, stop_words: Sequence[str]) -> bool:
    """Whether a (decomposed) word shares ``SHARED_RUN`` letters (jamo) in a row with a stop
    word, or contains one, or is part of one.

    Measured on generated speech (bench/bench_listener.py): fillers that share a part with a
    stop word (칼솜씨 and 감사합니다, «спасение» and «спасибо») take the stop word itself when
    it is said alone, which costs more than the false ends they would prevent.
    """
    for stop in stop_words:
        if word in stop or stop in word:
            return True
        run = min(SHARED_RUN, len(stop))
        if any(word[i : i + run] in stop for i in range(len(word) - run + 1)):
            return True
    return False


SHARED_RUN = 3
"""Fillers sharing this many letters (Hangul: jamo) in a row with a stop word are refused."""


def decibels(samples: np.ndarray) -> float:
    """Loudness of int16 samples in dBFS (-120 for digital silence)."""
    if samples.size == 0:
        return -120.0
    rms = math.sqrt(float(np.mean(samples.astype(np.float64) ** 2))) / 32768.0
    return 20.0 * math.log10(max(rms, 1e-6))
