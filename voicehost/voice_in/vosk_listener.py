"""The stop-word Listener: Vosk in grammar mode hears «спасибо» / «пас» through the microphone.

Audio comes from an :class:`~voicehost.voice_in.microphone.AudioSource` (live microphone, WAV
file, ALSA file device) on the Listener's own thread. A voice-activity detector (``vad.py``)
hears every frame; the decision rule (:class:`voicehost.voice_in.rule.AloneRule`) finds the
stretches of the speaker's voice that stand alone, and only those (a second or so, once the
speaker has been quiet for the window) are decoded by Vosk, from a fresh recogniser whose grammar
knows only the stop words, ``[unk]`` when the model has it, and competitors (the model's words
that sound most like a stop word, so a look-alike said alone lands on itself). So Vosk costs
nothing while a player talks, and a sentence's last word is never decoded as a stop word.
The second look can hear the audio with the room's steady noise taken out first
(``ListenerTuning.denoise``, ``denoise.py``).

After it ended a speech the Listener keeps hearing the same speaker until the host moves on,
and reports the speaker's voice coming back (``on_spoke_on``): the host holds a voice end
briefly and gives the speech back to a player who talks on.

Decoding is deterministic: every look starts from a new recogniser and the same seed of libc's
``rand()`` (Kaldi draws on it), so a recording always gives the same decisions, in a game and in
tests, whatever was decoded before it.

The Listener is deaf until ``listen(token)`` and hears nothing while deaf, so nights and the
free discussion cost no CPU.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from voicehost.clips import power_dbfs
from voicehost.errors import MissingDependency
from voicehost.hearing import HearingTuning
from voicehost.notices import LOG_ONLY
from voicehost.voice_in.denoise import FRAME, follow_noise, noise_spectrum, subtract_noise
from voicehost.voice_in.evidence import LookRecord, Recorder
from voicehost.voice_in.grammar_cache import cached_words
from voicehost.voice_in.look import (
    CAPTURED,
    CLEANED,
    CLEANED_HARDER,
    Look,
    Room,
    hear_out,
    judge,
)
from voicehost.voice_in.look import (
    CLEANED_SMOOTHLY as CLEANED_SMOOTHLY,
)
from voicehost.voice_in.models import ModelError, model_vocabulary
from voicehost.voice_in.rule import (
    FILLER_SEED,
    REFEREE_SEEDS,
    AloneRule,
    Decision,
    HeardWord,
    Hypothesis,
    Utterance,
    Verdict,
    choose_competitors,
    choose_fillers,
)
from voicehost.voice_in.vad import FrameMeter, VoiceDetector, make_detector

if TYPE_CHECKING:
    from voicehost.config import ListenerSettings, Settings
    from voicehost.ports import Clock, StopWordHeard
    from voicehost.voice_in.microphone import AudioBlock, AudioSource

log = logging.getLogger(__name__)

UNKNOWN_WORD = "[unk]"
"""Vosk's unknown-word entry; small models have it, some (the Korean one) do not."""


class VocabularyError(ModelError):
    """The model does not know some stop words: a wrong model or a wrong language."""

    def __init__(self, model: Path, missing: Sequence[str]) -> None:
        listed = ", ".join(f"«{word}»" for word in missing)
        super().__init__(
            f"the speech model {model} does not know the stop words {listed}: it is a "
            "model of another language, or the wrong model. Install the model for the game's "
            "language (`voicehost models fetch LANG` or `voicehost models install ZIP`) or set "
            "listener.model in config.yaml",
            phrase="model_vocabulary",
            model=model,
            words=listed,
        )
        self.model = model
        self.missing = tuple(missing)


def import_vosk() -> Any:
    """The vosk module, quiet; a missing one raises MissingDependency with the install hint."""
    try:
        import vosk
    except (ImportError, OSError) as exc:
        raise MissingDependency(
            f"hearing stop words needs the vosk package ({exc}): `.venv/bin/pip install vosk`"
        ) from exc
    vosk.SetLogLevel(-1)
    return vosk


class SpeechModel:
    """A loaded Vosk model and the folder it came from. Loading takes seconds: share it."""

    def __init__(self, folder: Path) -> None:
        vosk = import_vosk()
        if not (folder / "conf").is_dir() and not (folder / "am").is_dir():
            raise ModelError(f"{folder} is not a Vosk model folder (no am/ or conf/)")
        try:
            self.model = vosk.Model(str(folder))
        except Exception as exc:  # vosk raises a plain Exception for a broken model
            raise ModelError(
                f"the speech model in {folder} does not load ({exc}); install it again with "
                "`voicehost models install ZIP` or `voicehost models fetch LANG`"
            ) from exc
        self.folder = folder
        self._vocabulary: tuple[str, ...] | None = None

    def knows(self, word: str) -> bool:
        """Whether the model's vocabulary has ``word`` (what grammar mode would keep)."""
        return int(self.model.vosk_model_find_word(word)) >= 0

    def unknown(self, words: Sequence[str]) -> list[str]:
        """The words the model does not know, in order."""
        return [word for word in words if not self.knows(word)]

    def vocabulary(self) -> tuple[str, ...]:
        """Every word of the model (read once from its graph files)."""
        if self._vocabulary is None:
            self._vocabulary = tuple(model_vocabulary(self.folder))
        return self._vocabulary


def grammar_words(
    model: SpeechModel,
    stop_words: Sequence[str],
    filler_count: int,
    competitors: int = 0,
    seed: int | None = None,
) -> tuple[str, ...]:
    """The recogniser's grammar: stop words, ``[unk]`` if known, ``competitors`` look-alikes
    for each stop word and ``filler_count`` fillers (``seed``: another draw of them).

    Raises VocabularyError naming the stop words the model does not know (Vosk itself would
    only log a warning and then never hear them).
    """
    missing = model.unknown(stop_words)
    if missing:
        raise VocabularyError(model.folder, missing)
    words = list(stop_words)
    if model.knows(UNKNOWN_WORD):
        words.append(UNKNOWN_WORD)
    stops = list(stop_words)
    if competitors > 0:
        key = {"kind": "competitors", "stop_words": stops, "count": competitors}
        words.extend(
            cached_words(
                model.folder,
                key,
                lambda: choose_competitors(model.vocabulary(), stop_words, competitors),
            )
        )
    if filler_count > 0:
        key = {"kind": "fillers", "stop_words": stops, "count": filler_count}
        if seed is not None and seed != FILLER_SEED:
            key["seed"] = seed
        fillers = cached_words(
            model.folder,
            key,
            lambda: choose_fillers(model.vocabulary(), stop_words, filler_count, seed),
        )
        words.extend(word for word in fillers if word not in words)
    return tuple(words)


RAND_SEED = 1
"""The seed of libc's ``rand()`` at the start of every speech (Kaldi draws on it)."""


def seed_libc_rand(seed: int = RAND_SEED) -> None:
    """Seed the C library's ``rand()``, which Kaldi uses while decoding."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
    except OSError:  # no C library by that name: decoding stays as it is (never seen on Linux)
        log.warning(
            "cannot seed the C library's rand(): decoding may vary from run to run",
            extra=LOG_ONLY,
        )
        return
    libc.srand(ctypes.c_uint(seed))


class StopWordRecognizer:
    """One Vosk recogniser over a grammar (or free mode when ``words`` is None).

    Word times are seconds of audio since the last :meth:`reset` (Vosk's own keep counting
    from the recogniser's creation).
    """

    def __init__(
        self,
        model: SpeechModel,
        words: Sequence[str] | None,
        sample_rate: int,
        alternatives: int = 0,
    ) -> None:
        self.model = model
        self.words = None if words is None else tuple(words)
        self.sample_rate = sample_rate
        self.alternatives = alternatives
        """How many best hearings a final result holds (``Hypothesis.alternatives``); 0: one,
        with each word's confidence."""
        self._fed = 0
        self._base = 0
        self._created = 0  # samples fed before the recogniser was made: its times start there
        self._recognizer = self._new_recognizer()

    def _new_recognizer(self) -> Any:
        vosk = import_vosk()
        if self.words is None:
            recognizer = vosk.KaldiRecognizer(self.model.model, self.sample_rate)
        else:
            # Vosk drops every word of an ASCII-escaped grammar: keep the letters as they are.
            grammar = json.dumps(list(self.words), ensure_ascii=False)
            recognizer = vosk.KaldiRecognizer(self.model.model, self.sample_rate, grammar)
        recognizer.SetWords(True)
        recognizer.SetPartialWords(True)
        if self.alternatives > 0:
            recognizer.SetMaxAlternatives(self.alternatives)
        return recognizer

    @property
    def seconds(self) -> float:
        """Audio fed since the last reset (seconds)."""
        return (self._fed - self._base) / self.sample_rate

    def accept(self, samples: np.ndarray) -> Hypothesis:
        """Feed int16 samples; Vosk's partial hypothesis, or its final one at an endpoint."""
        self._fed += len(samples)
        if self._recognizer.AcceptWaveform(samples.astype("<i2").tobytes()):
            return self._hypothesis(self._recognizer.Result(), "result", final=True)
        return self._hypothesis(self._recognizer.PartialResult(), "partial_result", final=False)

    def finish(self) -> Hypothesis:
        """Close the utterance now: decode every pending frame and return the final result."""
        return self._hypothesis(self._recognizer.FinalResult(), "result", final=True)

    def reset(self) -> None:
        """Forget the utterance; times restart at zero."""
        self._recognizer.Reset()
        self._base = self._fed

    def fresh(self) -> None:
        """A new speech: a new recogniser and the same seed, so the same audio always decodes
        the same way whatever came before; times restart at zero."""
        seed_libc_rand()
        self._recognizer = self._new_recognizer()
        self._base = self._created = self._fed

    def _hypothesis(self, text: str, key: str, final: bool) -> Hypothesis:
        offset = (self._base - self._created) / self.sample_rate

        def words(items: Sequence[dict[str, Any]]) -> tuple[HeardWord, ...]:
            return tuple(
                HeardWord(
                    word=str(item["word"]),
                    start=float(item["start"]) - offset,
                    end=float(item["end"]) - offset,
                    confidence=float(item.get("conf", 1.0)),
                )
                for item in items
            )

        result = json.loads(text)
        if "alternatives" not in result:
            return Hypothesis(words(result.get(key, [])), final)
        alternatives = tuple(
            (float(alternative.get("confidence", 0.0)), words(alternative.get(key, [])))
            for alternative in result["alternatives"]
        )
        best = alternatives[0][1] if alternatives else ()
        return Hypothesis(best, final, alternatives)


REFEREE_ALTERNATIVES = 6
"""How many best hearings each referee gives (``ListenerTuning.referee_doubt`` looks at them)."""
SECOND_CHOICES = 6
"""How many best hearings the grammar's look for a second choice gives
(``look.second_choice``)."""


def referee_recognizers(
    model: SpeechModel, referees: Sequence[Sequence[str]], sample_rate: int
) -> list[StopWordRecognizer]:
    """The panel's recognisers, one per referee's grammar, each giving its best hearings."""
    return [
        StopWordRecognizer(model, words, sample_rate, REFEREE_ALTERNATIVES) for words in referees
    ]


#: After the audio fails, the Listener waits this long before opening it again (seconds).
RESTART_DELAY_SECONDS = 2.0


@dataclass(frozen=True)
class WordsHeard:
    """Words of a closed utterance, times in clock seconds (for the listening tool)."""

    words: tuple[HeardWord, ...]
    hearing: str = CAPTURED
    """Which hearing of the second look: ``CAPTURED``, ``CLEANED``, ``CLEANED_HARDER`` or
    ``CLEANED_SMOOTHLY``."""
    clicks: tuple[HeardWord, ...] = ()
    """Those of ``words`` the rule took for clicks, not words (in a quiet room:
    ``AloneRule.without_clicks``)."""


@dataclass(frozen=True)
class AudioDropped:
    """Audio thrown away by the echo guard, from ``start`` to ``end`` (clock seconds)."""

    start: float
    end: float


@dataclass(frozen=True)
class SpokeOn:
    """After it ended a speech, the Listener heard the speaker talk on at clock time ``at``."""

    at: float


ListenerEvent = WordsHeard | Decision | AudioDropped | SpokeOn
"""What a Listener reports to an observer: words, decisions (clock times), dropped audio, the
speaker talking on after an end."""


ListenerTuning = HearingTuning
"""How the Listener decides (the one tuning of hearing, ``voicehost/hearing.py``); see
``listener`` in config.yaml."""


class VoskListener:
    """Implements ``ports.Listener``: reports ``on_stop_word(token)`` when a speech ends.

    ``on_event`` (optional) sees every word, decision and dropped stretch of audio, for the
    listening tool and the benchmarks; it is called on the Listener's thread.
    """

    def __init__(
        self,
        recognizer: StopWordRecognizer,
        source: AudioSource,
        clock: Clock,
        stop_words: Sequence[str],
        tuning: ListenerTuning | None = None,
        on_event: Callable[[ListenerEvent], None] | None = None,
        detector: VoiceDetector | None = None,
        referee: StopWordRecognizer | Sequence[StopWordRecognizer] | None = None,
        second_guess: StopWordRecognizer | None = None,
    ) -> None:
        self.tuning = tuning or ListenerTuning()
        if referee is None:
            referee = ()
        elif isinstance(referee, StopWordRecognizer):
            referee = (referee,)
        self.referees = tuple(referee)
        """Recognisers over wider grammars (each with its own ordinary words) for stop words
        heard weakly: the panel decides by majority. Empty: a weakly heard stop word ends
        nothing."""
        if source.sample_rate != recognizer.sample_rate:
            raise ValueError("the audio source and the recogniser need the same sample rate")
        self.recognizer = recognizer
        self.source = source
        self.clock = clock
        if detector is None:
            detector = make_detector(self.tuning.vad, source.sample_rate)
        self.rule = AloneRule(stop_words, replace(self.tuning, tail_seconds=detector.tail_seconds))
        self.meter = FrameMeter(detector, source.sample_rate, self.tuning.vad_threshold)
        self.on_event = on_event
        self.failure: BaseException | None = None
        self._lock = threading.Lock()
        self._token: int | None = None
        self._since = float("-inf")
        self._deaf_until = float("-inf")
        self._generation = 0
        self._fed_generation = -1
        self._interrupted = False
        self._origin = 0.0
        self._reported_deafness = float("-inf")
        self._on_stop_word: StopWordHeard | None = None
        self._on_spoke_on: StopWordHeard | None = None
        self._spoke_on_told = False
        self._thread: threading.Thread | None = None
        self._closing = threading.Event()
        self.restarts = 0
        self._audio = np.zeros(0, dtype=np.int16)
        self._audio_start = 0.0
        self._looked: dict[tuple[float, float], tuple[Look, Recorder]] = {}
        self._second_guess = second_guess
        """``recognizer``'s grammar again, giving its best hearings (:meth:`second_guess`;
        made from ``recognizer`` when first needed if not given)."""
        self.on_look: Callable[[LookRecord], None] | None = None
        """Sees each look's evidence and decision (audio times), for recording a replayable
        set (``scripts/hearing_equivalence.py``)."""
        self.look_cpu: deque[float] = deque(maxlen=1000)
        """CPU seconds each of the latest second looks took on the Listener's thread (the
        benchmark reports them: the look runs inside the window, so latency no longer shows
        it)."""

    # ports.Listener -------------------------------------------------------------------------

    def start(
        self,
        on_stop_word: StopWordHeard,
        on_spoke_on: StopWordHeard | None = None,
        *,
        thread: bool = True,
    ) -> None:
        """Open the audio and start the Listener's thread; deaf until :meth:`listen`.

        ``on_spoke_on(token)``: after an end, the speaker's voice came back (the end may have
        been wrong; the host decides). ``thread=False``: no thread and no audio opened; the
        caller hands blocks to :meth:`process` itself (tests and benchmarks, block by block).
        """
        self._on_stop_word = on_stop_word
        self._on_spoke_on = on_spoke_on
        if not thread:
            return
        self.source.open()
        self._thread = threading.Thread(target=self._run, name="voicehost-listener", daemon=True)
        self._thread.start()

    def listen(self, token: int) -> None:
        """Hear stop words from now on and report them with ``token``."""
        with self._lock:
            self._token = token
            self._since = self.clock.now()
            self._generation += 1

    def stop_listening(self) -> None:
        """Be deaf; Vosk gets no audio until the next :meth:`listen`."""
        with self._lock:
            self._token = None

    def deafen_until(self, until: float) -> None:
        """Drop audio captured before ``until`` (plus the room's echo tail), then start afresh."""
        with self._lock:
            self._deaf_until = max(self._deaf_until, until + self.tuning.echo_tail_seconds)

    def close(self) -> None:
        """Stop the audio and the thread.

        The thread stops after the block it is in: audio still queued is not fed to Vosk, so
        on a machine slower than the microphone (a Pi, an emulator) close() does not wait for
        the backlog, nor return while Vosk is still at work on it.
        """
        self._closing.set()
        self.source.close()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)

    # for recordings and tests -----------------------------------------------------------------

    def listen_again(self, token: int) -> None:
        """An ``on_stop_word`` for tools: after a speech ends, hear the next one (token + 1)."""
        self.listen(token + 1)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until a finite source (a recording) is used up; True when it is."""
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    # the Listener's thread ------------------------------------------------------------------

    def _run(self) -> None:
        """Feed the recogniser; when the audio fails (a microphone pulled out), log it, wait and
        open the audio again, so voice comes back by itself. Keys end speeches meanwhile."""
        while not self._closing.is_set():
            try:
                for block in self.source.blocks():
                    if self._closing.is_set():  # closed: the audio still queued is not heard
                        return
                    self.process(block)
                return  # a finite source (a recording) is used up
            except Exception as exc:  # the game goes on; the log says why
                self.failure = exc
                if self._closing.is_set():
                    return
                log.exception(
                    "the listener failed; trying again in %.0f s (speeches end from the "
                    "keyboard or keypad meanwhile)",
                    RESTART_DELAY_SECONDS,
                    extra=LOG_ONLY,  # it may be night: no screen line marks the moment
                )
            if self._closing.wait(RESTART_DELAY_SECONDS):
                return
            self._reopen()

    def _reopen(self) -> None:
        self.restarts += 1
        self._interrupted = True  # what follows is a new stream: reset the recogniser
        try:
            self.source.close()
            self.source.open()
        except Exception:  # noqa: BLE001 - the next round of _run tries again
            log.exception("the microphone could not be opened again", extra=LOG_ONLY)

    def process(self, block: AudioBlock) -> None:
        """Handle one block of audio (called on the Listener's thread)."""
        with self._lock:
            token, generation = self._token, self._generation
            deaf_until = self._deaf_until
            cut = max(self._since, deaf_until)
        if token is None:
            self._fed_generation = -1
            return
        samples, start = self._after(block, cut, deaf_until)
        if len(samples) < len(block.samples):
            self._interrupted = True  # audio was dropped: what follows is a new stream
        if samples.size == 0:
            return
        if generation != self._fed_generation or self._interrupted:
            self._restart(start, generation)
        self._hear(samples, token, generation)

    def _after(self, block: AudioBlock, cut: float, deaf_until: float) -> tuple[np.ndarray, float]:
        """The part of ``block`` captured at or after clock time ``cut``."""
        if block.captured_at >= cut:
            return block.samples, block.captured_at
        if cut == deaf_until and cut != self._reported_deafness:
            self._reported_deafness = cut
            self._report(AudioDropped(block.captured_at, cut))
        skip = int(np.ceil((cut - block.captured_at) * block.sample_rate))
        return block.samples[skip:], block.captured_at + skip / block.sample_rate

    def _restart(self, start: float, generation: int) -> None:
        self.rule.reset()
        self.rule.look_ahead_seconds = self.LOOK_PADDING  # the look needs this much quiet
        self.meter.reset()
        self._audio = np.zeros(0, dtype=np.int16)
        self._audio_start = 0.0
        self._origin = start
        self._fed_generation = generation
        self._interrupted = False
        self._spoke_on_told = False
        self._looked.clear()

    #: Audio kept for the second look: the longest word, the window, padding and a margin.
    KEEP_SECONDS = 4.0
    #: The second look hears this much of the quiet on each side of the word (seconds).
    LOOK_PADDING = 0.2

    def _hear(self, samples: np.ndarray, token: int, generation: int) -> None:
        rate = self.recognizer.sample_rate
        self._audio = np.concatenate([self._audio, samples.astype(np.int16)])
        surplus = len(self._audio) - round(self.KEEP_SECONDS * rate)
        if surplus > 0:
            self._audio = self._audio[surplus:]
            self._audio_start += surplus / rate
        frames = self.meter.feed(samples)
        ready = self.rule.hear(frames)
        early = self.rule.take_early()
        if self.rule.spoke_on_at is not None and not self._spoke_on_told:
            self._spoke_on_told = True
            self._report(SpokeOn(self._origin + self.rule.spoke_on_at))
            self._spoke_on(token, generation)
        if self.rule.ended:
            return  # the speech is over: nothing more to look at until the next listen()
        for utterance in early:  # looked at while the window runs: the end is not delayed
            # One stretch at most waits for its window: a newer one means the older one's
            # window was broken by voice, so its look is dropped.
            self._looked.clear()
            look = self._examine(utterance)
            if look is not None:
                self._looked[(utterance.start, utterance.end)] = look
        for utterance in ready:
            now = frames[-1].end if frames else utterance.end
            decision = self._look(utterance, now)
            if decision is None:
                continue
            self._report(
                replace(decision, word=self._on_clock(decision.word), at=self._origin + decision.at)
            )
            if decision.verdict is Verdict.SPEECH_ENDED:
                self._speech_ended(token, generation)
                return

    def _look(self, utterance: Utterance, now: float) -> Decision | None:
        """The second look: the utterance's audio decoded on its own, from a fresh recogniser
        (already done while the window ran, when the utterance was offered early)."""
        look = self._looked.pop((utterance.start, utterance.end), None)
        if look is None:
            look = self._examine(utterance)
        if look is None:
            return None
        (evidence, hearings), recorder = look
        for hearing, heard, clicks in hearings:  # told now: not for a stretch talked on after
            heard, clicks = (tuple(self._on_clock(word) for word in w) for w in (heard, clicks))
            self._report(WordsHeard(heard, hearing, clicks))
        decision = judge(self.rule, utterance, evidence, now)
        if self.on_look is not None:
            self.on_look(recorder.record("", utterance, now, decision))
        return decision

    def _examine(self, utterance: Utterance) -> tuple[Look, Recorder] | None:
        """Decode the utterance's audio as captured, then cleaned of the room's steady noise,
        then (in a noisy room) cleaned harder, until one hearing would end the speech: its
        words and its panel's; else the first hearing the referees were asked of, or the first
        that heard a stop word, or the first (with each hearing's words, for the listening
        tool). A stop word is not always heard in the same audio cleaned or not (a quiet
        감사합니다 heard as 패스웍 압니다 once cleaned, a hissed one heard only once cleaned):
        any hearing the whole rule accepts is enough, and each must pass it all (stop words
        alone, time, referees). Then, in a noisy room, a stop word most hearings heard on its
        own (``agreeing_hearings``); in a quiet one, the grammar's second choice of each
        hearing (``look.py``)."""
        began = time.thread_time()
        try:
            return self._hear_out(utterance)
        finally:
            self.look_cpu.append(time.thread_time() - began)

    def _hear_out(self, utterance: Utterance) -> tuple[Look, Recorder] | None:
        rate = self.recognizer.sample_rate
        start = max(self._audio_start, utterance.start - self.LOOK_PADDING)
        first = max(0, round((start - self._audio_start) * rate))
        last = max(0, round((utterance.end + self.LOOK_PADDING - self._audio_start) * rate))
        if last <= first:
            return None
        room = Room(self.rule.speaker_level(), self._room_level())
        ears = _Ears(self, first, last, start, room)
        return hear_out(self.rule, self.tuning, utterance, ears), ears.recorder

    def second_guess(self) -> StopWordRecognizer:
        """``recognizer``'s grammar again, giving its best hearings (made when first asked)."""
        if self._second_guess is None:
            self._second_guess = StopWordRecognizer(
                self.recognizer.model, self.recognizer.words, self.recognizer.sample_rate,
                SECOND_CHOICES,
            )  # fmt: skip
        return self._second_guess

    def _room_level(self) -> float | None:
        """The room's steady noise (dBFS): the middle level of the frames in which the VAD
        heard no voice lately (``AloneRule.room_level``); early in a speech, the quietest fifth
        of the kept audio by 32 ms frames; None with no audio kept. (A player who talks on with
        few pauses leaves too little quiet in the audio kept for its quietest fifth to be the
        room's: a quiet room was taken for a noisy one, where the referees' doubt is not
        allowed.)"""
        room = self.rule.room_level()
        if room is None:
            size = FRAME
            whole = len(self._audio) // size * size
            if whole == 0:
                return None
            frames = self._audio[:whole].astype(np.float64).reshape(-1, size)
            power = np.mean(frames**2, axis=1) / 32768.0**2
            room = power_dbfs(float(np.percentile(power, 20)))
        return room

    def _without_noise(
        self,
        first: int,
        last: int,
        noise: np.ndarray,
        over: float,
        cleaning: Callable[[np.ndarray, np.ndarray, float], np.ndarray] = subtract_noise,
    ) -> np.ndarray:
        """The kept audio from ``first`` to ``last`` (samples) with ``over`` times the room's
        steady ``noise`` (the quietest part of the audio kept) taken out by ``cleaning`` (a
        frame more on each side is cleaned too, so the clip's edges are as clean as its
        middle)."""
        wider = max(0, first - FRAME)
        cleaned = cleaning(self._audio[wider : last + FRAME], noise, over)
        return cleaned[first - wider : last - wider]

    @staticmethod
    def _heard(recognizer: StopWordRecognizer, clip: np.ndarray, start: float) -> Hypothesis:
        """``clip`` decoded on its own by a fresh ``recognizer``, its words' times moved to
        ``start`` (audio seconds)."""
        recognizer.fresh()
        recognizer.accept(clip)
        heard = recognizer.finish()

        def placed(words: tuple[HeardWord, ...]) -> tuple[HeardWord, ...]:
            return tuple(replace(w, start=w.start + start, end=w.end + start) for w in words)

        alternatives = tuple((score, placed(words)) for score, words in heard.alternatives)
        return Hypothesis(placed(heard.words), heard.final, alternatives)

    def _speech_ended(self, token: int, generation: int) -> None:
        with self._lock:
            current = self._token == token and self._generation == generation
        if current and self._on_stop_word is not None:
            self._on_stop_word(token)

    def _spoke_on(self, token: int, generation: int) -> None:
        with self._lock:
            current = self._token == token and self._generation == generation
        if current and self._on_spoke_on is not None:
            self._on_spoke_on(token)

    def _on_clock(self, word: HeardWord) -> HeardWord:
        return replace(word, start=self._origin + word.start, end=self._origin + word.end)

    def _report(self, event: ListenerEvent) -> None:
        if self.on_event is not None:
            self.on_event(event)


class _Ears:
    """The Vosk side of one look (``look.Ears``): each hearing's clip made, and decoded by the
    grammar, a referee or for a second choice, only when first asked and once; every answer
    kept in ``recorder``."""

    def __init__(
        self, listener: VoskListener, first: int, last: int, start: float, room: Room
    ) -> None:
        self._listener = listener
        self._first, self._last, self._start = first, last, start
        self.room = room
        self.referees = len(listener.referees)
        self._clips: dict[str, np.ndarray] = {}
        self._noise: np.ndarray | None = None
        self.recorder = Recorder(self.referees, False, room)

    @property
    def can_doubt(self) -> bool:
        listener = self._listener
        doubting = listener._second_guess is not None or listener.recognizer.words is not None
        self.recorder.can_doubt = doubting
        return doubting

    def _clip(self, hearing: str) -> np.ndarray:
        clip = self._clips.get(hearing)
        if clip is not None:
            return clip
        listener, tuning = self._listener, self._listener.tuning
        first, last = self._first, self._last
        if hearing == CAPTURED:
            clip = listener._audio[first:last]
        else:
            if self._noise is None:
                self._noise = noise_spectrum(listener._audio)
            if hearing == CLEANED:
                clip = listener._without_noise(first, last, self._noise, tuning.denoise)
            elif hearing == CLEANED_HARDER:
                harder = tuning.denoise + tuning.denoise_stronger
                clip = listener._without_noise(first, last, self._noise, harder)
            else:
                clip = listener._without_noise(
                    first, last, self._noise, tuning.denoise_smooth, follow_noise
                )
        self._clips[hearing] = clip
        return clip

    def words(self, hearing: str) -> tuple[HeardWord, ...]:
        if hearing not in self.recorder.words:
            clip = self._clip(hearing)
            heard = VoskListener._heard(self._listener.recognizer, clip, self._start).words
            rate = self._listener.recognizer.sample_rate
            cleaned = None if hearing == CAPTURED else (self._start, self._start + len(clip) / rate)
            self.recorder.heard(hearing, heard, cleaned)
        return self.recorder.words[hearing]

    def cleaned(self, hearing: str) -> tuple[float, float] | None:
        self.words(hearing)
        return self.recorder.cleaned[hearing]

    def referee(self, hearing: str, index: int) -> Hypothesis:
        key = (hearing, index)
        if key not in self.recorder.refereed:
            referee = self._listener.referees[index]
            self.recorder.refereed[key] = VoskListener._heard(
                referee, self._clip(hearing), self._start
            )
        return self.recorder.refereed[key]

    def second(self, hearing: str) -> Hypothesis:
        if hearing not in self.recorder.second:
            self.recorder.second[hearing] = VoskListener._heard(
                self._listener.second_guess(), self._clip(hearing), self._start
            )
        return self.recorder.second[hearing]


def tuning_from(settings: ListenerSettings) -> ListenerTuning:
    """The Listener's tuning with the ``listener`` keys of config.yaml that name a tunable."""
    names = {tunable.name for tunable in fields(HearingTuning)}
    given = {key.name: getattr(settings, key.name) for key in fields(settings)}
    return replace(HearingTuning(), **{name: given[name] for name in names & given.keys()})


REFEREE_FILLERS = 20
"""Ordinary words in each referee's grammar: enough that a short word said alone («да»,
«пятый») has somewhere to land other than a stop word (measured on the proxy's tuned half)."""


@dataclass(frozen=True)
class ListenerKit:
    """A loaded model, its grammar and the tuning: makes Listeners over any audio source.

    Loading the model takes seconds; replaying many recordings (``voicehost listen --wav DIR``,
    the calibration) makes one kit and a Listener per recording from it.
    """

    model: SpeechModel
    words: tuple[str, ...]
    stop_words: tuple[str, ...]
    tuning: ListenerTuning
    referees: tuple[tuple[str, ...], ...] = ()
    """The panel's wider grammars: the words and ``REFEREE_FILLERS`` ordinary words each, one
    draw of them per referee (``REFEREE_SEEDS``)."""

    @classmethod
    def load(cls, settings: Settings, folder: Path, stop_words: Sequence[str]) -> ListenerKit:
        """Load the model in ``folder`` (seconds) and check that it knows every stop word
        (VocabularyError if not)."""
        return cls.on_model(SpeechModel(folder), settings, stop_words)

    @classmethod
    def on_model(
        cls, model: SpeechModel, settings: Settings, stop_words: Sequence[str]
    ) -> ListenerKit:
        """The kit for a model already loaded: its grammar and referee as config.yaml's
        ``listener`` section makes them (VocabularyError for unknown stop words)."""
        listening = settings.listener
        filler_count = listening.filler_count if listening.fillers else 0
        words = grammar_words(model, stop_words, filler_count, listening.competitors)
        referees = tuple(
            grammar_words(
                model, stop_words, max(filler_count, REFEREE_FILLERS), listening.competitors, seed
            )
            for seed in REFEREE_SEEDS
        )
        return cls(model, words, tuple(stop_words), tuning_from(listening), referees)

    def listener(
        self,
        source: AudioSource,
        clock: Clock,
        on_event: Callable[[ListenerEvent], None] | None = None,
        tuning: ListenerTuning | None = None,
    ) -> VoskListener:
        recognizer = StopWordRecognizer(self.model, self.words, source.sample_rate)
        referees = referee_recognizers(self.model, self.referees, source.sample_rate)
        return VoskListener(
            recognizer,
            source,
            clock,
            self.stop_words,
            tuning or self.tuning,
            on_event,
            referee=referees,
        )


def build_listener(
    settings: Settings,
    clock: Clock,
    folder: Path,
    stop_words: Sequence[str],
    source: AudioSource | None = None,
    on_event: Callable[[ListenerEvent], None] | None = None,
) -> VoskListener:
    """A Listener on the model in ``folder``: the microphone of config.yaml unless ``source``.

    Loads the model (seconds), checks that it knows every stop word (VocabularyError if not)
    and opens nothing yet: the microphone opens in ``start``.
    """
    from voicehost.voice_in.microphone import MicrophoneSource

    listening = settings.listener
    kit = ListenerKit.load(settings, folder, stop_words)
    if source is None:
        source = MicrophoneSource(
            clock,
            device=settings.audio.input_device,
            sample_rate=listening.sample_rate,
            block_seconds=listening.block_seconds,
        )
    log.info(
        "listening for %s with %s (%d grammar words)",
        stop_words,
        folder.name,
        len(kit.words),
        extra=LOG_ONLY,
    )
    return kit.listener(source, clock, on_event)


def replay(
    kit: ListenerKit,
    samples: np.ndarray,
    sample_rate: int,
    tuning: ListenerTuning | None = None,
    on_event: Callable[[ListenerEvent], None] | None = None,
    block_seconds: float = 0.05,
    looks: list[float] | None = None,
    on_look: Callable[[LookRecord], None] | None = None,
) -> list[float]:
    """Run a Listener from ``kit`` over a recording, block by block on this thread, hearing
    again after each end (as a game does for the next speech); the audio times (seconds) at
    which it ended a speech. The same recording always gives the same answer. ``looks`` gets
    the CPU seconds each second look took; ``on_look`` each look's evidence and decision."""
    from voicehost.clock import FakeClock
    from voicehost.voice_in.microphone import ArraySource

    source = ArraySource(samples, sample_rate, block_seconds=block_seconds)
    ends: list[float] = []
    listener = kit.listener(source, FakeClock(), on_event, tuning)
    listener.on_look = on_look
    current: list[float] = [0.0]

    def ended(token: int) -> None:
        ends.append(current[0])
        listener.listen(token + 1)

    listener.start(ended, thread=False)
    listener.listen(1)
    for block in source.blocks():
        current[0] = block.ends_at
        listener.process(block)
    if looks is not None:
        looks.extend(listener.look_cpu)
    return ends
