"""When does «спасибо» end a speech? The decision rule, the speaker's silence, and the grammar.

Pure: no Vosk, no clock, no threads, so the rule is tested with plain numbers and the Listener
adapter (``voicehost.voice_in.vosk_listener``) only wires Vosk, the VAD and the microphone to it.

The rule (:class:`AloneRule`) ends a speech only on a stop word **said on its own**: the
speaker's voice stands alone (quiet before it, ``silence_seconds`` of quiet after it, as long as
a stop word), and a second look at that stretch of audio, decoded by itself, hears nothing but
stop words. The end of a sentence that only sounds like one («…среди нас», «…생각합니다») has
the rest of the sentence right before it, so a breath after it, however long, ends nothing.

**A false stop is worse than a miss.** Ending a speech that nobody ended cuts a player off in
front of the table and cannot be undone; a missed «спасибо» costs a key press. So wherever the
evidence is unclear the rule does not end the speech.

**The speaker, not the room.** A frame is the speaker's voice when the VAD calls it speech and
it is no more than ``room_margin_db`` quieter than the speaker's own level (a high percentile of
the speech heard so far). People murmuring at the table after «спасибо» are speech to the VAD
but far quieter than the speaker at the microphone: they neither hold the speech open nor make
the stop word look less alone.
"""

from __future__ import annotations

import math
import random
import unicodedata
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from voicehost.hearing import HearingTuning


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
    alternatives: tuple[tuple[float, tuple[HeardWord, ...]], ...] = ()
    """When the recogniser was asked for them: its best hearings, each with Vosk's score (the
    lattice's, higher is likelier), best first; ``words`` is the first's."""


class Refereed(tuple[HeardWord, ...]):
    """What one referee heard (its best hearing's words), and ``close``: its other hearings,
    found nearly as likely as that (the Listener fills it in a quiet room only)."""

    close: tuple[tuple[HeardWord, ...], ...]

    def __new__(
        cls, words: Iterable[HeardWord], close: Iterable[tuple[HeardWord, ...]] = ()
    ) -> Refereed:
        heard = super().__new__(cls, words)
        heard.close = tuple(close)
        return heard


@dataclass(frozen=True)
class Frame:
    """A frame of audio as the VAD heard it; times in seconds since the listener began hearing."""

    start: float
    end: float
    speech: bool
    """The VAD's verdict: a voice (anyone's), not noise."""
    level_db: float
    """Loudness of the frame (dBFS)."""
    treble_db: float | None = None
    """Loudness of the frame with its low tones taken down (dBFS; ``clips.py``:
    ``treble_dbfs``), None where unknown: a room's rumble and hiss measured so hardly move
    from frame to frame, and a voice stands out of them (:attr:`AloneTuning.room_floor_db`)."""


class Verdict(StrEnum):
    """What the rule made of a stop word."""

    SPEECH_ENDED = "speech_ended"
    FOLLOWED_BY_SPEECH = "followed_by_speech"
    LOW_CONFIDENCE = "low_confidence"


@dataclass(frozen=True)
class Decision:
    """A verdict on one heard stop word, at audio time ``at``; ``reason`` is for a person
    reading English (the log, ``listen --json``); ``phrase`` names the book's ``screen`` text
    that says it in the game's language with ``params`` (``voicehost listen``)."""

    verdict: Verdict
    word: HeardWord
    at: float
    reason: str
    phrase: str = ""
    params: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True)
class Utterance:
    """A stretch of the speaker's voice standing alone, worth a look: quiet before it, quiet
    after it for the window, and as long as a stop word can be (audio seconds)."""

    start: float
    end: float
    quiet_before: float
    """Seconds without the speaker's voice before it (``math.inf`` at the speech's start)."""


AloneTuning = HearingTuning
"""How the rule tells a stop word said on its own from the end of a sentence (the one tuning
of hearing, ``voicehost/hearing.py``)."""


class AloneRule:
    """Decides whether a speech is over: the speaker said a stop word **on its own** and then
    fell quiet.

    Measured on the Korean proxy (docs/HEARING.md), the speeches cut short had one shape: a
    sentence ending like a stop word («…생각합니다», «…спасибо вам, что пришли», «…среди нас»),
    heard as one in noise, then the speaker's breath (0.5 to 0.9 s) before the real «спасибо»,
    long enough for the silence window. A word-anchored rule cannot tell that breath from the
    end. What can: a speaker who finishes says «спасибо» as a phrase of its own, with a pause
    before it; a sentence's last word has the rest of the sentence right before it. So:

    1. The VAD's frames (:meth:`hear`) are grouped into stretches of the speaker's voice
       (gaps under ``join_seconds`` are inside a word; voice more than ``room_margin_db``
       quieter than the speaker is the room's, and so are the frames the VAD heard last before
       it fell silent, in a rumble, when they stood less than ``room_floor_db`` over the
       room's treble level: its lingering on the noise after a voice).
    2. A stretch is looked at only when it stands alone: at least ``quiet_before_seconds`` of
       the speaker's quiet before it, ``silence_seconds`` after it (``wary_silence_seconds``
       after the speech's first words or a short pause; closed by no frame where a voice begins:
       ``onset_db``), and as long as a stop word (``shortest_word_seconds`` to
       ``longest_word_seconds``). :meth:`hear` returns it as an :class:`Utterance`.
    3. The adapter decodes that stretch of audio on its own (a second look, with the stop
       words and their look-alikes as the grammar) and hands the words to :meth:`judge`: the
       speech ends only when every word heard there is a stop word, each with at least
       ``min_confidence``, and no more than ``unheard_seconds`` of the voice went without a
       word heard.

    A miss costs a key press; a player cut off cannot be undone. So the end of a sentence, a
    stop word with words around it, a word too long or too short for a stop word, a sentence
    of which only a stop word was heard, all end nothing. Pure: no Vosk, no clock.
    """

    ONSET_FRAMES = 3
    """A voice beginning rises ``onset_db`` over the quietest of this many frames before it."""
    HISTORY_SECONDS = 12.0
    SPEAKER_PERCENTILE = 90
    ROOM_FRAMES = 16
    """Frames without voice that make the room's level known (:meth:`room_level`)."""
    STEADIER = 0.5
    """The room's treble level is trusted (``room_floor_db``) only where its frames spread over
    less than this share of their full levels' spread (interquartile ranges): a room's rumble
    (pink noise, a fan, traffic) carries its power in a few low tones, 0.08 to 0.25 on the
    listening set; in hiss the treble is where the noise is, and in quiet or babble it is no
    steadier: 0.73 to 1.9 (a murmur of voices after the stop word, once begun, 0.37 and more)."""

    def __init__(self, stop_words: Iterable[str], tuning: AloneTuning | None = None) -> None:
        self.stop_words = frozenset(word.casefold() for word in stop_words)
        if not self.stop_words:
            raise ValueError("AloneRule needs at least one stop word")
        self.tuning = tuning or AloneTuning()
        self.look_ahead_seconds: float | None = None
        """When set, a stretch that stands alone is offered (:meth:`take_early`) as soon as
        this much quiet follows it, before the window is over: the adapter's second look then
        runs while the speaker is still silent, not after (its CPU time is not added to the
        moment the table hears the end)."""
        if self.tuning.silence_seconds <= 0:
            raise ValueError(f"silence_seconds must be positive, not {self.tuning.silence_seconds}")
        self.reset()

    def reset(self) -> None:
        """Forget everything heard: a new speech begins."""
        self._levels: deque[tuple[float, float]] = deque()
        self._room: deque[tuple[float, float, float | None]] = deque()
        """(end, level, treble level in dBFS) of the frames the VAD heard no voice in, lately."""
        self._room_treble_db: float | None = None
        """:meth:`_room_treble` since the last frame without voice (None: not asked since)."""
        self._over_room_to = -math.inf
        """Where the last frame of the current stretch that stood over the room ended."""
        self._speaker_db = -120.0
        self._run: tuple[float, float] | None = None
        self._before_run = math.inf
        self._last_end = -math.inf
        self._last_levels: deque[float] = deque(maxlen=self.ONSET_FRAMES)
        """The levels of the frames heard last (dBFS)."""
        self.ended = False
        self._ended_after = math.inf
        self.spoke_on_at: float | None = None
        """After an end: when the speaker's voice came back (audio seconds), else None."""
        self.early: list[Utterance] = []
        self._offered: tuple[float, float] | None = None

    def is_stop_word(self, word: str) -> bool:
        return word.casefold() in self.stop_words

    def speaker_level(self) -> float:
        """The speaker's level (dBFS): a high percentile of the voice heard lately."""
        if not self._levels:
            return -120.0
        levels = np.fromiter((level for _, level in self._levels), dtype=np.float64)
        return float(np.percentile(levels, self.SPEAKER_PERCENTILE))

    def room_level(self) -> float | None:
        """The room's level (dBFS): the middle level of the frames without voice heard
        lately; None until ``ROOM_FRAMES`` of them were heard."""
        if len(self._room) < self.ROOM_FRAMES:
            return None
        return float(np.median([level for _, level, _ in self._room]))

    def hear(self, frames: Sequence[Frame]) -> list[Utterance]:
        """Take the VAD's frames; the stretches of voice now ready for a second look."""
        ready: list[Utterance] = []
        tuning = self.tuning
        for frame in frames:
            rise = frame.level_db - min(self._last_levels, default=math.inf)
            self._last_levels.append(frame.level_db)
            if frame.speech:
                self._levels.append((frame.start, frame.level_db))
                horizon = frame.end - self.HISTORY_SECONDS
                while self._levels and self._levels[0][0] < horizon:
                    self._levels.popleft()
                self._speaker_db = self.speaker_level()
            else:
                self._room.append((frame.end, frame.level_db, frame.treble_db))
                horizon = frame.end - self.HISTORY_SECONDS
                while self._room[0][0] < horizon:
                    self._room.popleft()
                self._room_treble_db = None  # known again when a voice next asks for it
            voice = frame.speech and frame.level_db >= self._speaker_db - tuning.room_margin_db
            run = self._run
            if voice:
                if run is not None and frame.start - run[1] <= tuning.join_seconds + 1e-6:
                    self._run = (run[0], frame.end)
                    if self._over_room(frame):
                        self._over_room_to = frame.end
                else:
                    if run is not None:
                        self._last_end = run[1]
                    self._before_run = frame.start - self._last_end
                    self._run = (frame.start, frame.end)
                    self._over_room_to = frame.end
                self._spoke_on(self._run)
                continue
            if run is not None and not frame.speech and self._over_room_to < run[1]:
                # The VAD fell silent: the frames it heard last, no louder than the room, were
                # its lingering on the noise after the voice, not the voice.
                self._run = run = (run[0], self._over_room_to)
            quiet = frame.end - run[1] - tuning.tail_seconds if run is not None else 0.0
            if run is None:
                continue
            if (
                self.look_ahead_seconds is not None
                and quiet >= self.look_ahead_seconds - 1e-6
                and run != self._offered
                and self._alone(run)
            ):
                self._offered = run
                self.early.append(Utterance(run[0], run[1], self._before_run))
            if quiet < self._window() - 1e-6 or rise >= tuning.onset_db:
                continue
            self._run = None
            self._last_end = run[1]
            if self._alone(run):
                ready.append(Utterance(run[0], run[1], self._before_run))
        return ready

    def _window(self) -> float:
        """The quiet after the current stretch that makes it a speech's end (seconds): longer
        after the speech's first words and after a short pause (``wary_silence_seconds``)."""
        tuning = self.tuning
        if self.waits_longer(self._before_run):
            return tuning.wary_silence_seconds
        return tuning.silence_seconds

    def waits_longer(self, quiet_before: float) -> bool:
        """Whether a stretch after this much quiet (``math.inf``: the speech's first words)
        leaves its standing alone in doubt, so that its window is ``wary_silence_seconds``:
        it may open the speech or be the rest of a sentence (``wary_before_seconds``). Never
        where the club's own ``silence_seconds`` is as long."""
        tuning = self.tuning
        doubtful = math.isinf(quiet_before) or quiet_before < tuning.wary_before_seconds - 1e-6
        return doubtful and tuning.wary_silence_seconds > tuning.silence_seconds

    def _room_treble(self) -> float:
        """The middle treble level of the frames without voice heard lately (dBFS), where it
        is at least ``1 / STEADIER`` times as steady as their full level; else, or while fewer
        than ``ROOM_FRAMES`` of them tell it, -inf."""
        room = [(level, treble) for _, level, treble in self._room if treble is not None]
        if len(room) < self.ROOM_FRAMES:
            return -math.inf
        levels = np.array(room)
        low, middle, high = np.percentile(levels, (25, 50, 75), axis=0)
        spread = high - low
        return float(middle[1]) if spread[1] < self.STEADIER * spread[0] else -math.inf

    def _over_room(self, frame: Frame) -> bool:
        """Whether ``frame`` stands ``room_floor_db`` over the room's treble level (or cannot be
        told: no treble level known)."""
        if frame.treble_db is None or self.tuning.room_floor_db <= 0:
            return True
        if self._room_treble_db is None:
            self._room_treble_db = self._room_treble()
        return frame.treble_db >= self._room_treble_db + self.tuning.room_floor_db

    def _alone(self, run: tuple[float, float]) -> bool:
        """Whether the stretch of voice ``run`` stands alone and is as long as a stop word."""
        tuning = self.tuning
        length = run[1] - run[0]
        alone = self._before_run >= tuning.quiet_before_seconds - 1e-6
        return alone and tuning.shortest_word_seconds <= length <= tuning.longest_word_seconds

    def take_early(self) -> list[Utterance]:
        """The stretches that stood alone for ``look_ahead_seconds`` of quiet since the last
        call: each may still become an :class:`Utterance` :meth:`hear` returns (when the quiet
        lasts the window), so the adapter can look at it while the window runs."""
        early, self.early = self.early, []
        return early

    def _spoke_on(self, run: tuple[float, float]) -> None:
        """After an end, the speaker's voice again, as long as a word: the end was wrong (a
        breath inside a speech), and the host may give the speech back."""
        if not self.ended or self.spoke_on_at is not None or run[0] < self._ended_after:
            return
        if run[1] - run[0] >= self.tuning.shortest_word_seconds - 1e-6:
            self.spoke_on_at = run[1]

    @staticmethod
    def inside(utterance: Utterance, word: HeardWord) -> float:
        """Seconds of the utterance's voice that ``word`` takes up (negative: none, that far
        away)."""
        return min(word.end, utterance.end) - max(word.start, utterance.start)

    @classmethod
    def within(cls, utterance: Utterance, words: Sequence[HeardWord]) -> list[HeardWord]:
        """The words said in the utterance's voice: a word lying mostly in the quiet decoded
        around it (noise before or after the voice) is the noise's, not the speaker's."""
        return [
            word
            for word in words
            if cls.inside(utterance, word) >= 0.5 * max(word.end - word.start, 1e-6)
        ]

    def without_clicks(
        self, utterance: Utterance, words: Sequence[HeardWord]
    ) -> tuple[HeardWord, ...]:
        """``words`` less each word other than a stop word that takes up less of the
        utterance's voice than ``shortest_word_seconds``: voice that short is a click, a smack
        of the lips or the burst of the word's first sound, not a word said (:meth:`hear`
        passes over it too), but a grammar of ordinary words gives it one of theirs: a referee
        heard 뛰어 in the first 0.1 s of a clear 감사합니다, then 감사합니다. For a quiet room
        only (the Listener's choice): in noise a short word heard is the likelier sign that
        something other than a stop word was said (a short word said alone in hiss ended a
        speech once its 0.2 s were taken for a click; docs/HEARING.md, "Eighth pass")."""
        shortest = self.tuning.shortest_word_seconds - 1e-6
        return tuple(
            word
            for word in words
            if self.is_stop_word(word.word) or self.inside(utterance, word) >= shortest
        )

    @staticmethod
    def unheard(utterance: Utterance, words: Sequence[HeardWord]) -> float:
        """Seconds of the utterance's voice that none of ``words`` covers."""
        heard = 0.0
        reached = utterance.start
        for start, end in sorted((word.start, word.end) for word in words):
            start, end = max(start, reached), min(end, utterance.end)
            if end > start:
                heard += end - start
                reached = end
        return max(0.0, utterance.end - utterance.start - heard)

    def unsure(self, words: Sequence[HeardWord]) -> bool:
        """Whether the words, all stop words, are heard too weakly to end a speech without a
        referee (a look with a wider grammar, :meth:`judge`'s ``referee``)."""
        stops = [word for word in words if self.is_stop_word(word.word)]
        return (
            bool(stops)
            and len(stops) == len(words)
            and (min(word.confidence for word in stops) < self.tuning.sure_confidence)
        )

    def judge(
        self,
        utterance: Utterance,
        words: Sequence[HeardWord],
        now: float,
        referee: Sequence[HeardWord] | None = None,
        panel: Sequence[Sequence[HeardWord]] | None = None,
        cleaned: tuple[float, float] | None = None,
        unanimous: bool = False,
        hearings: tuple[int, int] = (1, 1),
        second_to: Sequence[HeardWord] = (),
    ) -> Decision | None:
        """What the second look heard in ``utterance``: the speech ends when every word is a
        stop word, said no faster than a person can, heard with enough confidence (or, below
        ``sure_confidence``, heard as stop words by a majority of the ``panel`` of referees,
        by every one of them when ``unanimous``, or by the one ``referee``; or by one referee
        at least when ``agreeing_hearings`` of the look's ``hearings`` heard it on its own:
        (how many did, how many were made)). ``cleaned``: the words were heard in audio
        cleaned of the room's noise, from and to these times (a stop word beginning at its
        start ends nothing). ``second_to``: the words are the grammar's second choice, after
        these (Vosk gives a second choice no confidence: it is as weak as can be, and the
        panel's majority decides, one referee choosing it).
        None: no stop word was heard there."""
        if self.ended:
            return None
        if panel is None:
            panel = () if referee is None else (referee,)
        decision = self.verdict(
            utterance, words, now, panel, cleaned, unanimous, hearings, second_to
        )
        if decision is None or decision.verdict is not Verdict.SPEECH_ENDED:
            return decision
        self.ended = True
        self._ended_after = utterance.end
        return decision

    def stands(
        self,
        utterance: Utterance,
        words: Sequence[HeardWord],
        panel: Sequence[Sequence[HeardWord]] | None = None,
        cleaned: tuple[float, float] | None = None,
        unanimous: bool = False,
        hearings: tuple[int, int] = (1, 1),
        second_to: Sequence[HeardWord] = (),
    ) -> bool:
        """Whether these words would end the speech (:meth:`judge`, without ending it)."""
        decision = self.verdict(
            utterance, words, utterance.end, panel or (), cleaned, unanimous, hearings, second_to
        )
        return decision is not None and decision.verdict is Verdict.SPEECH_ENDED

    def needs_panel(
        self,
        utterance: Utterance,
        words: Sequence[HeardWord],
        cleaned: tuple[float, float] | None = None,
        second_to: Sequence[HeardWord] = (),
    ) -> bool:
        """Whether only the referees stand between these words and the end of the speech:
        every other test passed, and the stop word is heard below ``sure_confidence`` (or is
        the grammar's second choice, after ``second_to``)."""
        words = self.within(utterance, words)
        refused = self._refusal(utterance, words, utterance.end, cleaned, bool(second_to))
        return refused is None and (self.unsure(words) or bool(second_to) and bool(words))

    def could_hold_stop_word(self, utterance: Utterance) -> bool:
        """Whether the voice of ``utterance`` is long enough for one stop word said as fast as
        a person can and short enough for one said slowly (``fastest_sounds_per_second``,
        ``slowest_sounds_per_second``): if not, no hearing of it can end the speech."""
        length = utterance.end - utterance.start
        for stop in self.stop_words:
            word = (HeardWord(stop, utterance.start, utterance.end),)
            fastest = self._voice_for(word, self.tuning.fastest_sounds_per_second)
            slowest = self._voice_for(word, self.tuning.slowest_sounds_per_second)
            if fastest - 1e-6 <= length <= slowest + 1e-6:
                return True
        return False

    @staticmethod
    def needed(asked: int, unanimous: bool = False) -> int:
        """How many of a panel of ``asked`` referees must agree for the speech to end: a
        majority, or every one when ``unanimous``."""
        return asked if unanimous else asked // 2 + 1

    def agreed(
        self, utterance: Utterance, heard: Sequence[HeardWord], doubting: bool = True
    ) -> bool:
        """Whether one referee heard only stop words in the utterance (and heard something),
        or (``doubting``) could not tell the stop word alone from what it heard
        (:class:`Refereed`'s ``close``: in a quiet room, the proxy's 한신 for a 패스 said
        clearly, scored a hair above the stop word, refused it; a referee that cannot choose
        refuses nothing, though doubt alone never ends a speech: :meth:`verdict`)."""
        close = heard.close if doubting and isinstance(heard, Refereed) else ()
        hearings = [heard, *close]
        for hearing in hearings:
            kept = self.within(utterance, hearing)
            if kept and all(self.is_stop_word(word.word) for word in kept):
                return True
        return False

    def verdict(
        self,
        utterance: Utterance,
        words: Sequence[HeardWord],
        now: float,
        panel: Sequence[Sequence[HeardWord]],
        cleaned: tuple[float, float] | None = None,
        unanimous: bool = False,
        hearings: tuple[int, int] = (1, 1),
        second_to: Sequence[HeardWord] = (),
    ) -> Decision | None:
        """:meth:`judge`'s decision, without ending the speech."""
        words = self.within(utterance, words)
        refused = self._refusal(utterance, words, now, cleaned, bool(second_to))
        if refused is not None or not words:
            return refused
        stops = [word for word in words if self.is_stop_word(word.word)]
        if not stops:
            return None
        last = stops[-1]
        weakest = min(stops, key=lambda word: word.confidence)
        if self.unsure(stops) or second_to:
            agreeing = sum(self.agreed(utterance, heard) for heard in panel)
            chosen = self.choosing(utterance, panel) > 0
            enough = agreeing >= self.needed(len(panel), unanimous)
            backed = (
                not enough
                and chosen
                and self.backed_by(hearings[0])
                and self._at_speaking_pace(utterance, stops)
            )
            if panel and enough and not chosen:
                # Referees that cannot choose refuse nothing, but one must choose the stop
                # word: a short «да» in a quiet room left two referees torn between it and
                # ordinary words, and ended a speech.
                reason = (
                    f"«{weakest.word}»: {agreeing} of {len(panel)} wider grammars could not "
                    "tell it from an ordinary word, and none chose it: unclear"
                )
                return Decision(
                    Verdict.LOW_CONFIDENCE, weakest, now, reason, "listen_only_doubt",
                    (("word", weakest.word), ("agreeing", str(agreeing)),
                     ("asked", str(len(panel)))),
                )  # fmt: skip
            if not backed and (not panel or not enough):
                refereed = [
                    ", ".join(f"«{word.word}»" for word in self.within(utterance, heard))
                    for heard in panel
                ]
                said = "; ".join(text for text in refereed if text)
                reason = (
                    f"«{weakest.word}» heard with confidence {weakest.confidence:.2f}, and "
                    f"{agreeing} of {len(panel)} wider grammars heard only stop words "
                    f"({said or 'nothing'}): unclear"
                )
                return Decision(
                    Verdict.LOW_CONFIDENCE, weakest, now, reason,
                    "listen_unclear" if said else "listen_unclear_nothing",
                    (("word", weakest.word), ("confidence", f"{weakest.confidence:.2f}"),
                     ("heard", said), ("agreeing", str(agreeing)), ("asked", str(len(panel)))),
                )  # fmt: skip
            if backed:
                return self._backed(utterance, last, now, panel, hearings)
            if second_to:
                return self._second_choice(utterance, last, now, len(panel), agreeing, second_to)
        start = math.isinf(utterance.quiet_before)
        longer = self.waits_longer(utterance.quiet_before)
        if start:
            before = "at the speech's start" + (
                ": after a speech's first words the window of quiet is longer" if longer else ""
            )
        else:
            before = f"{utterance.quiet_before:.2f} s of quiet before it" + (
                ": a short pause, so a longer window of quiet" if longer else ""
            )
        reason = (
            f"«{last.word}» said on its own ({before}), then {now - utterance.end:.2f} s "
            "without the speaker's voice"
        )
        after = f"{now - utterance.end:.2f}"
        if start:
            return Decision(
                Verdict.SPEECH_ENDED, last, now, reason,
                "listen_alone_at_start_longer" if longer else "listen_alone_at_start",
                (("word", last.word), ("after", after)),
            )  # fmt: skip
        return Decision(
            Verdict.SPEECH_ENDED, last, now, reason,
            "listen_alone_short_pause" if longer else "listen_alone",
            (("word", last.word), ("before", f"{utterance.quiet_before:.2f}"), ("after", after)),
        )  # fmt: skip

    def choosing(self, utterance: Utterance, panel: Sequence[Sequence[HeardWord]]) -> int:
        """How many of the ``panel``'s referees chose the stop word on its own outright (their
        doubt aside: :meth:`agreed`)."""
        return sum(self.agreed(utterance, heard, doubting=False) for heard in panel)

    def backed_by(self, hearings: int) -> bool:
        """Whether a stop word that ``hearings`` of the second look's hearings heard on its own
        needs one referee only, not the panel's majority (``agreeing_hearings``)."""
        return 0 < self.tuning.agreeing_hearings <= hearings

    def _at_speaking_pace(self, utterance: Utterance, stops: Sequence[HeardWord]) -> bool:
        """Whether the voice is long enough for the stop words said at a speaking pace
        (``backed_sounds_per_second``), not only as fast as a person can."""
        paced = self._voice_for(stops, self.tuning.backed_sounds_per_second)
        return utterance.end - utterance.start >= paced - 1e-6

    @staticmethod
    def _voice_for(stops: Sequence[HeardWord], sounds_per_second: float) -> float:
        """Seconds the stop words' sounds take said at ``sounds_per_second``."""
        return sum(len(sound_key(word.word)) for word in stops) / sounds_per_second

    def _backed(
        self,
        utterance: Utterance,
        last: HeardWord,
        now: float,
        panel: Sequence[Sequence[HeardWord]],
        hearings: tuple[int, int],
    ) -> Decision:
        """The speech's end on a stop word that most hearings heard on its own, and a referee."""
        agreeing = self.choosing(utterance, panel)
        after = f"{now - utterance.end:.2f}"
        reason = (
            f"«{last.word}» said on its own: {hearings[0]} of {hearings[1]} hearings and "
            f"{agreeing} of {len(panel)} wider grammars heard it alone, then {after} s without "
            "the speaker's voice"
        )
        return Decision(
            Verdict.SPEECH_ENDED, last, now, reason, "listen_alone_by_hearings",
            (("word", last.word), ("hearings", str(hearings[0])), ("made", str(hearings[1])),
             ("agreeing", str(agreeing)), ("asked", str(len(panel))), ("after", after)),
        )  # fmt: skip

    def _second_choice(
        self,
        utterance: Utterance,
        last: HeardWord,
        now: float,
        asked: int,
        agreeing: int,
        second_to: Sequence[HeardWord],
    ) -> Decision:
        """The speech's end on a stop word that the grammar put second, after ``second_to``,
        and that ``agreeing`` of the ``asked`` referees heard on its own."""
        first = "«" + " ".join(word.word for word in second_to) + "»"
        after = f"{now - utterance.end:.2f}"
        reason = (
            f"«{last.word}» said on its own: the grammar's second choice after {first}, and "
            f"{agreeing} of {asked} wider grammars heard it alone, then {after} s without "
            "the speaker's voice"
        )
        return Decision(
            Verdict.SPEECH_ENDED, last, now, reason, "listen_alone_second_choice",
            (("word", last.word), ("first", first), ("agreeing", str(agreeing)),
             ("asked", str(asked)), ("after", after)),
        )  # fmt: skip

    def _refusal(
        self,
        utterance: Utterance,
        words: Sequence[HeardWord],
        now: float,
        cleaned: tuple[float, float] | None,
        second: bool = False,
    ) -> Decision | None:
        """Why the words (within the utterance) end nothing whatever the referees say; None
        when only the referees are left to ask (or no stop word was heard): the first of
        :data:`REFUSALS` that refuses them. A ``second`` choice has no confidence to fall below
        ``min_confidence``."""
        if not words:
            return None
        stops = [word for word in words if self.is_stop_word(word.word)]
        if not stops:
            return None
        said = Said(utterance, tuple(words), tuple(stops), now, cleaned, second)
        for refusal in REFUSALS:
            refused = refusal(self, said)
            if refused is not None:
                return refused
        return None


@dataclass(frozen=True)
class Said:
    """What a look heard in a stretch, for a refusal to judge: the words within it, at least
    one of them a stop word."""

    utterance: Utterance
    words: tuple[HeardWord, ...]
    stops: tuple[HeardWord, ...]
    """Those of ``words`` that are stop words (not empty)."""
    now: float
    cleaned: tuple[float, float] | None
    """For audio cleaned of the room's noise, the times it runs from and to."""
    second: bool
    """The words are the grammar's second choice (they have no confidence)."""

    @property
    def last(self) -> HeardWord:
        return self.stops[-1]

    @property
    def length(self) -> float:
        return self.utterance.end - self.utterance.start


def with_other_words(rule: AloneRule, said: Said) -> Decision | None:
    """A stop word with other words heard around it was not said on its own."""
    if len(said.stops) == len(said.words):
        return None
    last = said.last
    others = ", ".join(f"«{word.word}»" for word in said.words if not rule.is_stop_word(word.word))
    reason = f"«{last.word}» was said with other words ({others}): not on its own"
    return Decision(
        Verdict.FOLLOWED_BY_SPEECH, last, said.now, reason,
        "listen_with_other_words", (("word", last.word), ("others", others)),
    )  # fmt: skip


def repeated(rule: AloneRule, said: Said) -> Decision | None:
    """A player who ends says the stop word once; a breath the decoder fills with it twice
    was more than a stop word (the proxy's 패스워드 heard as 패스 패스)."""
    if len(said.stops) <= 1:
        return None
    last = said.last
    reason = f"«{last.word}» heard {len(said.stops)} times in one breath: more was said"
    return Decision(
        Verdict.FOLLOWED_BY_SPEECH, last, said.now, reason, "listen_repeated",
        (("word", last.word), ("times", str(len(said.stops)))),
    )  # fmt: skip


def low_confidence(rule: AloneRule, said: Said) -> Decision | None:
    """A stop word heard with less than ``min_confidence`` (not a second choice)."""
    weakest = min(said.stops, key=lambda word: word.confidence)
    minimum = rule.tuning.min_confidence
    if said.second or weakest.confidence >= minimum:
        return None
    reason = (
        f"«{weakest.word}» heard with confidence {weakest.confidence:.2f}, below "
        f"listener.min_confidence {minimum:.2f}"
    )
    return Decision(
        Verdict.LOW_CONFIDENCE, weakest, said.now, reason, "listen_low_confidence",
        (("word", weakest.word), ("confidence", f"{weakest.confidence:.2f}"),
         ("minimum", f"{minimum:.2f}")),
    )  # fmt: skip


def too_short(rule: AloneRule, said: Said) -> Decision | None:
    """Less voice than the stop word takes said as fast as a person can: something shorter."""
    shortest = rule._voice_for(said.stops, rule.tuning.fastest_sounds_per_second)
    length, last = said.length, said.last
    if length >= shortest - 1e-6:
        return None
    reason = (
        f"«{last.word}» heard in {length:.2f} s of voice, too short for it (at least "
        f"{shortest:.2f} s): something shorter was said"
    )
    return Decision(
        Verdict.LOW_CONFIDENCE, last, said.now, reason, "listen_too_short",
        (("word", last.word), ("length", f"{length:.2f}"), ("shortest", f"{shortest:.2f}")),
    )  # fmt: skip


def unheard(rule: AloneRule, said: Said) -> Decision | None:
    """More than ``unheard_seconds`` of the voice held no word: more was said."""
    missing = rule.unheard(said.utterance, said.words)
    if missing <= rule.tuning.unheard_seconds + 1e-6:
        return None
    length, last = said.length, said.last
    reason = (
        f"«{last.word}» heard in {length:.2f} s of voice, {missing:.2f} s of which held "
        "no word: more was said than a stop word"
    )
    return Decision(
        Verdict.FOLLOWED_BY_SPEECH, last, said.now, reason, "listen_unheard",
        (("word", last.word), ("length", f"{length:.2f}"), ("unheard", f"{missing:.2f}")),
    )  # fmt: skip


def too_long(rule: AloneRule, said: Said) -> Decision | None:
    """More voice than the stop word takes even said slowly: more was said."""
    longest = rule._voice_for(said.stops, rule.tuning.slowest_sounds_per_second)
    length, last = said.length, said.last
    if length <= longest + 1e-6:
        return None
    reason = (
        f"«{last.word}» heard in {length:.2f} s of voice, longer than it takes even said "
        f"slowly (at most {longest:.2f} s): more was said"
    )
    return Decision(
        Verdict.FOLLOWED_BY_SPEECH, last, said.now, reason, "listen_too_long",
        (("word", last.word), ("length", f"{length:.2f}"), ("longest", f"{longest:.2f}")),
    )  # fmt: skip


def residue(rule: AloneRule, said: Said) -> Decision | None:
    """A stop word at the very start of cleaned audio is what the cleaning left of the quiet."""
    last = said.last
    if said.cleaned is None or last.start - said.cleaned[0] >= rule.tuning.edge_seconds:
        return None
    reason = (
        f"«{last.word}» begins at the very start of the audio cleaned of the room's "
        "noise: what the cleaning left of the quiet before the voice, heard as a word"
    )
    return Decision(
        Verdict.LOW_CONFIDENCE, last, said.now, reason, "listen_residue", (("word", last.word),)
    )


REFUSALS: tuple[Callable[[AloneRule, Said], Decision | None], ...] = (
    with_other_words,
    repeated,
    low_confidence,
    too_short,
    unheard,
    too_long,
    residue,
)
"""Why a stop word heard on its own ends nothing whatever the referees say, in the order they
are asked: each a pure function of the rule's tuning and what was heard, a refusal or None."""


def choose_fillers(
    vocabulary: Sequence[str], stop_words: Sequence[str], count: int, seed: int | None = None
) -> tuple[str, ...]:
    """Pick ``count`` words of the model's vocabulary for other speech to land on.

    Without them, grammar mode forces every sound onto a stop word. Fillers are words of the
    stop words' own script (Cyrillic for Russian, Hangul for Korean) that sound nothing like a
    stop word (:func:`sounds_like`), drawn with a fixed seed so the same model always gives the
    same list (``seed``: another draw, for another referee). Only the words drawn are
    examined, so a vocabulary of half a million words costs milliseconds. Words that do sound
    like a stop word are the competitors' job.
    """
    if count <= 0 or not vocabulary:
        return ()
    scripts = {_script(char) for word in stop_words for char in word}
    longest = max((len(word) for word in stop_words), default=1)
    stops = [sound_key(word) for word in stop_words]
    draw = random.Random(FILLER_SEED if seed is None else seed)
    chosen: dict[str, None] = {}
    for _attempt in range(FILLER_ATTEMPTS_PER_WORD * count):
        word = vocabulary[draw.randrange(len(vocabulary))]
        if word in chosen or not 2 <= len(word) <= 2 * longest:
            continue
        if not all(_script(char) in scripts for char in word):
            continue
        if sounds_like(sound_key(word), stops):
            continue
        chosen[word] = None
        if len(chosen) == count:
            break
    return tuple(chosen)


FILLER_SEED = 20250601
REFEREE_SEEDS = (FILLER_SEED, 1001, 1002)
"""The draws of ordinary words for the panel of referees, one each. A word drawn at random
can sound like a stop word to a model although it shares no sound with it in writing (the
proxy's 한신 took 패스 in a quiet room 3 times in 48): one referee with it refused those stop
words; a panel of three decides by majority, so one such word no longer does (bench, tuned
halves of seeds 13, 14 and 16: clean 41 → 47 of 48)."""
FILLER_ATTEMPTS_PER_WORD = 200


def choose_competitors(
    vocabulary: Iterable[str], stop_words: Sequence[str], per_word: int
) -> tuple[str, ...]:
    """The vocabulary's look-alikes of each stop word, ``per_word`` for each.

    In the grammar they give a look-alike somewhere to land: «…합니다» becomes 생각합니다 rather
    than 감사합니다, «паспорт» stays «паспорт» rather than becoming «пас». A competitor starts
    with a stop word's sounds («пасть», «паспорт», 패스너: first), ends as it does and differs in
    a third of its sounds (생각합니다, 죄송합니다, and 합니다 itself: the rule looks at the last
    word), or holds it («опасно»); it is at least two sounds away (by :func:`sound_key`) and
    never shorter, but for the stop word's own ending.
    Measured on the Korean proxy, shorter and nearer words (감사하, 갑니다, 패슬 for 패스) take
    the stop word's own place when it is said, which costs more than the false ends they
    prevent. Works for any language written in letters (Cyrillic, Latin) or Hangul.
    """
    if per_word <= 0:
        return ()
    scripts = {_script(char) for word in stop_words for char in word}
    stops = [(word, sound_key(word)) for word in stop_words]
    taken = {word.casefold() for word in stop_words}
    ranked: dict[str, list[tuple[int, int, int, str]]] = {word: [] for word in stop_words}
    for word in vocabulary:
        if word.casefold() in taken or not 2 <= len(word) <= 24:
            continue
        if not all(_script(char) in scripts for char in word):
            continue
        key = sound_key(word)
        for stop, stop_key in stops:
            if not _shares_run(key, stop_key) or len(key) > 2 * len(stop_key) + 2:
                continue
            # The stop word's own ending as a word (합니다), leaving a good part of it unsaid.
            ending = stop_key.endswith(key) and max(3, len(stop_key) / 2) <= len(key)
            ending = ending and len(key) <= 0.6 * len(stop_key)
            if key == stop_key or (len(key) < len(stop_key) and not ending):
                continue  # the same sounds, or shorter (감사하, 갑니다): it takes its place
            kind = _kind(key, stop_key)
            distance = _edit_distance(key, stop_key)
            nearest = max(2, math.ceil(len(stop_key) / 3)) if kind == 1 else 2
            if kind is None or distance < nearest:
                continue  # one sound apart (패슬 for 패스) is heard for the stop word itself
            ranked[stop].append((kind, distance, len(word), word))
    chosen: dict[str, None] = {}
    for stop in stop_words:
        for *_order, word in sorted(ranked[stop])[:per_word]:
            chosen[word] = None
    return tuple(chosen)


def _kind(key: str, stop_key: str) -> int | None:
    """How a look-alike resembles a stop word, best first: it starts with it (паспорт, 패스트),
    ends as it does (생각합니다), or holds it (опасно); None: none of these."""
    if key.startswith(stop_key):
        return 0
    if key.endswith(stop_key[len(stop_key) // 2 :]):
        return 1
    if stop_key in key:
        return 2
    return None


def _shares_run(key: str, stop_key: str) -> bool:
    """Whether ``key`` holds ``stop_key`` whole or a run of at least half of it (3 or more)."""
    if stop_key in key:
        return True
    run = max(3, math.ceil(len(stop_key) / 2))
    if run >= len(stop_key):
        return False
    return any(stop_key[i : i + run] in key for i in range(len(stop_key) - run + 1))


def _edit_distance(first: str, second: str) -> int:
    previous = list(range(len(second) + 1))
    for i, a in enumerate(first, 1):
        current = [i]
        for j, b in enumerate(second, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        previous = current
    return previous[-1]


def _script(char: str) -> str:
    """The Unicode script a letter belongs to, by its name (CYRILLIC, HANGUL, LATIN...)."""
    if not char.isalpha():
        return "-"
    return unicodedata.name(char, "-").split(" ")[0]


# -- how a word sounds (roughly) -------------------------------------------------------------

# Hangul jamo (after NFD): initial consonants U+1100.., vowels U+1161.., finals U+11A8..; tense
# consonants sound as the plain ones, aspirated ones (capitals) apart; the filler refusal
# folds them together too.
_INITIALS = "kknttrmppss-ccCKTPh"
_VOWELS = "aeaeoeoeoaeeouoeiuuii"
_FINALS = "kkknnntrrrrrrrrmppttNtCKTPt"
# Russian letters: voiced and voiceless pairs merge, unstressed о sounds as а, е/э/и/ы as и;
# the soft sign softens the consonant before it, a sound of its own here.
_CYRILLIC = str.maketrans(
    {"б": "p", "п": "p", "в": "f", "ф": "f", "г": "k", "к": "k", "д": "t", "т": "t",
     "ж": "s", "ш": "s", "щ": "s", "з": "s", "с": "s", "ц": "s", "ч": "c", "х": "h",
     "л": "l", "м": "m", "н": "n", "р": "r", "й": "i", "а": "a", "о": "a", "я": "a",
     "е": "i", "ё": "o", "э": "i", "и": "i", "ы": "i", "у": "u", "ю": "u", "ь": "j",
     "ъ": None}
)  # fmt: skip


def sound_key(word: str) -> str:
    """A rough spelling of how ``word`` sounds, one letter per sound (for look-alikes)."""
    sounds: list[str] = []
    for char in unicodedata.normalize("NFD", word.casefold()):
        code = ord(char)
        if 0x1100 <= code <= 0x1112:
            sound = _INITIALS[code - 0x1100]
            if sound != "-":
                sounds.append(sound)
        elif 0x1161 <= code <= 0x1175:
            sounds.append(_VOWELS[code - 0x1161])
        elif 0x11A8 <= code <= 0x11C2:
            sounds.append(_FINALS[code - 0x11A8])
        elif char.isalpha():
            sounds.append(char.translate(_CYRILLIC))
    return "".join(sounds)


def sounds_like(key: str, stop_keys: Sequence[str]) -> bool:
    """Whether a word (by :func:`sound_key`) shares a stretch of sound with a stop word: it
    contains one, is part of one, or shares ``SHARED_RUN`` sounds in a row once vowels are
    told apart no more (칼솜씨 and 감사합니다 share «VmsV», «спасение» and «спасибо» «spVs»).

    Measured on generated speech (bench/bench_listener.py): a filler that shares a part with a
    stop word takes the stop word itself when it is said alone, which costs more than the false
    ends it would prevent.
    """
    key = key.casefold()
    folded = _fold_vowels(key)
    for stop in (stop.casefold() for stop in stop_keys):
        if key in stop or stop in key:
            return True
        stop_folded = _fold_vowels(stop)
        run = min(SHARED_RUN, len(stop_folded))
        if any(folded[i : i + run] in stop_folded for i in range(len(folded) - run + 1)):
            return True
    return False


def _fold_vowels(key: str) -> str:
    return "".join("V" if sound in "aeiou" else sound for sound in key)


SHARED_RUN = 3
"""Fillers sharing this many sounds in a row (vowels alike) with a stop word are refused."""
