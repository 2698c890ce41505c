"""`voicehost listen --calibrate`: measure the table, record takes, propose listener settings.

1. The room: a few seconds with nobody talking give its noise floor.
2. Takes (only with the host's consent are they kept, owner-only, in ``--out``): each player in
   turn says a stop word alone, a sentence ending with one, and sentences that end otherwise
   (a stop word in mid-sentence, a look-alike word). Enter on the keyboard or the keypad steps
   on; ``s`` skips a take, ``q`` stops recording.
3. The takes are replayed through the game's Listener with a few silence windows and room
   margins; what was heard and the counts are printed, and the best setting (fewest false ends,
   then most stop words heard: a false stop is worse than a miss) is proposed and, once
   confirmed, written to config.yaml together with the players' measured level.

The takes form a folder that ``voicehost listen --wav DIR`` and ``bench/bench_listener.py --wav
DIR`` replay.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from voicehost import config
from voicehost.config import Settings
from voicehost.errors import VoicehostError
from voicehost.voice_in.calibration import (
    MARGIN_CANDIDATES,
    SILENCE_CANDIDATES,
    Candidate,
    choose,
    frame_levels,
    judge_room,
    room_noise,
    speech_level,
)
from voicehost.voice_in.takes import LabelledTake, TakeLabel, Tally, write_takes

if TYPE_CHECKING:
    from voicehost.phrases import PhraseBook
    from voicehost.voice_in.microphone import MicrophoneReader
    from voicehost.voice_in.vosk_listener import ListenerKit

ROOM_SECONDS = 3.0
QUIET_TAKE_DB = 10.0
"""A take whose loudest moment is less than this over the room's noise holds no voice."""


@dataclass(frozen=True)
class Prompt:
    """What a player is asked to say, and whether it ends with a stop word."""

    text: str
    said: str
    ends_with_stop_word: bool


def prompts(stop_words: tuple[str, ...], book: PhraseBook) -> list[Prompt]:
    """The takes of one round, for the game's stop words, in the book's language."""
    first = stop_words[0]
    second = stop_words[1] if len(stop_words) > 1 else first
    looks = book.screen("calibrate_look_alike_words")

    def asked(key: str, **params: Any) -> str:
        return str(book.screen(f"calibrate_prompt_{key}", params))

    return [
        Prompt(asked("alone", word=first), first, True),
        Prompt(asked("alone", word=second), second, True),
        Prompt(asked("sentence_stop", word=first), f"… {first}", True),
        Prompt(asked("sentence"), book.screen("calibrate_a_sentence"), False),
        Prompt(asked("go_on", word=first), f"{first}, …", False),
        Prompt(asked("look_alike", words=looks), looks, False),
    ]


def _answers(stream: TextIO) -> Iterator[str]:
    """One answer per line (a keypad's Enter is a line too); an empty line is Enter."""
    for line in stream:
        yield line.strip().lower()


def _ask(answers: Iterator[str], question: str) -> str:
    print(question, end=" ", flush=True)
    answer = next(answers, None)
    print()
    return "q" if answer is None else answer


def calibrate(
    args: argparse.Namespace, settings: Settings, folder: Path, stop_words: tuple[str, ...]
) -> int:
    """Run the calibration; see the module's docstring."""
    from voicehost.phrases import PhraseBook
    from voicehost.voice_in.microphone import MicrophoneReader
    from voicehost.voice_in.vosk_listener import ListenerKit

    if args.take_seconds < 1.5 or args.take_seconds > 30:
        raise VoicehostError(
            "--take-seconds must be 1.5 to 30 seconds", phrase="calibrate_take_seconds"
        )
    if args.rounds < 1 or args.rounds > 20:
        raise VoicehostError(
            "--rounds must be 1 to 20 (one round per player)", phrase="calibrate_rounds"
        )

    book = PhraseBook.load(settings.language)
    yes = tuple(book.screen("calibrate_yes_words").split())
    rate = settings.listener.sample_rate
    out = Path(args.out).expanduser() if args.out else _default_folder(settings)
    answers = _answers(sys.stdin)
    seconds = f"{args.take_seconds:.0f}"
    print(book.screen("calibrate_intro", {"count": 6 * args.rounds, "seconds": seconds}))
    # A wrong model or a missing microphone is said before anyone is asked anything.
    kit = ListenerKit.load(settings, folder, stop_words)
    reader = MicrophoneReader(
        settings.audio.input_device, sample_rate=rate, real_time=not args.not_real_time
    )
    reader.open()
    recorded: list[tuple[TakeLabel, np.ndarray]] = []
    try:
        keep = args.consent or _ask(
            answers, book.screen("calibrate_keep_question", {"folder": out})
        ).startswith(yes)
        if _ask(answers, book.screen("calibrate_room_question")) == "q":
            print(book.screen("calibrate_stopped"))
            return 0
        reader.discard_pending()
        quiet = reader.read(round(ROOM_SECONDS * rate))
        noise = room_noise(quiet, rate)
        print(book.screen("calibrate_room_noise", {"noise": f"{noise:.0f}"}))
        recorded = _record_takes(args, answers, reader, stop_words, book, rate, noise)
    finally:
        reader.close()
    if not recorded:
        print(book.screen("calibrate_no_takes"))
        return 0
    if keep:
        manifest = write_takes(out, recorded, rate)
        kept = {"count": len(recorded), "folder": out, "manifest": manifest.name}
        print(book.screen("calibrate_kept", kept))
    takes = [LabelledTake(label, samples, rate) for label, samples in recorded]
    speech = _players_level(kit, takes) or settings.listener.speech_dbfs
    verdict = judge_room(noise, speech)
    print(book.screen(verdict.phrase, verdict.params))
    chosen = _propose(kit, takes, settings, book)
    values = {
        "silence_seconds": chosen.silence_seconds,
        "room_margin_db": chosen.room_margin_db,
        "speech_dbfs": round(speech, 1),
    }
    shown = ", ".join(f"listener.{key}: {value}" for key, value in values.items())
    path = Path(args.config) if args.config else config.DEFAULT_CONFIG
    question = book.screen("calibrate_write_question", {"values": shown, "path": path})
    if args.yes or _ask(answers, question).startswith(yes):
        config.update(path, "listener", values)
        print(book.screen("calibrate_written", {"path": path}))
    else:
        print(book.screen("calibrate_not_written", {"values": shown}))
    return 0


def _default_folder(settings: Settings) -> Path:
    return settings.path("recordings") / time.strftime("calibration-%Y%m%d-%H%M%S")


def _record_takes(
    args: argparse.Namespace,
    answers: Iterator[str],
    reader: MicrophoneReader,
    stop_words: tuple[str, ...],
    book: PhraseBook,
    rate: int,
    noise: float,
) -> list[tuple[TakeLabel, np.ndarray]]:
    recorded: list[tuple[TakeLabel, np.ndarray]] = []
    round_prompts = prompts(stop_words, book)
    seconds = f"{args.take_seconds:.0f}"
    total = len(round_prompts) * args.rounds
    number = 0
    for player in range(1, args.rounds + 1):
        for prompt in round_prompts:
            number += 1
            asked = {"number": number, "total": total, "player": player,
                     "prompt": prompt.text, "seconds": seconds}  # fmt: skip
            answer = _ask(answers, book.screen("calibrate_take_question", asked))
            if answer == "q":
                return recorded
            if answer == "s":
                continue
            again = ""
            while True:
                reader.discard_pending()
                print(book.screen("calibrate_recording", {"seconds": seconds}), flush=True)
                samples = reader.read(round(args.take_seconds * rate))
                loudest = float(np.max(frame_levels(samples, rate)))
                if loudest >= noise + QUIET_TAKE_DB:
                    print(book.screen("calibrate_recorded", {"loudest": f"{loudest:.0f}"}))
                    break
                levels = {"loudest": f"{loudest:.0f}", "noise": f"{noise:.0f}"}
                again = _ask(answers, book.screen("calibrate_take_quiet", levels))
                if again in ("k", "s", "q"):
                    break
            if again == "q":
                return recorded
            if again == "s":
                continue
            label = TakeLabel(
                f"take-{number:02d}.wav",
                prompt.ends_with_stop_word,
                condition=book.screen("calibrate_at_the_table"),
                said=prompt.said,
            )
            recorded.append((label, samples))
    return recorded


def _players_level(kit: ListenerKit, takes: list[LabelledTake]) -> float | None:
    """The players' level: the loud part of what the VAD heard as voice in the takes."""
    from voicehost.voice_in.vad import FrameMeter, make_detector

    levels: list[float] = []
    for take in takes:
        meter = FrameMeter(make_detector(kit.tuning.vad, take.sample_rate), take.sample_rate)
        levels.extend(frame.level_db for frame in meter.feed(take.samples) if frame.speech)
    return speech_level(levels)


def _propose(
    kit: ListenerKit, takes: list[LabelledTake], settings: Settings, book: PhraseBook
) -> Candidate:
    from voicehost.cli.listen import replay_takes, summary_line, take_line

    current = kit.tuning
    tallies, rows = replay_takes(kit, takes, current, settings.listener.block_seconds)
    print(book.screen("calibrate_current", {"silence": current.silence_seconds,
                                            "margin": f"{current.room_margin_db:g}"}))  # fmt: skip
    for take, outcome, ends, heard in rows:
        print("  " + take_line(book, take, outcome, ends, heard, upper=False))
    print("  " + summary_line(book, book.screen("listen_all_takes"), _total(tallies)))
    candidates = []
    here = Candidate(current.silence_seconds, current.room_margin_db, _total(tallies))
    print(book.screen("calibrate_tried"))
    for silence in SILENCE_CANDIDATES:
        for margin in MARGIN_CANDIDATES:
            tuning = replace(current, silence_seconds=silence, room_margin_db=margin)
            tried, _rows = replay_takes(kit, takes, tuning, settings.listener.block_seconds)
            tally = _total(tried)
            candidates.append(Candidate(silence, margin, tally))
            tried_one = {"silence": f"{silence:.1f}", "margin": f"{margin:>4.0f}",
                         "heard": tally.heard, "missed": tally.missed,
                         "wrong": tally.early + tally.false}  # fmt: skip
            print(book.screen("calibrate_candidate", tried_one))
    choice = choose(candidates, here)
    chosen = choice.candidate
    if not choice.decided:
        why = book.screen(choice.phrase, dict(choice.params)) if choice.phrase else choice.why
        print(book.screen("calibrate_undecided", {"why": why}))
    proposed = {"silence": chosen.silence_seconds, "margin": f"{chosen.room_margin_db:g}",
                "heard": chosen.tally.heard, "total": chosen.tally.with_stop_word,
                "wrong": chosen.wrong_ends}  # fmt: skip
    print(book.screen("calibrate_proposed", proposed))
    return chosen


def _total(tallies: dict[str, Tally]) -> Tally:
    total = Tally()
    for tally in tallies.values():
        total.heard += tally.heard
        total.missed += tally.missed
        total.early += tally.early
        total.false += tally.false
        total.takes += tally.takes
        total.latencies.extend(tally.latencies)
    return total
