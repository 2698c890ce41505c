"""`voicehost listen [--wav FILE|DIR] [--calibrate] [--json]`: what the Listener hears and decides.

Runs the game's own Listener (same model, grammar, VAD and rule) over a recording, or live from
the microphone as a mic check. Every word heard is printed with its time, and every decision:
the speech ended, or a stop word was ignored and why.

``--wav DIR`` scores a folder of takes (``takes.json`` says which end with a stop word): heard,
missed, ended early, false ends. ``--calibrate`` measures the room's noise, records takes at the
table (with the host's consent, owner-only), replays them with a few settings and proposes the
best, writing it to config.yaml on confirmation (``voice_in/calibration.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost import config
from voicehost.cli.texts import text
from voicehost.clips import level_dbfs
from voicehost.clock import FakeClock, MonotonicClock
from voicehost.config import Settings
from voicehost.errors import VoicehostError
from voicehost.voice_in.microphone import AudioBlock, AudioSource, MicrophoneSource, wav_source
from voicehost.voice_in.models import find_model, install_hint
from voicehost.voice_in.rule import AloneTuning, Decision, Verdict
from voicehost.voice_in.takes import LabelledTake, Tally, read_takes, score
from voicehost.voice_in.vosk_listener import (
    CAPTURED,
    CLEANED_HARDER,
    CLEANED_SMOOTHLY,
    AudioDropped,
    ListenerEvent,
    ListenerKit,
    ListenerTuning,
    SpokeOn,
    VoskListener,
    WordsHeard,
    build_listener,
    replay,
)

if TYPE_CHECKING:
    from voicehost.phrases import PhraseBook

CATCH_UP_SECONDS = 30.0
"""After the microphone check, how long the Listener may take to hear what was already captured
(on a PC well under a second; a Raspberry Pi or an emulator is several times slower)."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "listen",
        help=text("listen"),
        description=text("listen.description"),
    )
    parser.add_argument(
        "--wav",
        help=text("listen.wav"),
    )
    parser.add_argument(
        "--calibrate",
        action="store_true",
        help=text("listen.calibrate"),
    )
    parser.add_argument("--out", help=text("listen.out"))
    parser.add_argument("--take-seconds", type=float, default=5.0, help=text("listen.take_seconds"))
    parser.add_argument("--rounds", type=int, default=1, help=text("listen.rounds"))
    parser.add_argument(
        "--consent",
        action="store_true",
        help=text("listen.consent"),
    )
    parser.add_argument("--yes", action="store_true", help=text("listen.yes"))
    parser.add_argument(
        "--not-real-time",
        action="store_true",
        help=text("listen.not_real_time"),
    )
    parser.add_argument("--json", action="store_true", help=text("listen.json"))
    parser.add_argument("--model", help=text("listen.model"))
    parser.add_argument("--words", help=text("listen.words"))
    parser.add_argument("--seconds", type=float, help=text("listen.seconds"))
    parser.set_defaults(func=run)


@dataclass
class Printer:
    """Prints listener events as text lines or JSON lines; counts the speeches ended."""

    as_json: bool
    book: Any = None
    """The game's ``PhraseBook``: the lines are in its language (JSON stays as it is)."""
    offset: float = 0.0
    ended: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, event: ListenerEvent) -> None:
        with self.lock:
            for line in self._lines(event):
                print(line, flush=True)

    def _lines(self, event: ListenerEvent) -> Iterator[str]:
        if isinstance(event, WordsHeard):
            for word in event.words:
                start, end = word.start - self.offset, word.end - self.offset
                if self.as_json:
                    yield self._json(
                        "word",
                        word=word.word,
                        start=start,
                        end=end,
                        confidence=round(word.confidence, 3),
                        hearing=event.hearing,
                        click=word in event.clicks,
                    )
                else:
                    line = f"{start:8.2f}–{end:.2f}  {word.word}  ({word.confidence:.2f})"
                    if word in event.clicks:
                        shortest = f"{AloneTuning.shortest_word_seconds:.1f}"
                        line += "  " + self.book.screen("listen_click", {"seconds": shortest})
                    if event.hearing != CAPTURED:
                        key = "listen_hearing_cleaned"
                        if event.hearing == CLEANED_HARDER:
                            key = "listen_hearing_harder"
                        elif event.hearing == CLEANED_SMOOTHLY:
                            key = "listen_hearing_smooth"
                        line += "  " + self.book.screen(key, {})
                    yield line
        elif isinstance(event, Decision):
            yield self._decision(event)
        elif isinstance(event, AudioDropped):
            start, end = event.start - self.offset, event.end - self.offset
            if self.as_json:
                yield self._json("dropped", start=start, end=end, reason="echo guard")
            else:
                yield f"{start:8.2f}  " + self.book.screen("listen_dropped", {"end": f"{end:.2f}"})
        elif isinstance(event, SpokeOn):
            at = event.at - self.offset
            if self.as_json:
                yield self._json("spoke_on", at=at)
            else:
                yield f"{at:8.2f}  " + self.book.screen("listen_spoke_on")

    def _decision(self, decision: Decision) -> str:
        at = decision.at - self.offset
        if decision.verdict is Verdict.SPEECH_ENDED:
            self.ended += 1
        if self.as_json:
            return self._json(
                "decision", verdict=str(decision.verdict), word=decision.word.word,
                word_end=decision.word.end - self.offset, at=at, reason=decision.reason,
            )  # fmt: skip
        reason = (
            self.book.screen(decision.phrase, dict(decision.params))
            if decision.phrase
            else decision.reason
        )
        if decision.verdict is Verdict.SPEECH_ENDED:
            return f"{at:8.2f}  " + self.book.screen("listen_speech_ended", {"reason": reason})
        return f"{at:8.2f}  " + self.book.screen("listen_ignored", {"reason": reason})

    @staticmethod
    def _json(kind: str, **values: Any) -> str:
        rounded = {k: round(v, 3) if isinstance(v, float) else v for k, v in values.items()}
        return json.dumps({"event": kind, **rounded}, ensure_ascii=False)


def run(args: argparse.Namespace) -> int:
    settings = config.load(args.config)
    folder = _model_folder(settings, args.model)
    stop_words = _stop_words(settings, args.words)
    from voicehost.phrases import PhraseBook

    printer = Printer(args.json, PhraseBook.load(settings.language))
    if args.calibrate:
        from voicehost.cli.calibrate import calibrate

        return calibrate(args, settings, folder, stop_words)
    if args.wav and Path(args.wav).is_dir():
        return score_folder(settings, folder, stop_words, Path(args.wav), printer)
    if args.wav:
        return _listen_to_recording(settings, folder, stop_words, Path(args.wav), printer)
    return _listen_to_microphone(settings, folder, stop_words, printer, args.seconds)


def _model_folder(settings: Settings, given: str | None) -> Path:
    if given:
        folder = Path(given).expanduser()
        if not folder.is_dir():
            raise VoicehostError(
                f"--model {given}: no such folder", phrase="listen_no_model_folder", path=given
            )
        return folder
    found = find_model(settings)
    if found is None:
        raise VoicehostError(
            f"no {settings.language} speech model in {settings.listener.models_dir}; install one "
            f"with {install_hint(settings.language)}",
            phrase="listen_no_model",
            language=settings.language,
            folder=settings.listener.models_dir,
        )
    return found


def _stop_words(settings: Settings, given: str | None) -> tuple[str, ...]:
    if given:
        words = tuple(word.strip() for word in given.split(",") if word.strip())
        if not words:
            raise VoicehostError(
                "--words needs at least one word, e.g. --words спасибо,пас",
                phrase="listen_no_words",
            )
        return words
    from voicehost.phrases import PhraseBook

    return tuple(PhraseBook.load(settings.language).stop_words)


def _listen_to_recording(
    settings: Settings, folder: Path, stop_words: tuple[str, ...], wav: Path, printer: Printer
) -> int:
    source = wav_source(wav, block_seconds=settings.listener.block_seconds)
    clock = FakeClock()
    listener = build_listener(settings, clock, folder, stop_words, source, printer)
    _intro(printer, "listen_intro_file", folder, stop_words,
           file=wav.name, seconds=f"{source.seconds:.1f}")  # fmt: skip
    started = time.perf_counter()
    listener.listen(1)
    listener.start(listener.listen_again)
    listener.wait()
    elapsed = time.perf_counter() - started
    if listener.failure is not None:
        raise VoicehostError(
            f"the listener failed on {wav.name}: {listener.failure}",
            phrase="listen_failed",
            file=wav.name,
            reason=listener.failure,
        )
    report_looks(printer, list(listener.look_cpu), settings.listener.silence_seconds)
    summary = {
        "speeches_ended": printer.ended,
        "audio_seconds": round(source.seconds, 3),
        "processing_seconds": round(elapsed, 3),
    }
    if printer.as_json:
        print(json.dumps({"event": "summary", **summary}))
    else:
        print(
            printer.book.screen(
                "listen_file_summary",
                {"ended": printer.ended, "seconds": f"{source.seconds:.1f}",
                 "elapsed": f"{elapsed:.2f}"},
            )
        )  # fmt: skip
    return 0


def score_folder(
    settings: Settings, folder: Path, stop_words: tuple[str, ...], takes_dir: Path, printer: Printer
) -> int:
    """Replay every take of ``takes_dir`` and score it (see ``voice_in/takes.py``)."""
    takes = read_takes(takes_dir)
    kit = ListenerKit.load(settings, folder, stop_words)
    _intro(printer, "listen_intro_takes", folder, stop_words, header=False,
           folder=takes_dir, count=len(takes))  # fmt: skip
    looks: list[float] = []
    tallies, rows = replay_takes(kit, takes, None, settings.listener.block_seconds, looks)
    for take, outcome, ends, heard in rows:
        if printer.as_json:
            print(printer._json("take", file=take.label.file, outcome=outcome,
                                ends=[round(end, 3) for end in ends], heard=heard))  # fmt: skip
        else:
            print(take_line(printer.book, take, outcome, ends, heard, upper=True))
    for condition, tally in tallies.items():
        line = summary_line(printer.book, condition, tally)
        if printer.as_json:
            print(printer._json("summary", condition=condition, heard=tally.heard,
                                missed=tally.missed, early=tally.early, false=tally.false,
                                takes=tally.takes))  # fmt: skip
        else:
            print(line)
    report_looks(printer, looks, settings.listener.silence_seconds)
    return 0


def report_looks(printer: Printer, looks: list[float], silence_seconds: float) -> None:
    """What the second looks cost on this machine, against the time the window of quiet
    leaves them: a look that takes longer delays the end by as much (a slow Pi)."""
    if not looks:
        return
    window = max(0.0, silence_seconds - VoskListener.LOOK_PADDING)
    spent = sorted(looks)
    median, longest = spent[len(spent) // 2], spent[-1]
    over = sum(look > window for look in spent)
    if printer.as_json:
        values = {"count": len(spent), "median_seconds": median, "max_seconds": longest,
                  "window_seconds": window, "over_window": over}  # fmt: skip
        print(printer._json("looks", **values))
        return
    book = printer.book
    print(book.screen("listen_looks", {"count": len(spent), "median": f"{median * 1000:.0f}",
                                       "max": f"{longest * 1000:.0f}",
                                       "window": f"{window * 1000:.0f}"}))  # fmt: skip
    if over:
        late = f"{longest - window:.2f}"  # 0.05 s, not «0.0 s later»
        print(book.screen("listen_looks_slow", {"over": over, "count": len(spent), "late": late}))


def replay_takes(
    kit: ListenerKit,
    takes: list[LabelledTake],
    tuning: ListenerTuning | None,
    block_seconds: float = 0.05,
    looks: list[float] | None = None,
) -> tuple[dict[str, Tally], list[tuple[LabelledTake, str, list[float], str]]]:
    """Replay and score each take; the tallies by condition, and per take (take, outcome,
    ends, the words heard). ``looks`` gets the CPU seconds of every second look."""
    tallies: dict[str, Tally] = {}
    rows = []
    for take in takes:
        heard: list[str] = []

        def on_event(event: ListenerEvent, heard: list[str] = heard) -> None:
            if isinstance(event, WordsHeard):  # each hearing of a look: «a b / a»
                heard.append(" ".join(word.word for word in event.words))

        ends = replay(kit, take.samples, take.sample_rate, tuning, on_event, block_seconds, looks)
        tally = tallies.setdefault(take.condition, Tally())
        outcome = score(tally, take.label.ends_with_stop_word, take.stop_word_end, ends)
        rows.append((take, outcome, ends, " / ".join(heard)))
    return tallies, rows


def take_line(
    book: PhraseBook,
    take: LabelledTake,
    outcome: str,
    ends: list[float],
    heard: str,
    *,
    upper: bool,
) -> str:
    """One take's outcome for a person, in the book's language."""
    said = f" «{take.label.said}»" if take.label.said else ""
    shown = book.screen(f"listen_outcome_{outcome}")
    at = ", ".join(book.screen("listen_seconds", {"seconds": f"{end:.2f}"}) for end in ends)
    return str(
        book.screen(
            "listen_take",
            {"file": take.label.file, "said": said, "outcome": shown if upper else shown.lower(),
             "ends": at or book.screen("listen_no_end"), "heard": heard or "-"},
        )
    )  # fmt: skip


def summary_line(book: PhraseBook, condition: str, tally: Tally) -> str:
    """One line of counts for a person, in the book's language."""
    parts = []
    if tally.with_stop_word:
        parts.append(
            book.screen("listen_tally_heard", {"heard": tally.heard, "total": tally.with_stop_word})
        )
        parts.append(book.screen("listen_tally_missed", {"missed": tally.missed}))
        parts.append(book.screen("listen_tally_early", {"early": tally.early}))
    without = tally.takes - tally.with_stop_word
    if without:
        parts.append(book.screen("listen_tally_false", {"false": tally.false, "without": without}))
    return f"{condition}: " + (", ".join(parts) if parts else book.screen("listen_tally_nothing"))


def _listen_to_microphone(
    settings: Settings,
    folder: Path,
    stop_words: tuple[str, ...],
    printer: Printer,
    seconds: float | None,
) -> int:
    clock = MonotonicClock()
    # Times are the microphone's own (its sample count since it opened): nothing here needs
    # the system clock, and a sound card that is not real time works too.
    microphone = MicrophoneSource(
        clock,
        device=settings.audio.input_device,
        sample_rate=settings.listener.sample_rate,
        block_seconds=settings.listener.block_seconds,
        real_time=False,
    )
    metered = LevelMeter(microphone)
    listener = build_listener(settings, clock, folder, stop_words, metered, printer)
    _intro(printer, "listen_intro_microphone", folder, stop_words)
    printer.offset = clock.now()
    listener.listen(1)  # before the microphone opens: its first sample is already heard
    listener.start(listener.listen_again)
    deadline = None if seconds is None else time.monotonic() + seconds
    try:
        while deadline is None or time.monotonic() < deadline:
            time.sleep(2.0 if deadline is None else min(2.0, max(0.0, deadline - time.monotonic())))
            if not printer.as_json:
                loudest = {"level": f"{metered.take():.0f}"}
                print(f"{clock.now() - printer.offset:8.2f}  "
                      + printer.book.screen("listen_loudest", loudest))  # fmt: skip
    except KeyboardInterrupt:
        pass
    finally:
        # what was captured until now is still heard (a slow machine hears it after the time
        # is up), then the Listener stops: never left at work while the program exits
        metered.close()
        caught_up = listener.wait(CATCH_UP_SECONDS)
        listener.close()
    if not caught_up:
        slow = {"seconds": f"{CATCH_UP_SECONDS:.0f}"}
        print(printer.book.screen("listen_slow", slow), file=sys.stderr)
    if microphone.overflows:
        overflows = {"count": microphone.overflows}
        print(printer.book.screen("listen_overflows", overflows), file=sys.stderr)
    return 0


def _intro(
    printer: Printer,
    key: str,
    model: Path,
    stop_words: tuple[str, ...],
    header: bool = True,
    **params: Any,
) -> None:
    if printer.as_json:
        return
    book = printer.book
    print(book.screen(key, {**params, "model": model.name, "words": ", ".join(stop_words)}))
    if header:
        print(book.screen("listen_header"))


class LevelMeter:
    """An audio source that remembers the loudest block since it was last asked (mic check)."""

    def __init__(self, source: AudioSource) -> None:
        self.source = source
        self.sample_rate = source.sample_rate
        self._loudest = -120.0

    def open(self) -> None:
        self.source.open()

    def blocks(self) -> Iterator[AudioBlock]:
        for block in self.source.blocks():
            self._loudest = max(self._loudest, level_dbfs(block.samples))
            yield block

    def take(self) -> float:
        """The loudest level (dBFS) since the last call."""
        loudest, self._loudest = self._loudest, -120.0
        return loudest

    def close(self) -> None:
        self.source.close()
