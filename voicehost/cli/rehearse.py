"""`voicehost rehearse`: hear every announcement, one by one, before a club night.

    voicehost rehearse                 every phrase; Enter/n next, r repeat, p previous, q quit
    voicehost rehearse --phase day     the phrases of one part of the game (the key's first word:
                                       game, acquaintance, night0, night, morning, day,
                                       foul, keypad)
    voicehost rehearse --key day.defence
    voicehost rehearse --list          the catalogue, with each phrase's duration
    voicehost rehearse --out DIR       every phrase rendered to DIR/<key>.wav
    voicehost rehearse --pack DIR      with a recorded voice pack, in game order
    voicehost rehearse --pack DIR --compare
                                       each phrase synthetic, then recorded, one after the other

Phrases with placeholders are said with sample values a game can have: seat 5, a count of 3,
the seats 2, 5 and 7, the role «мафия», a table of 10 players, a 3-minute (or 30-second)
discussion, 2 fouls, the acquaintance topic of config.yaml (or a sample one). A phrase
longer than its voice-pack slot is marked in the list.
"""

from __future__ import annotations

import argparse
import difflib
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from voicehost import cli, config
from voicehost.errors import VoicehostError

if TYPE_CHECKING:
    from voicehost.voice_out.recording import Player

SAMPLE_NUMBER = 5
SAMPLE_COUNT = 3
SAMPLE_SEATS = (2, 5, 7)
SAMPLE_ROLE = "mafia"
SAMPLE_BY_NAME = {"players": 10, "minutes": 3, "seconds": 30, "fouls": 2}
"""Placeholders whose sample must be a value a game can have (a table has 8 to 13 players)."""
SAMPLE_TOPIC = {"ru": "любимая книга", "en": "a favourite book"}

HELP_LINE = "Enter/n next · r repeat · p previous · q quit"


def register(subparsers: Any) -> None:
    """Add ``voicehost rehearse``."""
    parser = subparsers.add_parser(
        "rehearse",
        help=cli.SUBCOMMANDS["rehearse"],
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--phase", help="only the phrases whose key starts with this word")
    which.add_argument("--key", help="only this phrase")
    parser.add_argument("--list", action="store_true", help="print the catalogue with durations")
    parser.add_argument("--out", type=Path, help="render every phrase to DIR/<key>.wav")
    parser.add_argument("--pack", type=Path, help="speak with this voice pack (a folder)")
    parser.add_argument(
        "--compare",
        action="store_true",
        help="play each phrase synthetic, then from the voice pack",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """List, render or speak the chosen phrases."""
    from voicehost.cli.demo import with_pack
    from voicehost.phrases import PhraseBook

    settings = with_pack(config.load(args.config), args.pack)
    book = PhraseBook.load(settings.language)
    keys = select_keys(in_game_order(book.keys()), phase=args.phase, key=args.key)
    settings = with_sample_topic(settings, book.language)
    topic = settings.rules.acquaintance_topic
    utterances = [(key, book.render(key, sample_params(book, key, topic))) for key in keys]
    if args.compare:
        if not settings.voice.pack:
            raise VoicehostError("--compare needs a voice pack: --pack DIR (or voice.pack)")
        return compare(settings, book, utterances, key_presses(sys.stdin), sys.stdout)
    if args.list or args.out:
        library = _library(settings, book)
        if args.list:
            print_catalogue(utterances, library, sys.stdout)
        if args.out:
            written = render_to_files(utterances, library, args.out)
            print(f"Wrote {written} files to {args.out}.")
        return 0
    return rehearse(settings, book, utterances, key_presses(sys.stdin), sys.stdout)


def with_sample_topic(settings: config.Settings, language: str) -> config.Settings:
    """``settings`` with a sample acquaintance topic when config.yaml sets none.

    The topic is the one text a game is given from outside the book; the voice is prepared
    for the configured one, so with a sample topic nothing is synthesised while rehearsing.
    """
    import dataclasses

    if settings.rules.acquaintance_topic.strip():
        return settings
    topic = SAMPLE_TOPIC.get(language, SAMPLE_TOPIC["en"])
    rules = dataclasses.replace(settings.rules, acquaintance_topic=topic)
    return dataclasses.replace(settings, rules=rules)


#: Where a phrase falls in a game: the opening, the acquaintance round, night 0, each night, its
#: morning, the day, fouls, the end; then what the host says only when something happens.
GAME_ORDER = ("game.start", "acquaintance", "night0", "night", "morning", "day", "foul")
GAME_END = ("game.red_wins", "game.black_wins")


def in_game_order(keys: list[str]) -> list[str]:
    """The phrase keys in the order a game says them (the book's order within a phase)."""

    def place(key: str) -> int:
        if key in GAME_END:
            return len(GAME_ORDER)
        for index, start in enumerate(GAME_ORDER):
            if key == start or key.split(".", 1)[0] == start:
                return index
        return len(GAME_ORDER) + 1  # pauses, the journal, the keypad: when they happen

    return sorted(keys, key=place)


def select_keys(keys: list[str], *, phase: str | None, key: str | None) -> list[str]:
    """The phrase keys to rehearse; VoicehostError naming the choices when nothing matches."""
    if key is not None:
        if key in keys:
            return [key]
        close = difflib.get_close_matches(key, keys, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise VoicehostError(f"no phrase {key!r}{hint} (`voicehost rehearse --list` lists them)")
    if phase is None:
        return list(keys)
    chosen = [k for k in keys if k.split(".", 1)[0] == phase]
    if not chosen:
        phases = ", ".join(dict.fromkeys(k.split(".", 1)[0] for k in keys))
        raise VoicehostError(f"no phrases for phase {phase!r}; the phases are: {phases}")
    return chosen


def sample_params(book: Any, key: str, topic: str = "") -> dict[str, Any]:
    """Sample values for a phrase's placeholders, so it can be heard without a game."""
    from voicehost.phrases import Kind

    words = [name for name in book.words() if name != "and"]
    role = SAMPLE_ROLE if SAMPLE_ROLE in words else words[0]
    samples: dict[Kind, Any] = {
        Kind.NUMBER: SAMPLE_NUMBER,
        Kind.COUNT: SAMPLE_COUNT,
        Kind.LIST: SAMPLE_SEATS,
        Kind.WORD: role,
        Kind.TEXT: topic.strip() or SAMPLE_TOPIC.get(book.language, SAMPLE_TOPIC["en"]),
    }
    return {
        p.name: SAMPLE_BY_NAME.get(p.name, samples.get(p.kind, SAMPLE_NUMBER))
        for p in book.placeholders(key)
    }


def print_catalogue(utterances: list[tuple[str, Any]], library: Any, out: TextIO) -> None:
    """One line a phrase: key, duration, text; a phrase over its pack slot is marked."""
    from voicehost.voice_out.voicepack import slot_limit

    width = max((len(key) for key, _ in utterances), default=0)
    total = 0.0
    for key, utterance in utterances:
        seconds = library.utterance_clip(utterance).duration
        total += seconds
        limit = slot_limit(key)
        mark = f"  [over its {limit.seconds:.1f} s slot]" if seconds > limit.seconds else ""
        print(f"{key:<{width}}  {seconds:4.1f} s  {utterance.text}{mark}", file=out)
    print(f"{len(utterances)} phrases, {total:.0f} s in all.", file=out)


def render_to_files(utterances: list[tuple[str, Any]], library: Any, folder: Path) -> int:
    """Write each phrase to ``folder/<key>.wav``; returns how many."""
    from voicehost.clips import write_wav

    try:
        folder.mkdir(parents=True, exist_ok=True)
        for key, utterance in utterances:
            write_wav(library.utterance_clip(utterance), folder / f"{key}.wav")
    except OSError as exc:
        raise VoicehostError(f"cannot write to {folder}: {exc.strerror}") from exc
    return len(utterances)


def rehearse(
    settings: config.Settings,
    book: Any,
    utterances: list[tuple[str, Any]],
    keys: Iterator[str],
    out: TextIO,
) -> int:
    """Speak the phrases one by one, moving as the keys say."""
    from voicehost.cli import wiring
    from voicehost.clock import MonotonicClock

    clock = MonotonicClock()
    speaker, cues = wiring.make_audio(settings, clock, book)
    print(HELP_LINE, file=out)
    index = 0
    try:
        while 0 <= index < len(utterances):
            key, utterance = utterances[index]
            print(f"[{index + 1}/{len(utterances)}] {key}: {utterance.text}", file=out, flush=True)
            speaker.say(utterance)
            _wait_until(clock, speaker.busy_until())
            moved = _move(index, next(keys, "q"))
            if moved is None:
                break
            index = moved
    finally:
        speaker.close()
        cues.close()
    return 0


def _move(index: int, action: str) -> int | None:
    """The phrase a key moves to: Enter/n the next, r the same, p the previous; q: None."""
    if action == "q":
        return None
    if action == "p":
        return max(0, index - 1)
    return index if action == "r" else index + 1


def compare(
    settings: config.Settings,
    book: Any,
    utterances: list[tuple[str, Any]],
    keys: Iterator[str],
    out: TextIO,
    player: Player | None = None,
) -> int:
    """Each phrase synthetic, then recorded; the keys move as in ``rehearse``."""
    import dataclasses

    from voicehost.clips import silence
    from voicehost.voice_out.recording import DevicePlayer

    synthetic = _library(
        dataclasses.replace(settings, voice=dataclasses.replace(settings.voice, pack="")), book
    )
    recorded = _library(settings, book)
    player = player or DevicePlayer(settings.audio.sample_rate, settings.audio.output_device)
    print(HELP_LINE, file=out)
    index = 0
    try:
        while 0 <= index < len(utterances):
            key, utterance = utterances[index]
            print(f"[{index + 1}/{len(utterances)}] {key}: {utterance.text}", file=out, flush=True)
            print("    synthetic, then recorded", file=out, flush=True)
            player.play(synthetic.utterance_clip(utterance))
            player.play(silence(0.6, settings.audio.sample_rate))
            player.play(recorded.utterance_clip(utterance))
            moved = _move(index, next(keys, "q"))
            if moved is None:
                break
            index = moved
    finally:
        player.close()
    return 0


def _wait_until(clock: Any, moment: float) -> None:
    while (left := moment - clock.now()) > 0:
        time.sleep(min(left, 0.05))


def _library(settings: config.Settings, book: Any) -> Any:
    from voicehost.voice_out.speech import speech_library

    if settings.voice.engine == "text":
        raise VoicehostError("voice.engine is text: there is no voice to list or render")
    library = speech_library(settings)
    library.prepare(book.all_segments(texts=(settings.rules.acquaintance_topic,)))
    return library


def key_presses(stream: TextIO, enter: str = "n") -> Iterator[str]:
    """Keys: single key presses on a terminal, else the first letter of each line.

    Enter (and the space bar, and an empty line) is given as ``enter``: "next" when rehearsing,
    "" (keep the take) when recording.
    """
    if stream.isatty():
        yield from _terminal_keys(stream, enter)
        return
    for line in stream:
        yield line.strip()[:1].lower() or enter


def _terminal_keys(stream: TextIO, enter: str) -> Iterator[str]:
    import termios
    import tty

    descriptor = stream.fileno()
    saved = termios.tcgetattr(descriptor)
    try:
        tty.setcbreak(descriptor)
        while True:
            character = stream.read(1)
            if not character:
                return
            yield enter if character in "\r\n " else character.lower()
    finally:
        termios.tcsetattr(descriptor, termios.TCSADRAIN, saved)
