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
from typing import TYPE_CHECKING, TextIO

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


def prompts(stop_words: tuple[str, ...], language: str) -> list[Prompt]:
    """The takes of one round, for the game's stop words."""
    first = stop_words[0]
    second = stop_words[1] if len(stop_words) > 1 else first
    looks = {"ru": "«спасибочки» or «паспорт»", "ko": "«생각합니다» or «패스트»"}.get(
        language, f"a word that starts like «{first}»"
    )
    return [
        Prompt(f"say «{first}» alone, then stay quiet", first, True),
        Prompt(f"say «{second}» alone, then stay quiet", second, True),
        Prompt(f"say a short sentence ending with «{first}», then stay quiet", f"… {first}", True),
        Prompt("say a short sentence with no stop word in it", "(a sentence)", False),
        Prompt(
            f"say «{first}» and go straight on talking to the end of the take",
            f"{first}, …",
            False,
        ),
        Prompt(f"say a sentence ending in a look-alike word, such as {looks}", looks, False),
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
    rate = settings.listener.sample_rate
    out = Path(args.out).expanduser() if args.out else _default_folder(settings)
    answers = _answers(sys.stdin)
    print(f"Calibration: the room, then {6 * args.rounds} takes of {args.take_seconds:.0f} s.")
    # A wrong model or a missing microphone is said before anyone is asked anything.
    kit = ListenerKit.load(settings, folder, stop_words)
    reader = MicrophoneReader(
        settings.audio.input_device, sample_rate=rate, real_time=not args.not_real_time
    )
    reader.open()
    recorded: list[tuple[TakeLabel, np.ndarray]] = []
    try:
        keep = args.consent or _ask(
            answers,
            f"The takes are recordings of the players' voices. Keep them in {out} (only this "
            "user can read them) to replay later? [y/N]",
        ).startswith("y")
        if _ask(answers, "The room: nobody talks for 3 s. Press Enter to start (q: stop).") == "q":
            print("Stopped; nothing was recorded.")
            return 0
        reader.discard_pending()
        quiet = reader.read(round(ROOM_SECONDS * rate))
        noise = room_noise(quiet, rate)
        print(f"The room's noise floor: {noise:.0f} dBFS.")
        recorded = _record_takes(args, answers, reader, stop_words, settings.language, rate, noise)
    finally:
        reader.close()
    if not recorded:
        print("No takes recorded; nothing to propose.")
        return 0
    if keep:
        manifest = write_takes(out, recorded, rate)
        print(f"Kept {len(recorded)} takes in {out} ({manifest.name}); replay them with "
              f"`voicehost listen --wav {out}`.")  # fmt: skip
    takes = [LabelledTake(label, samples, rate) for label, samples in recorded]
    speech = _players_level(kit, takes) or settings.listener.speech_dbfs
    print(judge_room(noise, speech).text[0].upper() + judge_room(noise, speech).text[1:] + ".")
    chosen = _propose(kit, takes, settings)
    values = {
        "silence_seconds": chosen.silence_seconds,
        "room_margin_db": chosen.room_margin_db,
        "speech_dbfs": round(speech, 1),
    }
    shown = ", ".join(f"listener.{key}: {value}" for key, value in values.items())
    path = Path(args.config) if args.config else config.DEFAULT_CONFIG
    if args.yes or _ask(answers, f"Write {shown} to {path}? [y/N]").startswith("y"):
        config.update(path, "listener", values)
        print(f"Written to {path}.")
    else:
        print(f"Not written. To use it, set {shown} in config.yaml.")
    return 0


def _default_folder(settings: Settings) -> Path:
    return settings.path("recordings") / time.strftime("calibration-%Y%m%d-%H%M%S")


def _record_takes(
    args: argparse.Namespace,
    answers: Iterator[str],
    reader: MicrophoneReader,
    stop_words: tuple[str, ...],
    language: str,
    rate: int,
    noise: float,
) -> list[tuple[TakeLabel, np.ndarray]]:
    recorded: list[tuple[TakeLabel, np.ndarray]] = []
    round_prompts = prompts(stop_words, language)
    total = len(round_prompts) * args.rounds
    number = 0
    for player in range(1, args.rounds + 1):
        for prompt in round_prompts:
            number += 1
            answer = _ask(
                answers,
                f"Take {number}/{total} (player {player}): {prompt.text}. Press Enter, then "
                f"speak; it records {args.take_seconds:.0f} s (s: skip, q: stop).",
            )
            if answer == "q":
                return recorded
            if answer == "s":
                continue
            again = ""
            while True:
                reader.discard_pending()
                print(f"  recording {args.take_seconds:.0f} s …", flush=True)
                samples = reader.read(round(args.take_seconds * rate))
                loudest = float(np.max(frame_levels(samples, rate)))
                if loudest >= noise + QUIET_TAKE_DB:
                    print(f"  recorded (loudest {loudest:.0f} dBFS).")
                    break
                again = _ask(
                    answers,
                    f"  Nothing in this take was louder than the room ({loudest:.0f} dBFS, room "
                    f"{noise:.0f} dBFS): is the microphone on and near the player? Enter: record "
                    "it again, k: keep it as it is, s: skip it.",
                )
                if again in ("k", "s", "q"):
                    break
            if again == "q":
                return recorded
            if again == "s":
                continue
            label = TakeLabel(
                f"take-{number:02d}.wav",
                prompt.ends_with_stop_word,
                condition="at the table",
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


def _propose(kit: ListenerKit, takes: list[LabelledTake], settings: Settings) -> Candidate:
    from voicehost.cli.listen import replay_takes, summary_line

    current = kit.tuning
    tallies, rows = replay_takes(kit, takes, current, settings.listener.block_seconds)
    print(f"With the current settings (silence {current.silence_seconds} s, room margin "
          f"{current.room_margin_db:g} dB):")  # fmt: skip
    for take, outcome, ends, heard in rows:
        at = ", ".join(f"{end:.2f} s" for end in ends) or "no end"
        print(f"  {take.label.file} «{take.label.said}»: {outcome} ({at}); heard: {heard or '-'}")
    print("  " + summary_line("all takes", _total(tallies)))
    candidates = []
    here = Candidate(current.silence_seconds, current.room_margin_db, _total(tallies))
    print("Tried:")
    for silence in SILENCE_CANDIDATES:
        for margin in MARGIN_CANDIDATES:
            tuning = replace(current, silence_seconds=silence, room_margin_db=margin)
            tried, _rows = replay_takes(kit, takes, tuning, settings.listener.block_seconds)
            tally = _total(tried)
            candidates.append(Candidate(silence, margin, tally))
            print(f"  silence {silence:.1f} s, margin {margin:>4.0f} dB: {tally.heard} heard, "
                  f"{tally.missed} missed, {tally.early + tally.false} wrong ends")  # fmt: skip
    choice = choose(candidates, here)
    chosen = choice.candidate
    if not choice.decided:
        print(f"Cannot decide from these takes: {choice.why}.")
    print(
        f"Proposed: silence {chosen.silence_seconds} s, room margin {chosen.room_margin_db:g} dB "
        f"({chosen.tally.heard} of {chosen.tally.with_stop_word} stop words heard, "
        f"{chosen.wrong_ends} wrong ends; a false end is worse than a miss)."
    )
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
